/**
 * The map with 10,000 stations and 10,000 caches in headless Chromium (which
 * has no emoji font here): markers stay bounded (groups with counts), a
 * notice says how much of the view is grouped, every station is reachable by
 * zooming into its group, labels never overlap, and APRS symbols are our own
 * SVG drawings. Screenshots go to test-artifacts/ for a person to look at.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ddm, ingestCrowd, importCrowdCaches } from "../helpers/crowd.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts");
const REGION = { lat: 48, lon: 11, dLat: 1.5, dLon: 2.5 };
let g: Running;
let browser: Browser;

/** A quiet corner far from the crowd: one station per symbol, spread so none group and every call has room. */
const SHOWCASE = ["/>", "/-", "/[", "/b", "/k", "/_", "/#", "I&", "/O", "/'", "/Y", "/s", "/$", "/;", "/v", "/X", "/r", "/a", "\\!", "/%", "3#", "\\Q"];
const SHOWCASE_NAMES = [
  "Car",
  "House",
  "Person",
  "Bicycle",
  "Truck",
  "Weather station",
  "Digipeater",
  "Gateway (I: IGate, R: receive only), overlay I",
  "Balloon",
  "Small aircraft",
  "Yacht (sail)",
  "Ship (power boat)",
  "Phone",
  "Campground",
  "Van",
  "Helicopter",
  "Repeater",
  "Ambulance",
  "Emergency",
  "DX cluster",
  "Digipeater (overlay), overlay 3",
  "Earthquake",
];

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  ingestCrowd(g.gw, 10_000, REGION);
  importCrowdCaches(g.gw, 10_000, REGION);
  const now = Date.now();
  ingestLines(
    g.gw,
    SHOWCASE.map((sym, i) => {
      const lat = 60 + Math.floor(i / 6) * 0.05;
      const lon = 20 + (i % 6) * 0.08;
      return {
        line: `N${i % 10}SYM${String.fromCharCode(65 + i)}>APRS,TCPIP*:!${ddm(lat, 2, "N", "S")}${sym[0]}${ddm(lon, 3, "E", "W")}${sym[1]}symbol ${i}`,
        heardAt: now,
      };
    }),
    { source: "aprsis" },
  );
  mkdirSync(SHOTS, { recursive: true });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

/** Opens the map at a view and waits until both layers have drawn it and the labels are placed. */
async function openMap(page: Page, lat: number, lon: number, z: number) {
  await page.goto(`${g.url}/map?lat=${lat}&lon=${lon}&z=${z}`);
  await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
  await settle(page);
}
async function settle(page: Page) {
  await page.waitForLoadState("networkidle");
  await page.locator("[data-testid=map][data-drawing='0']").waitFor({ state: "attached" });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Stations the view accounts for: drawn one by one, plus the counts on station groups. */
const stationTally = (page: Page) =>
  page.evaluate(() => ({
    singles: document.querySelectorAll(".aprs-icon").length,
    grouped: [...document.querySelectorAll(".station-cluster")].reduce((s, e) => s + Number(e.textContent), 0),
    groups: document.querySelectorAll(".station-cluster").length,
    markers: document.querySelectorAll(".leaflet-marker-icon").length,
  }));

/** Visible labels and marker icons in the map, as boxes. */
const boxes = (page: Page) =>
  page.evaluate(() => {
    const map = document.querySelector("[data-testid=map]")!.getBoundingClientRect();
    const inView = (r: DOMRect) => r.right > map.left && r.left < map.right && r.bottom > map.top && r.top < map.bottom;
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { x1: r.left, y1: r.top, x2: r.right, y2: r.bottom, text: e.textContent ?? "", in: inView(r) && r.width > 0 };
    };
    return {
      labels: [...document.querySelectorAll(".map-label")]
        .map((e) => ({ ...box(e), owner: [...document.querySelectorAll(".leaflet-marker-icon")].indexOf(e.closest(".leaflet-marker-icon")!) }))
        .filter((b) => b.in),
      icons: [...document.querySelectorAll(".leaflet-marker-icon")]
        .map((e, i) => ({ ...box(e.querySelector(".aprs-sym, .cache-sym") ?? e), i }))
        .filter((b) => b.in),
    };
  });

const overlap = (a: { x1: number; y1: number; x2: number; y2: number }, b: { x1: number; y1: number; x2: number; y2: number }) =>
  a.x1 < b.x2 - 0.5 && b.x1 < a.x2 - 0.5 && a.y1 < b.y2 - 0.5 && b.y1 < a.y2 - 0.5;

describe("web app: a crowded map", () => {
  test("10,000 stations and 10,000 caches: a bounded number of markers, every station counted, the notice says the view is grouped", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await openMap(page, REGION.lat, REGION.lon, 7);
    const t = await stationTally(page);
    // every station is accounted for: no silent cap
    expect(t.singles + t.grouped).toBe(10_000);
    expect(t.groups).toBeGreaterThan(0);
    expect(t.markers).toBeLessThan(400);
    const cachesAccounted = await page.evaluate(
      () => document.querySelectorAll(".cache-icon").length + [...document.querySelectorAll(".cache-cluster")].reduce((s, e) => s + Number(e.textContent), 0),
    );
    expect(cachesAccounted).toBe(10_000);
    const notice = page.getByTestId("map-count");
    expect(await notice.getAttribute("data-grouped")).toBe("true");
    expect(await notice.textContent()).toBe(
      `Showing ${t.singles} of 10,000 stations, ${await page.locator(".cache-icon").count()} of 10,000 caches · zoom in or open a group for the rest`,
    );
    await page.screenshot({ path: join(SHOTS, "map-crowd-1366.png") });
    // a city-sized view far from the crowd: nothing grouped, the notice just counts (the control)
    await openMap(page, 60.075, 20.2, 11);
    expect(await notice.getAttribute("data-grouped")).toBe("false");
    expect(await notice.textContent()).toBe(`${SHOWCASE.length} stations, 0 caches in view`);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("zooming into a group reveals its stations, down to each one", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    await openMap(page, REGION.lat, REGION.lon, 7);
    expect(await page.locator(".aprs-icon").count()).toBeLessThan(50);
    // the biggest group, again and again: its stations come out
    for (let k = 0; k < 10 && (await page.locator(".aprs-icon").count()) < 20; k++) {
      const biggest = await page.evaluate(() => {
        const els = [...document.querySelectorAll<HTMLElement>(".station-cluster")];
        els.sort((a, b) => Number(b.textContent) - Number(a.textContent));
        const e = els[0];
        if (!e) return -1;
        e.setAttribute("data-pick", "1");
        return Number(e.textContent);
      });
      expect(biggest).toBeGreaterThan(0);
      await page.locator("[data-pick='1']").dispatchEvent("click");
      await page.waitForFunction(() => document.querySelector("[data-pick='1']") === null || document.querySelector(".leaflet-popup") !== null);
      await settle(page);
    }
    const singles = await page.locator(".aprs-icon").count();
    expect(singles).toBeGreaterThanOrEqual(20);
    // what is drawn one by one is the real stations, each with its page
    const call = (await page.locator(".aprs-icon .aprs-call").first().textContent())!;
    expect((await g.get(`/api/stations/${encodeURIComponent(call)}`)).status).toBe(200);
    await page.close();
  });

  test("labels never overlap one another or another marker, at several zooms and on a phone; the crowd's symbols are drawings", async () => {
    let leftOut = 0;
    for (const [w, h, z, name] of [
      [1366, 800, 10, "map-labels-z10-1366.png"],
      [1366, 800, 12, "map-labels-z12-1366.png"],
      [390, 844, 13, "map-labels-z13-390.png"],
    ] as const) {
      const page = await browser.newPage({ viewport: { width: w, height: h } });
      // a town of the crowd: the densest spot
      const town = await g.get(
        `/api/stations?cluster=1&bbox=${REGION.lon - REGION.dLon},${REGION.lat - REGION.dLat},${REGION.lon + REGION.dLon},${REGION.lat + REGION.dLat}`,
      );
      const clusters = ((await town.json()) as { clusters: Array<{ lat: number; lon: number; count: number }> }).clusters.sort((a, b) => b.count - a.count);
      await openMap(page, clusters[0]!.lat, clusters[0]!.lon, z);
      const { labels, icons } = await boxes(page);
      await page.screenshot({ path: join(SHOTS, name) });
      // the control: labels are drawn where they fit
      expect(labels.length).toBeGreaterThanOrEqual(5);
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++)
          if (overlap(labels[i]!, labels[j]!)) throw new Error(`labels overlap: ${labels[i]!.text} and ${labels[j]!.text}`);
        for (const ic of icons) if (ic.i !== labels[i]!.owner && overlap(labels[i]!, ic)) throw new Error(`label ${labels[i]!.text} covers a marker`);
      }
      leftOut += await page.evaluate(() => document.querySelectorAll(".map-point:not(.label-right):not(.label-left)").length);
      // every symbol in the crowd is a drawing: an SVG, no character in it
      const syms = await page.evaluate(() =>
        [...document.querySelectorAll(".aprs-sym")].map((e) => ({
          svg: e.querySelectorAll(":scope > svg").length,
          text: e.textContent,
          glyphs: e.querySelectorAll("text").length,
        })),
      );
      expect(syms.length).toBeGreaterThan(10);
      expect(syms.filter((x) => x.svg !== 1 || x.text !== "" || x.glyphs !== 0)).toEqual([]);
      expect((await page.locator(".leaflet-marker-pane").innerHTML()).match(/\p{Extended_Pictographic}/u)).toBeNull();
      await page.close();
    }
    // and some were left out because they would have collided
    expect(leftOut).toBeGreaterThan(0);
  });

  test("APRS symbols are our own SVG drawings: no emoji, no text glyphs, the name in the label", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    await openMap(page, 60.075, 20.2, 11);
    const syms = await page.evaluate(() =>
      [...document.querySelectorAll(".aprs-icon")].map((e) => ({
        call: e.querySelector(".aprs-call")?.textContent,
        symbol: e.querySelector(".aprs-sym")?.getAttribute("data-symbol"),
        svg: !!e.querySelector(".aprs-sym > svg path, .aprs-sym > svg circle"),
        text: e.querySelectorAll(".aprs-sym text, .aprs-sym foreignObject").length,
        symText: e.querySelector(".aprs-sym")?.textContent ?? "",
        name: e.querySelector(".aprs-sym svg")?.getAttribute("aria-label"),
      })),
    );
    expect(syms.length).toBe(SHOWCASE.length);
    for (const s of syms) {
      expect(s.svg).toBe(true);
      expect(s.text).toBe(0);
      // no character at all draws a symbol: not an emoji, not a letter
      expect(s.symText).toBe("");
    }
    const bySymbol = Object.fromEntries(syms.map((s) => [s.symbol, s.name]));
    expect(SHOWCASE.map((sym) => bySymbol[sym])).toEqual(SHOWCASE_NAMES);
    const html = await page.locator(".leaflet-marker-pane").innerHTML();
    expect(html.match(/\p{Extended_Pictographic}/u)).toBeNull();
    await page.screenshot({ path: join(SHOTS, "map-symbols.png") });
    await page.close();
  });
});
