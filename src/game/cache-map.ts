/**
 * The map query: native caches from the R*Tree, trusted peers' mirrors and
 * living caches in a box, listed, or clustered when there are more than the
 * limit.
 */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { mirroredCachesInBox, type MirroredCache } from "../fed/mirror.ts";
import { listLivingCaches } from "../stations/living-caches.ts";
import { cachesJson, forMap, livingJson, mirrorsJson, type Cache, type CacheRow, type Cluster, type MapAnswer } from "./caches.ts";
import { filterSql, hasFilters, livingMatches, mirrorMatches, type CacheFilters } from "./cache-filters.ts";

/** `bbox=` is minLon,minLat,maxLon,maxLat (west,south,east,north), parsed once for the whole API. */
export { parseBbox as parseBox, type Bbox as Box } from "../stations/registry.ts";
import type { Bbox as Box, CellRow } from "../stations/registry.ts";

const MAP_LIMIT = 500;
const MAP_MAX_LIMIT = 2000;
/** Clusters along the box's longer side. */
const CLUSTER_CELLS = 24;

/** Living caches are shown while their station was heard within a day (or has a fixed position). */
const LIVING_MAX_AGE_MS = 24 * 3_600_000;

/**
 * R*Tree conditions for a box (two boxes across the antimeridian). The R*Tree
 * keeps 32-bit floats rounded outward, so it is asked for overlap and the
 * exact position is checked on the cache row where it matters (exactSql).
 */
function geoSql(b: Box): { sql: string; args: number[] } {
  const parts =
    b.west <= b.east
      ? [[b.west, b.east]]
      : [
          [b.west, 180],
          [-180, b.east],
        ];
  return {
    sql: "(" + parts.map(() => "(g.max_lat >= ? AND g.min_lat <= ? AND g.max_lon >= ? AND g.min_lon <= ?)").join(" OR ") + ")",
    args: parts.flatMap(([w, e]) => [b.south, b.north, w!, e!]),
  };
}

function exactSql(b: Box): { sql: string; args: number[] } {
  const lon = b.west <= b.east ? "c.lon BETWEEN ? AND ?" : "(c.lon >= ? OR c.lon <= ?)";
  return { sql: ` AND c.lat BETWEEN ? AND ? AND ${lon}`, args: [b.south, b.north, b.west, b.east] };
}

/** The width of a box in degrees of longitude, across the antimeridian too. */
const lonSpan = (b: Box) => (b.west <= b.east ? b.east - b.west : 360 - b.west + b.east);

/**
 * Caches in a box for the map: every native cache on the map plus mirrors of
 * trusted peers (unvetted ones too with `includeUnvetted`; blocked never).
 * A box holding more than `limit` answers clusters instead: at most
 * CLUSTER_CELLS² cells (or `cells`²), each with its count, centre and extent. With
 * `singles`, a cell holding one cache answers that cache in `caches` (cells
 * counted from the per-degree table excepted), so a map draws it rather
 * than a cluster of one.
 */
export function cachesInBox(
  gw: Core,
  box: Box,
  opts: { limit?: number; includeUnvetted?: boolean; singles?: boolean; cells?: number; filters?: CacheFilters } = {},
): MapAnswer {
  if (opts.limit !== undefined && (opts.limit < 1 || opts.limit > MAP_MAX_LIMIT)) throw badRequest("invalid", `limit must be 1-${MAP_MAX_LIMIT}`);
  const limit = opts.limit ?? MAP_LIMIT;
  const f = opts.filters ?? {};
  const geo = geoSql(box);
  const flt = filterSql(f);
  const join = hasFilters(f) ? " JOIN caches c ON c.id = g.id" : "";
  const mirrored = mirroredCachesInBox(
    gw,
    { south: box.south, north: box.north, west: box.west, east: box.east },
    { includeUnvetted: opts.includeUnvetted, limit: 20_000 },
  ).filter((m) => mirrorMatches(m, f));
  const living = livingMatches(f) ? listLivingCaches(gw, { bbox: box, maxAgeMs: LIVING_MAX_AGE_MS }).map((l) => livingJson(gw, l)) : [];
  // Clusters need only positions: find counts are read only for a listed answer.
  const mirrors: Array<MirroredCache | Cache> = [...mirrored, ...living];
  const isLiving = new Set<object>(living);
  const count = (
    gw.db
      .query(`SELECT count(*) AS n FROM (SELECT 1 FROM caches_geo g${join} WHERE ${geo.sql}${flt.sql} LIMIT ?)`)
      .get(...geo.args, ...flt.args, limit + 1) as { n: number }
  ).n;
  if (count + mirrors.length <= limit) {
    const ex = exactSql(box);
    const rows = gw.db
      .query(`SELECT c.* FROM caches_geo g JOIN caches c ON c.id = g.id WHERE ${geo.sql}${ex.sql}${flt.sql}`)
      .all(...geo.args, ...ex.args, ...flt.args) as CacheRow[];
    const caches = [...cachesJson(gw, rows), ...mirrorsJson(gw, mirrored), ...living].map(forMap);
    return { clustered: false, caches, clusters: [], total: caches.length };
  }
  const cell = Math.max(lonSpan(box), box.north - box.south, 1e-6) / (opts.cells ?? CLUSTER_CELLS);
  const bins = new Map<
    string,
    { n: number; latSum: number; xSum: number; s: number; nn: number; w: number; e: number; one?: number | MirroredCache | Cache }
  >();
  const level = hasFilters(f) ? 0 : cell >= 10 ? 5 : cell >= 2 ? 1 : 0;
  if (level) {
    // A large view: the per-cell counts (migration 12) stand for the caches, each cell at its centre.
    // Counts at the very edge of the view are exact to the cell (1° or 5°), not to the degree.
    const cy0 = Math.floor((box.south + 90) / level);
    const cy1 = Math.floor((box.north + 90) / level);
    const ranges =
      box.west <= box.east
        ? [[box.west, box.east]]
        : [
            [box.west, 180],
            [-180, box.east],
          ];
    const cells = ranges.flatMap(
      ([w, e]) =>
        gw.db
          .query("SELECT cx, cy, n, slat, slon FROM caches_cells WHERE size = ? AND cy BETWEEN ? AND ? AND cx BETWEEN ? AND ?")
          .all(level, cy0, cy1, Math.floor((w! + 180) / level), Math.floor((e! + 180) / level)) as Array<{
          cx: number;
          cy: number;
          n: number;
          slat: number;
          slon: number;
        }>,
    );
    for (const c of cells) {
      const lat = c.slat / c.n;
      const lon = c.slon / c.n;
      const xc = (lon < box.west ? lon + 360 : lon) - box.west;
      // the cell's extent, clipped to the view, in the same eastward measure
      const cw = c.cx * level - 180;
      const cs = Math.max(box.south, c.cy * level - 90);
      const cn = Math.min(box.north, c.cy * level - 90 + level);
      const xw = Math.max(0, (cw < box.west ? cw + 360 : cw) - box.west);
      const xe = Math.min(lonSpan(box), xw + level);
      const key = `${Math.floor((lat - box.south) / cell)}:${Math.floor(xc / cell)}`;
      const bin = bins.get(key);
      if (bin) {
        bin.n += c.n;
        bin.latSum += c.slat;
        bin.xSum += xc * c.n;
        bin.s = Math.min(bin.s, cs);
        bin.nn = Math.max(bin.nn, cn);
        bin.w = Math.min(bin.w, xw);
        bin.e = Math.max(bin.e, xe);
      } else bins.set(key, { n: c.n, latSum: c.slat, xSum: xc * c.n, s: cs, nn: cn, w: xw, e: xe });
    }
  } else {
    // Longitudes measured eastward from the box's west edge, so a box across the antimeridian bins continuously.
    const x = "(CASE WHEN g.min_lon < ?1 THEN g.min_lon + 360 ELSE g.min_lon END - ?1)";
    // Numbered parameters: ?1 west, ?2 south, ?3 cell, then the box's and the filters' own.
    let k = 3;
    const numbered = (sql: string) => sql.replace(/\?/g, () => `?${++k}`);
    const where = numbered(geo.sql) + numbered(flt.sql);
    const rows = gw.db
      .query(
        `SELECT count(*) AS n, avg(g.min_lat) AS lat, avg(${x}) AS x, min(g.min_lat) AS s, max(g.min_lat) AS nn, min(${x}) AS w, max(${x}) AS e, min(g.id) AS one
         FROM caches_geo g${join} WHERE ${where}
         GROUP BY CAST((g.min_lat - ?2) / ?3 AS INTEGER), CAST(${x} / ?3 AS INTEGER)`,
      )
      .all(box.west, box.south, cell, ...geo.args, ...flt.args) as Array<CellRow & { one: number }>;
    for (const r of rows) {
      const key = `${Math.floor((r.lat - box.south) / cell)}:${Math.floor(r.x / cell)}`;
      bins.set(key, { n: r.n, latSum: r.lat * r.n, xSum: r.x * r.n, s: r.s, nn: r.nn, w: r.w, e: r.e, ...(r.n === 1 ? { one: r.one } : {}) });
    }
  }
  for (const m of mirrors) {
    const xm = (m.lon < box.west ? m.lon + 360 : m.lon) - box.west;
    const key = `${Math.floor((m.lat - box.south) / cell)}:${Math.floor(xm / cell)}`;
    const b = bins.get(key);
    if (b) {
      b.n++;
      b.latSum += m.lat;
      b.xSum += xm;
      b.s = Math.min(b.s, m.lat);
      b.nn = Math.max(b.nn, m.lat);
      b.w = Math.min(b.w, xm);
      b.e = Math.max(b.e, xm);
    } else bins.set(key, { n: 1, latSum: m.lat, xSum: xm, s: m.lat, nn: m.lat, w: xm, e: xm, one: m });
  }
  // The R*Tree's 32-bit floats are good to about 1e-5 degrees: round everything alike, so a centre stays inside its extent.
  const r5 = (v: number) => Math.round(v * 1e5) / 1e5;
  const lonOf = (xv: number) => {
    const l = xv + box.west;
    return r5(l > 180 ? l - 360 : l);
  };
  const all = [...bins.values()];
  const alone = opts.singles ? all.filter((b) => b.n === 1 && b.one !== undefined) : [];
  const ids = alone.flatMap((b) => (typeof b.one === "number" ? [b.one] : []));
  const rows = ids.length ? (gw.db.query("SELECT * FROM caches WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as CacheRow[]) : [];
  // A mirror alone in its cell is listed with its find counts, read for those few only.
  const others = alone.flatMap((b) => (typeof b.one === "object" ? [b.one] : []));
  const lone = others.filter((o) => !isLiving.has(o)) as MirroredCache[];
  const singles = [...cachesJson(gw, rows), ...mirrorsJson(gw, lone), ...(others.filter((o) => isLiving.has(o)) as Cache[])].map(forMap);
  const clusters: Cluster[] = all
    .filter((b) => !(opts.singles && b.n === 1 && b.one !== undefined))
    .map((b) => ({
      lat: r5(b.latSum / b.n),
      lon: lonOf(b.xSum / b.n),
      count: b.n,
      bbox: [lonOf(b.w), r5(b.s), lonOf(b.e), r5(b.nn)],
    }));
  return { clustered: true, caches: singles, clusters, total: all.reduce((s, b) => s + b.n, 0) };
}
