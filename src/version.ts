/**
 * What code is running: embedded at build time by build.ts (SVC_BUILD), or read
 * from package.json and git when run from a checkout.
 */
import { spawnSync } from "node:child_process";
import pkg from "../package.json" with { type: "json" };

export interface BuildInfo {
  name: string;
  version: string;
  commit: string | null;
  tag: string | null;
  repository: string;
  licence: string;
  builtAt: string | null;
}

declare const SVC_BUILD: Omit<BuildInfo, "name" | "version" | "repository" | "licence"> | undefined;

/** True when running inside an executable made by build.ts (which defines SVC_BUILD). */
export const isCompiled = typeof SVC_BUILD !== "undefined";

let cached: BuildInfo | null = null;

export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const embedded = typeof SVC_BUILD !== "undefined" ? SVC_BUILD : null;
  const repo = typeof pkg.repository === "string" ? pkg.repository : pkg.repository.url;
  cached = {
    name: pkg.name,
    version: pkg.version,
    repository: repo.replace(/^git\+/, "").replace(/\.git$/, ""),
    licence: pkg.license,
    commit: embedded ? embedded.commit : git("rev-parse", "HEAD"),
    tag: embedded ? embedded.tag : git("describe", "--tags", "--exact-match"),
    builtAt: embedded ? embedded.builtAt : null,
  };
  return cached;
}

function git(...args: string[]): string | null {
  if (isCompiled) return null;
  try {
    const r = spawnSync("git", args, { cwd: import.meta.dir, stdio: ["ignore", "pipe", "ignore"] });
    const out = r.stdout?.toString().trim();
    return r.status === 0 && out ? out : null;
  } catch {
    return null;
  }
}
