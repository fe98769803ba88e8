/**
 * Trackables (travel bugs): made here (table trackables) or mirrored from a
 * peer (mirror_trackables), each with a public `ref` on its tag and a secret
 * tracking code. Its moves, logged here (trackable_moves) or on peers
 * (mirror_trackable_moves), give its state through trackables-state.ts. A
 * trackable is published as a signed record (type 8) when it is made.
 */
import { randomInt, scrypt, timingSafeEqual } from "node:crypto";
import type { Core } from "../core/core.ts";
import { badRequest, forbidden, notFound } from "../lib/errors.ts";
import { accountGid, localGid, publishRecord } from "../fed/feed.ts";
import { toSeconds } from "../lib/fed/bodies.ts";
import { parseGid } from "../lib/fed/record.ts";
import { publicIdOf } from "../accounts/users.ts";
import { baseCall } from "../lib/callsign.ts";
import { refuseUnlessClockSane } from "../system/clock-sanity.ts";
import { callsign, optText, text, type Actor } from "./model.ts";
import { resolveCache } from "./cache-lookup.ts";
import type { Move, Trackable, TrackableBody } from "./trackables-shapes.ts";
import { deriveState, orderMoves, type MoveFact, type TrackableState } from "./trackables-state.ts";

/** Tracking codes: no 0/O, 1/I/L, so a code read off a worn tag is typed right. */
const CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const CODE_LENGTH = 8;
const REF_PREFIX = "SVT";

/** A trackable wherever it was made: enough to check a code and derive its state. */
export interface TrackableRef {
  gid: string;
  origin: string;
  ref: string;
  name: string;
  goal: string | null;
  description: string | null;
  ownerCall: string;
  /** the local owner's user id (native trackables only) */
  ownerId: number | null;
  codeHash: string;
  createdAt: number;
}

export type { Move, Trackable } from "./trackables-shapes.ts";

const SCRYPT = { N: 16384, r: 8, p: 1 };

/** Upper case, without spaces or dashes: what a player types off a tag. */
const normalizeCode = (code: string) => code.toUpperCase().replace(/[\s-]/g, "");

/**
 * The stored hash of a tracking code: hex scrypt of the code, salted with the
 * trackable's ref (docs/protocol.md "Trackables"). Off the event loop: scrypt
 * takes tens of ms, more on a Pi.
 */
export async function codeHash(ref: string, code: string): Promise<string> {
  const key = await new Promise<Buffer>((resolve, reject) =>
    scrypt(normalizeCode(code), `svc-trackable/1\n${ref}`, 32, SCRYPT, (e, k) => (e ? reject(e) : resolve(k))),
  );
  return key.toString("hex");
}

/** Whether a code typed in is the trackable's. */
export async function codeMatches(t: TrackableRef, code: string): Promise<boolean> {
  if (normalizeCode(code).length < 6 || code.length > 64) return false;
  return timingSafeEqual(Buffer.from(await codeHash(t.ref, code), "hex"), Buffer.from(t.codeHash, "hex"));
}

function newCode(): string {
  let s = "";
  for (let i = 0; i < CODE_LENGTH; i++) s += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return s;
}

const newRef = () =>
  REF_PREFIX +
  randomInt(36 ** 6)
    .toString(36)
    .toUpperCase()
    .padStart(6, "0");

/** Makes a trackable owned by the actor's (verified) callsign; the code is in this answer only. */
export async function createTrackable(gw: Core, actor: Actor, body: TrackableBody): Promise<Trackable & { trackingCode: string }> {
  refuseUnlessClockSane(gw);
  const name = text(body.name, "name", 1, 100);
  const goal = optText(body.goal, "goal", 1000);
  const description = optText(body.description, "description", 4000);
  if (actor.userId === null || !actor.call) throw forbidden("choose a callsign for your account first", "callsign_required");
  const userId = actor.userId;
  const ownerCall = actor.call;
  const code = newCode();
  const taken = (ref: string) => !!gw.db.query("SELECT 1 FROM trackables WHERE ref = ?1 UNION ALL SELECT 1 FROM mirror_trackables WHERE ref = ?1").get(ref);
  for (;;) {
    let ref = newRef();
    while (taken(ref)) ref = newRef();
    const hash = await codeHash(ref, code);
    // nothing yields from here to the commit: a ref taken while the hash was made is drawn again
    if (taken(ref)) continue;
    const now = gw.clock.now();
    const id = gw.db.transaction(() => {
      const id = Number(
        gw.db
          .query("INSERT INTO trackables (ref, owner_id, owner_call, name, goal, description, code_hash, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
          .run(ref, userId, ownerCall, name, goal, description, hash, now).lastInsertRowid,
      );
      publishTrackable(gw, id);
      return id;
    })();
    return { ...trackableJson(gw, nativeById(gw, id)!), trackingCode: code };
  }
}

/** Shown for an owner or mover whose account was erased. */
export const ERASED_CALL = "(erased)";

/** Publishes a native trackable's record (again, after its owner's account is erased). Inside the caller's transaction. */
export function publishTrackable(gw: Core, id: number): void {
  const r = gw.db.query("SELECT * FROM trackables WHERE id = ?").get(id) as NativeRow;
  publishRecord(gw, "trackable", id, {
    ref: r.ref,
    name: r.name,
    goal: r.goal ?? undefined,
    description: r.description ?? undefined,
    ownerCall: r.owner_call === ERASED_CALL ? undefined : r.owner_call,
    ownerAccount: r.owner_id === null ? undefined : accountGid(gw, publicIdOf(gw.db, r.owner_id)),
    codeHash: r.code_hash,
    createdAt: toSeconds(r.created_at),
  });
}

interface NativeRow {
  id: number;
  ref: string;
  owner_id: number | null;
  owner_call: string;
  name: string;
  goal: string | null;
  description: string | null;
  code_hash: string;
  created_at: number;
}

function fromNative(gw: Core, r: NativeRow): TrackableRef {
  return {
    gid: localGid(gw, "trackable", r.id),
    origin: gw.config.instance,
    ref: r.ref,
    name: r.name,
    goal: r.goal,
    description: r.description,
    ownerCall: r.owner_call,
    ownerId: r.owner_id,
    codeHash: r.code_hash,
    createdAt: r.created_at,
  };
}

const nativeById = (gw: Core, id: number): TrackableRef | null => {
  const r = gw.db.query("SELECT * FROM trackables WHERE id = ?").get(id) as NativeRow | null;
  return r && fromNative(gw, r);
};

const MIRROR_COLS = `t.gid, t.origin, t.ref, t.name, t.goal, t.description, t.owner_call AS ownerCall, NULL AS ownerId, t.code_hash AS codeHash,
  t.created_at AS createdAt`;
/** Mirrors of blocked peers are never shown. */
const NOT_BLOCKED = "NOT EXISTS (SELECT 1 FROM peers p WHERE p.instance = t.origin AND p.trust = 'blocked')";
/** Only moves signed here or by a trusted peer move a trackable: an unvetted instance cannot carry one off. */
const TRUSTED = "EXISTS (SELECT 1 FROM peers p WHERE p.instance = t.origin AND p.trust = 'trusted')";

/**
 * A trackable by its ref (any case) or gid; 404 when neither is known. A ref
 * two instances both made (unlikely: 36^6 random refs) names the one made here,
 * else the lowest gid.
 */
export function findTrackable(gw: Core, key: string): TrackableRef {
  const g = key.includes(":") ? parseGid(key) : null;
  if (g) {
    if (g.kind !== "trackable") throw notFound(`trackable ${key}`);
    if (g.origin === gw.config.instance) {
      const t = /^\d{1,15}$/.test(g.localId) ? nativeById(gw, Number(g.localId)) : null;
      if (!t) throw notFound(`trackable ${key}`);
      return t;
    }
    const m = gw.db.query(`SELECT ${MIRROR_COLS} FROM mirror_trackables t WHERE t.gid = ? AND ${NOT_BLOCKED}`).get(key) as TrackableRef | null;
    if (!m) throw notFound(`trackable ${key}`);
    return m;
  }
  const ref = key.toUpperCase();
  const r = gw.db.query("SELECT * FROM trackables WHERE ref = ?").get(ref) as NativeRow | null;
  if (r) return fromNative(gw, r);
  const m = gw.db
    .query(`SELECT ${MIRROR_COLS} FROM mirror_trackables t WHERE t.ref = ? AND ${NOT_BLOCKED} ORDER BY t.gid LIMIT 1`)
    .get(ref) as TrackableRef | null;
  if (!m) throw notFound(`trackable ${key}`);
  return m;
}

/** Every move of a trackable held here (logged here, or mirrored from a trusted peer), in the order of the state rule. */
export function movesOf(gw: Core, trackableGid: string): Move[] {
  const self = gw.config.instance;
  const rows = gw.db
    .query(
      `SELECT ?1 || ':trackable-move:' || id AS gid, ?1 AS origin, kind, call, cache_gid AS cacheGid, lat, lon, text, at, tier
         FROM trackable_moves WHERE trackable_gid = ?2
       UNION ALL
       SELECT t.gid, t.origin, t.kind, t.call, t.cache_gid, t.lat, t.lon, t.text, t.at, t.tier
         FROM mirror_trackable_moves t WHERE t.trackable_gid = ?2 AND ${TRUSTED}`,
    )
    .all(self, trackableGid) as Move[];
  return orderMoves(rows);
}

export function stateOf(gw: Core, t: TrackableRef, moves: readonly MoveFact[] = movesOf(gw, t.gid)): TrackableState {
  return deriveState(t.ownerCall, moves);
}

export function trackableJson(gw: Core, t: TrackableRef, moves: readonly MoveFact[] = movesOf(gw, t.gid)): Trackable {
  return {
    ref: t.ref,
    gid: t.gid,
    origin: t.origin,
    name: t.name,
    goal: t.goal,
    description: t.description,
    owner: t.ownerCall,
    createdAt: t.createdAt,
    ...stateOf(gw, t, moves),
  };
}

/** One trackable with its moves, oldest first. */
export function trackableDetail(gw: Core, key: string): Trackable & { moves: Move[] } {
  const t = findTrackable(gw, key);
  const moves = movesOf(gw, t.gid);
  return { ...trackableJson(gw, t, moves), moves };
}

/** Every trackable held here (made here or mirrored), for the list queries. */
function allRefs(gw: Core, where: { native: string; mirror: string }, args: Array<string | number>): TrackableRef[] {
  const native = (gw.db.query(`SELECT * FROM trackables WHERE ${where.native}`).all(...args) as NativeRow[]).map((r) => fromNative(gw, r));
  const mirrored = gw.db.query(`SELECT ${MIRROR_COLS} FROM mirror_trackables t WHERE ${where.mirror} AND ${NOT_BLOCKED}`).all(...args) as TrackableRef[];
  return [...native, ...mirrored];
}

const ANY_MOVE_BY = `(SELECT trackable_gid FROM trackable_moves WHERE call = ?1 OR call LIKE ?1 || '-%'
  UNION SELECT trackable_gid FROM mirror_trackable_moves WHERE call = ?1 OR call LIKE ?1 || '-%')`;
const ANY_MOVE_AT =
  "(SELECT trackable_gid FROM trackable_moves WHERE cache_gid = ?1 UNION SELECT trackable_gid FROM mirror_trackable_moves WHERE cache_gid = ?1)";

/**
 * Trackables a callsign holds (any SSID), that are in a cache, or that a
 * callsign owns: `?holder=`, `?cache=`, `?owner=` (one of them).
 */
export function listTrackables(gw: Core, q: { holder?: string; cache?: string; owner?: string }, actor: Actor | null): { trackables: Trackable[] } {
  const given = [q.holder, q.cache, q.owner].filter((v) => v !== undefined).length;
  if (given !== 1) throw badRequest("invalid", "give one of holder, cache or owner");
  let refs: TrackableRef[];
  let keep: (t: Trackable) => boolean;
  if (q.cache !== undefined) {
    const ref = resolveCache(gw, q.cache, actor);
    const gid = "native" in ref ? localGid(gw, "cache", ref.native.id) : "mirror" in ref ? ref.mirror.gid : null;
    if (!gid) return { trackables: [] };
    refs = allRefs(gw, { native: `${localGidSql(gw)} IN ${ANY_MOVE_AT}`, mirror: `t.gid IN ${ANY_MOVE_AT}` }, [gid]);
    keep = (t) => t.inCache === gid;
  } else {
    const base = baseCall(callsign(q.holder ?? q.owner, q.holder !== undefined ? "holder" : "owner"));
    const mine = "(owner_call = ?1 OR owner_call LIKE ?1 || '-%')";
    if (q.owner !== undefined) {
      refs = allRefs(gw, { native: mine, mirror: `(t.owner_call = ?1 OR t.owner_call LIKE ?1 || '-%')` }, [base]);
      keep = () => true;
    } else {
      refs = allRefs(
        gw,
        {
          native: `(${mine} OR ${localGidSql(gw)} IN ${ANY_MOVE_BY})`,
          mirror: `((t.owner_call = ?1 OR t.owner_call LIKE ?1 || '-%') OR t.gid IN ${ANY_MOVE_BY})`,
        },
        [base],
      );
      keep = (t) => t.holder !== null && baseCall(t.holder) === base;
    }
  }
  const out = refs.map((t) => trackableJson(gw, t)).filter(keep);
  out.sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
  return { trackables: out };
}

/** SQL for a native trackable's gid from its id (the instance id is a safe literal: [a-z0-9.-]). */
const localGidSql = (gw: Core) => `'${gw.config.instance}:trackable:' || id`;

/** The trackables in a cache now (for its GPX): ref, name and gid. */
export function trackablesInCache(gw: Core, cacheGid: string): Array<{ ref: string; gid: string; name: string }> {
  const refs = allRefs(gw, { native: `${localGidSql(gw)} IN ${ANY_MOVE_AT}`, mirror: `t.gid IN ${ANY_MOVE_AT}` }, [cacheGid]);
  return refs
    .filter((t) => stateOf(gw, t).inCache === cacheGid)
    .map((t) => ({ ref: t.ref, gid: t.gid, name: t.name }))
    .sort((a, b) => (a.ref < b.ref ? -1 : 1));
}
