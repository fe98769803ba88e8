/**
 * Reading the station registry: stations in a map box, search,
 * detail with track and the paths it was heard by, telemetry and weather
 * series, the raw packet ring and the APRS message log.
 */
import type { Core } from "../core/core.ts";
import { applyTelemetry, type Telemetry, type TelemetryDefinitions, type Weather } from "../lib/aprs/index.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import type { AprsMessageRow, Cluster, MapStation, RawPacket, Series, Station, StationDetail, StationMap } from "./shapes.ts";

export type { AprsMessageRow, MapStation, RawPacket, Series, Station, StationDetail, StationMap } from "./shapes.ts";

interface Row {
  call: string;
  kind: string;
  owner: string | null;
  alive: number;
  lat: number | null;
  lon: number | null;
  ambiguity: number | null;
  symbol: string | null;
  course: number | null;
  speed_kmh: number | null;
  alt_m: number | null;
  comment: string | null;
  status: string | null;
  device: string | null;
  messaging: number | null;
  first_heard: number;
  last_heard: number;
  last_position_at: number | null;
  packets: number;
  source: string | null;
  igate: string | null;
  path: string | null;
  wx: string | null;
  wx_at: number | null;
}

const S_COLS =
  "s.call, s.kind, s.owner, s.alive, s.lat, s.lon, s.ambiguity, s.symbol, s.course, s.speed_kmh, s.alt_m, s.comment, s.status, s.device, s.messaging, s.first_heard, s.last_heard, s.last_position_at, s.packets, s.source, s.igate, s.path, s.wx, s.wx_at";

function toStation(r: Row): Station {
  const s: Station = {
    call: r.call,
    kind: r.kind as Station["kind"],
    alive: r.alive === 1,
    firstHeard: r.first_heard,
    lastHeard: r.last_heard,
    packets: r.packets,
  };
  if (r.owner) s.owner = r.owner;
  if (r.lat !== null) s.lat = r.lat;
  if (r.lon !== null) s.lon = r.lon;
  if (r.ambiguity) s.ambiguity = r.ambiguity;
  if (r.symbol) s.symbol = r.symbol;
  if (r.course !== null) s.course = r.course;
  if (r.speed_kmh !== null) s.speedKmh = r.speed_kmh;
  if (r.alt_m !== null) s.altitudeM = r.alt_m;
  if (r.comment) s.comment = r.comment;
  if (r.status) s.status = r.status;
  if (r.device) s.device = r.device;
  if (r.messaging !== null) s.messaging = r.messaging === 1;
  if (r.last_position_at !== null) s.lastPositionAt = r.last_position_at;
  if (r.source) s.source = r.source;
  if (r.igate) s.igate = r.igate;
  if (r.path) s.path = r.path;
  if (r.wx) s.wx = JSON.parse(r.wx) as Weather;
  if (r.wx_at !== null) s.wxAt = r.wx_at;
  return s;
}

/** One map cell's aggregate (stations here, caches in src/game/cache-map.ts): how many, their mean latitude and eastward x, and their extent (s, nn, w, e). */
export interface CellRow {
  n: number;
  lat: number;
  x: number;
  s: number;
  nn: number;
  w: number;
  e: number;
}

export interface Bbox {
  west: number;
  south: number;
  east: number;
  north: number;
}

/** `west,south,east,north` in degrees (GeoJSON order); west > east crosses the antimeridian. */
export function parseBbox(raw: string): Bbox {
  const n = raw.split(",").map((x) => Number(x.trim()));
  if (n.length !== 4 || n.some((x) => !Number.isFinite(x))) throw badRequest("bad_bbox", "bbox is west,south,east,north in decimal degrees");
  const [west, south, east, north] = n as [number, number, number, number];
  if (south < -90 || north > 90 || south > north || west < -180 || west > 180 || east < -180 || east > 180) {
    throw badRequest("bad_bbox", "bbox is west,south,east,north with -180..180 longitudes and south <= north");
  }
  return { west, south, east, north };
}

/** Whether a point lies in a box (edges included; across the antimeridian too). */
export function inBbox(p: { lat: number; lon: number }, b: Bbox): boolean {
  if (p.lat < b.south || p.lat > b.north) return false;
  return b.west <= b.east ? p.lon >= b.west && p.lon <= b.east : p.lon >= b.west || p.lon <= b.east;
}

export const MAX_STATIONS = 5000;
export const DEFAULT_STATIONS = 1000;

export interface StationQuery {
  bbox?: Bbox;
  q?: string;
  /** heard at or after this time, unix ms */
  since?: number;
  limit?: number;
  /** include killed objects and items */
  killed?: boolean;
}

/**
 * Stations matching a query, most recently heard first. A box holding more
 * than `limit` answers the `limit` most recent ones and `truncated: true`.
 */
export function listStations(gw: Core, q: StationQuery): { stations: Station[]; truncated: boolean } {
  const limit = Math.min(Math.max(1, q.limit ?? DEFAULT_STATIONS), MAX_STATIONS);
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (q.since !== undefined) {
    where.push("s.last_heard >= ?");
    args.push(q.since);
  }
  if (q.q) {
    const term = q.q.trim().replace(/[%_\\]/g, (c) => "\\" + c);
    if (term.length === 0 || term.length > 40) throw badRequest("bad_query", "q is 1 to 40 characters");
    where.push("(s.call LIKE ? ESCAPE '\\' OR s.comment LIKE ? ESCAPE '\\')");
    args.push(term + "%", "%" + term + "%");
  }
  if (!q.killed) where.push("s.alive = 1");
  if (!q.bbox) {
    const rows = gw.db
      .query(`SELECT ${S_COLS} FROM stations s ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY s.last_heard DESC LIMIT ?`)
      .all(...args, limit + 1) as Row[];
    return { stations: rows.slice(0, limit).map(toStation), truncated: rows.length > limit };
  }
  // [west, east] longitude ranges: two for a box across the antimeridian.
  const ranges: Array<[number, number]> =
    q.bbox.west <= q.bbox.east
      ? [[q.bbox.west, q.bbox.east]]
      : [
          [q.bbox.west, 180],
          [-180, q.bbox.east],
        ];
  const { south, north } = q.bbox;
  const filter = where.length ? " AND " + where.join(" AND ") : "";
  // The map index is (0.1° latitude band, longitude): one index range per band
  // and longitude range, the exact latitude checked on the row.
  const bands = `WITH RECURSIVE band(b) AS (VALUES(CAST(floor(?1 * 10) AS INTEGER)) UNION ALL SELECT b + 1 FROM band WHERE b < CAST(floor(?2 * 10) AS INTEGER))`;
  const inBands = (cols: string, k: number) =>
    `SELECT ${cols} FROM band CROSS JOIN stations s ON s.lat_band = band.b AND s.lon BETWEEN ?${3 + 2 * k} AND ?${4 + 2 * k}`;
  const inBox = (cols: string, k: number, extra: string) => `${inBands(cols, k)} WHERE s.lat BETWEEN ?1 AND ?2${extra}`;
  const boxArgs = [south, north, ...ranges.flat()];
  const next = boxArgs.length + 1;
  // A small box: read its few stations. A box holding more than the limit:
  // walk stations newest first and keep those inside, which stops as soon as
  // `limit` are found. The count that decides reads the index alone (the
  // bands' candidates, a little more than the box), never the rows.
  const count = (
    gw.db
      .query(`${bands} SELECT count(*) AS n FROM (${ranges.map((_, k) => inBands("1", k)).join(" UNION ALL ")} LIMIT ?${next})`)
      .get(...boxArgs, limit + 1) as { n: number }
  ).n;
  let rows: Row[];
  const numbered = (sql: string) => {
    let i = next;
    return sql.replace(/\?(?!\d)/g, () => `?${i++}`);
  };
  if (count <= limit) {
    const extra = numbered(filter);
    const select = ranges.map((_, k) => inBox(`${S_COLS}`, k, extra)).join(" UNION ALL ");
    rows = gw.db.query(`${bands} SELECT * FROM (${select}) ORDER BY last_heard DESC LIMIT ?${next + args.length}`).all(...boxArgs, ...args, limit + 1) as Row[];
  } else {
    const exact = ranges.map(() => "(s.lat BETWEEN ? AND ? AND s.lon BETWEEN ? AND ?)").join(" OR ");
    rows = gw.db
      .query(`SELECT ${S_COLS} FROM stations s INDEXED BY stations_last_heard WHERE (${exact})${filter} ORDER BY s.last_heard DESC LIMIT ?`)
      .all(...ranges.flatMap(([w, e]) => [south, north, w, e]), ...args, limit + 1) as Row[];
  }
  return { stations: rows.slice(0, limit).map(toStation), truncated: rows.length > limit };
}

const MAP_STATIONS = 500;
/** Clusters along the box's longer side (as the cache map). */
const STATION_CLUSTER_CELLS = 24;
/** The most cells a map may ask for along the box's longer side (`cells`). */
export const MAX_CLUSTER_CELLS = 64;

/**
 * The map's view of a box: every station in it when there are at most
 * `limit`, else all of them counted into at most `cells` × `cells` cells of
 * the box (24 unless asked; a map asks for about one per 40 px), each with
 * its count, centre and extent, or the station itself when it is alone. Nothing in the box is left out:
 * zooming to a cluster's extent shows its stations.
 */
export function stationsForMap(gw: Core, box: Bbox, opts: { limit?: number; cells?: number } = {}): StationMap {
  const limit = Math.min(Math.max(1, opts.limit ?? MAP_STATIONS), MAX_STATIONS);
  const wide = box.west <= box.east ? box.east - box.west : 360 - box.west + box.east;
  const ranges: Array<[number, number]> =
    box.west <= box.east
      ? [[box.west, box.east]]
      : [
          [box.west, 180],
          [-180, box.east],
        ];
  const bands = `WITH RECURSIVE band(b) AS (VALUES(CAST(floor(?1 * 10) AS INTEGER)) UNION ALL SELECT b + 1 FROM band WHERE b < CAST(floor(?2 * 10) AS INTEGER))`;
  const inBox = (cols: string, k: number) =>
    `SELECT ${cols} FROM band CROSS JOIN stations s ON s.lat_band = band.b AND s.lon BETWEEN ?${3 + 2 * k} AND ?${4 + 2 * k} WHERE s.lat BETWEEN ?1 AND ?2 AND s.alive = 1`;
  const boxArgs = [box.south, box.north, ...ranges.flat()];
  const next = boxArgs.length + 1;
  const union = (cols: string) => ranges.map((_, k) => inBox(cols, k)).join(" UNION ALL ");
  const count = (gw.db.query(`${bands} SELECT count(*) AS n FROM (${union("1")} LIMIT ?${next})`).get(...boxArgs, limit + 1) as { n: number }).n;
  if (count <= limit) {
    const rows = gw.db
      .query(`${bands} SELECT * FROM (${union("s.call, s.kind, s.lat, s.lon, s.symbol, s.course, s.last_heard")}) ORDER BY last_heard DESC`)
      .all(...boxArgs) as Array<{
      call: string;
      kind: string;
      lat: number;
      lon: number;
      symbol: string | null;
      course: number | null;
      last_heard: number;
    }>;
    const stations = rows.map((r) => {
      const m: MapStation = { call: r.call, kind: r.kind as Station["kind"], lat: r.lat, lon: r.lon, lastHeard: r.last_heard };
      if (r.symbol) m.symbol = r.symbol;
      if (r.course !== null) m.course = r.course;
      return m;
    });
    return { clustered: false, stations, clusters: [], total: stations.length };
  }
  // Longitudes measured eastward from the box's west edge, so a box across the antimeridian bins continuously.
  const cell = Math.max(wide, box.north - box.south, 1e-6) / (opts.cells ?? STATION_CLUSTER_CELLS);
  const x = `(CASE WHEN s.lon < ?${next} THEN s.lon + 360 ELSE s.lon END - ?${next})`;
  // A cell holding one station answers the station itself (SQLite's bare columns in an aggregate are that row's).
  const rows = gw.db
    .query(
      `${bands} SELECT count(*) AS n, avg(lat) AS lat, avg(x) AS x, min(lat) AS s, max(lat) AS nn, min(x) AS w, max(x) AS e,
         call, kind, lon, symbol, course, last_heard
       FROM (${union(`s.lat AS lat, ${x} AS x, s.call, s.kind, s.lon, s.symbol, s.course, s.last_heard`)})
       GROUP BY CAST((lat - ?1) / ?${next + 1} AS INTEGER), CAST(x / ?${next + 1} AS INTEGER)`,
    )
    .all(...boxArgs, box.west, cell) as Array<
    CellRow & {
      call: string;
      kind: string;
      lon: number;
      symbol: string | null;
      course: number | null;
      last_heard: number;
    }
  >;
  // Extents rounded outward (centres to the nearest), so a box made of an extent holds all its stations.
  const r6 = (v: number, round = Math.round) => round(v * 1e6) / 1e6;
  const lonOf = (xv: number, round = Math.round) => {
    const l = xv + box.west;
    return r6(l > 180 ? l - 360 : l, round);
  };
  const stations: MapStation[] = [];
  const clusters: Cluster[] = [];
  let total = 0;
  for (const r of rows) {
    total += r.n;
    if (r.n === 1) {
      const m: MapStation = { call: r.call, kind: r.kind as Station["kind"], lat: r.lat, lon: r.lon, lastHeard: r.last_heard };
      if (r.symbol) m.symbol = r.symbol;
      if (r.course !== null) m.course = r.course;
      stations.push(m);
    } else
      clusters.push({
        lat: r6(r.lat),
        lon: lonOf(r.x),
        count: r.n,
        bbox: [lonOf(r.w, Math.floor), r6(r.s, Math.floor), lonOf(r.e, Math.ceil), r6(r.nn, Math.ceil)],
      });
  }
  return { clustered: true, stations, clusters, total };
}

export function getStation(gw: Core, call: string, opts: { trackSince?: number } = {}): StationDetail {
  const row = gw.db.query(`SELECT ${S_COLS}, s.telemetry_defs FROM stations s WHERE s.call = ?`).get(call) as (Row & { telemetry_defs: string | null }) | null;
  if (!row) throw notFound(`station ${call}`);
  const s = toStation(row);
  const since = opts.trackSince ?? gw.clock.now() - 24 * 3_600_000;
  const track = (
    gw.db.query("SELECT ts, lat, lon, source, igate FROM positions WHERE call = ? AND ts >= ? ORDER BY ts DESC LIMIT 2000").all(row.call, since) as Array<{
      ts: number;
      lat: number;
      lon: number;
      source: string;
      igate: string | null;
    }>
  )
    .reverse()
    .map((p) => (p.igate ? { ts: p.ts, lat: p.lat, lon: p.lon, source: p.source, igate: p.igate } : { ts: p.ts, lat: p.lat, lon: p.lon, source: p.source }));
  const heard = gw.db.query("SELECT ts, path, source, igate, via FROM packets WHERE src = ? ORDER BY ts DESC LIMIT 20").all(row.call) as StationDetail["heard"];
  const objects = (
    gw.db.query("SELECT call FROM stations WHERE owner = ? AND alive = 1 ORDER BY last_heard DESC LIMIT 100").all(row.call) as Array<{ call: string }>
  ).map((r) => r.call);
  const detail: StationDetail = { ...s, track, heard, objects };
  if (row.telemetry_defs) detail.telemetryDefinitions = JSON.parse(row.telemetry_defs) as TelemetryDefinitions;
  return detail;
}

/** Telemetry (latest definitions applied) and weather readings since a time, oldest first. */
export function stationSeries(gw: Core, call: string, opts: { since?: number; limit?: number } = {}): Series {
  const row = gw.db.query("SELECT call, telemetry_defs AS defs FROM stations WHERE call = ?").get(call) as { call: string; defs: string | null } | null;
  if (!row) throw notFound(`station ${call}`);
  const defs = row.defs ? (JSON.parse(row.defs) as TelemetryDefinitions) : null;
  const since = opts.since ?? gw.clock.now() - 24 * 3_600_000;
  const limit = Math.min(Math.max(1, opts.limit ?? 2000), 10_000);
  const readings = (kind: string) =>
    (
      gw.db
        .query("SELECT ts, data FROM sensor_readings WHERE call = ? AND kind = ? AND ts >= ? ORDER BY ts DESC LIMIT ?")
        .all(row.call, kind, since, limit) as Array<{ ts: number; data: string }>
    ).reverse();
  const points: Series["telemetry"]["points"] = [];
  let channels: Series["telemetry"]["channels"] = [];
  for (const r of readings("telemetry")) {
    const t = JSON.parse(r.data) as Telemetry;
    const applied = applyTelemetry({ ...t, analog: t.analog.map((v) => (v === null ? NaN : v)) }, defs);
    if (applied.length > channels.length) channels = applied.map(({ id, name, unit }) => ({ id, name, unit }));
    points.push({ ts: r.ts, ...(t.seq !== undefined ? { seq: t.seq } : {}), values: applied.map((c) => c.value) });
  }
  const telemetry: Series["telemetry"] = { channels, points };
  if (defs?.bits?.project) telemetry.project = defs.bits.project;
  const wx = readings("wx").map((r) => ({ ts: r.ts, ...(JSON.parse(r.data) as Weather) }));
  return { call: row.call, telemetry, wx };
}

/**
 * The raw packet ring for a station, newest first by the time it was heard
 * (a packet stored late, e.g. from a recorder's backlog, sits at its time,
 * not at the end); ties by id. `before` pages back: the id of the last packet
 * seen. `next` is the `before` of the page after this one, null on the last page.
 */
export function stationPackets(gw: Core, call: string, opts: { limit?: number; before?: number } = {}): { packets: RawPacket[]; next: number | null } {
  const limit = Math.min(Math.max(1, opts.limit ?? 100), 1000);
  // the cursor's place in time (a cursor pruned from the ring meanwhile pages on by id alone)
  const at = opts.before === undefined ? null : (gw.db.query("SELECT ts FROM packets WHERE id = ?").get(opts.before) as { ts: number } | null);
  const rows = gw.db
    .query(
      `SELECT id, ts, raw, source, igate, via, type FROM packets
       WHERE src = ?1 AND (?2 IS NULL OR ts < ?2 OR (ts = ?2 AND id < ?3))
       ORDER BY ts DESC, id DESC LIMIT ?4`,
    )
    .all(call, opts.before === undefined ? null : (at?.ts ?? null), opts.before ?? Number.MAX_SAFE_INTEGER, limit + 1) as Array<
    Omit<RawPacket, "raw"> & { raw: string | Uint8Array }
  >;
  const more = rows.length > limit;
  if (more) rows.pop();
  const packets = rows.map((r) => ({ ...r, raw: typeof r.raw === "string" ? r.raw : new TextDecoder("latin1").decode(r.raw) }));
  return { packets, next: more ? packets[packets.length - 1]!.id : null };
}

/** The APRS message log, newest first; `call` matches sender or addressee. */
export function listMessages(gw: Core, opts: { call?: string; since?: number; limit?: number; kind?: string } = {}): AprsMessageRow[] {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (opts.call) {
    where.push("(src = ? OR addressee = ?)");
    args.push(opts.call.toUpperCase(), opts.call.toUpperCase());
  }
  if (opts.since !== undefined) {
    where.push("ts >= ?");
    args.push(opts.since);
  }
  if (opts.kind) {
    where.push("kind = ?");
    args.push(opts.kind);
  }
  const limit = Math.min(Math.max(1, opts.limit ?? 100), 1000);
  return gw.db
    .query(
      `SELECT id, ts, src, addressee, kind, text, msg_id AS msgId, source, igate FROM aprs_messages ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY ts DESC, id DESC LIMIT ?`,
    )
    .all(...args, limit) as AprsMessageRow[];
}
