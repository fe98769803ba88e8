/**
 * The heap governor (src/system/heap-governor.ts): a full collection once the
 * heap has grown by half over its lowest since the last one, above a floor
 * and not more often than every few seconds; and on this runtime, a heap
 * grown by garbage is brought back down by it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FLOOR_BYTES, heapGovernor, MIN_GAP_MS } from "../../src/system/heap-governor.ts";
import { ROOT } from "../helpers/paths.ts";

const MB = 1024 * 1024;

/** A heap whose size the test sets; a collection brings it to `live`. */
function fakeHeap(start: number, live: number) {
  const h = { size: start, live, at: 0, collected: 0, canCollect: true };
  return Object.assign(h, {
    readings: {
      heapTotal: () => h.size,
      collect: () => {
        if (!h.canCollect) return false;
        h.collected++;
        h.size = h.live;
        return true;
      },
      now: () => h.at,
    },
  });
}

describe("heap governor", () => {
  test("collects once the heap has grown by half over its lowest, not again within the gap", () => {
    const h = fakeHeap(20 * MB, 20 * MB);
    const g = heapGovernor(h.readings);
    expect(g.check()).toBe(false);
    h.size = 29 * MB;
    h.at = 1000;
    expect(g.check()).toBe(false); // 29 < 20 x 1.5
    h.size = 31 * MB;
    h.at = 2000;
    expect(g.check()).toBe(true);
    expect(h.size).toBe(20 * MB);
    // grown again at once: waits for the gap
    h.size = 45 * MB;
    h.at = 2000 + MIN_GAP_MS - 1;
    expect(g.check()).toBe(false);
    h.at = 2000 + MIN_GAP_MS;
    expect(g.check()).toBe(true);
    expect(g.collections).toBe(2);
  });

  test("an idle heap under the floor is never collected, however it grows", () => {
    const h = fakeHeap(6 * MB, 6 * MB);
    const g = heapGovernor(h.readings);
    g.check();
    h.size = FLOOR_BYTES - 1;
    h.at = 60_000;
    expect(g.check()).toBe(false);
    expect(h.collected).toBe(0);
  });

  test("a collection the runtime ran by itself lowers the base", () => {
    const h = fakeHeap(40 * MB, 40 * MB);
    const g = heapGovernor(h.readings);
    g.check();
    h.size = 20 * MB; // the runtime's own full collection
    h.at = 1000;
    g.check();
    h.size = 31 * MB; // half again over 20, not over 40
    h.at = 2000;
    expect(g.check()).toBe(true);
  });

  test("a runtime without a collection to ask for is left alone", () => {
    const h = fakeHeap(20 * MB, 20 * MB);
    h.canCollect = false;
    const g = heapGovernor(h.readings);
    g.check();
    h.size = 60 * MB;
    h.at = 10_000;
    expect(g.check()).toBe(false);
    expect(g.collections).toBe(0);
  });

  test("on this runtime, a heap grown by garbage past the floor comes back down at the next check, counted", () => {
    // in a process of its own: the suite's other tests share this one's heap, whose sweeping lags a collection
    const from = (f: string) => JSON.stringify(join(ROOT, f));
    const script = `
      import { FLOOR_BYTES, heapCollections, heapGovernor } from ${from("src/system/heap-governor.ts")};
      import { collect } from ${from("src/system/runtime.ts")};
      const size = () => process.memoryUsage().heapTotal;
      collect();
      const g = heapGovernor({ heapTotal: size, collect, now: () => performance.now() });
      const quiet = g.check();
      const before = size();
      // garbage that lives long enough to be kept by the young generation's collections, then is dropped
      let keep = [];
      for (let i = 0; size() < Math.max(FLOOR_BYTES, before * 1.5) * 1.1 && i < 5_000_000; i += 50_000)
        for (let j = i; j < i + 50_000; j++) keep.push({ j, s: "station " + j, at: [j, j + 1] });
      const grown = size();
      keep = [];
      const counted = heapCollections();
      const collected = g.check();
      console.log(JSON.stringify({ quiet, before, grown, collected, after: size(), counted: heapCollections() - counted }));
    `;
    const r = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    const o = JSON.parse(r.stdout.toString()) as { quiet: boolean; before: number; grown: number; collected: boolean; after: number; counted: number };
    console.log(
      `heap: ${(o.before / MB).toFixed(1)} MB, grown by garbage ${(o.grown / MB).toFixed(1)} MB, after the governor's collection ${(o.after / MB).toFixed(1)} MB`,
    );
    // a heap under the floor: nothing asked
    expect(o.quiet).toBe(false);
    expect(o.grown).toBeGreaterThan(Math.max(FLOOR_BYTES, o.before * 1.5));
    expect(o.collected).toBe(true);
    expect(o.after).toBeLessThan(o.grown * 0.75);
    // the operator sees it counted (GET /api/admin/runtime's heapCollections)
    expect(o.counted).toBe(1);
  });
});
