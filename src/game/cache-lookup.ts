/**
 * Finding a cache: by id, gid, living-cache id or code, and nearest to a point
 * (playing from a radio: src/radio-play/); who may see and manage it; its
 * detail view; which of a list a user has found.
 */
import type { Core } from "../core/core.ts";
import { notFound } from "../lib/errors.ts";
import { mirroredCache, type MirroredCache } from "../fed/mirror.ts";
import { parseGid } from "../lib/fed/record.ts";
import { livingCache, type LivingCache } from "../stations/living-caches.ts";
import { isReviewer, mirrorExtras } from "./maintenance-roles.ts";
import { distanceM, type Actor, type Contact } from "./model.ts";
import { cacheJson, livingGid, livingJson, mirrorJson, type Cache, type CacheRow } from "./caches.ts";
import { logSummary } from "./cache-summary.ts";
import { waypointsOfCache } from "./waypoints-store.ts";

export function cacheRow(gw: Core, id: number): CacheRow | null {
  return gw.db.query("SELECT * FROM caches WHERE id = ?").get(id) as CacheRow | null;
}

/** Whether the actor may manage (edit, set stages) a native cache. */
export function isOwner(actor: Actor, r: CacheRow): boolean {
  return actor.ingest || (actor.userId !== null && actor.userId === r.owner_id);
}

/** A cache the caller may see: its own drafts, anything else that exists. 404 otherwise. */
export function visibleRow(gw: Core, id: number, actor: Actor | null): CacheRow {
  const r = cacheRow(gw, id);
  if (!r || (r.status === "draft" && !(actor && (isOwner(actor, r) || (r.review !== null && isReviewer(gw, actor)))))) throw notFound(`cache ${id}`);
  return r;
}

/**
 * A native cache (numeric id, or this instance's gid), a mirrored one (another
 * instance's gid) or a living cache (`living-<station id>`, as the map lists it,
 * or its gid `<instance>:living:<station id>`).
 */
export type CacheRef = { native: CacheRow } | { mirror: MirroredCache } | { living: LivingCache };

export function resolveCache(gw: Core, raw: string, actor: Actor | null): CacheRef {
  if (/^\d{1,15}$/.test(raw)) return { native: visibleRow(gw, Number(raw), actor) };
  const living = /^living-(\d{1,15})$/.exec(raw)?.[1] ?? (raw.startsWith(`${gw.config.instance}:living:`) ? raw.slice(gw.config.instance.length + 8) : null);
  if (living !== null) {
    const l = /^\d{1,15}$/.test(living) ? livingCache(gw, Number(living)) : null;
    if (!l) throw notFound(`cache ${raw}`);
    return { living: l };
  }
  const g = parseGid(raw);
  if (!g || g.kind !== "cache") throw notFound(`cache ${raw}`);
  if (g.origin === gw.config.instance) {
    if (!/^\d{1,15}$/.test(g.localId)) throw notFound(`cache ${raw}`);
    return { native: visibleRow(gw, Number(g.localId), actor) };
  }
  const m = mirroredCache(gw, raw);
  if (!m) throw notFound(`cache ${raw}`);
  return { mirror: m };
}

/** The detail view: the cache, plus the owner's contact fields for signed-in users of this instance. */
export function cacheDetail(gw: Core, raw: string, actor: Actor | null): Cache & { contact?: Contact | null; mine?: boolean } {
  const ref = resolveCache(gw, raw, actor);
  if ("mirror" in ref) return { ...mirrorJson(gw, ref.mirror), ...mirrorExtras(gw, ref.mirror.gid) };
  if ("living" in ref) {
    const gid = livingGid(gw, ref.living.stationId);
    const finds = (gw.db.query("SELECT count(*) AS n FROM logs WHERE cache_gid = ? AND kind = 'find' AND state = 'active'").get(gid) as { n: number }).n;
    return { ...livingJson(gw, ref.living), finds, mine: !!actor && actor.userId !== null && actor.userId === ref.living.ownerUserId };
  }
  const c = cacheJson(gw, ref.native);
  const signedIn = actor !== null && actor.userId !== null;
  return {
    ...c,
    ...(signedIn ? { contact: ref.native.contact ? (JSON.parse(ref.native.contact) as Contact) : null } : {}),
    mine: !!actor && isOwner(actor, ref.native) && !actor.ingest,
  };
}

/** Marks the caches a signed-in user has found (`found: true`), for their map. */
export function markFound<T extends { gid: string }>(gw: Core, userId: number, caches: T[]): Array<T & { found?: boolean }> {
  if (!caches.length) return caches;
  const found = new Set(
    (
      gw.db
        .query("SELECT cache_gid AS g FROM logs WHERE user_id = ? AND kind = 'find' AND state = 'active' AND cache_gid IN (SELECT value FROM json_each(?))")
        .all(userId, JSON.stringify(caches.map((c) => c.gid))) as Array<{ g: string }>
    ).map((r) => r.g),
  );
  return caches.map((c) => (found.has(c.gid) ? { ...c, found: true } : c));
}

/**
 * A native cache by its code (`codeOf`: SV + base-36 id, or a catalog import's
 * own code such as GC1234), any status; null when none. Case does not matter.
 */
export function cacheByCode(gw: Core, raw: string): CacheRow | null {
  const code = raw.trim().toUpperCase();
  if (!/^[A-Z0-9-]{2,20}$/.test(code)) return null;
  const m = /^SV([0-9A-Z]{1,10})$/.exec(code);
  if (m) {
    const id = Number.parseInt(m[1]!, 36);
    const r = Number.isSafeInteger(id) ? cacheRow(gw, id) : null;
    // an import's code is its own: SV… names native caches only
    if (r && r.source_ref === null) return r;
  }
  return gw.db.query("SELECT * FROM caches WHERE source_ref = ? COLLATE NOCASE ORDER BY id LIMIT 1").get(code) as CacheRow | null;
}

/**
 * The `n` active, listed native caches nearest to a point within `maxKm`,
 * nearest first, each with its distance in metres (from the map index).
 */
export function nearestActiveCaches(gw: Core, lat: number, lon: number, n: number, maxKm: number): Array<{ cache: CacheRow; distanceM: number }> {
  // widen the box until it holds enough (most calls stop at the first)
  for (let km = Math.min(2, maxKm); ; km = Math.min(km * 4, maxKm)) {
    const dLat = km / 111;
    const dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180));
    const box = { south: Math.max(-90, lat - dLat), north: Math.min(90, lat + dLat), west: lon - dLon, east: lon + dLon };
    const rows = gw.db
      .query(
        `SELECT c.* FROM caches_geo g JOIN caches c ON c.id = g.id
         WHERE g.max_lat >= ?1 AND g.min_lat <= ?2 AND g.max_lon >= ?3 AND g.min_lon <= ?4 AND c.status = 'active' LIMIT 2000`,
      )
      .all(box.south, box.north, box.west, box.east) as CacheRow[];
    const near = rows
      .map((cache) => ({ cache, distanceM: distanceM(lat, lon, cache.lat, cache.lon) }))
      .filter((x) => x.distanceM <= km * 1000)
      .sort((a, b) => a.distanceM - b.distanceM);
    if (near.length >= n || km >= maxKm) return near.slice(0, n);
  }
}

/**
 * A cache's page as GET /api/caches/:id answers it to anyone: the detail
 * view, the logbook's counts per kind and its last find, and the waypoints
 * `actor` may see. The page's server-drawn first view (src/http/first-view.ts)
 * hands the web app the same answer.
 */
export function cachePage(gw: Core, raw: string, actor: Actor | null) {
  const detail = cacheDetail(gw, raw, actor);
  return { ...detail, ...logSummary(gw, detail.gid), waypoints: waypointsOfCache(gw, detail, actor) };
}
