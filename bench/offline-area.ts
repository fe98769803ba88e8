/**
 * A saved area's map, for `bun run bench offline` (bench/offline.ts): an area
 * of a regional raster archive (central Germany at zoom 8-14, about 10,000
 * tiles of 3 kB each, written here) saved with "Save area for offline" at
 * zoom 11 in Chromium: the bytes stored in the browser for it (and what the
 * panel estimated beforehand), and the time from "Save" to "Saved".
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchProfile } from "../test/helpers/chromium.ts";
import { startInProcess } from "../test/helpers/gateway.ts";
import { rasterArchive } from "../test/helpers/tiles.ts";
import { tmpDir } from "../test/helpers/tmp.ts";
import { median } from "./lib/stats.ts";
import type { Row } from "./offline.ts";

const SAVES = 3;
const VIEW = "/map?lat=50.5&lon=11&z=11";

export async function savedAreaRows(): Promise<Row[]> {
  const archive = rasterArchive([10, 50, 12, 51], 8, 14, [200, 40, 40], 1500);
  const g = await startInProcess({ TILE_URL: "off" });
  mkdirSync(join(g.dataDir, "tiles"), { recursive: true });
  writeFileSync(join(g.dataDir, "tiles", "region.pmtiles"), archive);
  const times: number[] = [];
  let stored = { region: 0, world: 0, records: 0 };
  let estimate = "";
  try {
    for (let i = 0; i < SAVES; i++) {
      // each save in a new browser profile: nothing stored before
      const ctx = await launchProfile(tmpDir(), { viewport: { width: 1000, height: 700 } });
      try {
        const page = ctx.pages()[0] ?? (await ctx.newPage());
        await page.goto(g.url + VIEW);
        await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 });
        await page.getByRole("button", { name: "Save area for offline" }).click();
        await page.getByTestId("save-estimate").waitFor({ timeout: 60_000 });
        estimate = (await page.getByTestId("save-estimate").textContent()) ?? "";
        const t0 = performance.now();
        await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
        await page.getByTestId("save-done").waitFor({ timeout: 120_000 });
        times.push(performance.now() - t0);
        stored = await page.evaluate(
          () =>
            new Promise<{ region: number; world: number; records: number }>((resolve, reject) => {
              const open = indexedDB.open("svc-offline");
              open.onerror = () => reject(open.error);
              open.onsuccess = () => {
                const req = open.result.transaction("ranges").objectStore("ranges").getAll();
                req.onerror = () => reject(req.error);
                req.onsuccess = () => {
                  const out = { region: 0, world: 0, records: req.result.length };
                  for (const r of req.result as Array<{ url: string; start: number; end: number }>) {
                    if (r.url.endsWith("/region.pmtiles")) out.region += r.end - r.start + 1;
                    else out.world += r.end - r.start + 1;
                  }
                  open.result.close();
                  resolve(out);
                };
              };
            }),
        );
      } finally {
        await ctx.close();
      }
    }
  } finally {
    await g.stop();
  }
  const tiles = /(\d+) map tiles \(zoom ([^)]*)\)/.exec(estimate);
  const said = /about ([\d.]+ [kM]B)/.exec(estimate)?.[1] ?? "?";
  return [
    {
      figure: "saved area: map bytes stored in the browser",
      value: `${((stored.region + stored.world) / 1e6).toFixed(2)} MB`,
      note: `${(stored.region / 1e6).toFixed(2)} MB of a ${(archive.length / 1e6).toFixed(1)} MB regional archive (${tiles?.[1] ?? "?"} tiles, zoom ${tiles?.[2] ?? "?"}, view at zoom 11) + ${(stored.world / 1e6).toFixed(2)} MB world basemap whole; ${stored.records} records; the panel estimated ${said} before saving`,
    },
    {
      figure: `time to save the area, median of ${SAVES}`,
      value: `${median(times).toFixed(0)} ms`,
      note: `"Save" to "Saved", each in a new browser profile; min ${Math.min(...times).toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms`,
    },
  ];
}
