/**
 * A serving gateway asks for a full garbage collection itself once its
 * resident memory has grown by ALLOWANCE_BYTES over the lowest it has been
 * since the last one, and not more often than every MIN_GAP_MS; it looks every
 * CHECK_MS (reading the resident size costs about 10 us).
 *
 * Why: JavaScriptCore collects the whole heap when it has grown to about
 * twice what the last full collection left. Under a busy feed (the soak's
 * 750 packets/s) the process's memory climbs between its collections, and
 * comes back to the system only after one: the resident size peaks. A burst
 * of work (a catalog import while the feed runs) grows it by 3-12 MB a second.
 *
 * It watches the resident size, not the heap's: the heap's size as Bun reports
 * it (process.memoryUsage().heapTotal) counts only the heap's blocks, not the
 * storage of large arrays nor the characters of strings, so most of what a
 * burst takes does not show in it (in the governor's test, garbage that grew
 * the resident size by 32 MB grew heapTotal by 4.4 MB). A collection gives that
 * storage back at once. A full collection of the gateway's 15-20 MB live heap takes 10-25 ms;
 * an idle gateway, whose memory does not grow, never pays one.
 */
export const ALLOWANCE_BYTES = 8 * 1024 * 1024;
export const MIN_GAP_MS = 1000;
export const CHECK_MS = 250;

/**
 * Once SHRINK_EVERY_MS has passed since the last time, a gateway whose memory
 * has grown by SHRINK_ALLOWANCE_BYTES over its lowest since then also gives
 * back what it keeps only to run faster (MemoryReadings.shrink): the code
 * JavaScriptCore compiled, which compiles again as it runs, and the
 * allocator's free pages. Under the soak's load a gateway without it climbed
 * 1.5-2 MB an hour for two hours; with it, each shrink gave back about 10 MB,
 * what the shrinks left fell by 2.6 MB an hour over two hours, and the
 * resident size averaged 5 MB less, at no cost in CPU or loop delay the soak could see
 * (docs/operating.md, Memory). An idle gateway, whose memory does not grow,
 * never pays one.
 */
export const SHRINK_EVERY_MS = 10 * 60 * 1000;
export const SHRINK_ALLOWANCE_BYTES = 4 * 1024 * 1024;

export interface MemoryReadings {
  /** the process's resident size now (process.memoryUsage.rss()) */
  rss(): number;
  /** a full collection; false where the runtime offers none */
  collect(): boolean;
  /** compiled code dropped, a full collection, the allocator's free pages given back; absent where the runtime offers none */
  shrink?(): boolean;
  now(): number;
}

/** Full collections the governor of this process asked for (GET /api/admin/runtime). */
let asked = 0;
export const heapCollections = (): number => asked;

/** One governor's state: `check()` once a CHECK_MS; true when it collected. */
export function heapGovernor(r: MemoryReadings): { check(): boolean; readonly collections: number } {
  let low = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  let collections = 0;
  // the lowest since the last shrink (or the governor's start: start-up's own shrink, hosts/bun.ts)
  let shrunkLow = Number.POSITIVE_INFINITY;
  let shrunkAt: number | null = null;
  return {
    check() {
      const size = r.rss();
      // (memory the runtime gave back by itself shows as a lower size: the base follows it down)
      low = Math.min(low, size);
      shrunkLow = Math.min(shrunkLow, size);
      const now = r.now();
      shrunkAt ??= now;
      // (a shrink is a full collection too; the runtime may finish it once this call has returned:
      // the bases follow the size down at the next checks)
      const shrunk = !!r.shrink && now - shrunkAt >= SHRINK_EVERY_MS && size - shrunkLow >= SHRINK_ALLOWANCE_BYTES && r.shrink();
      if (!shrunk) {
        if (size - low < ALLOWANCE_BYTES || now - lastAt < MIN_GAP_MS) return false;
        if (!r.collect()) return false;
      }
      collections++;
      asked++;
      lastAt = now;
      // what the collection left is the new base (memory that grew for good, such as the executable's
      // pages read since, costs one collection, not one a second)
      low = r.rss();
      if (shrunk) {
        shrunkAt = now;
        shrunkLow = low;
      }
      return true;
    },
    get collections() {
      return collections;
    },
  };
}

/** Checks every CHECK_MS (the timer does not keep the process alive); returns what stops it. */
export function governHeap(r: MemoryReadings): () => void {
  const g = heapGovernor(r);
  const timer = setInterval(() => g.check(), CHECK_MS);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
