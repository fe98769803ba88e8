/**
 * A finder's statistics (GET /api/profile/:call/stats and the profile page):
 * finds on caches of known D/T and type, on days with a gap, one of them
 * beside an RF position heard by an IGate (Tier A), give the D/T grid, the
 * calendar, the streaks, milestones, finds per type and the RF-proven share;
 * a DNF and a withdrawn find do not count; the profile page draws the 81-cell
 * grid and the 366-day calendar at 360 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { launchBrowser } from "../helpers/chromium.ts";
import type { FinderStats } from "../../src/game/finder-stats.ts";

const DAY = 86_400_000;
const INGEST = "ingest-secret-0123456789";
let g: Running;
let hider: TestUser;
let finder: TestUser;
let browser: Browser;
const now = Date.now();

/** The calendar cell of a time: its UTC month and day in a leap year. */
const cell = (at: number) => {
  const d = new Date(at);
  return Math.round((Date.UTC(2000, d.getUTCMonth(), d.getUTCDate()) - Date.UTC(2000, 0, 1)) / DAY);
};
const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);

// [difficulty, terrain, type, days ago]: a run of three days, one alone, then yesterday and today
const FINDS: Array<[number, number, string, number]> = [
  [1.5, 2, "traditional", 10],
  [1.5, 2, "traditional", 9],
  [3, 4.5, "multi", 8],
  [5, 5, "mystery", 5],
  [2, 1, "traditional", 1],
  [2, 1, "earth", 0],
];

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  hider = signedInUser(g.gw, "N0HID", { verified: true });
  finder = signedInUser(g.gw, "N0FND-7", { verified: true });
  for (const [k, [difficulty, terrain, type, ago]] of FINDS.entries()) {
    const lat = 48.1 + k / 100;
    const c = await g.post(
      "/api/caches",
      { name: `Cache ${k}`, type, size: "small", difficulty, terrain, lat, lon: 11.5, placedAt: now - 30 * DAY },
      { headers: { cookie: hider.cookie } },
    );
    expect(c.status).toBe(201);
    const id = ((await c.json()) as { id: number }).id;
    if (ago === 0) {
      expect(lat).toBe(48.15); // 48° 09.00' N, where the beacon below puts the finder
      // today's find beside the finder's own position, heard on RF by an IGate: Tier A
      const heard = await g.post("/ingest", { packets: ["N0FND-7>APRS,WIDE1-1,qAR,N0IG-10:!4809.00N/01130.00E["] }, { headers: { "x-ingest-secret": INGEST } });
      expect(heard.status).toBeLessThan(300);
    }
    const log = await g.post(`/api/caches/${id}/logs`, { kind: "find", foundAt: now - ago * DAY }, { headers: { cookie: finder.cookie } });
    expect(log.status).toBe(201);
  }
  // neither a DNF nor a withdrawn find counts
  const extra = await g.post(
    "/api/caches",
    { name: "Not found", type: "traditional", size: "small", difficulty: 4, terrain: 4, lat: 48.5, lon: 11.5 },
    { headers: { cookie: hider.cookie } },
  );
  const extraId = ((await extra.json()) as { id: number }).id;
  expect((await g.post(`/api/caches/${extraId}/logs`, { kind: "dnf" }, { headers: { cookie: finder.cookie } })).status).toBe(201);
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

describe("finder statistics", () => {
  let s: FinderStats;
  test("the D/T grid, the calendar, streaks, milestones, types and the RF-proven share", async () => {
    const r = await g.get("/api/profile/n0fnd/stats");
    expect(r.status).toBe(200);
    s = (await r.json()) as FinderStats;
    expect(s).toMatchObject({ call: "N0FND", finds: 6, unknown: 0 });
    const grade = (v: number) => (v - 1) * 2;
    const expected = Array.from({ length: 9 }, () => new Array<number>(9).fill(0));
    for (const [d, t] of FINDS) expected[grade(d)]![grade(t)]!++;
    expect(s.dt).toEqual(expected);
    expect(s.dt.flat().reduce((a, b) => a + b)).toBe(6);
    expect(s.days).toHaveLength(366);
    const days = new Array<number>(366).fill(0);
    for (const [, , , ago] of FINDS) days[cell(now - ago * DAY)]!++;
    expect(s.days).toEqual(days);
    expect(s.streaks.longest).toEqual({ days: 3, from: isoDay(now - 10 * DAY), to: isoDay(now - 8 * DAY) });
    expect(s.streaks.current).toEqual({ days: 2, from: isoDay(now - DAY), to: isoDay(now) });
    expect(s.byType).toEqual({ traditional: 3, multi: 1, mystery: 1, earth: 1 });
    expect(s.milestones).toEqual([{ n: 1, at: now - 10 * DAY, cache: { gid: expect.stringMatching(/:cache:/), name: "Cache 0" } }]);
    expect(s.rfProven).toBe(1);
    expect(s.rfProvenShare).toBeCloseTo(1 / 6, 6);
    // any SSID names the same finder; a callsign that is not one is refused
    expect(((await (await g.get("/api/profile/N0FND-9/stats")).json()) as FinderStats).finds).toBe(6);
    const bad = await g.get("/api/profile/not%20a%20call/stats");
    expect(bad.status).toBe(400);
    // someone with no finds: an empty grid and calendar, no streaks
    const none = (await (await g.get("/api/profile/N0HID/stats")).json()) as FinderStats;
    expect(none).toMatchObject({ finds: 0, rfProvenShare: null, streaks: { longest: null, current: null }, milestones: [] });
  });

  test("the profile page draws the grid and the calendar, and fits a phone", async () => {
    const ctx = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await ctx.newPage();
    await page.goto(`${g.url}/profile/N0FND`);
    await page.getByTestId("finder-stats").waitFor();
    expect(await page.locator("[data-testid=dt-grid] td").count()).toBe(81);
    expect(await page.locator("[data-testid=dt-grid] td[data-level]:not([data-level='0'])").count()).toBe(4); // six finds in four D/T combinations
    expect(await page.locator("[data-testid=day-grid] .day").count()).toBe(366);
    expect(await page.getByTestId("stats-summary").textContent()).toContain("6 finds, 1 RF-proven (17 %). Longest streak: 3 days");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await ctx.close();
  }, 30_000);
});
