/**
 * Living caches: an own station whose position *is* a cache. Its position is
 * the station's latest beacon as the registry heard it (RF, APRS-IS, the
 * ingest box), or, for a station that has not beaconed yet, the fixed
 * position set on the own station. The game (src/game/) owns caches; it reads
 * these through listLivingCaches()/livingCache() and hears changes on the
 * `livingCache` event. Only a station whose base callsign is verified by its
 * owner's account is a living cache: the cache follows a real transmitter.
 *
 *   listLivingCaches(gw, { bbox: { west: -72, south: 41, east: -70, north: 43 }, maxAgeMs: 3_600_000 })
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import type { SignedInUser } from "../accounts/caller.ts";
import { badRequest } from "../lib/errors.ts";
import { isCallsign } from "../lib/callsign.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { inBbox, type Bbox } from "./registry.ts";
import { createOwn, findOwnByCall, holdsBaseCall, OWN_STATION, ownRow, usableRow, viewOwn, type OwnRow } from "./own.ts";

/** A living cache: an own station whose position is the cache's. */
export const LIVING_CACHE = closed({
  stationId: wholeNumber({ description: "the own station (my_stations.id): stable for the life of the cache" }),
  call: t.String({ description: "the station's callsign, e.g. N0CALL-7" }),
  name: t.String({ description: "the name the owner gave, else the callsign" }),
  ownerUserId: wholeNumber({ description: "the account that runs the station" }),
  lat: t.Number(),
  lon: t.Number(),
  from: t.Union([t.Literal("beacon"), t.Literal("fixed")], {
    description: "beacon: the latest position heard from the station; fixed: the own station's set position (never beaconed yet)",
  }),
  positionAt: nullable(unixMs(), "when the beacon was heard; null for a fixed position"),
  lastHeard: nullable(unixMs(), "last time anything was heard from the station"),
  symbol: nullable(t.String(), "the station's APRS symbol, when known"),
  createdAt: unixMs("when the station was added as an own station"),
});
export type LivingCache = Static<typeof LIVING_CACHE>;

interface Row {
  id: number;
  call: string;
  user_id: number;
  cache_name: string | null;
  fixed_lat: number | null;
  fixed_lon: number | null;
  created_at: number;
  lat: number | null;
  lon: number | null;
  last_position_at: number | null;
  last_heard: number | null;
  symbol: string | null;
}

const SELECT = `SELECT m.id, m.call, m.user_id, m.cache_name, m.lat AS fixed_lat, m.lon AS fixed_lon, m.created_at,
    s.lat, s.lon, s.last_position_at, s.last_heard, s.symbol
  FROM my_stations m LEFT JOIN stations s ON s.call = m.call
  WHERE m.living_cache = 1`;

function toCache(gw: Core, r: Row): LivingCache | null {
  if (!holdsBaseCall(gw, r.user_id, r.call).verified) return null;
  const beacon = r.lat !== null && r.lon !== null;
  if (!beacon && (r.fixed_lat === null || r.fixed_lon === null)) return null;
  return {
    stationId: r.id,
    call: r.call,
    name: r.cache_name ?? r.call,
    ownerUserId: r.user_id,
    lat: beacon ? r.lat! : r.fixed_lat!,
    lon: beacon ? r.lon! : r.fixed_lon!,
    from: beacon ? "beacon" : "fixed",
    positionAt: beacon ? r.last_position_at : null,
    lastHeard: r.last_heard,
    symbol: r.symbol,
    createdAt: r.created_at,
  };
}

/**
 * Every living cache with its current position, newest beacon first. A cache
 * with no position yet (never heard, no fixed position) is left out, as is
 * one whose owner no longer holds its verified callsign. `bbox` keeps those
 * inside a box (west > east crosses the antimeridian); `maxAgeMs` drops
 * beacons older than that (fixed positions are kept).
 */
export function listLivingCaches(gw: Core, opts: { bbox?: Bbox; maxAgeMs?: number } = {}): LivingCache[] {
  const now = gw.clock.now();
  const out: LivingCache[] = [];
  for (const r of gw.db.query(SELECT).all() as Row[]) {
    const c = toCache(gw, r);
    if (!c) continue;
    if (opts.bbox && !inBbox(c, opts.bbox)) continue;
    if (opts.maxAgeMs !== undefined && c.positionAt !== null && c.positionAt < now - opts.maxAgeMs) continue;
    out.push(c);
  }
  return out.sort((a, b) => (b.positionAt ?? 0) - (a.positionAt ?? 0) || a.stationId - b.stationId);
}

/** One living cache by its station id, or null (not a living cache, or no position yet). */
export function livingCache(gw: Core, stationId: number): LivingCache | null {
  const r = gw.db.query(`${SELECT} AND m.id = ?`).get(stationId) as Row | null;
  return r ? toCache(gw, r) : null;
}

/** A station and its living cache. */
export const LIVING_CACHE_VIEW = closed({
  station: OWN_STATION,
  cache: nullable(LIVING_CACHE, "the cache as the game sees it; null when off or not placed yet"),
});
export type LivingCacheView = Static<typeof LIVING_CACHE_VIEW>;

const LIVING = {
  on: t.Optional(t.Boolean({ description: "default true" })),
  name: t.Optional(nullable(t.String({ maxLength: 60, description: "the cache's name, up to 60 characters" }))),
};
/** POST /api/my/stations/:sid/cache (the station is in the path). */
export const LIVING_CACHE_BODY = closed(LIVING);
/** POST /api/me/cache. */
export const ME_CACHE_BODY = closed({ ...LIVING, call: t.Optional(t.String({ description: "the station; default your active callsign" })) });

/** What the schema cannot say of the name: not blank, no control characters; it is kept trimmed. */
function checkCacheBody(b: Static<typeof LIVING_CACHE_BODY>): { on: boolean; name?: string | null } {
  if (typeof b.name === "string" && (b.name.trim().length === 0 || /[\x00-\x1f]/.test(b.name)))
    throw badRequest("invalid", "name is text up to 60 characters, not blank, without control characters", { field: "body.name" });
  return { on: b.on ?? true, name: typeof b.name === "string" ? b.name.trim() : b.name };
}

/** Writes the flag and name (in the caller's transaction); returns the event to emit once committed. */
function apply(gw: Core, row: OwnRow, body: { on: boolean; name?: string | null }): GatewayEvents["livingCache"] | null {
  if (body.on) usableRow(gw, row, { verified: true });
  const name = body.name === undefined ? row.cache_name : body.name;
  gw.db.query("UPDATE my_stations SET living_cache = ?, cache_name = ? WHERE id = ?").run(body.on ? 1 : 0, name, row.id);
  if (body.on === (row.living_cache === 1) && (!body.on || name === row.cache_name)) return null;
  return { stationId: row.id, call: row.call, userId: row.user_id, on: body.on, ...(name ? { name } : {}) };
}

/** Runs `write` in one transaction, emits its event after the commit, answers the station and its cache. */
function commit(gw: Core, write: () => { row: OwnRow; event: GatewayEvents["livingCache"] | null }): LivingCacheView {
  const { row, event } = gw.db.transaction(write)();
  if (event) gw.events.emit("livingCache", event);
  return { station: viewOwn(gw, ownRow(gw, row.user_id, row.id)), cache: livingCache(gw, row.id) };
}

export function livingCacheView(gw: Core, userId: number, stationId: number): LivingCacheView {
  const row = ownRow(gw, userId, stationId);
  return { station: viewOwn(gw, row), cache: livingCache(gw, row.id) };
}

/** POST /api/my/stations/:sid/cache: `{"on": true, "name"?}` makes the station a living cache; `{"on": false}` stops it. */
export function setLivingCache(gw: Core, userId: number, stationId: number, b: Static<typeof LIVING_CACHE_BODY>): LivingCacheView {
  const body = checkCacheBody(b);
  const row = ownRow(gw, userId, stationId);
  return commit(gw, () => ({ row, event: apply(gw, row, body) }));
}

/**
 * POST /api/me/cache: "I am the cache". The caller's active callsign (or
 * `call`, one they hold) becomes an own station if it is not one yet, and a
 * living cache: finders hunt its beacon.
 */
export function becomeLivingCache(gw: Core, user: SignedInUser, b: Static<typeof ME_CACHE_BODY>): LivingCacheView {
  const body = checkCacheBody(b);
  if (b.call !== undefined && !isCallsign(b.call)) throw badRequest("bad_callsign", "call is a callsign with an optional SSID");
  const call = b.call ?? user.call;
  if (!call) throw badRequest("no_callsign", "add a callsign to your account first (or name one in call)");
  return commit(gw, () => {
    const row = findOwnByCall(gw, user.id, call) ?? (body.on ? createOwn(gw, user.id, call) : null);
    if (!row) throw badRequest("not_a_cache", `${call} is not one of your stations`);
    return { row, event: apply(gw, row, body) };
  });
}
