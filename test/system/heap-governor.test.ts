/**
 * The heap governor (src/system/heap-governor.ts): a full collection once the
 * resident memory has grown by its allowance over its lowest since the last
 * one, not more often than every second; and on this runtime, memory taken by
 * garbage (arrays' storage too, which Bun's heapTotal does not count) is given
 * back by it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ALLOWANCE_BYTES, heapGovernor, MIN_GAP_MS, SHRINK_ALLOWANCE_BYTES, SHRINK_EVERY_MS } from "../../src/system/heap-governor.ts";
import { ROOT } from "../helpers/paths.ts";

const MB = 1024 * 1024;

/** A process whose resident size the test sets; a collection brings it to `live`. */
function fakeProcess(start: number, live: number) {
  const p = { size: start, live, at: 0, collected: 0, canCollect: true };
  return Object.assign(p, {
    readings: {
      rss: () => p.size,
      collect: () => {
        if (!p.canCollect) return false;
        p.collected++;
        p.size = p.live;
        return true;
      },
      now: () => p.at,
    },
  });
}

describe("heap governor", () => {
  test("collects once memory has grown by its allowance over its lowest, not again within the gap", () => {
    const p = fakeProcess(110 * MB, 110 * MB);
    const g = heapGovernor(p.readings);
    expect(g.check()).toBe(false);
    p.size = 110 * MB + ALLOWANCE_BYTES - 1;
    p.at = 1000;
    expect(g.check()).toBe(false);
    p.size = 110 * MB + ALLOWANCE_BYTES;
    p.at = 2000;
    expect(g.check()).toBe(true);
    expect(p.size).toBe(110 * MB);
    // grown again at once: waits for the gap
    p.size = 140 * MB;
    p.at = 2000 + MIN_GAP_MS - 1;
    expect(g.check()).toBe(false);
    p.at = 2000 + MIN_GAP_MS;
    expect(g.check()).toBe(true);
    expect(g.collections).toBe(2);
  });

  test("an idle process whose memory stays level is never collected", () => {
    const p = fakeProcess(57 * MB, 57 * MB);
    const g = heapGovernor(p.readings);
    for (let s = 0; s < 600; s++) {
      p.size = 57 * MB + (s % 7) * 0.5 * MB;
      p.at = s * 1000;
      g.check();
    }
    expect(p.collected).toBe(0);
  });

  test("memory the runtime gave back by itself lowers the base", () => {
    const p = fakeProcess(130 * MB, 130 * MB);
    const g = heapGovernor(p.readings);
    g.check();
    p.size = 112 * MB; // the runtime's own collection
    p.at = 1000;
    g.check();
    p.size = 120 * MB; // the allowance over 112, not over 130
    p.at = 2000;
    expect(g.check()).toBe(true);
  });

  test("memory that grew for good costs one collection, not one a second", () => {
    const p = fakeProcess(60 * MB, 60 * MB);
    const g = heapGovernor(p.readings);
    g.check();
    // pages of the executable read in, a database cache filled: not garbage
    p.size = p.live = 90 * MB;
    for (let s = 1; s <= 60; s++) {
      p.at = s * 1000;
      g.check();
    }
    expect(p.collected).toBe(1);
  });

  test("memory that has grown is shrunk once a period at most (compiled code and free pages given back), an idle process's never", () => {
    const p = fakeProcess(95 * MB, 95 * MB);
    let shrinks = 0;
    const readings = {
      ...p.readings,
      shrink: () => {
        shrinks++;
        p.size = 94 * MB;
        return true;
      },
    };
    const g = heapGovernor(readings);
    g.check();
    // grown by the shrink's allowance, under the collection's: nothing before the period is out
    p.size = 95 * MB + SHRINK_ALLOWANCE_BYTES;
    p.at = SHRINK_EVERY_MS - 1;
    expect(g.check()).toBe(false);
    p.at = SHRINK_EVERY_MS;
    expect(g.check()).toBe(true);
    expect(shrinks).toBe(1);
    expect(p.collected).toBe(0);
    expect(g.collections).toBe(1);
    // grown again at once: the next one waits for the period
    p.size = 94 * MB + SHRINK_ALLOWANCE_BYTES;
    p.at = SHRINK_EVERY_MS * 1.5;
    expect(g.check()).toBe(false);
    p.at = SHRINK_EVERY_MS * 2;
    expect(g.check()).toBe(true);
    expect(shrinks).toBe(2);
    // level for the next 3 hours (under the allowance over its lowest since): none
    for (let m = 1; m <= 180; m++) {
      p.size = 94 * MB + (m % 3) * MB;
      p.at = SHRINK_EVERY_MS * 2 + m * 60_000;
      g.check();
    }
    expect(shrinks).toBe(2);
    // an idle process, hours on end: never
    const idle = fakeProcess(57 * MB, 57 * MB);
    let idleShrinks = 0;
    const ig = heapGovernor({ ...idle.readings, shrink: () => ++idleShrinks > 0 });
    for (let m = 0; m <= 600; m++) {
      idle.size = 57 * MB + (m % 5) * 0.5 * MB;
      idle.at = m * 60_000;
      ig.check();
    }
    expect(idleShrinks).toBe(0);
  });

  test("a runtime without a collection to ask for is left alone", () => {
    const p = fakeProcess(60 * MB, 60 * MB);
    p.canCollect = false;
    const g = heapGovernor(p.readings);
    g.check();
    p.size = 160 * MB;
    p.at = 10_000;
    expect(g.check()).toBe(false);
    expect(g.collections).toBe(0);
  });

  test("on this runtime, memory taken by garbage (arrays' storage, strings, objects) is given back at the next check, counted", () => {
    // in a process of its own: the suite's other tests share this one's memory
    const from = (f: string) => JSON.stringify(join(ROOT, f));
    const script = `
      import { ALLOWANCE_BYTES, heapCollections, heapGovernor } from ${from("src/system/heap-governor.ts")};
      import { collect } from ${from("src/system/runtime.ts")};
      const rss = () => process.memoryUsage.rss();
      collect();
      const g = heapGovernor({ rss, collect, now: () => performance.now() });
      const quiet = g.check();
      const before = rss();
      const heapTotalBefore = process.memoryUsage().heapTotal;
      // what a burst of work leaves: rows read as arrays, strings, small objects; kept a while, then dropped
      let keep = [];
      for (let i = 0; rss() < before + ALLOWANCE_BYTES * 4 && i < 2_000; i++) {
        keep.push(Array.from({ length: 20_000 }, (_, j) => j + i));
        keep.push("packet ".repeat(2_000) + i);
        for (let j = 0; j < 500; j++) keep.push({ i, j, call: "N0CALL-" + j });
      }
      const grown = rss();
      const heapTotalGrown = process.memoryUsage().heapTotal;
      keep = [];
      const counted = heapCollections();
      const collected = g.check();
      console.log(JSON.stringify({ quiet, before, grown, heapTotalBefore, heapTotalGrown, collected, after: rss(), counted: heapCollections() - counted }));
    `;
    const r = Bun.spawnSync([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
    expect(r.stderr.toString()).toBe("");
    const o = JSON.parse(r.stdout.toString()) as Record<string, number | boolean> & { before: number; grown: number; after: number };
    const heapGrowth = ((o.heapTotalGrown as number) - (o.heapTotalBefore as number)) / MB;
    console.log(
      `resident: ${(o.before / MB).toFixed(1)} MB, grown by garbage to ${(o.grown / MB).toFixed(1)} MB (heapTotal grew ${heapGrowth.toFixed(1)} MB), after the governor's collection ${(o.after / MB).toFixed(1)} MB`,
    );
    // level memory: nothing asked
    expect(o.quiet).toBe(false);
    expect(o.grown).toBeGreaterThanOrEqual(o.before + ALLOWANCE_BYTES * 4);
    expect(o.collected).toBe(true);
    // most of what the garbage took is back with the system
    expect(o.after).toBeLessThan(o.before + (o.grown - o.before) / 2);
    // the operator sees it counted (GET /api/admin/runtime's heapCollections)
    expect(o.counted).toBe(1);
  });
});
