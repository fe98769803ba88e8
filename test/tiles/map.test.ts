/**
 * Offline maps in headless Chromium: the map draws the gateway's archives
 * (the built-in world basemap, a raster and a vector extract the test
 * writes) with every request that is not to the gateway cut off; an online
 * tile server that cannot be reached is asked once and then left alone,
 * while one that answers keeps being used; the Setup page lists the archives
 * on a 360 px screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, layerPixels as pixels, waitForLayerPixels as waitForPixels } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ROOT } from "../helpers/paths.ts";
import { rasterArchive, solidPng, vectorArchive } from "../helpers/tiles.ts";

const SHOTS = join(ROOT, "test-artifacts");
const RASTER_BOUNDS: [number, number, number, number] = [10.5, 50.25, 11.25, 50.75];
const VECTOR_BOUNDS: [number, number, number, number] = [-3.5, 51.25, -2.5, 51.75];
const raster = rasterArchive(RASTER_BOUNDS, 8, 10, [255, 0, 0]);
const vector = vectorArchive(VECTOR_BOUNDS, 6, 9, "Testville");

let browser: Browser;
/** TILE_URL on the internet, which the tests cut off */
let internet: Running;
/** TILE_URL on a port where nothing listens */
let refused: Running;
/** TILE_URL on a tile server the test runs */
let working: Running;
let tileServer: ReturnType<typeof Bun.serve>;
let served = 0;
/** the test's tile server fails every request while this is set */
let down = false;

function withArchives(dir: string): string {
  mkdirSync(join(dir, "tiles"), { recursive: true });
  writeFileSync(join(dir, "tiles", "thuringia.pmtiles"), raster);
  writeFileSync(join(dir, "tiles", "severn.pmtiles"), vector);
  return dir;
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const green = solidPng(0, 160, 0);
  tileServer = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => {
      served++;
      if (down) return new Response("gone", { status: 503 });
      return new Response(green, { headers: { "content-type": "image/png", "access-control-allow-origin": "*" } });
    },
  });
  internet = await startInProcess({ TILE_URL: "https://tile.openstreetmap.org/{z}/{x}/{y}.png", INSTANCE: "field-gw" });
  withArchives(internet.dataDir);
  refused = await startInProcess({ TILE_URL: "http://127.0.0.1:9/{z}/{x}/{y}.png" });
  withArchives(refused.dataDir);
  working = await startInProcess({ TILE_URL: `http://127.0.0.1:${tileServer.port}/{z}/{x}/{y}.png` });
  withArchives(working.dataDir);
  // From a checkout the built-in basemap is built on first use (cached in .cache/ after): not part of what is timed below.
  expect((await internet.get("/api/tiles")).status).toBe(200);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([internet?.stop(), refused?.stop(), working?.stop()]);
  tileServer?.stop(true);
});

/** A context where nothing but the gateway at `base` can be reached; counts what was cut off, by host. */
async function offlineContext(base: string, viewport = { width: 1000, height: 700 }) {
  const ctx = await browser.newContext({ viewport });
  const cut: string[] = [];
  await ctx.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(base + "/") || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    cut.push(url);
    return route.abort("internetdisconnected");
  });
  return { ctx, cut };
}

/** Drags the map by (dx, dy) pixels. */
async function pan(page: Page, dx: number, dy: number): Promise<void> {
  const box = (await page.getByTestId("map").boundingBox())!;
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(x + dx / 2, y + dy / 2, { steps: 4 });
  await page.mouse.move(x + dx, y + dy, { steps: 4 });
  await page.mouse.up();
}

/** Four pans (right, down, left, up further), each given time to load. */
async function panAround(page: Page): Promise<void> {
  for (const [dx, dy] of [
    [300, 0],
    [0, 250],
    [-300, 0],
    [0, -400],
  ] as const) {
    await pan(page, dx, dy);
    await page.waitForTimeout(800);
  }
}

const EARTH: [number, number, number] = [0xe2, 0xdf, 0xda];
const WATER: [number, number, number] = [0x80, 0xde, 0xea];

describe("offline maps in the browser", () => {
  test("with only the gateway reachable, the map draws the world basemap, the raster and the vector extract from ranges", async () => {
    const { ctx, cut } = await offlineContext(internet.url);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const ranges: number[] = [];
    page.on("response", (r) => {
      if (r.url().includes("/tiles/") && r.url().endsWith(".pmtiles")) ranges.push(r.status());
    });

    // the world at zoom 3: land from the built-in basemap over the sea it paints
    await page.goto(internet.url + "/map?lat=48&lon=10&z=3");
    expect(await waitForPixels(page, "world", EARTH, 5000)).toBeGreaterThanOrEqual(5000);
    expect(await pixels(page, "world", WATER)).toBeGreaterThan(1000);
    await page.getByRole("status").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("status").textContent()).toContain("Map tiles are offline");
    await page.screenshot({ path: join(SHOTS, "offline-map-world.png") });

    // the raster extract at zoom 9: its red tiles
    await page.goto(internet.url + "/map?lat=50.5&lon=10.9&z=9");
    expect(await waitForPixels(page, "thuringia", [255, 0, 0], 20_000)).toBeGreaterThanOrEqual(20_000);
    await page.screenshot({ path: join(SHOTS, "offline-map-raster.png") });

    // the vector extract at zoom 9: its land and its lake, drawn in the style's colours, and its place name
    await page.goto(internet.url + "/map?lat=51.5&lon=-3&z=9");
    expect(await waitForPixels(page, "severn", WATER, 5000)).toBeGreaterThanOrEqual(5000);
    expect(await waitForPixels(page, "severn", EARTH, 5000)).toBeGreaterThanOrEqual(5000);
    // a place far from the extract is not drawn by it (positive control: the same layer, same colours)
    await page.goto(internet.url + "/map?lat=40&lon=-30&z=9");
    await page.waitForTimeout(1500);
    expect(await pixels(page, "severn", EARTH)).toBe(0);
    await page.goto(internet.url + "/map?lat=51.5&lon=-3&z=9");
    expect(await waitForPixels(page, "severn", WATER, 5000)).toBeGreaterThanOrEqual(5000);
    await page.screenshot({ path: join(SHOTS, "offline-map-vector.png") });

    expect(ranges.length).toBeGreaterThan(3);
    expect(ranges.every((s) => s === 206)).toBe(true);
    // the only things cut off were the tile server's (nothing else wanted the internet)
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.every((u) => u.startsWith("https://tile.openstreetmap.org/"))).toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 180_000);

  test("an unreachable tile server is asked for one tile and then not again over four pans", async () => {
    const { ctx, cut } = await offlineContext(refused.url);
    const page = await ctx.newPage();
    const asked: string[] = [];
    const ours: string[] = [];
    page.on("request", (r) => (r.url().startsWith("http://127.0.0.1:9/") ? asked : ours).push(r.url()));
    await page.goto(refused.url + "/map?lat=50.5&lon=10.9&z=6");
    await page.getByRole("status").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("status").textContent()).toContain("Map tiles are offline");
    expect(await waitForPixels(page, "world", EARTH, 2000)).toBeGreaterThanOrEqual(2000);
    const before = asked.length;
    const oursBefore = ours.length;
    await panAround(page);
    await page.waitForTimeout(1500);
    // the pans did make the map fetch (its own archives) ...
    expect(ours.length).toBeGreaterThan(oursBefore);
    // ... but the tile server was tried once (a probe tile) and never again
    expect(before).toBeGreaterThanOrEqual(1);
    expect(before).toBeLessThanOrEqual(2);
    expect(asked.length).toBe(before);
    expect(cut.length).toBe(asked.length);
    await page.screenshot({ path: join(SHOTS, "offline-map-after-pans.png") });
    await ctx.close();
  }, 180_000);

  test("a tile server that answers is used and keeps being asked as the map pans; when it goes away the map soon stops asking", async () => {
    const ctx = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    const page = await ctx.newPage();
    await page.goto(working.url + "/map?lat=50.5&lon=10.9&z=6");
    await page.locator(".leaflet-tile-loaded[src^='http://127.0.0.1']").first().waitFor({ timeout: 30_000 });
    const before = served;
    expect(before).toBeGreaterThan(2);
    await panAround(page);
    expect(served).toBeGreaterThan(before);
    expect(await page.getByRole("status").count()).toBe(0);

    // the tile server goes away mid-session: after a few failed tiles the map stops asking it
    down = true;
    const atDown = served;
    // a new zoom level: every tile is new
    await page.getByRole("button", { name: "Zoom in" }).click();
    await page.getByRole("status").waitFor({ timeout: 15_000 });
    expect(await page.getByRole("status").textContent()).toContain("Map tiles are offline");
    await page.waitForTimeout(1500);
    const whenGivenUp = served;
    // it was asked (and failed) before the map gave up on it
    expect(whenGivenUp).toBeGreaterThanOrEqual(atDown + 3);
    for (const [dx, dy] of [
      [0, 300],
      [-400, 0],
      [0, -300],
    ]) {
      await pan(page, dx!, dy!);
      await page.waitForTimeout(800);
    }
    await page.getByRole("button", { name: "Zoom in" }).click();
    await page.waitForTimeout(1500);
    expect(served).toBe(whenGivenUp);
    // and the gateway's own maps are there
    expect(await waitForPixels(page, "world", EARTH, 2000)).toBeGreaterThanOrEqual(2000);
    await ctx.close();
  }, 180_000);

  test("the Setup page lists the archives with their bounds on a 360 px screen", async () => {
    const { ctx } = await offlineContext(internet.url, { width: 360, height: 740 });
    const page = await ctx.newPage();
    await page.goto(internet.url + "/setup");
    const section = page.getByRole("region", { name: "Offline maps" });
    await section.waitFor();
    await section.locator("[data-archive=severn]").waitFor();
    const text = await section.textContent();
    expect(text).toContain("World basemap (built in)");
    expect(text).toContain("severn.pmtiles");
    expect(text).toContain("vector (mvt), zoom 6–9");
    expect(text).toContain("51.25°, -3.5° to 51.75°, -2.5°");
    expect(text).toContain("thuringia.pmtiles");
    expect(text).toContain("raster (png), zoom 8–10");
    // nothing sticks out sideways
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const box = (await section.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(360);
    await section.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, "setup-offline-maps-360.png"), fullPage: true });
    await ctx.close();
  }, 120_000);
});
