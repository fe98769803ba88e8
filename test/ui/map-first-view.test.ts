/**
 * The map's first view in headless Chromium: the page alone (the app's
 * script held back, as on a slow link before it arrives) shows the view's
 * stations and caches at their places and counts what is in the map box; the
 * app then takes over without a second count, its markers replace the drawn
 * points and the map pans with the drawing's basemap; other pages have no
 * drawing, and the map opened from them works as before. A German browser
 * reads the drawing's count and banner in German.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ddm } from "../helpers/crowd.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { upsertCatalogCache } from "../../src/game/catalog-caches.ts";

let g: Running;
let browser: Browser;
const VIEW = { lat: 48, lon: 11, z: 11 };
const MAP_URL = () => `${g.url}/map?lat=${VIEW.lat}&lon=${VIEW.lon}&z=${VIEW.z}`;
/** 40 stations on a grid well inside a 1366 x 748 map box at zoom 11, far enough apart never to group. */
const GRID = Array.from({ length: 40 }, (_, i) => ({ call: `DL${i}GRD`, lat: 47.88 + Math.floor(i / 8) * 0.06, lon: 10.75 + (i % 8) * 0.07 }));
/** In the server's 2048 px drawing, but right of a 1366 px map box: drawn, not counted. */
const EDGE = { call: "DL9EDG", lat: 48, lon: 11.6 };
const CACHES = Array.from({ length: 10 }, (_, i) => ({ lat: 47.91 + Math.floor(i / 5) * 0.06, lon: 10.785 + (i % 5) * 0.14 }));

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  const now = Date.now();
  ingestLines(
    g.gw,
    [...GRID, EDGE].map((s) => ({ line: `${s.call}>APRS,TCPIP*:!${ddm(s.lat, 2, "N", "S")}/${ddm(s.lon, 3, "E", "W")}-grid`, heardAt: now })),
    { source: "aprsis" },
  );
  g.gw.db.transaction(() => {
    CACHES.forEach((c, i) =>
      upsertCatalogCache(g.gw, "catalog", null, {
        code: `GCF${i}`,
        name: `First view cache ${i}`,
        type: "traditional",
        size: "small",
        difficulty: 2,
        terrain: 2,
        lat: c.lat,
        lon: c.lon,
        status: "active",
        hint: null,
        description: "",
        placedAt: null,
        placedBy: "N0VIEW",
      }),
    );
  })();
  // the web app is built on its first page (seconds, more on a busy machine): here, not inside a navigation's 30 s
  expect((await g.get("/about", { headers: { accept: "text/html" } })).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

/** Where a point of the view should be on screen: Web Mercator offsets from the map box's centre. */
async function screenAt(page: Page, lat: number, lon: number): Promise<[number, number]> {
  const box = (await page.locator(".map").first().boundingBox())!;
  const size = 256 * 2 ** VIEW.z;
  const y = (l: number) => {
    const s = Math.sin((l * Math.PI) / 180);
    return (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * size;
  };
  return [box.x + box.width / 2 + ((lon - VIEW.lon) / 360) * size, box.y + box.height / 2 + y(lat) - y(VIEW.lat)];
}

/** The drawing's single stations (the dots of its #ps path) on screen, through the drawing's own transform. */
const dotsOnScreen = (page: Page) =>
  page.evaluate(() => {
    const svg = document.querySelector<SVGSVGElement>("svg.ssr-points")!;
    const ctm = svg.getScreenCTM()!;
    return [
      ...svg
        .querySelector("#ps")!
        .getAttribute("d")!
        .matchAll(/M(-?\d+) (-?\d+)h0/g),
    ].map((m) => {
      const p = new DOMPoint(Number(m[1]), Number(m[2])).matrixTransform(ctm);
      return { x: p.x, y: p.y };
    });
  });

describe("the map's first view", () => {
  test("the page alone, the app's script held back: the view's points at their places and the count of the map box", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    await page.route("**/assets/*.js", (r) => r.abort());
    await page.goto(MAP_URL());
    const count = page.getByTestId("map-count");
    await count.waitFor({ timeout: 30_000 });
    // the edge station is drawn, but it is outside the map box: 40 stations counted, not 41
    expect((await dotsOnScreen(page)).length).toBe(41);
    expect(await count.textContent()).toBe("40 stations, 10 caches in view");
    expect(await count.getAttribute("data-grouped")).toBe("false");
    // each station's dot is where the map puts that position
    const dots = await dotsOnScreen(page);
    for (const st of [GRID[0]!, GRID[17]!, GRID[39]!]) {
      const [x, y] = await screenAt(page, st.lat, st.lon);
      const near = dots.filter((d) => Math.abs(d.x - x) < 1.5 && Math.abs(d.y - y) < 1.5).length;
      expect({ call: st.call, near }).toEqual({ call: st.call, near: 1 });
    }
    // a map box wider than the drawing: the drawing shows, but no count (part of the view is not drawn)
    const wide = await browser.newPage({ viewport: { width: 2300, height: 900 } });
    await wide.route("**/assets/*.js", (r) => r.abort());
    await wide.goto(MAP_URL());
    await wide.locator("svg.ssr-points").waitFor();
    await wide.waitForLoadState("load");
    expect((await dotsOnScreen(wide)).length).toBe(41);
    expect(await wide.getByTestId("map-count").count()).toBe(0);
    await wide.close();
    await page.close();
  });

  test("a German browser's page alone: the count, the banner and the skip link in German", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 }, locale: "de-DE" });
    await page.route("**/assets/*.js", (r) => r.abort());
    await page.goto(MAP_URL());
    const count = page.getByTestId("map-count");
    await count.waitFor({ timeout: 30_000 });
    expect(await count.textContent()).toBe("40 Stationen, 10 Caches im Blick");
    expect(await page.locator("html").getAttribute("lang")).toBe("de");
    expect(await page.locator("#ssr-view .banner").textContent()).toBe("Kein Kachelserver eingerichtet: Es werden die eigenen Karten dieses Gateways gezeigt.");
    expect(await page.locator("#ssr-view .skip-link").textContent()).toBe("Zum Inhalt springen");
    await page.close();
  });

  test("the app takes over: one count, its markers replace the drawn points, and the map pans with the drawing's basemap", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(MAP_URL());
    await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
    await page.locator(".leaflet-container[data-drawing='0']").waitFor({ state: "attached", timeout: 30_000 });
    await page.waitForFunction(() => !document.querySelector("svg.ssr-points"), null, { timeout: 30_000 });
    expect(await page.locator("#ssr-view").count()).toBe(0);
    expect(await page.getByTestId("map-count").count()).toBe(1);
    expect(await page.getByTestId("map-count").textContent()).toBe("40 stations, 10 caches in view");
    expect(await page.locator(".aprs-icon").count()).toBe(40);
    // the drawing's basemap stays under the app's layers, in Leaflet's own pane
    const base = page.locator(".leaflet-pane svg.ssr-base");
    expect(await base.count()).toBe(1);
    const marker = page.locator(".aprs-icon").first();
    const before = { m: (await marker.boundingBox())!, b: (await base.boundingBox())! };
    // a drag pans the map: markers and the basemap move by the drag
    const box = (await page.getByTestId("map").boundingBox())!;
    const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2 + 100];
    await page.mouse.move(cx, cy);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(cx - 20 * i, cy - 10 * i);
    await page.mouse.up();
    // (Leaflet's inertia carries the pan on a little)
    await page.waitForTimeout(1000);
    const after = { m: (await marker.boundingBox())!, b: (await base.boundingBox())! };
    const moved = { x: after.m.x - before.m.x, y: after.m.y - before.m.y };
    expect(moved.x).toBeLessThan(-150);
    expect(moved.y).toBeLessThan(-75);
    expect(Math.abs(after.b.x - before.b.x - moved.x)).toBeLessThan(1);
    expect(Math.abs(after.b.y - before.b.y - moved.y)).toBeLessThan(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("other pages have no drawing; the map opened from them draws with the app alone", async () => {
    const page = await browser.newPage({ viewport: { width: 1366, height: 800 } });
    // the control: the map's own page keeps its drawing's basemap under the app
    await page.goto(MAP_URL());
    await page.locator("svg.ssr-base").waitFor({ state: "attached", timeout: 30_000 });
    await page.goto(`${g.url}/about`);
    await page.locator("main h1, main h2").first().waitFor({ timeout: 30_000 });
    expect(await page.locator("#ssr-view, svg.ssr-base, svg.ssr-points").count()).toBe(0);
    expect(await page.getByTestId("map-count").count()).toBe(0);
    // to the map inside the app (no page load): the app's own layers and count, no drawing
    await page.evaluate(
      ([lat, lon, z]) => {
        history.pushState(null, "", `/map?lat=${lat}&lon=${lon}&z=${z}`);
        dispatchEvent(new PopStateEvent("popstate"));
      },
      [VIEW.lat, VIEW.lon, VIEW.z],
    );
    await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
    await page.locator(".leaflet-container[data-drawing='0']").waitFor({ state: "attached", timeout: 30_000 });
    expect(await page.getByTestId("map-count").textContent()).toBe("40 stations, 10 caches in view");
    expect(await page.locator(".aprs-icon").count()).toBe(40);
    expect(await page.locator("svg.ssr-base, svg.ssr-points").count()).toBe(0);
    await page.close();
  });
});
