/**
 * Logging a move of a trackable (POST /api/trackables/:ref/moves): who may
 * make which move, the state it must fit, its trust tier, and the signed
 * move record (type 9) this instance publishes for it.
 *
 *   the holder        drop (into a cache), visit (a cache), note
 *   the tracking code retrieve (from the cache it is in), grab (from its
 *                     holder), discover, note: anyone who has it
 *   the owner         missing (it is gone from where it should be), note
 *
 * Tier a: a drop, retrieve or visit that an RF sighting of the mover
 * corroborates, under the rule finds use (corroborate.ts `localSighting`:
 * heard by an IGate not the mover's own, within 150 m and 2 h; when logged,
 * or when such a position arrives later), or that a quorum of trusted peers heard (asked once, after the move is stored: the
 * `trackableMoveLogged` event, src/fed/corroborate.ts). Else b for a
 * verified callsign, c for an unverified one.
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden } from "../lib/errors.ts";
import { accountGid, localGid, publishRecord } from "../fed/feed.ts";
import { toE7, toSeconds } from "../lib/fed/bodies.ts";
import { publicIdOf } from "../accounts/users.ts";
import { baseCall } from "../lib/callsign.ts";
import { refuseUnlessClockSane } from "../system/clock-sanity.ts";
import { distanceM, optText, pastTime, type Actor } from "./model.ts";
import type { MoveBody } from "./trackables-shapes.ts";
import { resolveCache } from "./cache-lookup.ts";
import { isSighting, localSighting, TIER_A } from "./corroborate.ts";
import type { GatewayEvents } from "../core/events.ts";
import {
  codeMatches,
  ERASED_CALL,
  findTrackable,
  movesOf,
  publishTrackable,
  stateOf,
  trackableJson,
  type Move,
  type Trackable,
  type TrackableRef,
} from "./trackables.ts";
import type { MoveKind } from "./trackables-state.ts";

interface Place {
  gid: string;
  lat: number | null;
  lon: number | null;
}

/** The cache a move names: it must take the move (not a draft; not archived for a drop or visit). */
function placeOf(gw: Core, raw: unknown, actor: Actor, kind: MoveKind): Place {
  if (typeof raw !== "string" && typeof raw !== "number") throw badRequest("invalid", "cacheId is a cache's id or gid");
  const ref = resolveCache(gw, String(raw), actor);
  if ("living" in ref) throw badRequest("invalid", "a trackable goes into a cache hidden here or on a peer, not a living cache");
  const c = "native" in ref ? { gid: localGid(gw, "cache", ref.native.id), status: ref.native.status, lat: ref.native.lat, lon: ref.native.lon } : ref.mirror;
  if (c.status === "draft") throw conflict("cache_not_published", "this cache is a draft: nothing goes into it yet");
  if (c.status === "archived" && (kind === "drop" || kind === "visit"))
    throw conflict("cache_archived", "this cache is archived: nothing can be dropped into it or visit it");
  return { gid: c.gid, lat: c.lat, lon: c.lon };
}

/** Where a cache is, if it is known here (a retrieve names the cache the trackable is in). */
function knownPlace(gw: Core, gid: string, actor: Actor): Place {
  try {
    const ref = resolveCache(gw, gid, actor);
    if ("native" in ref) return { gid, lat: ref.native.lat, lon: ref.native.lon };
    if ("mirror" in ref) return { gid, lat: ref.mirror.lat, lon: ref.mirror.lon };
  } catch {
    // a cache no longer held here: the move keeps its gid without a position
  }
  return { gid, lat: null, lon: null };
}

function isOwner(t: TrackableRef, actor: Actor, call: string): boolean {
  if (t.ownerId !== null) return t.ownerId === actor.userId;
  return actor.verified && baseCall(t.ownerCall) === baseCall(call);
}

/** Logs one move as the actor's active callsign. */
export async function logMove(gw: Core, actor: Actor, key: string, body: MoveBody): Promise<{ move: Move; trackable: Trackable }> {
  refuseUnlessClockSane(gw);
  const now = gw.clock.now();
  const kind = body.kind;
  const text = optText(body.text, "text", 4000);
  const when = body.at === undefined ? now : pastTime(body.at, "at", now);
  if (when < now - 366 * 86_400_000) throw badRequest("invalid", "at is within the last year");
  const at = Math.floor(when / 1000) * 1000; // the wire's unit, so every instance orders it alike
  if (kind === "note" && !text) throw badRequest("invalid", "a note needs text");
  if (actor.userId === null || !actor.call) throw forbidden("choose a callsign for your account first", "callsign_required");
  const call = actor.call;
  const t = findTrackable(gw, key);
  const code = body.trackingCode;
  // the one wait: from here to the write nothing yields, so the state checked is the state written on
  if (code !== undefined && !(await codeMatches(t, code))) throw forbidden("that is not this trackable's tracking code", "wrong_code");
  const state = stateOf(gw, t);
  const holder = state.holder !== null && baseCall(state.holder) === baseCall(call);
  const owner = isOwner(t, actor, call);
  const withCode = code !== undefined;
  switch (kind) {
    case "drop":
    case "visit":
      if (!holder) throw forbidden(`only the one holding ${t.ref} may ${kind === "drop" ? "drop it" : "take it on a visit"}`, "not_holder");
      break;
    case "note":
      if (!holder && !owner && !withCode) throw forbidden("a note needs the tracking code, unless you hold or own it", "code_required");
      break;
    case "missing":
      if (!owner) throw forbidden(`only the owner of ${t.ref} may mark it missing`, "not_owner");
      break;
    default:
      if (!withCode) throw forbidden(`to ${kind} ${t.ref}, give its tracking code`, "code_required");
  }
  let place: Place | null = null;
  if (kind === "drop" || kind === "visit") {
    if (body.cacheId === undefined) throw badRequest("invalid", `a ${kind} names the cache: cacheId`);
    place = placeOf(gw, body.cacheId, actor, kind);
  } else if (kind === "retrieve") {
    if (state.inCache === null) throw conflict("not_in_cache", `${t.ref} is in no cache: grab it from its holder instead`);
    if (body.cacheId !== undefined && placeOf(gw, body.cacheId, actor, kind).gid !== state.inCache)
      throw conflict("not_in_that_cache", `${t.ref} is in another cache (${state.inCache})`);
    place = knownPlace(gw, state.inCache, actor);
  } else if (body.cacheId !== undefined) {
    place = placeOf(gw, body.cacheId, actor, kind);
  }
  if (kind === "grab") {
    if (state.inCache !== null) throw conflict("in_cache", `${t.ref} is in a cache: retrieve it from there`);
    if (holder) throw conflict("already_holder", `you hold ${t.ref} already`);
  }
  const located = place && place.lat !== null && place.lon !== null && (kind === "drop" || kind === "retrieve" || kind === "visit");
  const sighting = located ? localSighting(gw, call, place!.lat!, place!.lon!, at) : null;
  const tier = sighting ? "a" : actor.verified ? "b" : "c";
  const id = gw.db.transaction(() => {
    const id = Number(
      gw.db
        .query(
          `INSERT INTO trackable_moves (trackable_gid, kind, user_id, call, cache_gid, lat, lon, text, at, tier, corr_igate, corr_distance_m, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          t.gid,
          kind,
          actor.userId,
          call,
          place?.gid ?? null,
          place?.lat ?? null,
          place?.lon ?? null,
          text,
          at,
          tier,
          sighting?.igate ?? null,
          sighting?.distanceM ?? null,
          now,
        ).lastInsertRowid,
    );
    publishMove(gw, id);
    return id;
  })();
  if (located && !sighting) gw.events.emit("trackableMoveLogged", { moveId: id, call, lat: place!.lat!, lon: place!.lon!, at });
  const moves = movesOf(gw, t.gid);
  const gid = localGid(gw, "trackable-move", id);
  return { move: moves.find((m) => m.gid === gid)!, trackable: trackableJson(gw, t, moves) };
}

interface MoveRow {
  id: number;
  trackable_gid: string;
  kind: MoveKind;
  user_id: number | null;
  call: string;
  cache_gid: string | null;
  lat: number | null;
  lon: number | null;
  text: string | null;
  at: number;
  tier: string;
}

/** Publishes a move's current state as its signed record (a new version after a promotion). Inside the caller's transaction. */
function publishMove(gw: Core, id: number): void {
  const r = gw.db.query("SELECT * FROM trackable_moves WHERE id = ?").get(id) as MoveRow;
  publishRecord(gw, "trackable-move", id, {
    trackable: r.trackable_gid,
    kind: r.kind,
    call: r.call === ERASED_CALL ? undefined : r.call,
    account: r.user_id === null ? undefined : accountGid(gw, publicIdOf(gw.db, r.user_id)),
    cache: r.cache_gid ?? undefined,
    latE7: r.lat === null ? undefined : toE7(r.lat),
    lonE7: r.lon === null ? undefined : toE7(r.lon),
    text: r.text ?? undefined,
    tier: r.tier,
    at: toSeconds(r.at),
  });
}

/**
 * Makes a move Tier A on other evidence than a position stored here (a quorum
 * of peers: src/fed/corroborate.ts `corroborateMove`) and publishes it again.
 * Idempotent: false when it was Tier A already (or is gone).
 */
export function promoteMove(gw: Core, id: number, e: { source: "peers"; igate: string | null; distanceM: number | null }): boolean {
  return gw.db.transaction(() => {
    const r = gw.db.query("SELECT tier FROM trackable_moves WHERE id = ?").get(id) as { tier: string } | null;
    if (!r || r.tier === "a") return false;
    gw.db.query("UPDATE trackable_moves SET tier = 'a', corr_igate = ?, corr_distance_m = ? WHERE id = ?").run(e.igate, e.distanceM, id);
    publishMove(gw, id);
    return true;
  })();
}

/**
 * A stored RF sighting (corroborate.ts `onPosition`): promotes this
 * instance's moves below Tier A that it corroborates, under the rule finds
 * use (the mover's base call, an IGate not the mover's own, within 150 m of
 * the move's cache and 2 h of its time), and publishes them again.
 */
export function promoteMovesOnSighting(gw: Core, p: GatewayEvents["position"]): void {
  if (!isSighting(p)) return;
  const base = baseCall(p.call);
  const rows = gw.db
    .query(
      // one index range: the base call and its SSIDs (a callsign has no character between '-' and '.')
      `SELECT id, lat, lon FROM trackable_moves WHERE call >= ?1 AND call < ?1 || '.' AND at BETWEEN ?2 AND ?3
         AND tier <> 'a' AND lat IS NOT NULL AND kind IN ('drop', 'retrieve', 'visit')`,
    )
    .all(base, p.ts - TIER_A.windowMs, p.ts + TIER_A.windowMs) as Array<{ id: number; lat: number; lon: number }>;
  for (const r of rows) {
    const d = distanceM(r.lat, r.lon, p.lat, p.lon);
    if (d > TIER_A.radiusM) continue;
    gw.db.transaction(() => {
      gw.db
        .query("UPDATE trackable_moves SET tier = 'a', corr_igate = ?, corr_distance_m = ? WHERE id = ? AND tier <> 'a'")
        .run(p.igate, Math.round(d * 100) / 100, r.id);
      publishMove(gw, r.id);
    })();
  }
}

/** An account's trackables and moves, for its GDPR export. */
export function trackablesDataOf(gw: Core, userId: number): { trackables: unknown[]; moves: unknown[] } {
  const trackables = gw.db
    .query("SELECT id, ref, name, goal, description, owner_call AS ownerCall, created_at AS createdAt FROM trackables WHERE owner_id = ? ORDER BY id")
    .all(userId);
  const moves = gw.db
    .query(
      `SELECT id, trackable_gid AS trackableGid, kind, call, cache_gid AS cacheGid, lat, lon, text, at, tier, corr_igate AS corroboratingIgate,
         corr_distance_m AS corroboratingDistanceM, created_at AS createdAt FROM trackable_moves WHERE user_id = ? ORDER BY id`,
    )
    .all(userId);
  return { trackables, moves };
}

/**
 * GDPR erase: the account's trackables and moves stay (others' moves and
 * every instance's state rest on them) but name no one: owner and mover
 * become "(erased)", a move's text goes, and each is published again without
 * callsign or account. Inside the caller's transaction.
 */
export function eraseTrackablesOf(gw: Core, userId: number): { trackables: number; moves: number } {
  const owned = gw.db.query("SELECT id FROM trackables WHERE owner_id = ?").all(userId) as Array<{ id: number }>;
  const moved = gw.db.query("SELECT id FROM trackable_moves WHERE user_id = ?").all(userId) as Array<{ id: number }>;
  gw.db.query("UPDATE trackables SET owner_id = NULL, owner_call = ? WHERE owner_id = ?").run(ERASED_CALL, userId);
  gw.db.query("UPDATE trackable_moves SET user_id = NULL, call = ?, text = NULL, corr_igate = NULL WHERE user_id = ?").run(ERASED_CALL, userId);
  for (const t of owned) publishTrackable(gw, t.id);
  for (const m of moved) publishMove(gw, m.id);
  return { trackables: owned.length, moves: moved.length };
}
