/**
 * The owner's edits of a cache's waypoints (waypoints-store.ts holds them):
 * add, change, delete, each re-publishing the cache's record, which carries
 * all but the final. Others get 403; a cache the caller may not see (another
 * owner's draft) 404s as the cache does.
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { cacheDetail, isOwner, visibleRow } from "./cache-lookup.ts";
import { codeOf, type CacheRow } from "./caches.ts";
import { republishCache } from "./cache-publish.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../lib/schema.ts";
import { latitude, longitude, optText, text, type Actor } from "./model.ts";
import {
  MAX_WAYPOINT_NAME,
  MAX_WAYPOINT_NOTE,
  MAX_WAYPOINTS,
  prefixFor,
  WAYPOINT_KINDS,
  waypointJson,
  waypointsOfCache,
  type Waypoint,
  type WaypointRow,
} from "./waypoints-store.ts";

const COORD = (what: string, limit: number) =>
  t.Optional(nullable(t.Number({ minimum: -limit, maximum: limit }), `${what} in decimal degrees; null with the other clears both`));
const FIELDS = {
  kind: t.Union(
    WAYPOINT_KINDS.map((k) => t.Literal(k)),
    { description: WAYPOINT_KINDS.join(", ") },
  ),
  name: t.String({ maxLength: MAX_WAYPOINT_NAME, description: `1-${MAX_WAYPOINT_NAME} characters` }),
  lat: COORD("latitude", 90),
  lon: COORD("longitude", 180),
  note: t.Optional(nullable(t.String(), `at most ${MAX_WAYPOINT_NOTE} characters; null clears it`)),
};
/** A new waypoint (kind and name required); an edit sends any of the fields. */
export const WAYPOINT_BODY = closed(FIELDS);
export const WAYPOINT_PATCH = t.Partial(WAYPOINT_BODY);
export type WaypointBody = Static<typeof WAYPOINT_BODY>;
type WaypointPatch = Static<typeof WAYPOINT_PATCH>;

/** A cache's waypoints as the caller may see them (the final only to its owner and its finders). */
export function listWaypoints(gw: Core, key: string, actor: Actor | null): { waypoints: Waypoint[] } {
  const c = cacheDetail(gw, key, actor);
  return { waypoints: waypointsOfCache(gw, c, actor) };
}

/** The cache, when the actor may change its waypoints. */
function ownedRow(gw: Core, actor: Actor, cacheId: number): CacheRow {
  const r = visibleRow(gw, cacheId, actor);
  if (!isOwner(actor, r)) throw forbidden("only the cache's owner may change its waypoints", "not_owner");
  if (r.status === "archived") throw conflict("archived", "an archived cache cannot be changed");
  return r;
}

interface Checked {
  kind?: (typeof WAYPOINT_KINDS)[number];
  name?: string;
  /** undefined: unchanged; null: cleared */
  at?: { lat: number; lon: number } | null;
  note?: string | null;
}

/** What the schema cannot say: text trimmed and free of control characters, lat with lon, something to change. */
function checkWaypoint(body: WaypointPatch, partial: boolean): Checked {
  const out: Checked = {};
  if (body.kind !== undefined) out.kind = body.kind;
  if (body.name !== undefined) out.name = text(body.name, "name", 1, MAX_WAYPOINT_NAME);
  if (body.note !== undefined) out.note = optText(body.note, "note", MAX_WAYPOINT_NOTE);
  if ((body.lat !== undefined) !== (body.lon !== undefined)) throw badRequest("invalid", "lat and lon go together");
  if (body.lat !== undefined && body.lon !== undefined) {
    if (body.lat === null && body.lon === null) out.at = null;
    else if (body.lat === null || body.lon === null) throw badRequest("invalid", "lat and lon are cleared together");
    else out.at = { lat: latitude(body.lat), lon: longitude(body.lon) };
  }
  if (partial && Object.keys(out).length === 0) throw badRequest("invalid", "nothing to change");
  return out;
}

const rowOf = (gw: Core, cacheId: number, id: number) =>
  gw.db.query("SELECT * FROM cache_waypoints WHERE id = ? AND cache_id = ?").get(id, cacheId) as WaypointRow | null;

/** Adds a waypoint (the cache's owner); at most MAX_WAYPOINTS a cache. */
export function addWaypoint(gw: Core, actor: Actor, cacheId: number, body: WaypointBody): { waypoint: Waypoint } {
  const r = ownedRow(gw, actor, cacheId);
  const w = checkWaypoint(body, false);
  const now = gw.clock.now();
  const id = gw.db.transaction(() => {
    const prefixes = gw.db.query("SELECT prefix FROM cache_waypoints WHERE cache_id = ?").all(cacheId) as Array<{ prefix: string }>;
    if (prefixes.length >= MAX_WAYPOINTS) throw conflict("too_many", `a cache has at most ${MAX_WAYPOINTS} waypoints`);
    const prefix = prefixFor(w.kind!, new Set(prefixes.map((p) => p.prefix)));
    const id = Number(
      gw.db
        .query("INSERT INTO cache_waypoints (cache_id, kind, prefix, name, lat, lon, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .run(cacheId, w.kind!, prefix, w.name!, w.at?.lat ?? null, w.at?.lon ?? null, w.note ?? null, now, now).lastInsertRowid,
    );
    republishCache(gw, cacheId);
    return id;
  })();
  return { waypoint: waypointJson(rowOf(gw, cacheId, id)!, codeOf(r)) };
}

/** Changes the fields sent of one waypoint (the cache's owner); null clears coordinates or the note. */
export function editWaypoint(gw: Core, actor: Actor, cacheId: number, id: number, body: WaypointPatch): { waypoint: Waypoint } {
  const r = ownedRow(gw, actor, cacheId);
  const cur = rowOf(gw, cacheId, id);
  if (!cur) throw notFound(`waypoint ${id} of cache ${cacheId}`);
  const w = checkWaypoint(body, true);
  gw.db.transaction(() => {
    const at = w.at === undefined ? (cur.lat === null ? null : { lat: cur.lat, lon: cur.lon! }) : w.at;
    // a new kind takes that kind's prefix (a parking turned final is FN, not PK)
    const taken = gw.db.query("SELECT prefix FROM cache_waypoints WHERE cache_id = ? AND id <> ?").all(cacheId, id) as Array<{ prefix: string }>;
    const prefix = w.kind && w.kind !== cur.kind ? prefixFor(w.kind, new Set(taken.map((p) => p.prefix))) : cur.prefix;
    gw.db
      .query("UPDATE cache_waypoints SET kind = ?, prefix = ?, name = ?, lat = ?, lon = ?, note = ?, updated_at = ? WHERE id = ?")
      .run(w.kind ?? cur.kind, prefix, w.name ?? cur.name, at?.lat ?? null, at?.lon ?? null, w.note === undefined ? cur.note : w.note, gw.clock.now(), id);
    republishCache(gw, cacheId);
  })();
  return { waypoint: waypointJson(rowOf(gw, cacheId, id)!, codeOf(r)) };
}

/** Deletes one waypoint (the cache's owner). */
export function deleteWaypoint(gw: Core, actor: Actor, cacheId: number, id: number): { deleted: true } {
  ownedRow(gw, actor, cacheId);
  if (!rowOf(gw, cacheId, id)) throw notFound(`waypoint ${id} of cache ${cacheId}`);
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM cache_waypoints WHERE id = ?").run(id);
    republishCache(gw, cacheId);
  })();
  return { deleted: true };
}
