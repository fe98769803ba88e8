/**
 * The map's first render on an emulated slow 3G link (Chromium's DevTools
 * preset through CDP Network.emulateNetworkConditions: 2,000 ms round trip,
 * 50 KB/s down and up), from an empty cache, against a real gateway (its own
 * process) with 2,000 stations and 2,000 caches around a town: navigation
 * start until the map shows with both layers drawn (the view count; since the
 * page carries the server's drawing of its view, that is the page's), then
 * until the app's own map has drawn and taken over (its markers made, the
 * drawing's points gone), and the bytes on the wire until then. "identity" is the same browser refusing compression
 * (CDP Network.setExtraHTTPHeaders Accept-Encoding: identity), which is what every browser got
 * before scripts, styles and JSON were compressed.
 *
 * Then a record's page each (issue 33: a cache, a station, a BBS bulletin, a
 * profile), compressed, signed out: navigation start until its content is
 * visible (the cache's name and facts, the station's call and facts, the
 * bulletin's subject and body, the profile's call and counts; the server draws
 * it into the page, src/http/first-view.ts), until the app shows it itself (the
 * server's view gone), and the bytes on the wire until then.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { spawnGateway } from "../test/helpers/gateway.ts";
import { signedInUser } from "../test/helpers/accounts.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { ingestCrowd, importCrowdCaches } from "../test/helpers/crowd.ts";
import { percentile, table } from "./lib/stats.ts";

const REGION = { lat: 48, lon: 11, dLat: 0.3, dLon: 0.5 };
const SLOW_3G = { offline: false, latency: 2000, downloadThroughput: 50_000, uploadThroughput: 50_000 };
const RUNS = 2;

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-slow3g-"));
  const fill = createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off" }), log: createLogger("error") });
  const calls = ingestCrowd(fill, 2_000, REGION);
  importCrowdCaches(fill, 2_000, REGION);
  const owner = signedInUser(fill, "N0BEN", { verified: true });
  await fill.stop();
  const g = await spawnGateway({ dataDir: dir, env: { TILE_URL: "off", RATE_LIMIT_PER_MINUTE: "1000000" } });
  const records = await recordPages(g.url, owner.cookie, calls[0]!);
  const browser = await launchBrowser();
  const url = `${g.url}/map?lat=${REGION.lat}&lon=${REGION.lon}&z=11`;
  try {
    const warm = await browser.newPage();
    await warm.goto(url);
    await warm.getByTestId("map-count").waitFor({ timeout: 120_000 });
    await warm.close();
    const rows: Array<Record<string, string | number>> = [];
    for (const mode of ["identity", "br/gzip"] as const) {
      const times: number[] = [];
      const appTimes: number[] = [];
      let bytes = 0;
      let script = 0;
      for (let i = 0; i < RUNS; i++) {
        const { ctx, page, cdp } = await slow3gPage(browser);
        if (mode === "identity") await cdp.send("Network.setExtraHTTPHeaders", { headers: { "Accept-Encoding": "identity" } });
        let onWire = 0;
        const urls = new Map<string, string>();
        cdp.on("Network.requestWillBeSent", (e: { requestId: string; request: { url: string } }) => urls.set(e.requestId, e.request.url));
        let js = 0;
        cdp.on("Network.loadingFinished", (e: { requestId: string; encodedDataLength: number }) => {
          onWire += e.encodedDataLength;
          if (urls.get(e.requestId)?.endsWith(".js")) js += e.encodedDataLength;
        });
        await page.goto(url, { waitUntil: "commit", timeout: 120_000 });
        await page.getByTestId("map-count").waitFor({ timeout: 120_000 });
        times.push(await page.evaluate(() => performance.now()));
        await page.waitForFunction(() => document.querySelector(".leaflet-container[data-drawing='0']") && !document.querySelector("svg.ssr-points"), null, {
          timeout: 120_000,
        });
        appTimes.push(await page.evaluate(() => performance.now()));
        await page.waitForTimeout(500);
        bytes = onWire;
        script = js;
        await ctx.close();
      }
      rows.push({
        encoding: mode,
        firstRenderMs: percentile(times, 50),
        appDrawnMs: percentile(appTimes, 50),
        kbOnWire: Math.round(bytes / 1024),
        scriptKb: Math.round(script / 1024),
      });
    }
    console.log(
      `\nThe map's first render on emulated slow 3G (2,000 ms RTT, 50 KB/s), 2,000 stations and 2,000 caches in view at z11, nothing cached; median of ${RUNS}`,
    );
    console.log(table(rows));
    const pageRows: Array<Record<string, string | number>> = [];
    for (const r of records) {
      const times: number[] = [];
      const appTimes: number[] = [];
      let bytes = 0;
      for (let i = 0; i < RUNS; i++) {
        const m = await recordPageLoad(browser, g.url + r.path, r.shows);
        times.push(m.contentMs);
        appTimes.push(m.appMs);
        bytes = m.bytes;
      }
      pageRows.push({ page: r.name, contentMs: percentile(times, 50), appShowsMs: percentile(appTimes, 50), kbOnWire: Math.round(bytes / 1024) });
    }
    console.log(
      `\nA record's page on emulated slow 3G, compressed, signed out, nothing cached: until its content is visible, until the app shows it; median of ${RUNS}`,
    );
    console.log(table(pageRows));
  } finally {
    await browser.close();
    await g.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface RecordPage {
  name: string;
  path: string;
  /** what the page shows once its content is there: [selector, text it contains] */
  shows: Array<[string, string]>;
}

/** A cache hidden with a description and found once, a bulletin and the owner's profile, made through the API; a crowd station. */
async function recordPages(url: string, cookie: string, station: string): Promise<RecordPage[]> {
  const post = async (path: string, body: unknown) => {
    const r = await fetch(url + path, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as { id: number };
  };
  const description = "A small box under the old oak by the bridge. ".repeat(12);
  const cache = await post("/api/caches", {
    name: "Oak by the bridge",
    type: "traditional",
    size: "small",
    difficulty: 2,
    terrain: 2,
    lat: 48.01,
    lon: 11.02,
    description,
  });
  const body = "Field day this weekend on 2 m and 70 cm: bring a radio and a friend.\n".repeat(8);
  const msg = await post("/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Field day", body });
  return [
    {
      name: "cache",
      path: `/cache/${cache.id}`,
      shows: [
        ["h1", "Oak by the bridge"],
        ["[data-testid=cache-facts]", "traditional"],
      ],
    },
    {
      name: "station",
      path: `/station/${encodeURIComponent(station)}`,
      shows: [
        ["h1", station],
        ["[data-testid=station-facts]", ""],
      ],
    },
    {
      name: "bbs message",
      path: `/bbs/msg/${msg.id}`,
      shows: [
        ["h1", "Field day"],
        [".message-body", "Field day this weekend"],
      ],
    },
    {
      name: "profile",
      path: "/profile/N0BEN",
      shows: [
        ["h1", "N0BEN"],
        ["[data-testid=game-stats]", "Caches hidden"],
      ],
    },
  ];
}

/** A fresh 1366x800 page on slow 3G with the cache off, and the DevTools session that throttles it. */
async function slow3gPage(browser: Awaited<ReturnType<typeof launchBrowser>>) {
  const ctx = await browser.newContext({ viewport: { width: 1366, height: 800 } });
  const page = await ctx.newPage();
  const cdp = await ctx.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", SLOW_3G);
  return { ctx, page, cdp };
}

/** One cold load of a page on slow 3G: when its content is visible, when the app shows it (no server view left), bytes until then. */
async function recordPageLoad(browser: Awaited<ReturnType<typeof launchBrowser>>, url: string, shows: Array<[string, string]>) {
  const { ctx, page, cdp } = await slow3gPage(browser);
  let onWire = 0;
  cdp.on("Network.loadingFinished", (e: { encodedDataLength: number }) => {
    onWire += e.encodedDataLength;
  });
  const visible = (args: { shows: Array<[string, string]>; app: boolean }) =>
    args.shows.every(([sel, text]) => {
      const el = document.querySelector((args.app ? "#app " : "") + sel);
      return el && el.getBoundingClientRect().height > 0 && (el.textContent ?? "").includes(text);
    }) &&
    (!args.app || !document.getElementById("ssr-view"));
  await page.goto(url, { waitUntil: "commit", timeout: 120_000 });
  await page.waitForFunction(visible, { shows, app: false }, { timeout: 120_000 });
  const contentMs = await page.evaluate(() => performance.now());
  await page.waitForFunction(visible, { shows, app: true }, { timeout: 120_000 });
  const appMs = await page.evaluate(() => performance.now());
  await page.waitForTimeout(500);
  const bytes = onWire;
  await ctx.close();
  return { contentMs, appMs, bytes };
}

if (import.meta.main) await run();
