/** RecentKeys: the "seen lately?" table behind the ingest, iGate and digipeater duplicate windows. */
import { describe, expect, test } from "bun:test";
import { RecentKeys } from "../../src/lib/recent-keys.ts";

describe("RecentKeys", () => {
  test("a steady stream of new keys keeps two windows of them, not a growing table", () => {
    // a new key every 4 ms for an hour, a 30 s window: two generations hold at most 15,000
    const t = new RecentKeys(100_000, 30_000);
    let largest = 0;
    for (let ms = 0; ms < 3_600_000; ms += 4) {
      t.set(`line ${ms}`, ms);
      largest = Math.max(largest, t.size);
    }
    expect(largest).toBeLessThanOrEqual((2 * 30_000) / 4);
    expect(t.size).toBeGreaterThanOrEqual(30_000 / 4);
  });

  test("a key is remembered for at least a window, and forgotten within two", () => {
    const t = new RecentKeys(1_000, 30_000);
    t.set("a", 0);
    for (let ms = 1_000; ms < 30_000; ms += 1_000) t.set(`x${ms}`, ms);
    expect(t.get("a")).toBe(0);
    for (let ms = 30_000; ms <= 60_000; ms += 1_000) t.set(`y${ms}`, ms);
    expect(t.get("a")).toBeUndefined();
  });

  test("a full generation turns early: a flood never holds more than two generations", () => {
    const t = new RecentKeys(100, 30_000);
    for (let i = 0; i < 10_000; i++) t.set(`k${i}`, 5);
    expect(t.size).toBeLessThanOrEqual(200);
    expect(t.get("k9999")).toBe(5);
    expect(t.get("k0")).toBeUndefined();
  });

  test("times from elsewhere are kept as given; the generations turn on the clock", () => {
    const t = new RecentKeys(1_000, 30_000);
    // lines heard an hour ago, arriving now, interleaved with live ones: none is dropped early
    for (let i = 0; i < 100; i++) {
      t.set(`old${i}`, 1_000 + i, 3_600_000 + i);
      t.set(`live${i}`, 3_600_000 + i);
    }
    expect(t.get("old0")).toBe(1_000);
    expect(t.get("live0")).toBe(3_600_000);
  });

  test("a clock stepped back starts a new generation (nothing noted 'in the future' lingers for an hour)", () => {
    const t = new RecentKeys(1_000, 30_000);
    t.set("a", 3_600_000);
    t.set("b", 0); // NTP stepped the clock back an hour
    t.set("c", 1_000);
    expect(t.get("b")).toBe(0);
    for (let ms = 31_000; ms <= 62_000; ms += 31_000) t.set(`z${ms}`, ms);
    expect(t.get("a")).toBeUndefined();
  });

  test("countWithin counts a key once", () => {
    const t = new RecentKeys(2);
    t.set("a", 10);
    t.set("b", 20);
    t.set("a", 30); // a full generation turned: "a" is in both
    expect(t.countWithin(40, 100)).toBe(2);
    expect(t.countWithin(40, 15)).toBe(1);
  });
});
