/** RecentKeys: the "seen lately?" table behind the ingest, iGate and digipeater duplicate windows. */
import { describe, expect, test } from "bun:test";
import { RecentHashes, RecentKeys } from "../../src/lib/recent-keys.ts";
import { hash53 } from "../../src/lib/hash53.ts";

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

describe("RecentHashes", () => {
  test("every key noted is found with its time while its generation lasts, through the tables' growth", () => {
    const t = new RecentHashes(100_000, 30_000);
    const keys = Array.from({ length: 50_000 }, (_, i) => hash53(`N${i}>APRS:!line ${i}`));
    keys.forEach((k, i) => t.set(k, 1_000 + i / 1000));
    expect(t.size).toBe(50_000);
    keys.forEach((k, i) => expect(t.get(k)).toBe(1_000 + i / 1000));
    expect(t.get(hash53("never noted"))).toBeUndefined();
    // noted again: the newer time, one key
    t.set(keys[7]!, 2_000);
    expect(t.get(keys[7]!)).toBe(2_000);
    expect(t.size).toBe(50_000);
  });

  test("a steady stream of new keys keeps two windows of them", () => {
    const t = new RecentHashes(100_000, 30_000);
    let largest = 0;
    for (let ms = 0; ms < 3_600_000; ms += 4) {
      t.set(hash53(`line ${ms}`), ms);
      largest = Math.max(largest, t.size);
    }
    expect(largest).toBeLessThanOrEqual((2 * 30_000) / 4);
    expect(t.size).toBeGreaterThanOrEqual(30_000 / 4);
    expect(t.get(hash53("line 3599996"))).toBe(3_599_996);
    expect(t.get(hash53("line 0"))).toBeUndefined();
  });

  test("kept for at least a window and forgotten within two; a flood turns a full generation early; a clock stepped back turns one", () => {
    const t = new RecentHashes(1_000, 30_000);
    t.set(1, 0);
    for (let ms = 1_000; ms < 30_000; ms += 1_000) t.set(ms + 10, ms);
    expect(t.get(1)).toBe(0);
    for (let ms = 30_000; ms <= 60_000; ms += 1_000) t.set(ms + 10, ms);
    expect(t.get(1)).toBeUndefined();

    const f = new RecentHashes(100, 30_000);
    for (let i = 0; i < 10_000; i++) f.set(i, 5);
    expect(f.size).toBeLessThanOrEqual(200);
    expect(f.get(9_999)).toBe(5);
    expect(f.get(0)).toBeUndefined();

    const c = new RecentHashes(1_000, 30_000);
    c.set(1, 3_600_000);
    c.set(2, 0); // NTP stepped the clock back an hour
    for (let ms = 31_000; ms <= 62_000; ms += 31_000) c.set(ms, ms);
    expect(c.get(1)).toBeUndefined();
  });

  test("times from elsewhere are kept as given; the generations turn on the clock", () => {
    const t = new RecentHashes(1_000, 30_000);
    for (let i = 0; i < 100; i++) {
      t.set(10_000 + i, 1_000 + i, 3_600_000 + i);
      t.set(20_000 + i, 3_600_000 + i);
    }
    expect(t.get(10_000)).toBe(1_000);
    expect(t.get(20_000)).toBe(3_600_000);
  });

  test("keys that share their low bits (one slot) are all kept apart", () => {
    const t = new RecentHashes(10_000, 30_000);
    // multiples of 2^20 land on the same slot of any table up to 2^20 slots
    for (let i = 1; i <= 2_000; i++) t.set(i * 2 ** 20, i);
    for (let i = 1; i <= 2_000; i++) expect(t.get(i * 2 ** 20)).toBe(i);
    expect(t.get(0)).toBeUndefined();
  });
});
