/**
 * `bun run bench offline`: what the app costs and how fast it is with no
 * internet. One row-maker per figure (ROWS below), against one compiled
 * linux-x64 executable and one headless Chromium:
 *   precachedShell     the app shell the service worker stores, and an offline reload (offline-shell.ts)
 *   embeddedBasemap    the built-in world basemap the executable carries
 *   firstOfflineMap    navigation to the first drawn map view, only the gateway reachable
 *   savedArea          the bytes a saved area keeps of the map, and the time to save it (offline-area.ts)
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { build } from "../build.ts";
import { readHeader } from "../src/tiles/pmtiles.ts";
import { EMBEDDED_NAME } from "../src/tiles/archives.ts";
import { launchBrowser } from "../test/helpers/chromium.ts";
import { median, percentile, table } from "./lib/stats.ts";
import { freePort } from "../test/helpers/ports.ts";

const OUT = join(import.meta.dir, "out");

export interface Row {
  figure: string;
  value: string;
  note: string;
}

export interface OfflineBench {
  /** bench/out: the executable, ui/ and tiles/ as build.ts left them */
  outdir: string;
  exe: string;
  /** a running executable (TILE_URL on the internet, which the browser cannot reach) */
  url: string;
  browser: Browser;
}

/** The precached app shell: its size and file count, and an offline reload (bench/offline-shell.ts). */
async function precachedShell(_b: OfflineBench): Promise<Row[]> {
  return (await import("./offline-shell.ts")).shellRows();
}

async function embeddedBasemap(b: OfflineBench): Promise<Row[]> {
  const file = join(b.outdir, EMBEDDED_NAME);
  const bytes = new Uint8Array(await Bun.file(file).arrayBuffer());
  const h = readHeader(bytes);
  const exeSize = statSync(b.exe).size;
  return [
    {
      figure: "embedded world basemap",
      value: `${(bytes.length / 1e6).toFixed(2)} MB`,
      note: `zoom ${h.minZoom}-${h.maxZoom}, ${h.addressedTiles} tiles (${h.tileContents} distinct), ${((bytes.length / exeSize) * 100).toFixed(1)} % of the ${(exeSize / 1e6).toFixed(0)} MB executable`,
    },
  ];
}

/** ms from navigation to the world basemap's land drawn on the map's canvases. */
async function drawOnce(b: OfflineBench): Promise<number> {
  const ctx = await b.browser.newContext({ viewport: { width: 1000, height: 700 } });
  await ctx.route("**/*", (r) =>
    r
      .request()
      .url()
      .startsWith(b.url + "/")
      ? r.continue()
      : r.abort("internetdisconnected"),
  );
  const page = await ctx.newPage();
  const t0 = performance.now();
  await page.goto(b.url + "/map?lat=48&lon=10&z=4");
  await page.waitForFunction(
    () => {
      let land = 0;
      for (const c of document.querySelectorAll<HTMLCanvasElement>(".archive-world canvas")) {
        if (!c.width) continue;
        const d = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < d.length; i += 16) if (d[i] === 0xe2 && d[i + 1] === 0xdf && d[i + 2] === 0xda) land++;
        if (land > 5000) return true;
      }
      return false;
    },
    null,
    { polling: 25, timeout: 60_000 },
  );
  const ms = performance.now() - t0;
  await ctx.close();
  return ms;
}

async function firstOfflineMap(b: OfflineBench): Promise<Row[]> {
  const first = await drawOnce(b);
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) runs.push(await drawOnce(b));
  return [
    { figure: "first offline map view, new browser profile", value: `${first.toFixed(0)} ms`, note: "navigation to land drawn at zoom 4, internet cut off" },
    {
      figure: "offline map view, median of 5 more",
      value: `${median(runs).toFixed(0)} ms`,
      note: `p90 ${percentile(runs, 90).toFixed(0)} ms; each a fresh browser context`,
    },
  ];
}

/** A saved area's map: bytes stored and time to save (bench/offline-area.ts). */
async function savedArea(_b: OfflineBench): Promise<Row[]> {
  return (await import("./offline-area.ts")).savedAreaRows();
}

/** The figures, in order. Each is a small function of the shared setup. */
export const ROWS: Array<(b: OfflineBench) => Promise<Row[]>> = [precachedShell, embeddedBasemap, firstOfflineMap, savedArea];

export async function run() {
  const exes = await build({ targets: ["linux-x64"], outdir: OUT, log: () => {} });
  const exe = exes["linux-x64"];
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const port = await freePort();
  const proc = Bun.spawn([exe, "serve", "--port", String(port), "--host", "127.0.0.1", "--data", dataDir], {
    stdout: "ignore",
    stderr: "ignore",
    env: { PATH: process.env.PATH!, LOG_LEVEL: "error", KISS_PORTS: "off" },
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(url + "/health")).ok) break;
    } catch {}
    if (i > 3000) throw new Error("the executable did not start");
    await Bun.sleep(5);
  }
  const browser = await launchBrowser();
  const rows: Row[] = [];
  try {
    for (const make of ROWS) rows.push(...(await make({ outdir: OUT, exe, url, browser })));
  } finally {
    await browser.close();
    proc.kill();
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log("\n## offline (compiled linux-x64 executable, headless Chromium)\n");
  console.log(table(rows.map((r) => ({ figure: r.figure, value: r.value, note: r.note }))));
  return rows;
}
