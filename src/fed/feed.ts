/**
 * The publish API: the one way a federated write leaves this instance, and
 * the local feed it goes into (table fed_feed, one row per gid, newest
 * version only). Every domain calls these inside its own write:
 *
 *   publishRecord(gw, "cache", cache.id, cacheToWire(cache))     // hide or edit a cache
 *   publishRecord(gw, "find", log.id, findToWire(find))          // log a find
 *   publishTombstone(gw, localGid(gw, "cache", cache.id))        // delete a cache
 *   publishTombstone(gw, accountGid(gw, publicId))               // GDPR erase: one PII-free tombstone
 *   publishAccountMove(gw, publicId, "gw2:account:xyz")          // the user moved to gw2
 *
 * Each call bumps the gid's version `v`, encodes the payload, signs it with
 * FED_PRIVATE_KEY (an unsigned instance stores the payload unsigned, so the
 * JSON browse feeds still work) and replaces the gid's row, giving it a new
 * sync cursor. A tombstoned gid cannot be published again: local ids are never
 * reused. Calls nest in the caller's transaction; the `fedPublished` event
 * fires once the write has committed.
 */
import type { Core } from "../core/core.ts";
import type { Config } from "../core/config.ts";
import { conflict, unprocessable } from "../lib/errors.ts";
import { checkBody, type Bodies } from "../lib/fed/bodies.ts";
import { signerFromSeed } from "../lib/fed/keys.ts";
import { refuseUnlessClockSane } from "../system/clock-sanity.ts";
import {
  encodePayload,
  makeGid,
  parseGid,
  RECORD_TYPES,
  RecordError,
  signFrame,
  TOMBSTONE_KINDS,
  type Body,
  type GidKind,
  type RecordType,
  type Signer,
} from "../lib/fed/record.ts";

/** Kinds published with publishRecord (tombstones and account-moves have their own calls). */
export type PublishKind = "cache" | "find" | "key" | "bulletin" | "peer" | "trackable" | "trackable-move";

export interface Published {
  type: RecordType;
  gid: string;
  v: number;
  /** signing time, unix seconds */
  at: number;
  /** false on an unsigned instance (no FED_PRIVATE_KEY) */
  signed: boolean;
}

const signers = new WeakMap<Config, Signer | null>();

/**
 * This instance's frame signer, or null when it is unsigned. Every signature
 * the instance makes goes through it, so this is where a clock that is not
 * sane stops them (503 clock_not_set, system/clock-sanity.ts).
 */
export function instanceSigner(gw: Core): Signer | null {
  let s = signers.get(gw.config);
  if (s === undefined) {
    s = gw.config.fedPrivateKey ? signerFromSeed(gw.config.fedPrivateKey) : null;
    signers.set(gw.config, s);
  }
  if (!s) return null;
  const key = s;
  return {
    publicKey: key.publicKey,
    sign(message) {
      refuseUnlessClockSane(gw);
      return key.sign(message);
    },
  };
}

/** The gid of one of this instance's records: `localGid(gw, "cache", 42)` -> "gw1:cache:42". */
export function localGid(gw: Core, kind: GidKind, localId: string | number): string {
  try {
    return makeGid(gw.config.instance, kind, localId);
  } catch (e) {
    if (e instanceof RecordError) throw unprocessable("bad_gid", e.message);
    throw e;
  }
}

/** The gid of a local account, from its opaque public id (users.public_id): never a callsign. */
export function accountGid(gw: Core, publicId: string): string {
  return localGid(gw, "account", publicId);
}

/**
 * Publishes a new version of one of this instance's records.
 * @example publishRecord(gw, "cache", 42, cacheToWire(cache)) // -> { gid: "gw1:cache:42", v: 3, ... }
 */
export function publishRecord<K extends PublishKind>(gw: Core, kind: K, localId: string | number, body: Bodies[K]): Published {
  const problem = checkBody(kind, body as unknown as Record<string, undefined>, "publish");
  if (problem) throw unprocessable("bad_record", `${kind} record: ${problem}`);
  return store(gw, RECORD_TYPES[kind], localGid(gw, kind, localId), body as unknown as Body);
}

/**
 * Deletes one of this instance's records on every peer: publishes the gid's
 * tombstone (its last version, with an empty body). Idempotent. `gid` may be an
 * account gid (GDPR erase): peers then purge every row attributed to it.
 */
export function publishTombstone(gw: Core, gid: string): Published {
  const g = parseGid(gid);
  if (!g || g.origin !== gw.config.instance) throw unprocessable("bad_gid", `${gid} is not a gid of this instance (${gw.config.instance})`);
  if (!TOMBSTONE_KINDS.includes(g.kind)) throw unprocessable("bad_gid", `a ${g.kind} cannot be tombstoned`);
  const existing = currentRow(gw, gid);
  if (existing?.type === RECORD_TYPES.tombstone) return { type: RECORD_TYPES.tombstone, gid, v: existing.v, at: existing.at, signed: existing.signed };
  return store(gw, RECORD_TYPES.tombstone, gid, {});
}

/**
 * Announces that a local account moved to another instance: peers re-point
 * what they attribute to `from` to `toAccountGid`.
 * @example publishAccountMove(gw, user.publicId, "gw2:account:Qx3...")
 */
export function publishAccountMove(gw: Core, fromPublicId: string, toAccountGid: string): Published {
  const from = accountGid(gw, fromPublicId);
  const to = parseGid(toAccountGid);
  if (!to || to.kind !== "account") throw unprocessable("bad_gid", `${toAccountGid} is not an account gid`);
  if (to.origin === gw.config.instance) throw unprocessable("bad_gid", "an account moves to another instance");
  const body = { from, to: toAccountGid };
  const problem = checkBody("account-move", body, "publish");
  if (problem) throw unprocessable("bad_record", `account-move record: ${problem}`);
  return store(gw, RECORD_TYPES["account-move"], localGid(gw, "account-move", fromPublicId), body);
}

interface FeedRow {
  type: number;
  v: number;
  at: number;
  signed: boolean;
}

function currentRow(gw: Core, gid: string): FeedRow | null {
  const r = gw.db.query("SELECT type, v, at, frame IS NOT NULL AS signed FROM fed_feed WHERE gid = ?").get(gid) as {
    type: number;
    v: number;
    at: number;
    signed: number;
  } | null;
  return r && { type: r.type, v: r.v, at: r.at, signed: r.signed === 1 };
}

function store(gw: Core, type: RecordType, gid: string, body: Body): Published {
  const signer = instanceSigner(gw);
  const at = Math.floor(gw.clock.now() / 1000);
  const published = gw.db.transaction((): Published => {
    const cur = currentRow(gw, gid);
    if (cur?.type === RECORD_TYPES.tombstone) throw conflict("tombstoned", `${gid} was deleted; its id cannot be used again`);
    const v = (cur?.v ?? 0) + 1;
    let payload: Uint8Array;
    try {
      payload = encodePayload({ type, gid, origin: gw.config.instance, v, at, signer: gw.config.instance, body });
    } catch (e) {
      if (e instanceof RecordError) throw unprocessable("bad_record", e.message);
      throw e;
    }
    const frame = signer ? signFrame(payload, signer) : null;
    gw.db
      .query("INSERT OR REPLACE INTO fed_feed (type, gid, v, at, payload, frame, signer_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .run(type, gid, v, at, payload, frame, signer?.publicKey ?? null, gw.clock.now());
    return { type, gid, v, at, signed: !!frame };
  })();
  // Fire only once the caller's transaction (if any) has committed this version.
  queueMicrotask(() => {
    const row = gw.db.query("SELECT v FROM fed_feed WHERE gid = ?").get(gid) as { v: number } | null;
    if (row?.v === published.v) gw.events.emit("fedPublished", { type, gid, v: published.v });
  });
  return published;
}

/**
 * Signs what is unsigned or signed by another key with the current key: after
 * an unsigned instance gets FED_PRIVATE_KEY, or after a key rotation. Returns
 * how many rows it signed. Payloads keep their versions: the same records,
 * newly signed (they get new cursors so peers pick the new frames up).
 */
export function resignFeed(gw: Core, batch = 500): number {
  const signer = instanceSigner(gw);
  if (!signer) return 0;
  let total = 0;
  const pick = gw.db.query(
    "SELECT seq, type, gid, v, at, payload, created_at AS createdAt FROM fed_feed WHERE signer_key IS NULL OR signer_key <> ? ORDER BY seq LIMIT ?",
  );
  const put = gw.db.query("INSERT OR REPLACE INTO fed_feed (type, gid, v, at, payload, frame, signer_key, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (;;) {
    const rows = pick.all(signer.publicKey, batch) as Array<Omit<FeedRowOut, "frame"> & { createdAt: number }>;
    if (rows.length === 0) return total;
    gw.db.transaction(() => {
      for (const r of rows) put.run(r.type, r.gid, r.v, r.at, r.payload, signFrame(r.payload, signer), signer.publicKey, r.createdAt);
    })();
    total += rows.length;
  }
}

/** A row of the local feed as a page carries it. */
export interface FeedRowOut {
  seq: number;
  type: number;
  gid: string;
  v: number;
  at: number;
  payload: Uint8Array;
  frame: Uint8Array | null;
}

export interface FeedPage {
  rows: FeedRowOut[];
  /** cursor for the next call: the last row's seq, or `since` when empty */
  next: number;
  more: boolean;
}

export const DEFAULT_PAGE_LIMIT = 500;
export const MAX_PAGE_LIMIT = 10_000;

/** One page of the local feed of `type` after cursor `since`, oldest first. */
export function readFeed(gw: Core, type: RecordType, since: number, limit: number): FeedPage {
  const rows = gw.db
    .query("SELECT seq, type, gid, v, at, payload, frame FROM fed_feed WHERE type = ? AND seq > ? ORDER BY seq LIMIT ?")
    .all(type, since, limit + 1) as FeedRowOut[];
  const more = rows.length > limit;
  if (more) rows.pop();
  return { rows, next: rows.length ? rows[rows.length - 1]!.seq : since, more };
}
