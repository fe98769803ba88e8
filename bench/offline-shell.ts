/**
 * The app shell offline, for `bun run bench offline` (bench/offline.ts): what
 * the service worker precaches after one visit (page, scripts, styles, icons,
 * manifest), and how long a reload with the network off takes to show the app
 * in Chromium.
 */
import { gzipSync } from "bun";
import { buildUi } from "../src/http/ui.ts";
import { launchProfile } from "../test/helpers/chromium.ts";
import { startInProcess } from "../test/helpers/gateway.ts";
import { tmpDir } from "../test/helpers/tmp.ts";
import { median, percentile } from "./lib/stats.ts";
import type { Row } from "./offline.ts";

const RELOADS = 7;

export async function shellRows(): Promise<Row[]> {
  const files = await buildUi();
  const sw = files.find((f) => f.name === "sw.js")!;
  const shell = files.filter((f) => f !== sw);
  let raw = 0;
  let gz = 0;
  for (const f of shell) {
    const b = new Uint8Array(await f.blob.arrayBuffer());
    raw += b.length;
    gz += gzipSync(b).length;
  }
  const swBytes = (await sw.blob.arrayBuffer()).byteLength;

  // A reload with the network off, served by the service worker, until the navigation shows.
  const g = await startInProcess({ TILE_URL: "off" });
  const ctx = await launchProfile(tmpDir());
  const times: number[] = [];
  try {
    const page = ctx.pages()[0] ?? (await ctx.newPage());
    await page.goto(g.url + "/map");
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
    await ctx.setOffline(true);
    for (let i = 0; i < RELOADS; i++) {
      const t0 = performance.now();
      await page.reload();
      await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
      await page.locator(".leaflet-container").waitFor();
      times.push(performance.now() - t0);
    }
  } finally {
    await ctx.close();
    await g.stop();
  }

  return [
    { figure: "precached shell files (page, assets, icons, manifest)", value: `${shell.length}`, note: "" },
    { figure: "precached shell size", value: `${(raw / 1e3).toFixed(0)} kB`, note: `${(gz / 1e3).toFixed(0)} kB gzipped` },
    { figure: "service worker script", value: `${(swBytes / 1e3).toFixed(1)} kB`, note: "" },
    {
      figure: `offline reload to the map page shown, median of ${RELOADS}`,
      value: `${median(times).toFixed(0)} ms`,
      note: `p90 ${percentile(times, 90).toFixed(0)} ms`,
    },
  ];
}
