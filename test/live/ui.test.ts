/**
 * The map follows the live rooms in headless Chromium: a packet ingested
 * through POST /ingest appears on the open page and a moving station moves,
 * a find logged through the API shows on the map and in the activity panel,
 * all without a reload and well inside the layers' polling interval.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

import { waitFor } from "../helpers/wait.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;
let finder: TestUser;
let cacheId: number;

beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, TILE_URL: "off" });
  const owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  cacheId = (
    await (
      await g.post(
        "/api/caches",
        { name: "Live Map Box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 42.6, lon: -71.25 },
        { headers: { cookie: owner.cookie } },
      )
    ).json()
  ).id;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const ingest = (line: string) => g.post("/ingest", line, { headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" } });

describe("web app: the live map", () => {
  test("a packet ingested through the API appears on the open map, and moves, without a reload", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${g.url}/map?lat=42.6&lon=-71.3&z=10`);
    await page.locator("[data-testid=map][data-live=live]").waitFor({ timeout: 20_000 });
    await page.locator(".leaflet-marker-icon.cache-icon", { hasText: "Live Map Box" }).waitFor();
    expect(await page.locator(".aprs-icon", { hasText: "N0LIVE-9" }).count()).toBe(0);
    const navigations: string[] = [];
    page.on("framenavigated", (f) => navigations.push(f.url()));

    expect((await ingest("N0LIVE-9>APRS,WIDE1-1,qAR,W1AW-10:!4236.00N/07118.00W>088/036 live on the map")).status).toBe(200);
    // The station layer polls every 2 minutes while live: only the WebSocket brings it this soon.
    const marker = page.locator(".aprs-icon", { hasText: "N0LIVE-9" });
    await marker.waitFor({ timeout: 5000 });
    const before = await marker.boundingBox();
    await ingest("N0LIVE-9>APRS,WIDE1-1,qAR,W1AW-10:!4236.00N/07110.00W>088/036 further east");
    await page.waitForFunction(
      (x) => {
        const el = [...document.querySelectorAll(".aprs-icon")].find((e) => e.textContent?.includes("N0LIVE-9"));
        return !!el && el.getBoundingClientRect().x > x + 50;
      },
      before!.x,
      { timeout: 5000 },
    );
    expect(navigations).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("a find logged through the API appears on the map and in the activity panel", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${g.url}/map?lat=42.6&lon=-71.3&z=10`);
    await page.locator("[data-testid=map][data-live=live]").waitFor({ timeout: 20_000 });
    expect(await page.locator("[data-testid=live-feed] li").count()).toBe(0);
    expect((await g.post(`/api/caches/${cacheId}/logs`, { kind: "find", text: "found it live" }, { headers: { cookie: finder.cookie } })).status).toBe(201);
    await page.locator(".live-find", { hasText: "N0FND found it" }).waitFor({ timeout: 5000 });
    const item = page.locator("[data-testid=live-feed] li").first();
    await item.waitFor();
    expect(await item.textContent()).toContain("N0FND found Live Map Box");
    expect(await item.locator("a").getAttribute("href")).toBe(`/cache/${cacheId}`);
    // A reload starts from the rooms' snapshot, which holds the day's finds.
    await page.reload();
    await page.locator("[data-testid=live-feed] li", { hasText: "N0FND found Live Map Box" }).waitFor({ timeout: 10_000 });
    await page.close();
  });

  test("zoomed out to the whole world the map says it is not live, and leaves the rooms", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${g.url}/map?lat=42.6&lon=-71.3&z=10`);
    await page.locator("[data-testid=map][data-live=live]").waitFor({ timeout: 20_000 });
    const open = g.gw.live.rooms.stats().websockets;
    expect(open).toBeGreaterThanOrEqual(1);
    // Zoom out a step at a time (each after the last animation ended) until the map leaves the rooms.
    for (let i = 0; i < 12 && (await page.locator("[data-testid=map][data-live=off]").count()) === 0; i++) {
      await page.locator(".leaflet-control-zoom-out").click();
      await page.waitForFunction(() => !document.querySelector(".leaflet-zoom-anim"));
    }
    await page.locator("[data-testid=map][data-live=off]").waitFor({ timeout: 10_000 });
    expect(await page.locator(".live-state").textContent()).toContain("Not live");
    await waitFor(() => g.gw.live.rooms.stats().websockets < open, "the map's socket to close", { timeoutMs: 5000 });
    expect(g.gw.live.rooms.stats().websockets).toBe(open - 1);
    await page.close();
  });
});
