/**
 * Caches near a point, nearest first, with distance and initial bearing
 * (GET /api/caches?near=LAT,LON), and the personal filters of a cache
 * listing (found or not found by me, mine, disabled, with Tier A finds).
 * Candidates come from the map index (caches_geo) in growing boxes, so a
 * query reads the caches around the point, not every cache.
 */
import { t } from "elysia";
import { badRequest } from "../errors.ts";
import type { Core } from "../gateway.ts";
import { cachesJson, forMap, type CacheRow, type MapCache } from "./caches.ts";
import { filterSql, type CacheFilters } from "./cache-filters.ts";
import { distanceM } from "./model.ts";

export const NEAR_DEFAULT = 20;
export const NEAR_MAX = 200;
const R_KM = 6371.0088;
const HALF_EARTH_KM = Math.PI * R_KM;

/** The personal filters as query parameters of GET /api/caches (the web app's map and list). */
export const PERSONAL_FILTER_QUERY = {
  near: t.Optional(t.String({ description: "LAT,LON: the caches nearest this point, nearest first, with distanceM and bearingDeg" })),
  found: t.Optional(t.String({ description: "1: only caches I found; 0: only caches I have not found (signed in)" })),
  mine: t.Optional(t.String({ description: "1: only caches I own; 0: none of mine (signed in)" })),
  disabled: t.Optional(t.String({ description: "1: only disabled caches; 0: no disabled caches" })),
  tierA: t.Optional(t.String({ description: "1: only caches with an RF-proven (Tier A) find" })),
  maintenance: t.Optional(t.String({ description: "1: only caches needing maintenance (hidden here); 0: none flagged" })),
};

/** `near=` as a point: LAT,LON in decimal degrees. */
export function parseNear(raw: string): { lat: number; lon: number } {
  const n = raw.split(",").map((x) => (x.trim() === "" ? Number.NaN : Number(x.trim())));
  if (n.length !== 2 || n.some((x) => !Number.isFinite(x)) || Math.abs(n[0]!) > 90 || Math.abs(n[1]!) > 180) {
    throw badRequest("invalid", "near is LAT,LON in decimal degrees (-90..90, -180..180)");
  }
  return { lat: n[0]!, lon: n[1]! };
}

const yesNo = (v: string | undefined, field: string): boolean | undefined => {
  if (v === undefined || v === "") return undefined;
  if (v === "1" || v === "true") return true;
  if (v === "0" || v === "false") return false;
  throw badRequest("invalid", `${field} is 1 or 0`);
};

/** The personal filters from the query; found and mine need a signed-in user. */
export function personalFilters(
  q: { found?: string; mine?: string; disabled?: string; tierA?: string; maintenance?: string },
  userId: number | null,
): Partial<CacheFilters> {
  const f: Partial<CacheFilters> = {};
  const found = yesNo(q.found, "found");
  const mine = yesNo(q.mine, "mine");
  if ((found !== undefined || mine !== undefined) && userId === null)
    throw badRequest("invalid", `${found !== undefined ? "found" : "mine"} needs a signed-in user`);
  if (found !== undefined) f.foundBy = { userId: userId!, found };
  if (mine !== undefined) f.ownedBy = { userId: userId!, mine };
  const disabled = yesNo(q.disabled, "disabled");
  if (disabled !== undefined) f.disabled = disabled;
  if (yesNo(q.tierA, "tierA")) f.tierA = true;
  const maintenance = yesNo(q.maintenance, "maintenance");
  if (maintenance !== undefined) f.maintenance = maintenance;
  return f;
}

/** Initial great-circle bearing from one point to another, degrees 0-360 (one decimal). */
export function bearingDeg(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const p1 = lat1 * rad;
  const p2 = lat2 * rad;
  const dl = (lon2 - lon1) * rad;
  const y = Math.sin(dl) * Math.cos(p2);
  const x = Math.cos(p1) * Math.sin(p2) - Math.sin(p1) * Math.cos(p2) * Math.cos(dl);
  const b = Math.round(((((Math.atan2(y, x) / rad) % 360) + 360) % 360) * 10) / 10;
  return b >= 360 ? 0 : b;
}

/** The boxes (one, or two across the antimeridian) holding every point within `km` of a point. */
function boxesAround(lat: number, lon: number, km: number): Array<[number, number, number, number]> {
  const d = km / R_KM;
  const dLatDeg = (d * 180) / Math.PI;
  const south = lat - dLatDeg;
  const north = lat + dLatDeg;
  // A cap reaching a pole spans every longitude.
  if (north >= 90 || south <= -90 || km >= HALF_EARTH_KM / 2) return [[Math.max(-90, south), Math.min(90, north), -180, 180]];
  const dLon = (Math.asin(Math.min(1, Math.sin(d) / Math.cos((lat * Math.PI) / 180))) * 180) / Math.PI;
  const w = lon - dLon;
  const e = lon + dLon;
  if (w < -180)
    return [
      [south, north, w + 360, 180],
      [south, north, -180, e],
    ];
  if (e > 180)
    return [
      [south, north, w, 180],
      [south, north, -180, e - 360],
    ];
  return [[south, north, w, e]];
}

export type NearCache = MapCache & { distanceM: number; bearingDeg: number };

/**
 * Native caches on the public map nearest a point, nearest first, with the
 * filters: the search radius starts at 1 km and grows fourfold until it holds
 * `limit` caches or covers the globe. Rows with their distance in metres.
 */
export function nearestRows(gw: Core, at: { lat: number; lon: number }, limit: number, filters: CacheFilters = {}): Array<{ row: CacheRow; d: number }> {
  if (!Number.isInteger(limit) || limit < 1 || limit > NEAR_MAX) throw badRequest("invalid", `limit must be 1-${NEAR_MAX}`);
  const flt = filterSql(filters);
  for (let km = 1; ; km *= 4) {
    const all = km >= HALF_EARTH_KM;
    const boxes = boxesAround(at.lat, at.lon, km);
    const where = boxes.map(() => "(g.max_lat >= ? AND g.min_lat <= ? AND g.max_lon >= ? AND g.min_lon <= ?)").join(" OR ");
    const rows = gw.db
      .query(`SELECT c.* FROM caches_geo g JOIN caches c ON c.id = g.id WHERE (${where})${flt.sql}`)
      .all(...boxes.flatMap(([s, n, w, e]) => [s, n, w, e]), ...flt.args) as CacheRow[];
    const near = rows
      .map((row) => ({ row, d: distanceM(at.lat, at.lon, row.lat, row.lon) }))
      .filter((x) => all || x.d <= km * 1000)
      .sort((a, b) => a.d - b.d || a.row.id - b.row.id)
      .slice(0, limit);
    if (near.length >= limit || all) return near;
  }
}

/** The map's caches nearest a point (GET /api/caches?near=), each with distanceM and bearingDeg. */
export function cachesNear(gw: Core, at: { lat: number; lon: number }, opts: { limit?: number; filters?: CacheFilters } = {}): { caches: NearCache[] } {
  const near = nearestRows(gw, at, opts.limit ?? NEAR_DEFAULT, opts.filters);
  const json = cachesJson(
    gw,
    near.map((x) => x.row),
  ).map(forMap);
  return { caches: json.map((c, i) => ({ ...c, ...whereFrom(at, c, near[i]!.d) })) };
}

/** Distance (rounded metres) and initial bearing from a point to a cache. */
export const whereFrom = (at: { lat: number; lon: number }, c: { lat: number; lon: number }, d: number) => ({
  distanceM: Math.round(d),
  bearingDeg: bearingDeg(at.lat, at.lon, c.lat, c.lon),
});
