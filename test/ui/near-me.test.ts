/**
 * Near me on the map in headless Chromium: with geolocation granted, "Locate
 * me" centres the map on the position and the list shows the caches nearest
 * first with distance and bearing (an arrow and a compass word); a filter
 * hides a cache in the list and on the map; refused geolocation is said in
 * one line; and it all fits a 360x740 phone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { geoContext, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const HERE = { latitude: 47.5, longitude: 8.5 };
let g: Running;
let browser: Browser;
let user: TestUser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  user = signedInUser(g.gw, "N0NEA", { verified: true });
  // 0.002° of latitude is 222 m; of longitude at 47.5 N, 150 m (0.004°: 300 m).
  for (const [name, lat, lon, type] of [
    ["North box", 47.502, 8.5, "traditional"],
    ["East multi", 47.5, 8.504, "multi"],
    ["South box", 47.494, 8.5, "traditional"],
  ] as const) {
    const r = await g.post("/api/caches", { name, type, size: "small", difficulty: 2, terrain: 2, lat, lon }, { headers: { cookie: user.cookie } });
    expect(r.status).toBe(201);
  }
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const rows = (page: Page) =>
  page.$$eval("[data-testid=near-list] li", (lis) =>
    lis.map((li) => ({
      name: li.getAttribute("data-name"),
      text: li.textContent ?? "",
      arrow: (li.querySelector(".near-arrow") as HTMLElement).style.transform,
    })),
  );
const markers = (page: Page) => page.$$eval(".cache-icon .cache-name", (els) => els.map((e) => e.textContent).sort());

async function located(viewport: { width: number; height: number }): Promise<Page> {
  const ctx = await geoContext(browser, g.url, HERE, { viewport });
  const page = await ctx.newPage();
  await page.goto(`${g.url}/?lat=10&lon=10&z=3`);
  await page.click("button.near-locate");
  await page.waitForSelector("[data-testid=near-list] li");
  return page;
}

describe("near me", () => {
  test("locate me centres the map on my position; the list is nearest first with distance and bearing", async () => {
    const page = await located({ width: 1280, height: 900 });
    // the map's centre is kept in the browser as the last view: it is where I am
    await page.waitForFunction(() => {
      const v = JSON.parse(localStorage.getItem("svc.map.lastView") ?? "null");
      return v && Math.abs(v.lat - 47.5) < 0.001 && Math.abs(v.lon - 8.5) < 0.001;
    });
    const list = await rows(page);
    expect(list.map((r) => r.name)).toEqual(["North box", "East multi", "South box"]);
    expect(list[0]!.text).toContain("222 m");
    expect(list[0]!.text).toContain("N");
    expect(list[0]!.arrow).toBe("rotate(0deg)");
    expect(list[1]!.text).toContain("300 m");
    expect(list[1]!.text).toMatch(/\bE\b/);
    expect(list[2]!.text).toContain("667 m");
    expect(list[2]!.arrow).toBe("rotate(180deg)");
    expect(await page.textContent("[data-testid=near-list]")).toContain("Nearest to you");
    await page.context().close();
  });

  test("a filter hides a cache in the list and on the map", async () => {
    const page = await located({ width: 1280, height: 900 });
    await page.waitForFunction(() => document.querySelectorAll(".cache-icon .cache-name").length === 3);
    expect(await markers(page)).toEqual(["East multi", "North box", "South box"]);
    await page.click("[data-testid=cache-filters] summary");
    await page.selectOption("[data-testid=cache-filters] select[name=type]", "traditional");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=near-list] li").length === 2);
    expect((await rows(page)).map((r) => r.name)).toEqual(["North box", "South box"]);
    await page.waitForFunction(() => document.querySelectorAll(".cache-icon .cache-name").length === 2);
    expect(await markers(page)).toEqual(["North box", "South box"]);
    await page.context().close();
  });

  test("a click on a cache in the list opens its page", async () => {
    const page = await located({ width: 1280, height: 900 });
    await page.click("[data-testid=near-list] li[data-name='South box'] a");
    await page.waitForURL(/\/cache\/\d+/);
    await page.context().close();
  });

  test("refused geolocation is said in one line", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await ctx.newPage();
    await page.goto(`${g.url}/?lat=10&lon=10&z=3`);
    await page.click("button.near-locate");
    const status = await page.waitForSelector("[data-testid=near-status]:has-text('position')");
    expect(await status.textContent()).toMatch(/position is not (shared|available)/);
    await ctx.close();
  });

  test("on a 360x740 phone the list and the filters fit the screen", async () => {
    const page = await located({ width: 360, height: 740 });
    await page.click("[data-testid=cache-filters] summary");
    expect((await rows(page)).length).toBe(3);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(wide).toBeLessThanOrEqual(360);
    const box = await page.$eval(".near-control", (e) => e.getBoundingClientRect().right);
    expect(box).toBeLessThanOrEqual(360);
    await page.screenshot({ path: "test-artifacts/near-me-phone.png" });
    await page.context().close();
  });
});
