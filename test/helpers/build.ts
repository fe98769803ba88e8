/**
 * The compiled executables, built once per source state: they live in
 * .cache/test-dist/<hash of the sources>/, so repeated runs (and killed runs)
 * reuse one copy instead of leaving 400 MB in the temp directory each time.
 * Older builds are removed when a new one is made.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { build, TARGETS, type Target } from "../../build.ts";
import { ROOT } from "./paths.ts";

const INPUTS = ["src", "ui", "radio", "schema.sql", "build.ts", "package.json"];

function sourceHash(): string {
  const h = createHash("sha256");
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) walk(join(p, name));
    } else {
      h.update(relative(ROOT, p));
      h.update(readFileSync(p));
    }
  };
  for (const i of INPUTS) if (existsSync(join(ROOT, i))) walk(join(ROOT, i));
  // The commit is embedded in the executable, so it is part of the key too.
  h.update(Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout);
  return h.digest("hex").slice(0, 16);
}

let built: Promise<Record<Target, string>> | null = null;

export function builtExecutables(): Promise<Record<Target, string>> {
  built ??= (async () => {
    const base = join(ROOT, ".cache/test-dist");
    const key = sourceHash();
    const dir = join(base, key);
    const paths = Object.fromEntries((Object.keys(TARGETS) as Target[]).map((t) => [t, join(dir, `svc-gateway-${t}${TARGETS[t].suffix}`)])) as Record<
      Target,
      string
    >;
    if (Object.values(paths).every((p) => existsSync(p))) return paths;
    const tmp = `${dir}.tmp-${process.pid}`;
    await build({ targets: Object.keys(TARGETS) as Target[], outdir: tmp, log: () => {} });
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
    for (const old of readdirSync(base)) {
      if (old !== key && !old.includes(".tmp-")) rmSync(join(base, old), { recursive: true, force: true });
    }
    return paths;
  })();
  return built;
}
