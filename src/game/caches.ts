/**
 * The cache and how the API shows it: the row kept in `caches`, the JSON of a
 * native, mirrored or living cache (with find, favourite and rating counts
 * read in one query for many), and what the map draws of one. Where the rest
 * of a cache's life is: cache-lookup.ts (finding one, who may see it),
 * cache-input.ts (checking a body), cache-writes.ts (hide, edit, state),
 * cache-publish.ts (its signed record), cache-filters.ts and cache-map.ts (the
 * map query), catalog-caches.ts (GPX/LOC imports).
 */
import type { Core } from "../core/core.ts";
import { localGid } from "../fed/feed.ts";
import type { MirroredCache } from "../fed/mirror.ts";
import { parseGid } from "../lib/fed/record.ts";
import type { LivingCache } from "../stations/living-caches.ts";
import { fromSigned } from "../lib/cache-attributes.ts";
import { eventInfo } from "./events.ts";
import { attributesOf } from "./attributes.ts";
import type { CacheStatus } from "./model.ts";
import type { CacheBasics } from "../lib/fed/bodies.ts";
import type { Cache, MapCache } from "./shapes.ts";

/** The basics' values in the order of the caches table's columns (name, type, size, difficulty, terrain, lat, lon). */
export const basicValues = (c: CacheBasics) => [c.name, c.type, c.size, c.difficulty, c.terrain, c.lat, c.lon] as const;

/** The basics of any form of a cache, copied (nothing else rides along). */
export const basicsOf = (c: CacheBasics): CacheBasics => ({
  name: c.name,
  type: c.type,
  size: c.size,
  difficulty: c.difficulty,
  terrain: c.terrain,
  lat: c.lat,
  lon: c.lon,
});

export interface CacheRow extends CacheBasics {
  id: number;
  owner_id: number | null;
  owner_call: string | null;
  status: CacheStatus;
  /** 1 while a needs-maintenance or needs-archive log is open (maintenance.ts) */
  needs_maintenance: number;
  /** REVIEW=on: a draft waiting for a reviewer, or sent back with a reviewer note */
  review: "queued" | "returned" | null;
  unlisted: number;
  hint: string | null;
  description: string;
  contact: string | null;
  placed_at: number;
  created_at: number;
  updated_at: number;
  source: string | null;
  source_ref: string | null;
  placed_by: string | null;
  /** event caches (events.ts): when it takes place, unix ms, and its IANA time zone */
  event_start_at: number | null;
  event_end_at: number | null;
  time_zone: string | null;
  /** signed attribute ids as JSON (./attributes.ts), null when none */
  attributes: string | null;
}

export type { Cache } from "./shapes.ts";

export const codeOf = (r: Pick<CacheRow, "id" | "source_ref">): string => r.source_ref ?? "SV" + r.id.toString(36).toUpperCase().padStart(4, "0");

const stats = (gw: Core, id: number, gid: string) =>
  gw.db
    .query(
      `SELECT (SELECT count(*) FROM logs WHERE cache_gid = ?2 AND kind = 'find' AND state = 'active') AS finds,
         (SELECT count(*) FROM favorites WHERE cache_id = ?1) AS favorites,
         (SELECT avg(stars) FROM ratings WHERE cache_id = ?1) AS avg, (SELECT count(*) FROM ratings WHERE cache_id = ?1) AS n`,
    )
    .get(id, gid) as { finds: number; favorites: number; avg: number | null; n: number };

type Stats = { finds: number; favorites: number; avg: number | null; n: number };

/** Many rows at once: one query for all their counts (maps, lists, exports). */
export function cachesJson(gw: Core, rows: CacheRow[]): Cache[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const gids = JSON.stringify(rows.map((r) => localGid(gw, "cache", r.id)));
  const finds = new Map(
    (
      gw.db
        .query(
          "SELECT cache_id AS id, count(*) AS n FROM logs WHERE cache_gid IN (SELECT value FROM json_each(?)) AND kind = 'find' AND state = 'active' GROUP BY cache_id",
        )
        .all(gids) as Array<{ id: number; n: number }>
    ).map((r) => [r.id, r.n]),
  );
  const favs = new Map(
    (
      gw.db
        .query("SELECT cache_id AS id, count(*) AS n FROM favorites WHERE cache_id IN (SELECT value FROM json_each(?)) GROUP BY cache_id")
        .all(ids) as Array<{ id: number; n: number }>
    ).map((r) => [r.id, r.n]),
  );
  const rates = new Map(
    (
      gw.db
        .query("SELECT cache_id AS id, avg(stars) AS avg, count(*) AS n FROM ratings WHERE cache_id IN (SELECT value FROM json_each(?)) GROUP BY cache_id")
        .all(ids) as Array<{ id: number; avg: number; n: number }>
    ).map((r) => [r.id, r]),
  );
  return rows.map((r) =>
    cacheJson(gw, r, { finds: finds.get(r.id) ?? 0, favorites: favs.get(r.id) ?? 0, avg: rates.get(r.id)?.avg ?? null, n: rates.get(r.id)?.n ?? 0 }),
  );
}

export function cacheJson(gw: Core, r: CacheRow, known?: Stats | false): Cache {
  const gid = localGid(gw, "cache", r.id);
  const s = known === false ? { finds: 0, favorites: 0, avg: null, n: 0 } : (known ?? stats(gw, r.id, gid));
  const c: Cache = {
    id: r.id,
    gid,
    code: codeOf(r),
    ...basicsOf(r),
    status: r.review === "queued" ? "review" : r.status,
    needsMaintenance: r.needs_maintenance === 1,
    ...(r.review === "returned" ? { returned: true } : {}),
    unlisted: r.unlisted === 1,
    hint: r.hint,
    description: r.description,
    ownerCall: r.owner_call,
    placedAt: r.placed_at,
    updatedAt: r.updated_at,
    origin: gw.config.instance,
    mirror: false,
    attributes: attributesOf(r.attributes),
    finds: s.finds,
    favorites: s.favorites,
    rating: { average: s.avg === null ? null : Math.round(s.avg * 10) / 10, count: s.n },
  };
  if (r.source) c.source = r.source;
  if (r.placed_by) c.placedBy = r.placed_by;
  const ev = eventInfo(r.event_start_at, r.event_end_at, r.time_zone);
  if (ev) c.event = ev;
  return c;
}

/**
 * Finds on mirrored caches, by gid: those mirrored from their origin plus those
 * logged here, for any number of caches in one query.
 */
function mirrorFinds(gw: Core, gids: string[]): Map<string, number> {
  if (gids.length === 0) return new Map();
  const rows = gw.db
    .query(
      `SELECT gid, sum(n) AS n FROM (
         SELECT cache_gid AS gid, count(*) AS n FROM mirror_finds
          WHERE cache_gid IN (SELECT value FROM json_each(?1)) AND kind = 'find' AND (state IS NULL OR state <> 'withdrawn') GROUP BY cache_gid
         UNION ALL
         SELECT cache_gid, count(*) FROM logs
          WHERE cache_gid IN (SELECT value FROM json_each(?1)) AND kind = 'find' AND state = 'active' GROUP BY cache_gid
       ) GROUP BY gid`,
    )
    .all(JSON.stringify(gids)) as Array<{ gid: string; n: number }>;
  return new Map(rows.map((r) => [r.gid, r.n]));
}

/** Many mirrored caches as JSON, their find counts read in one query. */
export function mirrorsJson(gw: Core, ms: MirroredCache[]): Cache[] {
  const finds = mirrorFinds(
    gw,
    ms.map((m) => m.gid),
  );
  return ms.map((m) => mirrorJson(gw, m, finds.get(m.gid) ?? 0));
}

export function mirrorJson(gw: Core, m: MirroredCache, knownFinds?: number): Cache {
  const finds = knownFinds ?? mirrorFinds(gw, [m.gid]).get(m.gid) ?? 0;
  const g = parseGid(m.gid)!;
  return {
    id: m.gid,
    gid: m.gid,
    code: `SV-${g.origin}-${g.localId}`.toUpperCase(),
    ...basicsOf(m),
    status: m.status,
    unlisted: m.unlisted,
    hint: m.hint,
    description: m.description,
    ownerCall: m.ownerCall,
    placedAt: m.placedAt,
    updatedAt: m.updatedAt,
    origin: m.origin,
    mirror: true,
    trust: m.trust,
    attributes: fromSigned(m.attributes),
    finds,
    favorites: 0,
    rating: { average: null, count: 0 },
  };
}

/** The gid a living cache's logs are kept under; these logs stay on this instance. */
export const livingGid = (gw: Core, stationId: number) => `${gw.config.instance}:living:${stationId}`;

/** A living cache (an own station, src/stations/living-caches.ts) as a map entry: its id is `living-<station id>`, its page the station's. */
export function livingJson(gw: Core, l: LivingCache): Cache {
  return {
    id: `living-${l.stationId}`,
    gid: livingGid(gw, l.stationId),
    code: l.call,
    name: l.name,
    type: "living",
    size: "other",
    difficulty: 1,
    terrain: 1,
    lat: l.lat,
    lon: l.lon,
    status: "active",
    unlisted: false,
    hint: null,
    description: null,
    ownerCall: l.call,
    placedAt: l.createdAt,
    updatedAt: l.positionAt ?? l.createdAt,
    origin: gw.config.instance,
    mirror: false,
    station: l.call,
    attributes: [],
    finds: 0,
    favorites: 0,
    rating: { average: null, count: 0 },
  };
}

export type { Cluster, MapAnswer, MapCache } from "./shapes.ts";
export function forMap(c: Cache): MapCache {
  const { description: _d, hint: _h, ...rest } = c;
  return rest;
}
