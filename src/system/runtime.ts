/**
 * The running process's own figures, for the operator (GET /api/admin/runtime)
 * and the soak bench: memory, open file descriptors, the WAL's size and the
 * event loop's delay. The loop monitor starts at the first read, so a gateway
 * nobody asks pays nothing; each read reports the delays since the one before.
 * node:fs and node:perf_hooks load at the first read (a Workers runtime has
 * neither /proc nor a data directory: those figures are null there).
 */
type IntervalHistogram = ReturnType<typeof import("node:perf_hooks").monitorEventLoopDelay>;
import { DB_FILE_NAME } from "../core/store/db.ts";
import type { RuntimeFigures } from "./shapes.ts";
import { heapCollections } from "./heap-governor.ts";

let loop: IntervalHistogram | null = null;
let loopSince = 0;

const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;
const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;

type Fs = typeof import("node:fs");

/** Open descriptors of this process (Linux: /proc/self/fd), or null where there is no /proc. */
function openFds(fs: Fs | null): number | null {
  try {
    return fs ? fs.readdirSync("/proc/self/fd").length : null;
  } catch {
    return null;
  }
}

function fileBytes(fs: Fs | null, path: string): number | null {
  try {
    return fs ? fs.statSync(path).size : null;
  } catch {
    return null;
  }
}

const optional = <T>(p: Promise<T>) => p.catch(() => null);

/** A full garbage collection where the runtime offers one (Bun; Node with --expose-gc). */
export function collect(): boolean {
  const g = globalThis as { Bun?: { gc(sync: boolean): void }; gc?: () => void };
  if (g.Bun) g.Bun.gc(true);
  else if (typeof g.gc === "function") g.gc();
  else return false;
  return true;
}

/**
 * The runtime's light collection where it offers one (Bun.gc(false), not forced:
 * under a millisecond, against 10-25 ms for the full one the heap governor asks
 * for), for a burst of work between its steps. Between a catalog import's parse
 * batches it halves what the import adds to the resident size before the next
 * full collection (`bun run bench import`: a 300-cache import raised a fresh
 * process's resident size by up to 9.7-9.9 MB without it, 4.4-5.0 MB with it).
 */
export function collectLight(): boolean {
  const g = globalThis as { Bun?: { gc(sync: boolean): void } };
  if (!g.Bun) return false;
  g.Bun.gc(false);
  return true;
}

/** The resident set's file-backed and anonymous parts, MiB (Linux: /proc/self/status), or nulls. */
function residentParts(fs: Fs | null): { rssFileMb: number | null; rssAnonMb: number | null } {
  try {
    const status = fs ? fs.readFileSync("/proc/self/status", "utf8") : "";
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
      return m ? mb(Number(m[1]) * 1024) : null;
    };
    return { rssFileMb: kb("RssFile"), rssAnonMb: kb("RssAnon") };
  } catch {
    return { rssFileMb: null, rssAnonMb: null };
  }
}

/** bun:jsc, where the runtime is Bun. */
const bunJsc = () => (typeof process !== "undefined" ? process.getBuiltinModule?.("bun:jsc") : undefined) as typeof import("bun:jsc") | undefined;

/** What JavaScriptCore's heap spans (bun:jsc), MiB, or null on another runtime. */
function heapCapacity(): number | null {
  const stats = bunJsc()?.heapStats?.();
  return stats ? mb(stats.heapCapacity) : null;
}

/** bun:jsc's count of the functions loaded from each part of an executable's profiled bytecode (build.ts), or null. */
function bytecodeLayout(): RuntimeFigures["bytecodeLayout"] {
  const s = bunJsc()?.bytecodeOrderStats?.();
  return s ? { hot: s.hot, cold: s.cold, unknown: s.unknown } : null;
}

/**
 * The figures of this process, whose database is in `dataDir` and which started at `startedAt` (unix ms);
 * with `gc`, after a full garbage collection (what is live, without the garbage of the moment).
 */
export async function runtimeFigures(dataDir: string, startedAt: number, gc = false): Promise<RuntimeFigures> {
  const fs = await optional(import("node:fs"));
  const collected = gc && collect();
  const mem = typeof process !== "undefined" && typeof process.memoryUsage === "function" ? process.memoryUsage() : null;
  let eventLoop: RuntimeFigures["eventLoop"] = null;
  const now = Date.now();
  if (loop) {
    eventLoop = { p50Ms: ms(loop.percentile(50)), p99Ms: ms(loop.percentile(99)), maxMs: ms(loop.max), overS: Math.round((now - loopSince) / 1000) };
    loop.reset();
  } else {
    try {
      const hooks = await import("node:perf_hooks");
      loop = hooks.monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
    } catch {
      // a runtime without the monitor reports no loop figures
    }
  }
  loopSince = now;
  return {
    pid: typeof process !== "undefined" ? process.pid : null,
    uptimeS: Math.round((now - startedAt) / 1000),
    rssMb: mem ? mb(mem.rss) : null,
    ...residentParts(fs),
    heapUsedMb: mem ? mb(mem.heapUsed) : null,
    heapTotalMb: mem ? mb(mem.heapTotal) : null,
    heapCapacityMb: heapCapacity(),
    heapCollections: heapCollections(),
    openFds: openFds(fs),
    walBytes: fileBytes(fs, `${dataDir}/${DB_FILE_NAME}-wal`),
    eventLoop,
    collected,
    bytecodeLayout: bytecodeLayout(),
  };
}
