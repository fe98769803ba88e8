/**
 * The versioned read API's shapes: explicit, stable mappings of the game and
 * station registry. A field is added here only on purpose (docs/api.md
 * "/api/v1"): never contact fields, e-mail, accounts or anything private.
 */
import { randomBytes } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../lib/schema.ts";
import { hashApiKey } from "../lib/secret.ts";
import type { Core } from "../core/core.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { cacheDetail, cacheRow } from "../game/cache-lookup.ts";
import { basicsOf, cachesJson, type Cache, type CacheRow } from "../game/caches.ts";
import { filterSql, parseFilters } from "../game/cache-filters.ts";
import { parseBox, type Box } from "../game/cache-map.ts";
import { NEAR_DEFAULT, nearestRows, parseNear, whereFrom } from "../game/near.ts";
import { logbook, logJson, type Log } from "../game/logs.ts";
import type { LogRow } from "../game/log-record.ts";
import type { CacheFilterQuery, LogKind } from "../game/model.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";
import { waypointsOfCache } from "../game/waypoints-store.ts";
import { upcomingNear } from "../game/events.ts";
import { listWithCaches, type CacheList } from "../game/lists.ts";
import type { V1Cache, V1Key, V1List, V1Log, V1_CACHE_DETAIL } from "./shapes.ts";

const v1Cache = (base: string, c: Cache): V1Cache => ({
  id: c.id,
  gid: c.gid,
  code: c.code,
  url: `${base}/cache/${encodeURIComponent(String(c.id))}`,
  ...basicsOf(c),
  // v1 lists only listed caches: never a draft or one waiting for review (test/v1 holds answers to V1_CACHE)
  status: c.status as V1Cache["status"],
  hint: c.hint,
  description: c.unlisted ? null : c.description,
  ownerCall: c.ownerCall,
  placedAt: c.placedAt,
  updatedAt: c.updatedAt,
  attributes: c.attributes,
  needsMaintenance: c.needsMaintenance ?? false,
  ...(c.event ? { event: c.event } : {}),
  origin: c.origin,
  finds: c.finds,
  favorites: c.favorites,
  rating: c.rating,
});

const v1Log = (l: Log): V1Log => ({
  id: l.id,
  gid: l.gid,
  cacheGid: l.cacheGid,
  kind: l.kind,
  call: l.call,
  text: l.text,
  foundAt: l.foundAt,
  tier: l.tier,
  state: l.state,
  igate: l.corroboration?.igate ?? null,
  distanceM: l.corroboration?.distanceM ?? null,
  origin: l.origin,
});

export const V1_MAX = 1000;

/**
 * Listed caches hidden on this instance, oldest id first, paged by `after`
 * (the last id of the previous page). With `bbox` and the search filters.
 */
export function selectCaches(gw: Core, q: CacheFilterQuery, opts: { limit?: number; after?: number; max?: number } = {}): { rows: CacheRow[]; more: boolean } {
  const max = opts.max ?? V1_MAX;
  const limit = Math.min(Math.max(1, opts.limit ?? 100), max);
  const f = parseFilters(q);
  const flt = filterSql(f);
  let geo = "";
  const geoArgs: number[] = [];
  if (q.bbox) {
    const b: Box = parseBox(q.bbox);
    geo = b.west <= b.east ? " AND c.lat BETWEEN ? AND ? AND c.lon BETWEEN ? AND ?" : " AND c.lat BETWEEN ? AND ? AND (c.lon >= ? OR c.lon <= ?)";
    geoArgs.push(b.south, b.north, b.west, b.east);
    // The map index narrows the search; the exact box is checked on the row.
    geo +=
      " AND c.id IN (SELECT id FROM caches_geo WHERE " +
      (b.west <= b.east
        ? "max_lat >= ? AND min_lat <= ? AND max_lon >= ? AND min_lon <= ?"
        : "max_lat >= ? AND min_lat <= ? AND (max_lon >= ? OR min_lon <= ?)") +
      ")";
    geoArgs.push(b.south, b.north, b.west, b.east);
  }
  const rows = gw.db
    .query(`SELECT c.* FROM caches c WHERE c.status IN ('active', 'disabled') AND c.unlisted = 0 AND c.id > ?${geo}${flt.sql} ORDER BY c.id LIMIT ?`)
    .all(opts.after ?? 0, ...geoArgs, ...flt.args, limit + 1) as CacheRow[];
  const more = rows.length > limit;
  if (more) rows.pop();
  return { rows, more };
}

export function listCaches(gw: Core, base: string, q: CacheFilterQuery & { near?: string }, limit?: number, after?: number) {
  if (q.near !== undefined) return nearCaches(gw, base, { ...q, near: q.near }, limit, after);
  const { rows, more } = selectCaches(gw, q, { limit, after });
  return { caches: cachesJson(gw, rows).map((c) => v1Cache(base, c)), next: more ? rows[rows.length - 1]!.id : null };
}

/** `near=LAT,LON`: the nearest first with distanceM and bearingDeg, one page (limit 1-200, default 20). */
function nearCaches(gw: Core, base: string, q: CacheFilterQuery & { near: string }, limit?: number, after?: number) {
  if (q.bbox !== undefined) throw badRequest("invalid", "near and bbox together: give one of them");
  if (after !== undefined) throw badRequest("invalid", "after does not page a near query: raise limit");
  const at = parseNear(q.near);
  const near = nearestRows(gw, at, limit ?? NEAR_DEFAULT, parseFilters(q));
  const json = cachesJson(
    gw,
    near.map((x) => x.row),
  );
  return { caches: json.map((c, i) => ({ ...v1Cache(base, c), ...whereFrom(at, c, near[i]!.d) })), next: null };
}

/** One cache, with its waypoints as anyone sees them (never the final). */
export function getCache(gw: Core, base: string, id: string): Static<typeof V1_CACHE_DETAIL> {
  const c = cacheDetail(gw, id, null);
  if (c.mirror && c.trust !== "trusted") throw notFound(`cache ${id}`);
  return { ...v1Cache(base, c), waypoints: waypointsOfCache(gw, c, null).map(({ id: _id, ...w }) => w) };
}

export function cacheLogs(gw: Core, id: string, limit?: number): { logs: V1Log[] } {
  return { logs: logbook(gw, id, null, { limit }).logs.map(v1Log) };
}

/** Logs on this instance, newest first: by a callsign (any SSID), since a time. */
export function listFinds(
  gw: Core,
  q: { call?: string; since?: number; kind?: LogKind; limit?: number; before?: number },
): { finds: V1Log[]; next: number | null } {
  const limit = Math.min(Math.max(1, q.limit ?? 100), V1_MAX);
  const where = ["l.state = 'active'", "(c.id IS NULL OR (c.unlisted = 0 AND c.status <> 'draft'))"];
  const args: Array<string | number> = [];
  if (q.call !== undefined) {
    if (!isCallsign(q.call)) throw badRequest("invalid", "call is a callsign");
    where.push("l.base_call = ?");
    args.push(baseCall(q.call));
  }
  if (q.kind !== undefined) {
    where.push("l.kind = ?");
    args.push(q.kind);
  } else where.push("l.kind = 'find'");
  if (q.since !== undefined) where.push("l.found_at >= ?"), args.push(q.since);
  if (q.before !== undefined) where.push("l.id < ?"), args.push(q.before);
  const rows = gw.db
    .query(`SELECT l.* FROM logs l LEFT JOIN caches c ON c.id = l.cache_id WHERE ${where.join(" AND ")} ORDER BY l.id DESC LIMIT ?`)
    .all(...args, limit + 1) as LogRow[];
  const more = rows.length > limit;
  if (more) rows.pop();
  return { finds: rows.map((r) => v1Log(logJson(gw, r))), next: more ? rows[rows.length - 1]!.id : null };
}

/** Upcoming events nearest a point (as /api/events), each a V1Cache with distanceM. */
export function upcomingEvents(gw: Core, base: string, near: string | undefined, limit = NEAR_DEFAULT): { events: Array<V1Cache & { distanceM: number }> } {
  if (!near) throw badRequest("invalid", "near=LAT,LON is required");
  if (limit < 1 || limit > 200) throw badRequest("invalid", "limit is 1-200");
  const found = upcomingNear(gw, parseNear(near), limit);
  const rows = found.map((n) => cacheRow(gw, n.id)).filter((r): r is CacheRow => r !== null);
  const dist = new Map(found.map((n) => [n.id, n.distanceM]));
  return { events: cachesJson(gw, rows).map((c) => ({ ...v1Cache(base, c), distanceM: Math.round(dist.get(Number(c.id)) ?? 0) })) };
}

/**
 * A public bookmark list with its caches as v1 shows them (no untrusted
 * mirror, like /api/v1/caches/:id); a private list is a 404 like an unknown
 * one, since v1 reads as nobody.
 */
export function publicListCaches(gw: Core, id: number): CacheList & { caches: Cache[] } {
  const l = listWithCaches(gw, id, null);
  return { ...l, caches: l.caches.filter((c) => !c.mirror || c.trust === "trusted") };
}

export function publicList(gw: Core, base: string, id: number): V1List {
  const l = publicListCaches(gw, id);
  return { ...l, caches: l.caches.map((c) => v1Cache(base, c)) };
}

// ---------------------------------------------------------------- API keys

/** POST /api/v1: what the key is for, if anything. */
export const API_KEY_BODY = closed({
  label: t.Optional(nullable(t.String({ maxLength: 80 }), "what the key is for, at most 80 characters")),
});

/** A new free API key: shown once; only its hash is stored. */
export function issueApiKey(gw: Core, body: Static<typeof API_KEY_BODY>): V1Key {
  const key = "svc_" + randomBytes(32).toString("base64url");
  const id = Number(
    gw.db.query("INSERT INTO api_keys (key_hash, label, created_at) VALUES (?, ?, ?)").run(hashApiKey(key), body.label?.trim() || null, gw.clock.now())
      .lastInsertRowid,
  );
  return { key, id, label: body.label?.trim() || null, limitPerMinute: gw.config.rateLimitKeyPerMinute };
}
