/**
 * The web app as a visitor sees it, served by the real compiled executable,
 * in headless Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { builtExecutables } from "../helpers/build.ts";
import { launchBrowser } from "../helpers/chromium.ts";
import { spawnGateway, type Spawned } from "../helpers/gateway.ts";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts");
let browser: Browser;
let gw: Spawned;
let offlineGw: Spawned;

beforeAll(async () => {
  const exes = await builtExecutables();
  mkdirSync(SHOTS, { recursive: true });
  // A tile server that does not answer: what a laptop in the field without internet sees.
  gw = await spawnGateway({ cmd: [exes["linux-x64"]], env: { TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png", INSTANCE: "n0call-gw" } });
  offlineGw = await spawnGateway({ cmd: [exes["linux-x64"]], env: { TILE_URL: "off" } });
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await gw?.kill();
  await offlineGw?.kill();
});

describe("web app shell", () => {
  test("the map page loads, names the instance, and says when tiles are offline", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(gw.url + "/");
    await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
    // the name comes with /api/config, which may arrive after the navigation draws
    await page.locator(".brand-name", { hasText: "n0call-gw" }).waitFor({ timeout: 15_000 });
    expect(await page.locator(".brand-name").textContent()).toBe("n0call-gw");
    await page.locator(".leaflet-container").waitFor();
    const banner = page.getByRole("status");
    await banner.waitFor({ timeout: 15_000 });
    expect(await banner.textContent()).toContain("Map tiles are offline");
    // The built-in world basemap the executable carries is drawn instead (vector tiles on canvases).
    await page.locator(".archive-world canvas").first().waitFor();
    await page.screenshot({ path: join(SHOTS, "map-offline.png") });
    expect(errors).toEqual([]);
    await page.close();
  });

  test("with tiles off the gateway's own maps show at once; navigation reaches the about page with the privacy statement", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(offlineGw.url + "/map");
    expect(await page.getByRole("status").textContent()).toContain("No tile server is configured");
    await page.getByRole("link", { name: "About" }).click();
    await page.getByRole("heading", { name: "Privacy" }).waitFor();
    // The statement itself arrives from /privacy after the page renders.
    await page.getByRole("heading", { name: "How long data is kept" }).waitFor();
    expect(page.url()).toBe(offlineGw.url + "/about");
    const body = await page.locator("main").textContent();
    expect(body).toContain("raw APRS packets");
    expect(body).toContain("24 hours");
    expect(body).toContain("None: every request goes to this gateway only.");
    await page.screenshot({ path: join(SHOTS, "about.png"), fullPage: true });
    await page.close();
  });

  test("on a phone-sized screen the navigation folds into a menu", async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 760 } });
    await page.goto(offlineGw.url + "/map");
    const about = page.getByRole("navigation").getByRole("link", { name: "About" });
    expect(await about.isVisible()).toBe(false);
    await page.getByRole("button", { name: "Menu" }).click();
    expect(await about.isVisible()).toBe(true);
    await page.screenshot({ path: join(SHOTS, "phone-menu.png") });
    await page.close();
  });
});
