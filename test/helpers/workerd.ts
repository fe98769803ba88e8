/**
 * Running code in workerd (the Workers runtime) through miniflare, in this
 * process: Bun bundles a worker entry for it, and miniflare runs it with its
 * Durable Objects on SQLite storage.
 */
import { dirname, join } from "node:path";
import { Miniflare, type MiniflareOptions } from "miniflare";
import { tmpDir } from "./tmp.ts";

/** Bundles a worker entry (ES module, node: built-ins left to nodejs_compat); returns the bundle's path. */
export async function bundleWorker(entry: string): Promise<string> {
  const outdir = tmpDir();
  const r = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    external: ["node:*", "cloudflare:*", "bun:*"],
    format: "esm",
    outdir,
    naming: "worker.mjs",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!r.success) throw new Error("the worker bundle failed:\n" + r.logs.map(String).join("\n"));
  return join(outdir, "worker.mjs");
}

/** A worker with one SQLite-backed Durable Object class, bound as `binding`. */
export function miniflareWith(script: string, durableObject: { binding: string; className: string }, more: Partial<MiniflareOptions> = {}): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath: script,
    // module names are relative to this root (the default, the working directory, cannot reach /tmp)
    modulesRoot: dirname(script),
    compatibilityDate: "2026-04-01",
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { [durableObject.binding]: { className: durableObject.className, useSQLite: true } },
    ...more,
  } as MiniflareOptions);
}
