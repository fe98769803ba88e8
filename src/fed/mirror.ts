/**
 * Mirror storage: other instances' records, display-only. Only the apply
 * pipeline writes here (one row per gid, newest version); local writes never
 * touch these tables and native tables never hold mirrored rows.
 *
 * Reads for other domains: `mirroredCachesInBox` (the map's "native plus
 * trust-filtered federated mirrors"), `mirroredFindsOf`, `mirroredKeysOf`.
 * Mirrors of blocked peers are never returned; unvetted ones only when asked.
 */
import type { Database, Statement } from "../core/store/sqlite.ts";
import type { Core } from "../core/core.ts";
import type { CborValue } from "../lib/fed/cbor.ts";
import {
  cacheFromWire,
  findFromWire,
  fromE7,
  fromSeconds,
  type BulletinBody,
  type CacheBody,
  type CacheJson,
  type FindBody,
  type KeyBody,
  type TrackableBody,
  type TrackableMoveBody,
} from "../lib/fed/bodies.ts";
import type { Payload } from "../lib/fed/record.ts";

// ---------------------------------------------------------------- writes (apply pipeline only)

type Stmts = ReturnType<typeof prepare>;
const prepared = new WeakMap<Database, Stmts>();

function prepare(db: Database) {
  const q = (sql: string) => db.query(sql) as Statement;
  return {
    // Two point lookups: one statement joining them onto a constant row cost
    // 10-15 µs per gid against under 1 µs for both of these.
    tombV: q("SELECT v FROM tombstones WHERE gid = ?"),
    record: q("SELECT v, frame FROM mirror_records WHERE gid = ?"),
    moved: q("SELECT to_account AS toAccount FROM mirror_account_moves WHERE from_account = ?"),
    upsertRecord: q(
      `INSERT INTO mirror_records (gid, type, origin, v, at, frame, via, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(gid) DO UPDATE SET type = excluded.type, v = excluded.v, at = excluded.at, frame = excluded.frame,
         via = excluded.via, received_at = excluded.received_at`,
    ),
    cache: q(
      `INSERT OR REPLACE INTO mirror_caches (gid, origin, name, type, size, difficulty, terrain, lat, lon, status, hint, description,
         unlisted, owner_call, owner_account, placed_at, updated_at, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    find: q(
      `INSERT OR REPLACE INTO mirror_finds (gid, origin, cache_gid, kind, call, account, text, tier, state, distance_m, logged_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    key: q("INSERT OR REPLACE INTO mirror_keys (gid, origin, call, public_key, account, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    bulletin: q(
      `INSERT OR REPLACE INTO mirror_bulletins (gid, origin, from_call, category, area, subject, text, bid, posted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    trackable: q(
      `INSERT OR REPLACE INTO mirror_trackables (gid, origin, ref, name, goal, description, owner_call, owner_account, code_hash, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    trackableMove: q(
      `INSERT OR REPLACE INTO mirror_trackable_moves (gid, origin, trackable_gid, kind, call, account, cache_gid, lat, lon, text, tier, at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    move: q("INSERT OR REPLACE INTO mirror_account_moves (gid, origin, from_account, to_account) VALUES (?, ?, ?, ?)"),
    repointFinds: q("UPDATE mirror_finds SET account = ?2 WHERE account = ?1"),
    repointCaches: q("UPDATE mirror_caches SET owner_account = ?2 WHERE owner_account = ?1"),
    repointKeys: q("UPDATE mirror_keys SET account = ?2 WHERE account = ?1"),
    repointTrackables: q("UPDATE mirror_trackables SET owner_account = ?2 WHERE owner_account = ?1"),
    repointTrackableMoves: q("UPDATE mirror_trackable_moves SET account = ?2 WHERE account = ?1"),
    tomb: q("INSERT OR REPLACE INTO tombstones (gid, origin, v, at, received_at, frame) VALUES (?, ?, ?, ?, ?, ?)"),
    purgeGid: q("DELETE FROM mirror_records WHERE gid = ?"),
    purgeAccount: q(
      `DELETE FROM mirror_records WHERE gid IN (SELECT gid FROM mirror_finds WHERE account = ?1
         UNION SELECT gid FROM mirror_caches WHERE owner_account = ?1 UNION SELECT gid FROM mirror_keys WHERE account = ?1
         UNION SELECT gid FROM mirror_trackable_moves WHERE account = ?1)`,
    ),
  };
}

export function mirrorStatements(db: Database): Stmts {
  let s = prepared.get(db);
  if (!s) prepared.set(db, (s = prepare(db)));
  return s;
}

export interface Held {
  v: number;
  /** the mirrored frame (null for a tombstone) */
  frame: Uint8Array | null;
  tombstoned: boolean;
}

/** The version held for a gid: its tombstone's, or the mirrored record's; null when neither. */
export function heldVersion(s: Stmts, gid: string): Held | null {
  const t = s.tombV.get(gid) as { v: number } | null;
  if (t) return { v: t.v, frame: null, tombstoned: true };
  const r = s.record.get(gid) as { v: number; frame: Uint8Array } | null;
  return r ? { v: r.v, frame: r.frame, tombstoned: false } : null;
}

/** Follows an account-move: where rows attributed to `account` now belong. */
export function currentAccount(s: Stmts, account: string | undefined): string | null {
  if (!account) return null;
  const m = s.moved.get(account) as { toAccount: string } | null;
  return m ? m.toAccount : account;
}

export function isTombstoned(s: Stmts, gid: string | null): boolean {
  return !!gid && !!s.tombV.get(gid);
}

const opt = <T>(v: T | undefined): T | null => (v === undefined ? null : v);
/** Shown for a trackable's owner or mover whose account was erased (the record names no one). */
const ERASED_CALL = "(erased)";

/** Writes a verified record (types 1-4, 6-9) as the gid's newest version. */
export function writeRecord(s: Stmts, p: Payload, frame: Uint8Array, via: string, now: number): void {
  s.upsertRecord.run(p.gid, p.type, p.origin, p.v, p.at, frame, via, now);
  const b = p.body as Record<string, CborValue>;
  switch (p.type) {
    case 1: {
      const c = cacheFromWire(b as unknown as CacheBody);
      s.cache.run(
        p.gid,
        p.origin,
        c.name,
        c.type,
        c.size,
        c.difficulty,
        c.terrain,
        c.lat,
        c.lon,
        c.status,
        c.hint ?? null,
        c.description ?? null,
        c.unlisted ? 1 : 0,
        c.ownerCall ?? null,
        currentAccount(s, c.ownerAccount ?? undefined),
        c.placedAt ?? null,
        fromSeconds(p.at),
        c.attributes?.length ? JSON.stringify(c.attributes) : null,
      );
      return;
    }
    case 2: {
      const f = findFromWire(b as unknown as FindBody);
      s.find.run(
        p.gid,
        p.origin,
        f.cache,
        f.kind,
        f.call ?? null,
        currentAccount(s, f.account ?? undefined),
        f.text ?? null,
        f.tier ?? null,
        f.state ?? null,
        f.distanceM ?? null,
        f.loggedAt,
      );
      return;
    }
    case 3: {
      const k = b as unknown as KeyBody;
      s.key.run(
        p.gid,
        p.origin,
        k.call,
        k.key,
        currentAccount(s, k.account),
        fromSeconds(k.createdAt),
        k.revokedAt === undefined ? null : fromSeconds(k.revokedAt),
      );
      return;
    }
    case 4: {
      const x = b as unknown as BulletinBody;
      s.bulletin.run(p.gid, p.origin, x.from, x.category, opt(x.area), x.subject, x.text, opt(x.bid), fromSeconds(x.postedAt));
      return;
    }
    case 8: {
      const x = b as unknown as TrackableBody;
      s.trackable.run(
        p.gid,
        p.origin,
        x.ref,
        x.name,
        opt(x.goal),
        opt(x.description),
        x.ownerCall ?? ERASED_CALL,
        currentAccount(s, x.ownerAccount),
        x.codeHash,
        fromSeconds(x.createdAt),
      );
      return;
    }
    case 9: {
      const x = b as unknown as TrackableMoveBody;
      const at = (e7: number | undefined) => (e7 === undefined ? null : fromE7(e7));
      s.trackableMove.run(
        p.gid,
        p.origin,
        x.trackable,
        x.kind,
        x.call ?? ERASED_CALL,
        currentAccount(s, x.account),
        opt(x.cache),
        at(x.latE7),
        at(x.lonE7),
        opt(x.text),
        opt(x.tier),
        fromSeconds(x.at),
      );
      return;
    }
    case 6: {
      const from = b.from as string;
      const to = b.to as string;
      s.move.run(p.gid, p.origin, from, to);
      s.repointFinds.run(from, to);
      s.repointCaches.run(from, to);
      s.repointKeys.run(from, to);
      s.repointTrackables.run(from, to);
      s.repointTrackableMoves.run(from, to);
      return;
    }
  }
}

/** Applies a verified tombstone: records it, purges the gid (and, for an account, every row attributed to it). */
export function writeTombstone(s: Stmts, p: Payload, frame: Uint8Array, kind: string, now: number): void {
  s.tomb.run(p.gid, p.origin, p.v, p.at, now, frame);
  s.purgeGid.run(p.gid);
  if (kind === "account") s.purgeAccount.run(p.gid);
}

// ---------------------------------------------------------------- reads for other domains

/** A mirrored cache: the game's cache fields (none left out), plus where it came from. */
export type MirroredCache = { [K in keyof CacheJson]-?: Exclude<CacheJson[K], undefined> } & {
  gid: string;
  origin: string;
  /** signing time of this version, unix ms */
  updatedAt: number;
  /** the origin peer's trust tier */
  trust: "trusted" | "unvetted";
};

const CACHE_COLS = `c.gid, c.origin, c.name, c.type, c.size, c.difficulty, c.terrain, c.lat, c.lon, c.status, c.hint, c.description,
  c.unlisted, c.owner_call AS ownerCall, c.owner_account AS ownerAccount, c.placed_at AS placedAt, c.updated_at AS updatedAt, p.trust, c.attributes`;

type CacheCols = Omit<MirroredCache, "unlisted" | "attributes"> & { unlisted: number; attributes: string | null };
const mirroredRow = (r: CacheCols): MirroredCache => ({
  ...r,
  unlisted: r.unlisted === 1,
  attributes: r.attributes ? (JSON.parse(r.attributes) as number[]) : [],
});

export interface Box {
  south: number;
  west: number;
  north: number;
  east: number;
}

/**
 * Mirrored caches inside a lat/lon box, from trusted peers (and unvetted
 * ones with `includeUnvetted`); never from blocked or unknown origins. A box
 * whose west is east of its east crosses the antimeridian.
 */
export function mirroredCachesInBox(gw: Core, box: Box, opts: { includeUnvetted?: boolean; limit?: number } = {}): MirroredCache[] {
  const trust = opts.includeUnvetted ? "p.trust IN ('trusted', 'unvetted')" : "p.trust = 'trusted'";
  const lon = box.west <= box.east ? "c.lon BETWEEN ?3 AND ?4" : "(c.lon >= ?3 OR c.lon <= ?4)";
  const rows = gw.db
    .query(
      `SELECT ${CACHE_COLS} FROM mirror_caches c JOIN peers p ON p.instance = c.origin
       WHERE c.lat BETWEEN ?1 AND ?2 AND ${lon} AND ${trust} AND c.unlisted = 0 LIMIT ?5`,
    )
    .all(box.south, box.north, box.west, box.east, opts.limit ?? 1000) as CacheCols[];
  return rows.map(mirroredRow);
}

/** One mirrored cache by gid (null when unknown, or its origin is blocked or gone). */
export function mirroredCache(gw: Core, gid: string): MirroredCache | null {
  const r = gw.db
    .query(`SELECT ${CACHE_COLS} FROM mirror_caches c JOIN peers p ON p.instance = c.origin WHERE c.gid = ? AND p.trust <> 'blocked'`)
    .get(gid) as CacheCols | null;
  return r && mirroredRow(r);
}

export interface MirroredFind {
  gid: string;
  origin: string;
  cacheGid: string;
  kind: string;
  call: string | null;
  account: string | null;
  text: string | null;
  tier: string | null;
  state: string | null;
  distanceM: number | null;
  loggedAt: number;
}

/** Mirrored finds, DNFs and notes on a cache (by the cache's gid), newest first; blocked origins left out. */
export function mirroredFindsOf(gw: Core, cacheGid: string, limit = 200): MirroredFind[] {
  return gw.db
    .query(
      `SELECT f.gid, f.origin, f.cache_gid AS cacheGid, f.kind, f.call, f.account, f.text, f.tier, f.state, f.distance_m AS distanceM,
         f.logged_at AS loggedAt FROM mirror_finds f JOIN peers p ON p.instance = f.origin
       WHERE f.cache_gid = ? AND p.trust <> 'blocked' ORDER BY f.logged_at DESC LIMIT ?`,
    )
    .all(cacheGid, limit) as MirroredFind[];
}

/** Mirrored device keys of a base callsign (for checking signatures made on other instances). */
export function mirroredKeysOf(
  gw: Core,
  call: string,
): Array<{ gid: string; origin: string; publicKey: string; account: string | null; revokedAt: number | null }> {
  return gw.db
    .query(
      `SELECT k.gid, k.origin, k.public_key AS publicKey, k.account, k.revoked_at AS revokedAt FROM mirror_keys k
       JOIN peers p ON p.instance = k.origin WHERE k.call = ? AND p.trust <> 'blocked' ORDER BY k.created_at`,
    )
    .all(call) as never;
}
