/**
 * Alerts: a user's watch list of callsigns (told when one is heard), and
 * emergencies heard (a Mic-E position with the message "Emergency", or a
 * position with the emergency symbol `\!`, overlaid or not), which the map
 * shows in a banner and which go to the sysops (verified ADMIN_CALLSIGNS) and
 * to the station's watchers. Who is told and how (live, push) is
 * src/live/user-channel.ts; this file decides who and stores what.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { AprsPacket } from "../lib/aprs/types.ts";
import { baseCall } from "../lib/callsign.ts";
import { badRequest } from "../lib/errors.ts";

/** Watched calls a user may have. */
export const MAX_WATCHES = 50;
/** One watch alert per user and call in this time. */
const WATCH_ALERT_MS = 30 * 60_000;
/** The same station's emergency is recorded again (and told again) after this. */
const EMERGENCY_REPEAT_MS = 10 * 60_000;
/** How far back the map's banner looks. */
const EMERGENCY_WINDOW_MS = 24 * 3_600_000;

/** An emergency position heard. */
export const EMERGENCY = closed({
  id: wholeNumber(),
  call: t.String(),
  ts: unixMs(),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  reason: t.Union([t.Literal("mic-e"), t.Literal("symbol")], { description: "mic-e: a Mic-E Emergency; symbol: the \\! symbol" }),
  comment: nullable(t.String()),
});
export type Emergency = Static<typeof EMERGENCY>;

/** GET /api/alerts/emergencies. */
export const EMERGENCIES = closed({ emergencies: t.Array(EMERGENCY, { description: "the last 24 hours, one per station, newest first (at most 100)" }) });

/** GET and PUT /api/alerts/watch. */
export const WATCH_LIST = closed({ calls: t.Array(t.String(), { description: "watched callsigns, sorted; one without SSID watches every SSID" }) });

export function watchList(gw: Core, userId: number): string[] {
  return (gw.db.query("SELECT call FROM callsign_watches WHERE user_id = ? ORDER BY call").all(userId) as Array<{ call: string }>).map((r) => r.call);
}

/** Replaces the watch list; a call without SSID watches every SSID. 400 for a bad call or too many. */
export function setWatchList(gw: Core, userId: number, calls: string[]): string[] {
  const list = [...new Set(calls.map((c) => c.trim().toUpperCase()))];
  const badCall = list.find((c) => !/^[A-Z0-9]{1,6}(-[0-9A-Z]{1,2})?$/.test(c));
  if (badCall !== undefined) throw badRequest("bad_call", `"${badCall}" is not a callsign (e.g. N0CALL or N0CALL-9)`);
  if (list.length > MAX_WATCHES) throw badRequest("too_many_watches", `a watch list holds at most ${MAX_WATCHES} callsigns`);
  const now = gw.clock.now();
  gw.db.transaction(() => {
    const keep = new Set(list);
    for (const old of watchList(gw, userId)) if (!keep.has(old)) gw.db.query("DELETE FROM callsign_watches WHERE user_id = ? AND call = ?").run(userId, old);
    for (const c of list) gw.db.query("INSERT OR IGNORE INTO callsign_watches (user_id, call, created_at) VALUES (?, ?, ?)").run(userId, c, now);
  })();
  return watchList(gw, userId);
}

/** Users watching `call` (exactly, or its base call). */
export function watchersOf(gw: Core, call: string): number[] {
  const c = call.toUpperCase();
  return (gw.db.query("SELECT DISTINCT user_id AS userId FROM callsign_watches WHERE call IN (?, ?)").all(c, baseCall(c)) as Array<{ userId: number }>).map(
    (r) => r.userId,
  );
}

/**
 * A station was heard: the watchers due an alert (none in the last
 * WATCH_ALERT_MS), marked as alerted now.
 */
export function watchersToAlert(gw: Core, call: string, now: number): number[] {
  const c = call.toUpperCase();
  // every packet heard asks: a read through the index first, a write only for a watched call
  if (!gw.db.query("SELECT 1 FROM callsign_watches WHERE call IN (?, ?) LIMIT 1").get(c, baseCall(c))) return [];
  const rows = gw.db
    .query(
      "UPDATE callsign_watches SET last_alert_at = ?1 WHERE call IN (?2, ?3) AND (last_alert_at IS NULL OR last_alert_at <= ?1 - ?4 OR last_alert_at > ?1) RETURNING user_id AS userId",
    )
    .all(now, c, baseCall(c), WATCH_ALERT_MS) as Array<{ userId: number }>;
  return [...new Set(rows.map((r) => r.userId))];
}

/** Why a packet is an emergency, or null. */
export function emergencyReason(p: AprsPacket): Emergency["reason"] | null {
  if (p.lat === undefined || p.lon === undefined) return null;
  if (p.micE === "Emergency") return "mic-e";
  // `\!` on the alternate table, or an overlay character in its place (APRS 1.1 symbol table)
  if (p.symbol && p.symbol.length === 2 && p.symbol[1] === "!" && p.symbol[0] !== "/") return "symbol";
  return null;
}

/**
 * Records an emergency heard from `call`, unless the same station's was
 * recorded within EMERGENCY_REPEAT_MS (its next beacons, the copy over
 * APRS-IS): returns the new row, or null.
 */
export function recordEmergency(gw: Core, e: Omit<Emergency, "id">): Emergency | null {
  return gw.db.transaction(() => {
    const recent = gw.db
      .query("SELECT 1 FROM emergencies WHERE call = ? AND ts > ? AND ts <= ?")
      .get(e.call, e.ts - EMERGENCY_REPEAT_MS, e.ts + EMERGENCY_REPEAT_MS);
    if (recent) return null;
    const id = Number(
      gw.db
        .query("INSERT INTO emergencies (call, ts, lat, lon, reason, comment) VALUES (?, ?, ?, ?, ?, ?)")
        .run(e.call, e.ts, e.lat, e.lon, e.reason, e.comment).lastInsertRowid,
    );
    return { id, ...e };
  })();
}

/** Emergencies heard in the last EMERGENCY_WINDOW_MS, newest first, one per station. */
export function recentEmergencies(gw: Core): Emergency[] {
  const rows = gw.db
    .query("SELECT id, call, ts, lat, lon, reason, comment FROM emergencies WHERE ts >= ? ORDER BY ts DESC, id DESC LIMIT 100")
    .all(gw.clock.now() - EMERGENCY_WINDOW_MS) as Emergency[];
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.call) && !!seen.add(r.call));
}

/** The accounts of the sysops: those holding a verified ADMIN_CALLSIGNS call. */
export function sysopUsers(gw: Core): number[] {
  const admins = gw.config.adminCallsigns;
  if (admins.length === 0) return [];
  const rows = gw.db.query("SELECT user_id AS userId, call FROM callsigns WHERE verified_at IS NOT NULL").all() as Array<{ userId: number; call: string }>;
  return [...new Set(rows.filter((r) => admins.includes(baseCall(r.call))).map((r) => r.userId))];
}
