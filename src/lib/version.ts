/**
 * What code is running: embedded at build time (SVC_BUILD) by build.ts in the
 * executable and by scripts/worker.ts in the worker bundle, or read from
 * package.json and git when run from a checkout.
 */
import { spawnSync } from "node:child_process";
import pkg from "../../package.json" with { type: "json" };

export interface BuildInfo {
  name: string;
  version: string;
  commit: string | null;
  tag: string | null;
  repository: string;
  licence: string;
  builtAt: string | null;
}

/** What a build embeds; `executable: false` in the worker bundle (scripts/worker.ts), which is no executable. */
export type EmbeddedBuild = Pick<BuildInfo, "commit" | "tag" | "builtAt"> & { executable?: false };
declare const SVC_BUILD: EmbeddedBuild | undefined;

/** True when running inside an executable made by build.ts (which defines SVC_BUILD). */
export const isCompiled = typeof SVC_BUILD !== "undefined" && SVC_BUILD.executable !== false;

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
  if (typeof SVC_BUILD !== "undefined") return null;
  try {
    const r = spawnSync("git", args, { cwd: import.meta.dir, stdio: ["ignore", "pipe", "ignore"] });
    const out = r.stdout?.toString().trim();
    return r.status === 0 && out ? out : null;
  } catch {
    return null;
  }
}
