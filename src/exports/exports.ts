/**
 * The export files of /api/v1: GPX and KML of caches (with bbox= and the
 * search filters), ADIF of a callsign's RF-verified finds.
 */
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { isCallsign } from "../lib/callsign.ts";
import { cacheDetail } from "../game/cache-lookup.ts";
import { cacheJson, type Cache } from "../game/caches.ts";
import type { Actor, CacheFilterQuery } from "../game/model.ts";
import { logJson, type Log } from "../game/logs.ts";
import type { LogRow } from "../game/log-record.ts";
import { selectCaches } from "../v1/service.ts";
import { gpxDocument } from "./gpx.ts";
import { kmlDocument } from "./kml.ts";
import { adifFinds } from "./adif.ts";
import { travelBugsIn } from "../game/trackables-gpx.ts";
import { withCorrected } from "../game/personal.ts";
import { waypointsOfCaches, type Viewer } from "../game/waypoints-store.ts";
import { catalogLogsOf } from "../game/catalog-logs.ts";

/** Caches per export file. */
export const MAX_EXPORT = 10_000;
/** Logs per cache in a GPX export (newest first), as pocket queries carry. */
const GPX_LOGS_PER_CACHE = 5;

function exportCaches(gw: Core, q: CacheFilterQuery, limit: number | undefined): Cache[] {
  return selectCaches(gw, q, { limit: limit ?? MAX_EXPORT, max: MAX_EXPORT }).rows.map((r) => cacheJson(gw, r, false));
}

/** GPX of caches; for a signed-in `userId`, their corrected caches where they solved them to be (src/game/personal.ts). */
export function gpxExport(gw: Core, base: string, q: CacheFilterQuery, limit?: number, userId: number | null = null): string {
  const caches = exportCaches(gw, q, limit);
  return gpxOf(gw, base, userId === null ? caches : withCorrected(gw, userId, caches), viewerOf(userId));
}

/** A signed-in reader (their finals), or anyone. */
const viewerOf = (userId: number | null): Viewer | null => (userId === null ? null : { userId, ingest: false });

/** One cache's GPX, as the caller may see it (a draft only to its owner, an unlisted cache by its link). */
export function cacheGpx(gw: Core, base: string, id: string, reader: Actor | null): { name: string; gpx: string } {
  const { contact: _contact, mine: _mine, ...c } = cacheDetail(gw, id, reader);
  const caches = reader?.userId ? withCorrected(gw, reader.userId, [c]) : [c];
  return { name: `${(c.code || String(c.id)).replace(/[^A-Za-z0-9_-]/g, "_")}.gpx`, gpx: gpxOf(gw, base, caches, reader) };
}

/** GPX of given caches (a bookmark list's); for a signed-in `userId`, their corrected caches where they solved them to be. */
export function gpxOfCaches(gw: Core, base: string, caches: Cache[], userId: number | null): string {
  return gpxOf(gw, base, userId === null ? caches : withCorrected(gw, userId, caches), viewerOf(userId));
}

/** GPX of caches with each one's newest logs (a mirror's logs are not read here) and their waypoints as `viewer` may see them. */
function gpxOf(gw: Core, base: string, caches: Cache[], viewer: Viewer | null): string {
  const byCache = new Map<string, Log[]>();
  if (caches.length) {
    // One query for every cache's latest logs.
    const rows = gw.db
      .query(
        `SELECT * FROM (SELECT l.*, row_number() OVER (PARTITION BY l.cache_id ORDER BY l.created_at DESC, l.id DESC) AS k
           FROM logs l WHERE l.state = 'active' AND l.cache_id IN (SELECT value FROM json_each(?))) WHERE k <= ?`,
      )
      .all(JSON.stringify(caches.map((c) => c.id).filter((id) => typeof id === "number")), GPX_LOGS_PER_CACHE) as LogRow[];
    for (const r of rows) {
      const list = byCache.get(r.cache_gid) ?? [];
      list.push(logJson(gw, r));
      byCache.set(r.cache_gid, list);
    }
  }
  const waypoints = waypointsOfCaches(gw, caches, viewer);
  // an imported cache's logs from its file, after this instance's own
  const kept = catalogLogsOf(
    gw,
    caches.filter((c) => c.source === "catalog" && typeof c.id === "number").map((c) => c.id as number),
  );
  const fromFile = (c: Cache): Log[] =>
    (kept.get(c.id as number) ?? []).map((l) => ({
      id: 0,
      gid: "",
      cacheGid: c.gid,
      kind: l.kind,
      call: l.finder,
      text: l.text,
      foundAt: l.loggedAt,
      createdAt: l.loggedAt,
      tier: null,
      state: "active",
      corroboration: null,
      origin: "catalog",
    }));
  return gpxDocument(
    caches,
    (c) => [...(byCache.get(c.gid) ?? []), ...fromFile(c)],
    { base, instance: gw.config.instance, now: gw.clock.now() },
    (c) => travelBugsIn(gw, c),
    (c) => waypoints.get(c.gid) ?? [],
  );
}

export function kmlExport(gw: Core, base: string, q: CacheFilterQuery, limit?: number): string {
  return kmlDocument(exportCaches(gw, q, limit), { base, instance: gw.config.instance });
}

export function adifExport(gw: Core, call: string, band?: string): string {
  if (!isCallsign(call)) throw badRequest("invalid", "the file name is a callsign: /api/v1/finds/N0CALL.adif");
  return adifFinds(gw, call, { band: band?.toLowerCase(), now: gw.clock.now() }).text;
}
