/**
 * The hide form's picker and its buttons in headless Chromium at 360 px:
 * - it opens where the hider is when the browser may already say so, else
 *   where they last looked on the map, else in this instance's region (the
 *   middle of its caches), never at 30 N 0 E in the Sahara;
 * - "Use my location" fills the coordinates from the browser's position;
 * - "Save as draft" keeps the cache to its owner (404 for anyone else) until
 *   published from its page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, geoContext, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const PHONE = { width: 360, height: 740 };
let g: Running;
let browser: Browser;
let hider: TestUser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  hider = signedInUser(g.gw, "N0HID", { verified: true });
  // this instance's caches lie around 47.0 N 8.0 E
  for (const [lat, lon] of [
    [46.9, 7.9],
    [47.1, 8.1],
  ])
    expect(
      (
        await g.post(
          "/api/caches",
          { name: `Cache ${lat}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon },
          { headers: { cookie: hider.cookie } },
        )
      ).status,
    ).toBe(201);
  browser = await launchBrowser();
}, 60_000);
afterAll(() => stopAll(browser, g));

/** The picker's view once it has settled: [lat, lon, zoom]. */
async function pickerView(page: Page, until: (v: number[]) => boolean): Promise<number[]> {
  const read = async () => ((await page.getByTestId("picker").getAttribute("data-view")) ?? "").split(",").map(Number);
  for (let i = 0; i < 100; i++) {
    const v = await read();
    if (v.length === 3 && until(v)) return v;
    await page.waitForTimeout(50);
  }
  return read();
}

describe("the hide form", () => {
  test("the picker opens in this instance's region for a new browser with no position, and the config says where that is", async () => {
    expect(((await (await g.get("/api/config")).json()) as { region: unknown }).region).toEqual({ lat: 47, lon: 8, zoom: 10, from: "caches" });
    const ctx = await contextFor(browser, g.url, hider.cookie);
    const page = await ctx.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(`${g.url}/hide`);
    const [lat, lon, z] = await pickerView(page, (v) => v[2] === 10);
    expect({ lat, lon, z }).toEqual({ lat: 47, lon: 8, z: 10 });
    await ctx.close();
  });

  test("with a last map view it opens there; with the position allowed it opens where the hider is, and Use my location fills the fields", async () => {
    const here = { latitude: 46.5, longitude: 6.6 };
    const ctx = await geoContext(browser, g.url, here, { viewport: PHONE, cookie: hider.cookie });
    const page = await ctx.newPage();
    // where this browser last looked, kept by the map page
    await page.goto(`${g.url}/about`);
    await page.evaluate(() => localStorage.setItem("svc.map.lastView", JSON.stringify({ lat: 45.5, lon: 9.2, z: 12 })));
    await page.goto(`${g.url}/hide`);
    // the position wins over the last view, at a zoom to place a cache
    const [lat, lon, z] = await pickerView(page, (v) => v[2] === 16);
    expect({ lat, lon, z }).toEqual({ lat: 46.5, lon: 6.6, z: 16 });
    await page.getByRole("button", { name: "Use my location" }).click();
    await page.waitForFunction(() => (document.getElementById("c-lat") as HTMLInputElement).value !== "");
    expect([await page.locator("#c-lat").inputValue(), await page.locator("#c-lon").inputValue()]).toEqual(["46.500000", "6.600000"]);
    await ctx.close();

    // no position allowed: the last view
    const plain = await contextFor(browser, g.url, hider.cookie);
    const p2 = await plain.newPage();
    await p2.goto(`${g.url}/about`);
    await p2.evaluate(() => localStorage.setItem("svc.map.lastView", JSON.stringify({ lat: 45.5, lon: 9.2, z: 12 })));
    await p2.goto(`${g.url}/hide`);
    const v = await pickerView(p2, (x) => x[2] === 12);
    expect(v).toEqual([45.5, 9.2, 12]);
    await plain.close();
  });

  test("Save as draft keeps the cache to its owner until it is published from its page", async () => {
    const ctx = await contextFor(browser, g.url, hider.cookie);
    const page = await ctx.newPage();
    await page.setViewportSize(PHONE);
    await page.goto(`${g.url}/hide`);
    await page.getByLabel("Name").fill("Not yet ready");
    await page.getByLabel("Latitude").fill("N 47° 03.000");
    await page.getByLabel("Longitude").fill("E 008° 03.000");
    await page.getByRole("button", { name: "Save as draft" }).click();
    await page.getByRole("heading", { name: "Not yet ready" }).waitFor();
    const id = new URL(page.url()).pathname.split("/").pop()!;
    expect(await page.locator(".page-head .tag").textContent()).toBe("draft");
    expect((await g.get(`/api/caches/${id}`)).status).toBe(404);
    await page.getByRole("button", { name: "Publish" }).click();
    await page.waitForFunction(() => document.querySelector(".page-head .tag")?.textContent === "active");
    expect((await g.get(`/api/caches/${id}`)).status).toBe(200);
    await ctx.close();
  });
});
