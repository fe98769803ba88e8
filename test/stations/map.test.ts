/**
 * The map's answers for a crowded view, over HTTP against a real gateway:
 * GET /api/stations?cluster=1 counts every station in the box (no silent
 * cap), a cluster's extent holds its stations, a station alone in its cell
 * comes as itself; GET /api/caches?singles=1&cells= likewise for caches.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestCrowd, importCrowdCaches } from "../helpers/crowd.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { count } from "../helpers/fed.ts";

const REGION = { lat: -20, lon: 150, dLat: 1, dLon: 1.5 };
let g: Running;
beforeAll(async () => {
  g = await startInProcess();
  ingestCrowd(g.gw, 3000, REGION);
  importCrowdCaches(g.gw, 1500, REGION);
  // one station far from the rest, and one killed object inside the crowd
  ingestLines(
    g.gw,
    [
      { line: "N0LONE>APRS:!1000.00S/16000.00E-alone", heardAt: Date.now() },
      { line: "N0OBJ>APRS:;DEADOBJ  _092345z2000.00S/15000.00E>killed", heardAt: Date.now() },
    ],
    { source: "aprsis" },
  );
});
afterAll(() => g.stop());

const json = async (path: string) => {
  const r = await g.get(path);
  expect(r.status).toBe(200);
  return (await r.json()) as any;
};
type Cluster = { lat: number; lon: number; count: number; bbox: [number, number, number, number] };

describe("GET /api/stations?cluster=1", () => {
  test("a crowded box: every station counted, in at most cells × cells clusters, the lone one as itself", async () => {
    const a = await json("/api/stations?cluster=1&bbox=140,-30,170,-5");
    expect(a.clustered).toBe(true);
    // 3,000 of the crowd and the lone one; the killed object is not on the map
    expect(a.total).toBe(3001);
    const sum = a.clusters.reduce((s: number, c: Cluster) => s + c.count, 0) + a.stations.length;
    expect(sum).toBe(3001);
    expect(a.clusters.length).toBeLessThanOrEqual(24 * 24);
    expect(a.stations.map((s: { call: string }) => s.call)).toContain("N0LONE");
    expect(a.stations.find((s: { call: string }) => s.call === "N0LONE")).toEqual({
      call: "N0LONE",
      kind: "station",
      lat: -10,
      lon: 160,
      symbol: "/-",
      lastHeard: expect.any(Number),
    });
    for (const c of a.clusters as Cluster[]) {
      expect(c.count).toBeGreaterThan(1);
      expect(c.lat).toBeGreaterThanOrEqual(c.bbox[1]);
      expect(c.lat).toBeLessThanOrEqual(c.bbox[3]);
    }
    // finer cells: more, smaller clusters, the same total
    const fine = await json("/api/stations?cluster=1&cells=64&bbox=140,-30,170,-5");
    expect(fine.total).toBe(3001);
    expect(fine.clusters.length + fine.stations.length).toBeGreaterThan(a.clusters.length + a.stations.length);
    expect(fine.clusters.length).toBeLessThanOrEqual(64 * 64);
  });

  test("zooming to a cluster's extent shows its stations, one by one once few enough", async () => {
    const a = await json("/api/stations?cluster=1&cells=64&bbox=140,-30,170,-5");
    const small = (a.clusters as Cluster[]).filter((c) => c.count <= 50).sort((x, y) => y.count - x.count)[0]!;
    const inside = await json(`/api/stations?cluster=1&bbox=${small.bbox.join(",")}`);
    expect(inside.clustered).toBe(false);
    expect(inside.stations.length).toBe(small.count);
    expect(inside.total).toBe(small.count);
    // the other way round too: the plain list of that box agrees
    expect((await json(`/api/stations?bbox=${small.bbox.join(",")}`)).stations.length).toBe(small.count);
  });

  test("a box across the antimeridian clusters continuously", async () => {
    ingestLines(
      g.gw,
      Array.from({ length: 30 }, (_, i) => ({
        line: `N${i % 10}AM${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}>APRS:!1700.00S/${i % 2 ? "17959.00E" : "17959.00W"}-am`,
        heardAt: Date.now(),
      })),
      { source: "aprsis" },
    );
    // cells 0.575° wide from 178.7° east: 179.983°E and 179.983°W lie in the same one
    const a = await json("/api/stations?cluster=1&limit=10&cells=4&bbox=178.7,-18,-179,-16");
    expect(a.clustered).toBe(true);
    expect(a.total).toBe(30);
    // a single cluster whose extent crosses the line
    expect(a.clusters.length).toBe(1);
    expect(a.clusters[0].count).toBe(30);
    expect(a.clusters[0].bbox[0]).toBeGreaterThan(a.clusters[0].bbox[2]);
  });

  test("bad parameters are a 400 with the error shape", async () => {
    for (const q of [
      "cluster=1",
      "cluster=2&bbox=0,0,1,1",
      "cluster=1&bbox=0,0,1,1&cells=3",
      "cluster=1&bbox=0,0,1,1&cells=65",
      "cluster=1&bbox=0,0,1,1&cells=x",
      "cluster=1&bbox=0,0,1,1&q=N0",
    ]) {
      const r = await g.get(`/api/stations?${q}`);
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
      const body = (await r.json()) as { field?: string };
      // The one error shape; a field the schema checks is named.
      expect(Object.keys(body).sort()).toEqual(body.field === undefined ? ["error", "message"] : ["error", "field", "message"]);
      if (q.startsWith("cluster=2")) expect(body.field).toBe("query.cluster");
    }
    // the control: the same box, well formed
    expect((await g.get("/api/stations?cluster=1&bbox=0,0,1,1&cells=4")).status).toBe(200);
  });
});

describe("GET /api/caches?singles=1&cells=", () => {
  test("a crowded box: clusters and lone caches add up to every cache; without singles the answer is as before", async () => {
    // the crowd's region: more caches than the limit, spread over many small cells
    const box = "148.5,-21,151.5,-19";
    const plain = await json(`/api/caches?bbox=${box}`);
    expect(plain.clustered).toBe(true);
    expect(plain.caches).toEqual([]);
    const a = await json(`/api/caches?singles=1&cells=64&bbox=${box}`);
    expect(a.total).toBe(1500);
    expect(a.total).toBe(count(g.gw, "caches", "status = 'active'"));
    expect(a.caches.length).toBeGreaterThan(0);
    expect(a.clusters.reduce((s: number, c: Cluster) => s + c.count, 0) + a.caches.length).toBe(1500);
    for (const c of a.clusters as Cluster[]) expect(c.count).toBeGreaterThan(1);
    // a lone cache is the map's cache, as in an unclustered answer
    expect(a.caches[0]).toMatchObject({ name: expect.stringMatching(/^Crowd cache /), type: expect.any(String), gid: expect.any(String) });
    expect(a.caches[0].description).toBeUndefined();
    expect((await g.get(`/api/caches?bbox=${box}&cells=2`)).status).toBe(400);
  });
});
