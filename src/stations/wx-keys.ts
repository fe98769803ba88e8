/**
 * Per-station weather keys: a random secret a personal weather station
 * presents when it pushes readings. Only a SHA-256 of the key is stored.
 */
import { createHash, randomBytes } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { SignedInUser, WxKeyStation } from "../accounts/caller.ts";
import { badRequest } from "../lib/errors.ts";
import { isCallsign, baseCall } from "../lib/callsign.ts";
import { closed, wholeNumber } from "../lib/schema.ts";
import { checkFields, createOwn, findOwnByCall, listOwn, OWN_STATION, ownRow, PLACE, updateOwn, usableRow, viewOwn, type OwnStation } from "./own.ts";

/** POST /api/my/stations/:sid/wx-key. */
export const STATION_WX_KEY_BODY = closed({
  revoke: t.Optional(t.Boolean({ description: "true: revoke the key; otherwise a new key replaces the old" })),
});
/** POST /api/wx/key. */
export const OWN_WX_KEY_BODY = closed({ call: t.Optional(t.String({ description: "the station; default your callsign with SSID -13" })), ...PLACE });

const hash = (k: string) => createHash("sha256").update(k).digest("base64url");

/** Issues (or replaces) the key of an own station; returns the key, shown once. */
export function issueWxKey(gw: Core, stationId: number): string {
  const key = randomBytes(18).toString("base64url");
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM wx_keys WHERE station_id = ?").run(stationId);
    gw.db.query("INSERT INTO wx_keys (key_hash, station_id, created_at) VALUES (?, ?, ?)").run(hash(key), stationId, gw.clock.now());
  })();
  return key;
}

export function findWxKey(gw: Core, key: string): WxKeyStation | null {
  if (key.length < 8 || key.length > 200) return null;
  const row = gw.db
    .query("SELECT m.id AS stationId, m.user_id AS userId, m.call FROM wx_keys k JOIN my_stations m ON m.id = k.station_id WHERE k.key_hash = ?")
    .get(hash(key)) as WxKeyStation | null;
  if (row) gw.db.query("UPDATE wx_keys SET last_used_at = ? WHERE key_hash = ?").run(gw.clock.now(), hash(key));
  return row;
}

/** The key a request carries: WU's PASSWORD, ?key=, x-wx-key, or a wxkey/PASSWORD body field. */
export function wxKeyFrom(request: Request, body: unknown): string | null {
  const url = new URL(request.url);
  const fromQuery = url.searchParams.get("PASSWORD") ?? url.searchParams.get("key");
  if (fromQuery) return fromQuery;
  const header = request.headers.get("x-wx-key");
  if (header) return header;
  if (body && typeof body === "object" && !(body instanceof Uint8Array) && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    const v = b.wxkey ?? b.PASSWORD ?? b.key;
    if (typeof v === "string") return v;
  }
  return null;
}

/** Revokes an own station's key: its pushes are refused from now on. */
function revokeWxKey(gw: Core, stationId: number): boolean {
  return gw.db.query("DELETE FROM wx_keys WHERE station_id = ?").run(stationId).changes > 0;
}

/** How to point a weather station at this instance with `key`. */
export const UPLOAD_SETTINGS = closed({
  wunderground: t.String({ description: "Weather Underground protocol: the whole URL a station (or weewx, Cumulus...) GETs, readings appended" }),
  ecowitt: closed(
    { server: t.String(), port: wholeNumber(), path: t.String(), protocol: t.Literal("Ecowitt") },
    { description: 'Ecowitt "customized" upload, protocol Ecowitt' },
  ),
});
export type UploadSettings = Static<typeof UPLOAD_SETTINGS>;

/** Upload settings for a key, on PUBLIC_URL (else the address the gateway listens on). */
function uploadSettings(gw: Core, call: string, key: string): UploadSettings {
  const base = new URL(gw.config.publicUrl ?? gw.url ?? `http://localhost:${gw.config.port}`);
  const port = base.port ? Number(base.port) : base.protocol === "https:" ? 443 : 80;
  const q = new URLSearchParams({ ID: call, PASSWORD: key });
  return {
    wunderground: `${base.origin}/updateweatherstation?${q}`,
    ecowitt: { server: base.hostname, port, path: `/api/wx/submit?key=${encodeURIComponent(key)}`, protocol: "Ecowitt" },
  };
}

/** A new weather key: shown this once (only its hash is kept), with the station and how to set it up. */
export const ISSUED_KEY = closed({
  key: t.String({ description: "the key itself: shown this once, only its hash is kept" }),
  station: OWN_STATION,
  upload: UPLOAD_SETTINGS,
});
export type IssuedKey = Static<typeof ISSUED_KEY>;
/** A revoked key: whether there was one, and the station. */
export const KEY_REVOKED = closed({ revoked: t.Boolean({ description: "false: the station had no key" }), station: OWN_STATION });
/** Whether a station has a weather key (never the key itself). */
export const WX_KEY_STATE = closed({ wxKey: OWN_STATION.properties.wxKey, station: OWN_STATION });
/** The user's weather stations: those with a key or sending on APRS. */
export const WX_STATIONS = closed({ stations: t.Array(OWN_STATION) });

/** POST /api/my/stations/:sid/wx-key: a new key (the old one stops working); `{"revoke": true}` only revokes. */
export function stationWxKey(gw: Core, userId: number, stationId: number, b: Static<typeof STATION_WX_KEY_BODY>): IssuedKey | Static<typeof KEY_REVOKED> {
  const row = ownRow(gw, userId, stationId);
  if (b.revoke === true) {
    const revoked = revokeWxKey(gw, row.id);
    return { revoked, station: viewOwn(gw, row) };
  }
  usableRow(gw, row);
  const key = issueWxKey(gw, row.id);
  return { key, station: viewOwn(gw, row), upload: uploadSettings(gw, row.call, key) };
}

/**
 * POST /api/wx/key: the signed-in user's weather station key. `call` names the
 * station (default: the active callsign's base with SSID -13, the APRS
 * convention for weather stations); it becomes an own station if it is not one
 * yet (`label`, `lat`, `lon` as for POST /api/my/stations).
 */
export function ownWxKey(gw: Core, user: SignedInUser, b: Static<typeof OWN_WX_KEY_BODY>): IssuedKey {
  if (b.call !== undefined && !isCallsign(b.call)) throw badRequest("bad_callsign", "call is a callsign with an optional SSID, e.g. N0CALL-13");
  if (b.call === undefined && !user.call) throw badRequest("no_callsign", "add a callsign to your account first (or name one in call)");
  const call = b.call ?? `${baseCall(user.call!)}-13`;
  const fields = checkFields(b);
  return gw.db.transaction(() => {
    let row = findOwnByCall(gw, user.id, call);
    if (!row) row = createOwn(gw, user.id, call, fields);
    else if (Object.keys(fields).length) updateOwn(gw, user.id, row.id, { ...fields });
    return stationWxKey(gw, user.id, row.id, {}) as IssuedKey;
  })();
}

/** GET /api/wx/key and /api/wx/tx: the account's stations that push weather or transmit it. */
export function weatherStations(gw: Core, userId: number): OwnStation[] {
  return listOwn(gw, userId).filter((s) => s.wxKey !== null || s.wxTx);
}
