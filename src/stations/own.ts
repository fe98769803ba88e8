/**
 * Own stations: the stations a signed-in user runs (a weather station, a
 * tracker, their own call). A station belongs to an account that holds its
 * base callsign (N0CALL-13 belongs to an account holding N0CALL or any SSID of
 * it) and that no other account has verified. Holding is re-checked on every
 * use, so a claim removed later (or lost to the account that verified the
 * call) stops the station's weather key, transmit and living cache.
 *
 *   owning, naming, placing, pushing weather   the base call held (verified or not)
 *   transmitting its weather, a living cache   the base call verified by this account
 */
import { t } from "elysia";
import type { Static, TObject } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { WEATHER } from "./shapes.ts";
import { baseCall, isCallsign, normalizeCall } from "../lib/callsign.ts";
import type { Weather } from "../lib/aprs/index.ts";

/** Own stations per account. */
const MAX_OWN_STATIONS = 20;

/** One of a user's stations as the API answers it. */
export const OWN_STATION = closed({
  id: wholeNumber(),
  call: t.String(),
  label: nullable(t.String()),
  lat: nullable(t.Number(), "a fixed position (a weather station that does not beacon); null: none"),
  lon: nullable(t.Number()),
  callsignHeld: t.Boolean({ description: "the account still holds the base call (else the station is dormant)" }),
  verified: t.Boolean({ description: "this account verified the base call (transmit and living caches need it)" }),
  wxKey: nullable(closed({ createdAt: unixMs(), lastUsedAt: nullable(unixMs()) }), "its weather key (never the key itself); null: none"),
  wxTx: t.Boolean({ description: "its weather readings are sent on APRS" }),
  wxTxLastAt: nullable(unixMs()),
  livingCache: t.Boolean(),
  cacheName: nullable(t.String()),
  heard: nullable(
    closed({
      lastHeard: unixMs(),
      lat: t.Optional(t.Number()),
      lon: t.Optional(t.Number()),
      lastPositionAt: t.Optional(unixMs()),
      wx: t.Optional(WEATHER),
      wxAt: t.Optional(unixMs()),
    }),
    "what the registry last heard of the call; null: nothing",
  ),
  createdAt: unixMs(),
});
export type OwnStation = Static<typeof OWN_STATION>;
/** The user's stations. */
export const OWN_STATIONS = closed({ stations: t.Array(OWN_STATION) });
/** One station. */
export const OWN_STATION_ONE = closed({ station: OWN_STATION });
/** What a change answers: the station, or that it was removed. */
export const OWN_STATION_CHANGED = t.Union([OWN_STATION_ONE, closed({ removed: t.Literal(true) })]);

export interface OwnRow {
  id: number;
  user_id: number;
  call: string;
  label: string | null;
  lat: number | null;
  lon: number | null;
  living_cache: number;
  cache_name: string | null;
  wx_tx: number;
  wx_tx_last_at: number | null;
  created_at: number;
}

/** Whether `userId` holds `call`'s base call: any SSID of it, or the base itself. */
export function holdsBaseCall(gw: Core, userId: number, call: string): { held: boolean; verified: boolean } {
  const base = baseCall(call);
  const rows = gw.db.query("SELECT verified_at AS v FROM callsigns WHERE user_id = ? AND (call = ? OR call LIKE ? || '-%')").all(userId, base, base) as Array<{
    v: number | null;
  }>;
  return { held: rows.length > 0, verified: rows.some((r) => r.v !== null) };
}

/** Another account verified this base call: it is theirs. */
function verifiedElsewhere(gw: Core, userId: number, call: string): boolean {
  const base = baseCall(call);
  return !!gw.db.query("SELECT 1 FROM callsigns WHERE user_id != ? AND verified_at IS NOT NULL AND (call = ? OR call LIKE ? || '-%')").get(userId, base, base);
}

function ownership(gw: Core, row: OwnRow): { held: boolean; verified: boolean } {
  const h = holdsBaseCall(gw, row.user_id, row.call);
  if (h.held && !h.verified && verifiedElsewhere(gw, row.user_id, row.call)) return { held: false, verified: false };
  return h;
}

export function ownRow(gw: Core, userId: number, id: number): OwnRow {
  const row = gw.db.query("SELECT * FROM my_stations WHERE id = ? AND user_id = ?").get(id, userId) as OwnRow | null;
  if (!row) throw notFound(`own station ${id}`);
  return row;
}

/** The row, provided the account still holds its callsign (and, with `verified`, verified it). */
export function usableRow(gw: Core, row: OwnRow, opts: { verified?: boolean } = {}): OwnRow {
  const o = ownership(gw, row);
  if (!o.held) throw forbidden(`this account no longer holds ${baseCall(row.call)}, so ${row.call} is not yours to use`, "not_your_station");
  if (opts.verified && !o.verified) {
    throw forbidden(
      `verify ${baseCall(row.call)} with the APRS challenge first: transmitting and living caches need a verified callsign`,
      "callsign_not_verified",
    );
  }
  return row;
}

export function viewOwn(gw: Core, row: OwnRow): OwnStation {
  const o = ownership(gw, row);
  const key = gw.db.query("SELECT created_at AS createdAt, last_used_at AS lastUsedAt FROM wx_keys WHERE station_id = ?").get(row.id) as OwnStation["wxKey"];
  const s = gw.db.query("SELECT last_heard, lat, lon, last_position_at, wx, wx_at FROM stations WHERE call = ?").get(row.call) as {
    last_heard: number;
    lat: number | null;
    lon: number | null;
    last_position_at: number | null;
    wx: string | null;
    wx_at: number | null;
  } | null;
  let heard: OwnStation["heard"] = null;
  if (s) {
    heard = { lastHeard: s.last_heard };
    if (s.lat !== null && s.lon !== null) Object.assign(heard, { lat: s.lat, lon: s.lon });
    if (s.last_position_at !== null) heard.lastPositionAt = s.last_position_at;
    if (s.wx) heard.wx = JSON.parse(s.wx) as Weather;
    if (s.wx_at !== null) heard.wxAt = s.wx_at;
  }
  return {
    id: row.id,
    call: row.call,
    label: row.label,
    lat: row.lat,
    lon: row.lon,
    callsignHeld: o.held,
    verified: o.verified,
    wxKey: key ?? null,
    wxTx: row.wx_tx === 1,
    wxTxLastAt: row.wx_tx_last_at,
    livingCache: row.living_cache === 1,
    cacheName: row.cache_name,
    heard,
    createdAt: row.created_at,
  };
}

export function listOwn(gw: Core, userId: number): OwnStation[] {
  return (gw.db.query("SELECT * FROM my_stations WHERE user_id = ? ORDER BY call").all(userId) as OwnRow[]).map((r) => viewOwn(gw, r));
}

export function findOwnByCall(gw: Core, userId: number, call: string): OwnRow | null {
  return gw.db.query("SELECT * FROM my_stations WHERE user_id = ? AND call = ?").get(userId, normalizeCall(call)) as OwnRow | null;
}

/** A member a request may set to null to clear it. */

/** label/lat/lon of a station: null clears; lat and lon come together (checkFields). */
export const PLACE = {
  label: t.Optional(nullable(t.String({ maxLength: 60, description: "up to 60 characters; null or empty clears it" }))),
  lat: t.Optional(nullable(t.Number({ minimum: -90, maximum: 90, description: "decimal degrees, with lon; null clears" }))),
  lon: t.Optional(nullable(t.Number({ minimum: -180, maximum: 180, description: "decimal degrees, with lat; null clears" }))),
};

/** POST /api/my/stations. */
export const OWN_STATION_BODY = closed({ call: t.String({ description: "a callsign of yours with an optional SSID, e.g. N0CALL-13" }), ...PLACE });
/** POST /api/my/stations/:sid. */
export const OWN_STATION_CHANGE = closed({ ...PLACE, remove: t.Optional(t.Boolean({ description: "true, alone: remove the station" })) });

export type Fields = Static<TObject<typeof PLACE>>;

/**
 * What the schema cannot say of label/lat/lon (their types and ranges are
 * PLACE's): no control characters in a label, an empty label clears it, lat
 * and lon come together (or both null to clear).
 */
export function checkFields(b: Fields): Fields {
  const out: Fields = {};
  if (b.label !== undefined) {
    if (b.label !== null && /[\x00-\x1f]/.test(b.label))
      throw badRequest("invalid", "label is text up to 60 characters, without control characters", { field: "body.label" });
    out.label = b.label === "" ? null : b.label;
  }
  if (b.lat !== undefined || b.lon !== undefined) {
    const clear = b.lat === null && b.lon === null;
    if (!clear && (typeof b.lat !== "number" || typeof b.lon !== "number"))
      throw badRequest("invalid", "lat and lon come together, in decimal degrees (or both null to clear)", {
        field: b.lat === undefined || b.lat === null ? "body.lat" : "body.lon",
      });
    out.lat = clear ? null : b.lat;
    out.lon = clear ? null : b.lon;
  }
  return out;
}

/** Adds an own station: `{call, label?, lat?, lon?}`. */
export function addOwn(gw: Core, userId: number, b: Static<typeof OWN_STATION_BODY>): OwnStation {
  if (!isCallsign(b.call)) throw badRequest("bad_callsign", "call is a callsign with an optional SSID, e.g. N0CALL-13");
  const fields = checkFields(b);
  return viewOwn(gw, createOwn(gw, userId, b.call, fields));
}

/** Inserts an own station after the ownership checks; the caller has validated `call`. */
export function createOwn(gw: Core, userId: number, rawCall: string, fields: Fields = {}): OwnRow {
  const call = normalizeCall(rawCall);
  const h = holdsBaseCall(gw, userId, call);
  if (!h.held)
    throw forbidden(
      `add ${baseCall(call)} (or any SSID of it) to your callsigns first: a station belongs to the account holding its callsign`,
      "not_your_callsign",
    );
  if (!h.verified && verifiedElsewhere(gw, userId, call)) throw forbidden(`${baseCall(call)} was verified by another account`, "callsign_taken");
  return gw.db.transaction(() => {
    if (findOwnByCall(gw, userId, call)) throw conflict("station_exists", `${call} is already one of your stations`);
    const n = (gw.db.query("SELECT count(*) AS n FROM my_stations WHERE user_id = ?").get(userId) as { n: number }).n;
    if (n >= MAX_OWN_STATIONS) throw conflict("too_many_stations", `an account has at most ${MAX_OWN_STATIONS} stations`);
    const id = Number(
      gw.db
        .query("INSERT INTO my_stations (user_id, call, label, lat, lon, created_at) VALUES (?, ?, ?, ?, ?, ?)")
        .run(userId, call, fields.label ?? null, fields.lat ?? null, fields.lon ?? null, gw.clock.now()).lastInsertRowid,
    );
    return ownRow(gw, userId, id);
  })();
}

/** Changes label/position (`null` clears), or removes the station with `{"remove": true}`. */
export function updateOwn(gw: Core, userId: number, id: number, b: Static<typeof OWN_STATION_CHANGE>): Static<typeof OWN_STATION_CHANGED> {
  const row = ownRow(gw, userId, id);
  if (b.remove === true) {
    if (b.label !== undefined || b.lat !== undefined || b.lon !== undefined) throw badRequest("invalid", 'send {"remove": true} alone');
    gw.db.query("DELETE FROM my_stations WHERE id = ?").run(row.id);
    if (row.living_cache) gw.events.emit("livingCache", { stationId: row.id, call: row.call, userId, on: false });
    return { removed: true };
  }
  const f = checkFields(b);
  gw.db
    .query("UPDATE my_stations SET label = ?, lat = ?, lon = ? WHERE id = ?")
    .run(f.label !== undefined ? f.label : row.label, f.lat !== undefined ? f.lat : row.lat, f.lon !== undefined ? f.lon : row.lon, row.id);
  return { station: viewOwn(gw, ownRow(gw, userId, id)) };
}
