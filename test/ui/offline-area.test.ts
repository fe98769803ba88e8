/**
 * "Save area for offline" keeps the map: in headless Chromium against a real
 * gateway with a regional raster archive the test writes (too big to be kept
 * whole), an area saved online draws its tiles with the network off at a zoom
 * never viewed online, while a part of the same archive that was not saved
 * stays blank; deleting a saved area frees the map bytes no other saved area
 * needs, and keeps those another one does.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchProfile, layerPixels, waitForLayerPixels } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ROOT } from "../helpers/paths.ts";
import { rasterArchive } from "../helpers/tiles.ts";
import { tmpDir } from "../helpers/tmp.ts";

const SHOTS = join(ROOT, "test-artifacts");
const RED: [number, number, number] = [255, 0, 0];
const EARTH: [number, number, number] = [0xe2, 0xdf, 0xda];
/** Central Germany at zoom 8-13, each tile its own 1.5 kB bigger: about 6.7 MB, read in ranges, not kept whole. */
const REGION: [number, number, number, number] = [10, 50, 12, 51];
const archive = rasterArchive(REGION, 8, 13, RED, 1500);

/** Saved first, at zoom 10: about 9.98-11.22 E. */
const AREA_A = "/map?lat=50.5&lon=10.6&z=10";
/** Saved second, inside A, at zoom 12: about 10.75-11.05 E. */
const AREA_B = "/map?lat=50.5&lon=10.9&z=12";
/** Zoom 13, never viewed online: inside A and B; inside A only; in the archive but in no saved area. */
const IN_BOTH = "/map?lat=50.5&lon=10.9&z=13";
const IN_A_ONLY = "/map?lat=50.5&lon=10.3&z=13";
const NOT_SAVED = "/map?lat=50.5&lon=11.8&z=13";

let g: Running;
let ctx: BrowserContext;
let page: Page;
const errors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  g = await startInProcess({ TILE_URL: "off" });
  mkdirSync(join(g.dataDir, "tiles"), { recursive: true });
  writeFileSync(join(g.dataDir, "tiles", "region.pmtiles"), archive);
  expect(archive.length).toBeGreaterThan(4_000_000);
  // From a checkout the built-in basemap is built on first use: not part of what the browser waits for below.
  expect((await g.get("/api/tiles")).status).toBe(200);
  ctx = await launchProfile(tmpDir(), { viewport: { width: 900, height: 600 } });
  page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on("pageerror", (e) => errors.push(String(e)));
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  await g?.stop();
});

async function save(view: string): Promise<string> {
  await page.goto(g.url + view);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  expect(await waitForLayerPixels(page, "region", RED, 20_000)).toBeGreaterThanOrEqual(20_000);
  await page.getByRole("button", { name: "Save area for offline" }).click();
  const estimate = page.getByTestId("save-estimate");
  await estimate.waitFor({ timeout: 30_000 });
  const text = (await estimate.textContent())!;
  await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
  await page.getByTestId("save-done").waitFor({ timeout: 60_000 });
  const bar = page.getByTestId("save-progress");
  const [value, max] = [await bar.getAttribute("value"), await bar.getAttribute("max")];
  expect(value).toBe(max);
  expect(Number(max)).toBeGreaterThan(2);
  return text;
}

/** Opens `view` with the network off, once the map draws there (the world basemap, kept whole, shows its land). */
async function offlineAt(view: string): Promise<void> {
  await page.goto(g.url + view);
  await page.getByTestId("offline-state").waitFor();
  expect(await waitForLayerPixels(page, "world", EARTH, 5000)).toBeGreaterThanOrEqual(5000);
}

/** The regional tiles drawn: at least 100,000 red pixels when they come. */
const regionDraws = () => waitForLayerPixels(page, "region", RED, 100_000);

/** The regional tiles drawn after the time they take where they are saved (a few hundred ms there): none when they are not. */
async function regionAfterAWhile(): Promise<number> {
  await page.waitForTimeout(3000);
  return layerPixels(page, "region", RED);
}

const storedRanges = () =>
  page.evaluate(
    () =>
      new Promise<Array<{ url: string; bytes: number; areas: number[] }>>((resolve, reject) => {
        const open = indexedDB.open("svc-offline");
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const req = db.transaction("ranges").objectStore("ranges").getAll();
          req.onsuccess = () => {
            resolve(
              req.result.map((r: { url: string; start: number; end: number; areas: number[] }) => ({ url: r.url, bytes: r.end - r.start + 1, areas: r.areas })),
            );
            db.close();
          };
          req.onerror = () => reject(req.error);
        };
      }),
  );

describe("a saved area's map offline", () => {
  test("saved at zoom 10, it draws its regional tiles at zoom 13 with the network off; a part of the archive not saved stays blank", async () => {
    const estimate = await save(AREA_A);
    // the estimate counts the map: the region's tiles in ranges, the small world basemap whole
    expect(estimate).toMatch(
      /^0 caches with descriptions, hints and recent logs, \d+ map tiles \(zoom 8–13\) of region and the whole world map: about \d\.\d MB\.$/,
    );
    const tiles = Number(/(\d+) map tiles/.exec(estimate)![1]);
    expect(tiles).toBeGreaterThan(500);
    expect(tiles).toBeLessThan(3000);
    expect(await page.getByTestId("save-done").textContent()).toContain(`Saved 0 caches and ${tiles} map tiles to zoom 13 (`);
    // what was stored is a part of the regional archive, not all of it
    const region = (await storedRanges()).filter((r) => r.url === "/tiles/region.pmtiles").reduce((n, r) => n + r.bytes, 0);
    expect(region).toBeGreaterThan(500 * 1500);
    expect(region).toBeLessThan(archive.length / 2);

    await ctx.setOffline(true);
    try {
      await page.reload();
      await page.getByTestId("offline-state").waitFor({ timeout: 15_000 });
      await offlineAt(IN_BOTH);
      expect(await regionDraws()).toBeGreaterThanOrEqual(100_000);
      await page.screenshot({ path: join(SHOTS, "offline-area-saved-z13.png") });
      // the same archive, the same zoom, outside the saved area: nothing regional is drawn
      await offlineAt(NOT_SAVED);
      expect(await regionAfterAWhile()).toBe(0);
      await page.screenshot({ path: join(SHOTS, "offline-area-not-saved.png") });
    } finally {
      await ctx.setOffline(false);
    }
    expect(errors).toEqual([]);
  }, 180_000);

  test("deleting a saved area frees the map bytes only it needed; those another saved area needs stay, until it is deleted too", async () => {
    await save(AREA_B);
    const before = await storedRanges();
    const ids = [...new Set(before.flatMap((r) => r.areas))].sort((a, b) => a - b);
    expect(ids).toHaveLength(2);
    // B lies inside A: its bytes are shared with A's, not stored again
    const [a, b] = ids as [number, number];
    expect(before.filter((r) => r.areas.includes(b) && !r.areas.includes(a))).toEqual([]);

    await page.goto(g.url + "/offline");
    await page.locator(`[data-area="${a}"]`).getByRole("button", { name: "delete" }).click();
    await page.locator(`[data-area="${a}"]`).waitFor({ state: "detached" });
    const after = await storedRanges();
    expect(after.length).toBeGreaterThan(0);
    expect(after.length).toBeLessThan(before.length);
    expect(after.every((r) => r.areas.length === 1 && r.areas[0] === b)).toBe(true);

    await ctx.setOffline(true);
    try {
      await page.goto(g.url + "/map");
      await page.getByTestId("offline-state").waitFor({ timeout: 15_000 });
      // B still draws; the part that only A held is gone
      await offlineAt(IN_BOTH);
      expect(await regionDraws()).toBeGreaterThanOrEqual(100_000);
      await offlineAt(IN_A_ONLY);
      expect(await regionAfterAWhile()).toBe(0);
    } finally {
      await ctx.setOffline(false);
    }

    await page.goto(g.url + "/offline");
    await page.locator(`[data-area="${b}"]`).getByRole("button", { name: "delete" }).click();
    await page.locator(`[data-area="${b}"]`).waitFor({ state: "detached" });
    expect(await storedRanges()).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);
});
