/**
 * Map archives over HTTP, as a PMTiles reader in a browser sees them: the
 * listing with bounds from the headers, byte ranges (206, 416, HEAD, ETag),
 * and tiles read back by the independent `pmtiles` reader through the
 * gateway's ranges.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FetchSource, PMTiles } from "pmtiles";
import { runCli, startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { rasterArchive, solidPng, vectorArchive } from "../helpers/tiles.ts";

let g: Running;
const RASTER_BOUNDS: [number, number, number, number] = [10.5, 50.25, 11.25, 50.75];
const VECTOR_BOUNDS: [number, number, number, number] = [-3.5, 51.25, -2.5, 51.75];
const raster = rasterArchive(RASTER_BOUNDS, 8, 10, [255, 0, 0]);
const vector = vectorArchive(VECTOR_BOUNDS, 6, 9, "Testville");

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  mkdirSync(join(g.dataDir, "tiles"));
  writeFileSync(join(g.dataDir, "tiles", "thuringia.pmtiles"), raster);
  writeFileSync(join(g.dataDir, "tiles", "severn.pmtiles"), vector);
  writeFileSync(join(g.dataDir, "tiles", "notes.pmtiles"), "not an archive at all, just text");
  // From a checkout the built-in basemap is built on first use (cached in .cache/ after).
  await g.get("/api/tiles");
}, 300_000);
afterAll(() => g.stop());

describe("map archives", () => {
  test("the listing names each archive with the bounds, zooms and type from its header, the built-in world first", async () => {
    const res = await g.get("/api/tiles");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.archives.map((a: any) => a.name)).toEqual(["world", "severn", "thuringia"]);
    const [world, severn, thuringia] = body.archives;
    expect(world).toMatchObject({ source: "built-in", type: "vector", format: "mvt", minZoom: 0, maxZoom: 6, url: "/tiles/world.pmtiles" });
    expect(world.bounds).toEqual([-180, -85.05113, 180, 85.05113]);
    expect(thuringia).toMatchObject({ source: "data", type: "raster", format: "png", minZoom: 8, maxZoom: 10, bounds: RASTER_BOUNDS, bytes: raster.length });
    expect(severn).toMatchObject({ source: "data", type: "vector", format: "mvt", minZoom: 6, maxZoom: 9, bounds: VECTOR_BOUNDS });
    // the text file is not served, and the listing says why
    expect(body.skipped).toEqual([{ file: "notes.pmtiles", reason: "not a PMTiles archive (no PMTiles magic)" }]);
    expect((await g.get("/tiles/notes.pmtiles")).status).toBe(404);
  });

  test("byte ranges: 206 with exactly those bytes, suffix and open ranges, HEAD, ETag revalidation", async () => {
    const res = await g.get("/tiles/thuringia.pmtiles", { headers: { range: "bytes=0-126" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe(`bytes 0-126/${raster.length}`);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(raster.subarray(0, 127));

    const mid = await g.get("/tiles/thuringia.pmtiles", { headers: { range: "bytes=1000-1999" } });
    expect(mid.status).toBe(206);
    expect(new Uint8Array(await mid.arrayBuffer())).toEqual(raster.subarray(1000, 2000));
    const tail = await g.get("/tiles/thuringia.pmtiles", { headers: { range: "bytes=-10" } });
    expect(tail.headers.get("content-range")).toBe(`bytes ${raster.length - 10}-${raster.length - 1}/${raster.length}`);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(raster.subarray(raster.length - 10));
    // a range running past the end is cut to the end
    const over = await g.get("/tiles/thuringia.pmtiles", { headers: { range: `bytes=${raster.length - 5}-${raster.length + 100}` } });
    expect(over.status).toBe(206);
    expect((await over.arrayBuffer()).byteLength).toBe(5);

    const whole = await g.get("/tiles/thuringia.pmtiles");
    expect(whole.status).toBe(200);
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(raster);
    const etag = whole.headers.get("etag")!;
    expect(etag).toMatch(/^".+"$/);

    const head = await g.get("/tiles/thuringia.pmtiles", { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(raster.length));
    expect(head.headers.get("etag")).toBe(etag);
    expect((await head.arrayBuffer()).byteLength).toBe(0);

    expect((await g.get("/tiles/thuringia.pmtiles", { headers: { "if-none-match": etag } })).status).toBe(304);
    expect((await g.get("/tiles/thuringia.pmtiles", { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    // If-Range with a stale ETag: the whole (new) archive, not a slice of it
    const stale = await g.get("/tiles/thuringia.pmtiles", { headers: { range: "bytes=0-9", "if-range": '"old"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(raster.length);
  });

  test("416 for a range past the end, with the size; 404 for unknown names and paths out of the folder", async () => {
    for (const range of [`bytes=${raster.length}-`, `bytes=${raster.length + 10}-${raster.length + 20}`, "bytes=-0"]) {
      const res = await g.get("/tiles/thuringia.pmtiles", { headers: { range } });
      expect(res.status).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${raster.length}`);
      expect(await res.json()).toEqual({ error: "range_not_satisfiable", message: `the archive has ${raster.length} bytes` });
    }
    // positive control: the same archive answers a satisfiable range
    expect((await g.get("/tiles/thuringia.pmtiles", { headers: { range: `bytes=${raster.length - 1}-` } })).status).toBe(206);
    for (const path of ["/tiles/nope.pmtiles", "/tiles/..%2Fgateway.db", "/tiles/..%2F..%2Fetc%2Fpasswd.pmtiles", "/tiles/thuringia"]) {
      const res = await g.get(path, { headers: { accept: "text/html" } });
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error).toBe("not_found");
    }
  });

  test("the pmtiles reader gets back the tiles that were written, through the gateway's ranges", async () => {
    const r = new PMTiles(new FetchSource(g.url + "/tiles/thuringia.pmtiles"));
    const h = await r.getHeader();
    expect([h.minZoom, h.maxZoom, h.tileType]).toEqual([8, 10, 2]);
    // 50.5N 10.9E at zoom 9 is tile 271/172
    const t = await r.getZxy(9, 271, 172);
    expect(new Uint8Array(t!.data)).toEqual(solidPng(255, 0, 0));
    expect(await r.getZxy(9, 100, 100)).toBeUndefined();

    const world = new PMTiles(new FetchSource(g.url + "/tiles/world.pmtiles"));
    const z0 = await world.getZxy(0, 0, 0);
    expect(z0!.data.byteLength).toBeGreaterThan(1000);
  });

  test("svc-gateway check lists the archives with their bounds and warns about files it will not serve", async () => {
    const dir = tmpDir();
    const before = await runCli(["check", "--data", dir]);
    expect(before.code).toBe(0);
    expect(before.stdout).toContain("map archives     built-in world basemap, zoom 0-6");
    expect(before.stdout).toContain(`(none in ${join(dir, "tiles")})`);
    mkdirSync(join(dir, "tiles"));
    writeFileSync(join(dir, "tiles", "thuringia.pmtiles"), raster);
    writeFileSync(join(dir, "tiles", "notes.pmtiles"), "text");
    const r = await runCli(["check", "--data", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/thuringia\.pmtiles +raster png, zoom 8-10, bounds 10\.5,50\.25,11\.25,50\.75 \(W,S,E,N\)/);
    expect(r.stdout).not.toContain("(none in");
    expect(r.stderr).toContain(`warning: ${join(dir, "tiles", "notes.pmtiles")} is not served: not a PMTiles archive (no PMTiles magic)`);
  });
});
