/**
 * Waypoints on the cache page at 360 px: the owner adds a parking typed in
 * degrees and minutes from the page's Waypoints section, and sees it with the
 * final in the list and as small markers on the page's map; a visitor sees
 * the parking, not the final, in both (and on the big map while the cache's
 * popup is open); and an area saved for offline use
 * shows them with the network off (as its saver saw them).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { contextFor, launchBrowser, launchProfile, openSavedOffline, PHONE } from "../helpers/chromium.ts";
import { tmpDir } from "../helpers/tmp.ts";

let g: Running;
let browser: Browser;
let owner: TestUser;
let visitor: TestUser;
let id = 0;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0WPU", { verified: true });
  visitor = signedInUser(g.gw, "N0WPV", { verified: true });
  const r = await g.post("/api/caches", { name: "Hill multi", type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 47.4, lon: 8.5 }, as(owner));
  id = ((await r.json()) as { id: number }).id;
  expect(
    (await g.post(`/api/caches/${id}/waypoints`, { kind: "final", name: "The box", lat: 47.41, lon: 8.51, note: "Behind the wall" }, as(owner))).status,
  ).toBe(201);
  browser = await launchBrowser();
}, 60_000);
afterAll(() => stopAll(browser, g));

async function open(u: TestUser): Promise<Page> {
  const ctx = await contextFor(browser, g.url, u.cookie, PHONE);
  const page = await ctx.newPage();
  await page.goto(`${g.url}/cache/${id}`);
  await page.getByTestId("waypoints").waitFor();
  return page;
}

describe("waypoints on the cache page", () => {
  test("the owner adds a parking; a visitor sees it, not the final", async () => {
    const page = await open(owner);
    const form = page.getByTestId("waypoint-form");
    await form.getByLabel("Kind").selectOption("parking");
    await form.getByLabel("Name").fill("Car park");
    await form.getByLabel("Latitude").fill("N 47° 23.940");
    await form.getByLabel("Longitude").fill("E 008° 29.940");
    await form.getByLabel("Note").fill("Free on Sundays");
    await form.getByRole("button", { name: "Add waypoint" }).click();
    await page.getByTestId("waypoint-parking").waitFor();
    expect(await page.getByTestId("waypoint-parking").innerText()).toContain("Car park");
    expect(await page.getByTestId("waypoint-final").innerText()).toContain("Behind the wall");
    // the page's map: the cache and its two waypoints
    await page.locator(".waypoint-marker").nth(1).waitFor();
    expect(await page.locator(".waypoint-marker").count()).toBe(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    const saved = ((await (await g.get(`/api/caches/${id}`)).json()) as { waypoints: Array<Record<string, unknown>> }).waypoints;
    expect(saved).toEqual([expect.objectContaining({ kind: "parking", name: "Car park", lat: 47.399, lon: 8.499, note: "Free on Sundays" })]);
    await page.context().close();

    const other = await open(visitor);
    await other.getByTestId("waypoint-parking").waitFor();
    expect(await other.getByTestId("waypoint-final").count()).toBe(0);
    expect(await other.getByText("Behind the wall").count()).toBe(0);
    expect(await other.getByTestId("waypoint-form").count()).toBe(0);
    await other.locator(".waypoint-marker").first().waitFor();
    expect(await other.locator(".waypoint-marker").count()).toBe(1);
    // the big map: the cache's parking shows while its popup is open
    await other.goto(`${g.url}/map?lat=47.4&lon=8.5&z=15`);
    await other.locator(".cache-icon").first().click();
    await other.locator(".leaflet-popup").waitFor();
    await other.locator(".waypoint-marker").first().waitFor();
    expect(await other.locator(".waypoint-marker").count()).toBe(1);
    await other.context().close();

    // signed out, the page opened directly (its server-drawn first view hands the app the cache's answer): the parking too
    const ctx = await contextFor(browser, g.url, null, PHONE);
    const out = await ctx.newPage();
    await out.goto(`${g.url}/cache/${id}`);
    await out.getByTestId("waypoint-parking").waitFor();
    expect(await out.getByTestId("waypoint-final").count()).toBe(0);
    await ctx.close();
  }, 60_000);

  test("a cache saved for offline use shows its waypoints with the network off", async () => {
    // saved at a desktop width (where the map shows the button) by a visitor who is not signed in, read on the phone
    const ctx = await launchProfile(tmpDir(), { viewport: { width: 900, height: 600 } });
    try {
      const page = await openSavedOffline(ctx, g.url, "/map?lat=47.4&lon=8.5&z=16", 1, `/cache/${id}`);
      await page.getByTestId("waypoint-parking").waitFor();
      expect(await page.getByTestId("waypoint-parking").innerText()).toContain("Free on Sundays");
      expect(await page.getByTestId("waypoint-final").count()).toBe(0);
    } finally {
      await ctx.close();
    }
  }, 90_000);
});
