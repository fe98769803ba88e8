/**
 * Running code in workerd (the Workers runtime) through miniflare, in this
 * process: Bun bundles a worker entry for it as scripts/worker.ts bundles the
 * gateway's, and miniflare runs it with its Durable Objects on SQLite storage.
 */
import { dirname, join } from "node:path";
import { Miniflare, type MiniflareOptions } from "miniflare";
import { buildWorkerBundle, COMPATIBILITY_DATE, COMPATIBILITY_FLAGS } from "../../scripts/worker.ts";
import { tmpDir } from "./tmp.ts";

/** Bundles a worker entry; returns the bundle's path. */
export function bundleWorker(entry: string): Promise<string> {
  return buildWorkerBundle(entry, join(tmpDir(), "worker.mjs"));
}

/** A worker with one SQLite-backed Durable Object class, bound as `binding`. */
export function miniflareWith(script: string, durableObject: { binding: string; className: string }, more: Partial<MiniflareOptions> = {}): Miniflare {
  return new Miniflare({
    modules: true,
    scriptPath: script,
    // module names are relative to this root (the default, the working directory, cannot reach /tmp)
    modulesRoot: dirname(script),
    compatibilityDate: COMPATIBILITY_DATE,
    compatibilityFlags: COMPATIBILITY_FLAGS,
    durableObjects: { [durableObject.binding]: { className: durableObject.className, useSQLite: true } },
    ...more,
  } as MiniflareOptions);
}
