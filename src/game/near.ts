/**
 * Caches near a point, nearest first, with distance and initial bearing
 * (GET /api/caches?near=LAT,LON), and the personal filters of a cache
 * listing (found or not found by me, mine, disabled, with Tier A finds).
 * Candidates come from the map index (caches_geo) in growing boxes, so a
 * query reads the caches around the point, not every cache (nearestRows).
 */
import { t } from "elysia";
import { badRequest } from "../lib/errors.ts";
import type { Core } from "../core/core.ts";
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

/** Metres a position read from the map index may be off (it keeps 32-bit floats, rounded outwards): ~1.7 m at 180°. */
const INDEX_SLACK_M = 5;
/** Candidates checked a batch at a time before one pass over every cache filters in the query instead (a filter so rare its matches are far apart). */
const SQL_FILTER_AFTER = 4096;

/**
 * How much the radius grows for the next pass: to about where the share of
 * matches among the candidates checked says `limit` of them are (a fifth
 * more, by area), between 1.5 and 4 times; fourfold while nothing matched.
 */
function grow(limit: number, matched: number, checked: number, inRadius: number): number {
  if (!matched || !inRadius) return 4;
  const want = ((limit * checked) / matched) * 1.2;
  return Math.max(1.5, Math.min(4, Math.sqrt(want / inRadius)));
}

/**
 * Candidates to check in the next query: about as many as the share of
 * matches so far says will hold the `wanted` rest (a fifth more), between 32
 * and 1,024; 4 × wanted before any matched.
 */
function batchSize(wanted: number, matched: number, checked: number): number {
  if (wanted <= 0) return 32;
  const guess = matched ? (wanted * checked * 1.2) / matched : checked ? checked * 4 : wanted * 4;
  return Math.max(32, Math.min(1024, Math.ceil(guess)));
}

/**
 * Native caches on the public map nearest a point, nearest first, with the
 * filters: rows with their distance in metres. Candidates come from the map
 * index (caches_geo) alone, within a radius that starts at 1 km and grows
 * (grow: fourfold, or to where the matches so far say enough are), sorted by
 * distance; the filter is checked on them in that order,
 * a batch at a time, until `limit` match (a rare filter thus reads the rows
 * of the caches nearest the point only, not of every cache in a box four
 * times too wide, pass after pass). Once `limit` match within the radius,
 * and every candidate up to the last of them is checked, they are the nearest
 * of all; only those rows are read whole, and sorted by their exact distance.
 */
export function nearestRows(gw: Core, at: { lat: number; lon: number }, limit: number, filters: CacheFilters = {}): Array<{ row: CacheRow; d: number }> {
  if (!Number.isInteger(limit) || limit < 1 || limit > NEAR_MAX) throw badRequest("invalid", `limit must be 1-${NEAR_MAX}`);
  const flt = filterSql(filters);
  const check = flt.sql ? gw.db.query(`SELECT c.id FROM caches c WHERE c.id IN (SELECT value FROM json_each(?))${flt.sql}`) : null;
  const checked = new Set<number>();
  const matches: Array<{ id: number; d: number }> = [];
  let inRadius = 0;
  for (let km = 1; ; km = Math.min(km * grow(limit, matches.length, checked.size, inRadius), HALF_EARTH_KM)) {
    // after many checks the filter is a rare one: its matches are far apart, so one pass reads every cache in table order, the filter in the query
    if (check !== null && checked.size >= SQL_FILTER_AFTER) km = HALF_EARTH_KM;
    const all = km >= HALF_EARTH_KM;
    const filtered = check !== null && all;
    const boxes = boxesAround(at.lat, at.lon, km);
    const where = boxes.map(() => "(max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?)").join(" OR ");
    const cands = (
      (filtered
        ? // the caches the map index holds (its triggers' condition), with their exact positions
          gw.db
            .query(
              `SELECT c.id, c.lat AS min_lat, c.lat AS max_lat, c.lon AS min_lon, c.lon AS max_lon FROM caches c
               WHERE c.status IN ('active', 'disabled') AND c.unlisted = 0${flt.sql}`,
            )
            .all(...flt.args)
        : gw.db
            .query(`SELECT id, min_lat, max_lat, min_lon, max_lon FROM caches_geo WHERE ${where}`)
            .all(...boxes.flatMap(([s, n, w, e]) => [s, n, w, e]))) as Array<{
        id: number;
        min_lat: number;
        max_lat: number;
        min_lon: number;
        max_lon: number;
      }>
    )
      .filter((g) => !checked.has(g.id))
      .map((g) => ({ id: g.id, d: distanceM(at.lat, at.lon, (g.min_lat + g.max_lat) / 2, (g.min_lon + g.max_lon) / 2) }))
      .filter((x) => all || x.d <= km * 1000 + INDEX_SLACK_M)
      .sort((a, b) => a.d - b.d || a.id - b.id);
    inRadius = checked.size + cands.length;
    for (let i = 0; i < cands.length; ) {
      // enough, and nothing unchecked could be nearer than the last of them
      if (matches.length >= limit && cands[i]!.d > matches[limit - 1]!.d + 2 * INDEX_SLACK_M) break;
      const batch = cands.slice(i, (i += check && !filtered ? batchSize(limit - matches.length, matches.length, checked.size) : cands.length));
      for (const x of batch) checked.add(x.id);
      const ok =
        check && !filtered ? new Set((check.all(JSON.stringify(batch.map((x) => x.id)), ...flt.args) as Array<{ id: number }>).map((r) => r.id)) : null;
      for (const x of batch) if (!ok || ok.has(x.id)) matches.push(x);
      matches.sort((a, b) => a.d - b.d || a.id - b.id);
    }
    // every match within the radius is known: the nearest `limit` of them are the nearest of all
    if ((matches.length >= limit && matches[limit - 1]!.d <= km * 1000 - INDEX_SLACK_M) || all) break;
  }
  if (!matches.length) return [];
  // the exact distances, from the rows themselves, of the nearest and any within the index's slack of the last
  const edge = matches.length >= limit ? matches[limit - 1]!.d + 2 * INDEX_SLACK_M : Number.POSITIVE_INFINITY;
  const ids = matches.filter((x, i) => i < limit || x.d <= edge).map((x) => x.id);
  const rows = gw.db.query("SELECT * FROM caches WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as CacheRow[];
  return rows
    .map((row) => ({ row, d: distanceM(at.lat, at.lon, row.lat, row.lon) }))
    .sort((a, b) => a.d - b.d || a.row.id - b.row.id)
    .slice(0, limit);
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
