/**
 * The map in headless Chromium against a real gateway (its own process)
 * holding 10,000 stations (heard through the ingest) and 10,000 caches
 * (through the catalog import), clumped around towns in a 5° × 3° region:
 *  1. time to first paint of a dense view: navigation start to the first
 *     frame with both layers drawn (the view count shown), at region zoom
 *     (everything grouped) and town zoom (symbols, labels and groups), with
 *     the browser's first contentful paint and the markers in the DOM;
 *  2. frame time while panning: a mouse drag across the dense view, frame
 *     intervals (requestAnimationFrame) during the drag and the redraw after
 *     it, beside the same drag over empty sea (the reference: what Leaflet
 *     and this machine cost with nothing to draw).
 * Chromium runs without a GPU here, as on a Raspberry Pi: read the ratios.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { spawnGateway } from "../test/helpers/gateway.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { ingestCrowd, importCrowdCaches } from "../test/helpers/crowd.ts";
import { percentile, table } from "./lib/stats.ts";

const REGION = { lat: 48, lon: 11, dLat: 1.5, dLon: 2.5 };
const VIEWPORT = { width: 1366, height: 800 };

/** Installed before the page's scripts: when both layers have drawn (the view count shows, every marker made and labelled), and the frame after. */
const PROBE = `
  window.__firstDraw = null;
  new MutationObserver((_, obs) => {
    if (window.__firstDraw === null && document.querySelector("[data-testid=map-count]") && document.querySelector("[data-testid=map][data-drawing='0']")) {
      const seen = performance.now();
      window.__firstDraw = -1;
      requestAnimationFrame(() => requestAnimationFrame(() => { window.__firstDraw = performance.now(); window.__seen = seen; }));
      obs.disconnect();
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ["data-drawing"] });
`;

async function firstPaint(page: Page, url: string) {
  await page.goto(url);
  await page.waitForFunction(() => (window as any).__firstDraw > 0, undefined, { timeout: 60_000 });
  return page.evaluate(() => ({
    drawn: (window as any).__firstDraw as number,
    fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
    markers: document.querySelectorAll(".leaflet-marker-icon").length,
    labels: document.querySelectorAll(".label-right, .label-left").length,
    count: document.querySelector("[data-testid=map-count]")?.textContent ?? "",
  }));
}

/** Drags the map by (dx, dy) over about a second and records frame intervals until the redraw after it settles. */
async function pan(page: Page, dx: number, dy: number) {
  await page.evaluate(() => {
    const w = window as any;
    w.__frames = [];
    w.__mutations = [];
    w.__stop = false;
    let last = performance.now();
    const tick = (t: number) => {
      w.__frames.push(t - last);
      last = t;
      if (!w.__stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame((t) => {
      last = t;
      requestAnimationFrame(tick);
    });
    new MutationObserver(() => w.__mutations.push(performance.now())).observe(document.querySelector(".leaflet-marker-pane")!, {
      childList: true,
      subtree: true,
      attributes: true,
    });
  });
  const x = VIEWPORT.width / 2;
  const y = VIEWPORT.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  const steps = 60;
  for (let i = 1; i <= steps; i++) {
    await page.mouse.move(x + (dx * i) / steps, y + (dy * i) / steps);
    await Bun.sleep(16);
  }
  const upAt = await page.evaluate(() => performance.now());
  const dragFrames = (await page.evaluate(() => (window as any).__frames.length)) as number;
  await page.mouse.up();
  await page.waitForLoadState("networkidle");
  await Bun.sleep(400);
  return page.evaluate(
    ({ upAt, dragFrames }) => {
      const w = window as any;
      w.__stop = true;
      const frames = w.__frames as number[];
      const after = (w.__mutations as number[]).filter((t) => t >= upAt);
      return { drag: frames.slice(1, dragFrames), all: frames.slice(1), redrawMs: after.length ? after[after.length - 1]! - upAt : 0 };
    },
    { upAt, dragFrames },
  );
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-map-"));
  // Fill the data directory through the ingest and the catalog import, then serve it from its own process.
  const t0 = performance.now();
  const fill = createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off" }), log: createLogger("error") });
  ingestCrowd(fill, 10_000, REGION);
  importCrowdCaches(fill, 10_000, REGION);
  await fill.stop();
  const loadMs = performance.now() - t0;
  const g = await spawnGateway({ dataDir: dir, env: { TILE_URL: "off", RATE_LIMIT_PER_MINUTE: "1000000" } });
  const browser = await launchBrowser();
  try {
    // Warm up: the gateway bundles the web app on its first page request when run from a checkout.
    const warm = await browser.newPage({ viewport: VIEWPORT });
    await warm.goto(`${g.url}/map?lat=${REGION.lat}&lon=${REGION.lon}&z=7`);
    await warm.getByTestId("map-count").waitFor({ timeout: 120_000 });
    await warm.close();
    const town = (
      (await (
        await fetch(
          `${g.url}/api/stations?cluster=1&bbox=${REGION.lon - REGION.dLon},${REGION.lat - REGION.dLat},${REGION.lon + REGION.dLon},${REGION.lat + REGION.dLat}`,
        )
      ).json()) as { clusters: Array<{ lat: number; lon: number; count: number }> }
    ).clusters.sort((a, b) => b.count - a.count)[0]!;
    const views = [
      { name: "region (z7, all grouped)", url: `${g.url}/map?lat=${REGION.lat}&lon=${REGION.lon}&z=7` },
      { name: "town (z12, symbols and labels)", url: `${g.url}/map?lat=${town.lat}&lon=${town.lon}&z=12` },
      { name: "empty sea (z7, reference)", url: `${g.url}/map?lat=-40&lon=-30&z=7` },
    ];
    const paints: Array<Record<string, string | number>> = [];
    const pans: Array<Record<string, string | number>> = [];
    for (const v of views) {
      const drawn: number[] = [];
      const fcp: number[] = [];
      let last: Awaited<ReturnType<typeof firstPaint>> | null = null;
      // a fresh context each time: nothing cached
      for (let i = 0; i < 3; i++) {
        const ctx = await browser.newContext({ viewport: VIEWPORT });
        await ctx.addInitScript(PROBE);
        const page = await ctx.newPage();
        last = await firstPaint(page, v.url);
        drawn.push(last.drawn);
        fcp.push(last.fcp);
        if (i === 2) {
          const r = await pan(page, -500, -250);
          pans.push({
            view: v.name,
            dragFrames: r.drag.length,
            dragP50Ms: percentile(r.drag, 50),
            dragP95Ms: percentile(r.drag, 95),
            dragMaxMs: Math.round(Math.max(...r.drag)),
            longestFrameAfterMs: Math.round(Math.max(...r.all)),
            redrawAfterPanMs: Math.round(r.redrawMs),
          });
        }
        await ctx.close();
      }
      paints.push({
        view: v.name,
        firstPaintMs: percentile(drawn, 50),
        fcpMs: percentile(fcp, 50),
        markers: last!.markers,
        labels: last!.labels,
        count: last!.count,
      });
    }
    console.log(
      `\nThe map in headless Chromium (no GPU), ${VIEWPORT.width}x${VIEWPORT.height}: 10,000 stations and 10,000 caches (filled in ${Math.round(loadMs)} ms); median of 3 loads, nothing cached`,
    );
    console.log(table(paints));
    console.log(`\nPanning: a 500 x 250 px mouse drag over 60 moves (about 1 s), frame intervals; redraw = mouse up to the last marker change`);
    console.log(table(pans));
  } finally {
    await browser.close();
    await g.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) await run();
