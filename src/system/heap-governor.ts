/**
 * A serving gateway asks for a full garbage collection itself once its
 * JavaScript heap has grown by half over the lowest it has been since the
 * last one, and not more often than every MIN_GAP_MS nor below FLOOR_BYTES;
 * it looks every CHECK_MS (a read of the heap's size costs about 10 us).
 *
 * Why: JavaScriptCore collects the whole heap when it has grown to about
 * twice what the last full collection left. Under a busy feed (the soak's
 * 750 packets/s) that is a sawtooth of the heap from about 15 to 45 MB every
 * one to four minutes, and the memory comes back to the system only after
 * the collection: the process's RSS peaks (about 30 MB above its usual
 * level). A burst of work (a catalog import while the feed runs) grows it by
 * 3-12 MB a second. A full collection of the gateway's 15-20 MB live heap
 * takes 10-25 ms; an idle gateway, whose heap stays under the floor, never
 * pays one.
 */
export const FLOOR_BYTES = 16 * 1024 * 1024;
export const GROWTH = 1.5;
export const MIN_GAP_MS = 1000;
export const CHECK_MS = 250;

export interface HeapReadings {
  /** the JavaScript heap's size now (process.memoryUsage().heapTotal) */
  heapTotal(): number;
  /** a full collection; false where the runtime offers none */
  collect(): boolean;
  now(): number;
}

/** Full collections the governor of this process asked for (GET /api/admin/runtime). */
let asked = 0;
export const heapCollections = (): number => asked;

/** One governor's state: `check()` once a CHECK_MS; true when it collected. */
export function heapGovernor(r: HeapReadings): { check(): boolean; readonly collections: number } {
  let low = Number.POSITIVE_INFINITY;
  let lastAt = Number.NEGATIVE_INFINITY;
  let collections = 0;
  return {
    check() {
      const size = r.heapTotal();
      // (a collection the runtime ran by itself shows as a lower size: the base follows it down)
      low = Math.min(low, size);
      const now = r.now();
      if (size < FLOOR_BYTES || size < low * GROWTH || now - lastAt < MIN_GAP_MS) return false;
      if (!r.collect()) return false;
      collections++;
      asked++;
      lastAt = now;
      low = r.heapTotal();
      return true;
    },
    get collections() {
      return collections;
    },
  };
}

/** Checks every CHECK_MS (the timer does not keep the process alive); returns what stops it. */
export function governHeap(r: HeapReadings): () => void {
  const g = heapGovernor(r);
  const timer = setInterval(() => g.check(), CHECK_MS);
  (timer as { unref?: () => void }).unref?.();
  return () => clearInterval(timer);
}
