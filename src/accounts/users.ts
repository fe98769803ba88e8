/**
 * Accounts and the callsigns they hold. An account has no name or address:
 * it is a set of sign-in methods (passkeys, an e-mail address, device keys),
 * the callsigns its holder claims (base calls and SSIDs, one active), and a
 * few opt-in profile fields.
 *
 * Callsign claims: any account may claim a callsign; the claim is unverified
 * until an APRS message carrying the account's challenge code is heard from
 * that base call (verify-aprs.ts) or the local operator verifies it with the
 * CLI. Verification covers the base call and every SSID of it, and removes the
 * claims of other accounts on the same base call: a verified callsign belongs
 * to one account. The audit log keeps each verification, and each verified
 * claim it removed (audit.ts).
 *
 * An unverified claim on a call that another account verified is only a
 * standing to start a takeover challenge: it never becomes the active call,
 * so the account never hides, logs, signs or transmits as that call
 * (activate() is the one place that decides).
 *
 * A callsign that goes takes its device keys with it (revokeKeysWhere is
 * here, below the device-keys module, which uses it too).
 */
import { randomBytes } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { Database } from "../core/store/db.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { baseCall, isCallsign, normalizeCall } from "../lib/callsign.ts";
import { emitAccountRecord } from "./records.ts";
import { recordAudit } from "./audit.ts";
import { closed, nullable, unixMs } from "../lib/schema.ts";

export const MAX_CALLSIGNS = 10;

/** One callsign an account holds, as its holder sees it. */
export const CALLSIGN = closed({
  call: t.String({ description: "the callsign, normalised (N0CALL, N0CALL-9)" }),
  active: t.Boolean({ description: "the one the account acts as" }),
  verified: t.Boolean({ description: "its base call is verified for this account" }),
  verifiedAt: nullable(unixMs(), "when it was verified, unix ms"),
});
export type CallsignRow = Static<typeof CALLSIGN>;

/** A new account; returns its id. */
export function createUser(db: Database, now: number, opts: { email?: string | null; publicId?: string } = {}): number {
  return Number(
    db.query("INSERT INTO users (email, public_id, created_at) VALUES (?, ?, ?)").run(opts.email ?? null, opts.publicId ?? newPublicId(), now).lastInsertRowid,
  );
}

/** 16 random bytes, base64url: the account's WebAuthn user handle and federated local id. */
export function newPublicId(): string {
  return randomBytes(16).toString("base64url");
}

/** The account's opaque public id, created on first use for accounts made before it existed. */
export function publicIdOf(db: Database, userId: number): string {
  const row = db.query("SELECT public_id AS publicId FROM users WHERE id = ?").get(userId) as { publicId: string | null } | null;
  if (!row) throw notFound("account");
  if (row.publicId) return row.publicId;
  const id = newPublicId();
  db.query("UPDATE users SET public_id = ? WHERE id = ?").run(id, userId);
  return id;
}

export function callsignsOf(db: Database, userId: number): CallsignRow[] {
  const rows = db.query("SELECT call, active, verified_at AS verifiedAt FROM callsigns WHERE user_id = ? ORDER BY call").all(userId) as Array<{
    call: string;
    active: number;
    verifiedAt: number | null;
  }>;
  return rows.map((r) => ({ call: r.call, active: r.active === 1, verified: r.verifiedAt !== null, verifiedAt: r.verifiedAt }));
}

/** Validates and normalises a callsign from a request (`n0call-0` -> `N0CALL`). */
export function parseCallsign(raw: unknown, field = "call"): string {
  if (typeof raw !== "string" || !isCallsign(raw)) {
    throw badRequest("bad_callsign", `${field} must be an amateur callsign such as N0CALL or N0CALL-9`);
  }
  return normalizeCall(raw);
}

/** Whether the account holds the base call or any SSID of it. */
export function holdsBaseCall(db: Database, userId: number, base: string): boolean {
  return !!db.query("SELECT 1 FROM callsigns WHERE user_id = ? AND (call = ? OR call LIKE ? || '-%')").get(userId, base, base);
}

/** When this account verified the base call, if it did (any SSID counts). */
export function verifiedAtFor(db: Database, userId: number, base: string): number | null {
  const row = db
    .query("SELECT MIN(verified_at) AS at FROM callsigns WHERE user_id = ? AND verified_at IS NOT NULL AND (call = ? OR call LIKE ? || '-%')")
    .get(userId, base, base) as { at: number | null };
  return row.at;
}

/** Claims a callsign for the account (inheriting the verification of its base call). Idempotent. */
export function addCallsign(gw: Core, userId: number, raw: unknown, opts: { activate?: boolean } = {}): CallsignRow[] {
  const call = parseCallsign(raw);
  const now = gw.clock.now();
  gw.db.transaction(() => {
    const held = callsignsOf(gw.db, userId);
    const existing = held.find((c) => c.call === call);
    if (!existing) {
      if (held.length >= MAX_CALLSIGNS) throw conflict("too_many_callsigns", `an account holds at most ${MAX_CALLSIGNS} callsigns; remove one first`);
      const verifiedAt = verifiedAtFor(gw.db, userId, baseCall(call));
      gw.db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (?, ?, 0, ?, ?)").run(userId, call, verifiedAt, now);
    }
    if (opts.activate) activate(gw.db, userId, call);
    else if (held.length === 0 && !verifiedElsewhere(gw.db, userId, call)) activate(gw.db, userId, call);
  })();
  return callsignsOf(gw.db, userId);
}

/** Whether another account verified this call's base call. */
export function verifiedElsewhere(db: Database, userId: number, call: string): boolean {
  const holder = verifiedHolder(db, call);
  return holder !== null && holder !== userId;
}

/** Makes a held call the active one, unless another account verified it (409). */
function activate(db: Database, userId: number, call: string): void {
  if (verifiedElsewhere(db, userId, call)) {
    throw conflict(
      "verified_elsewhere",
      `${baseCall(call)} is verified by another account: you cannot act as it; to take it over, verify it with an APRS message sent on the air`,
    );
  }
  db.query("UPDATE callsigns SET active = 0 WHERE user_id = ? AND active = 1").run(userId);
  db.query("UPDATE callsigns SET active = 1 WHERE user_id = ? AND call = ?").run(userId, call);
}

/** Drops a callsign claim; if it was active, another held callsign (if any) becomes active. */
export function removeCallsign(gw: Core, userId: number, raw: unknown): CallsignRow[] {
  const call = parseCallsign(raw);
  gw.db.transaction(() => {
    const row = gw.db.query("SELECT active FROM callsigns WHERE user_id = ? AND call = ?").get(userId, call) as { active: number } | null;
    if (!row) throw notFound(`callsign ${call} on this account`);
    gw.db.query("DELETE FROM callsigns WHERE user_id = ? AND call = ?").run(userId, call);
    const base = baseCall(call);
    // Device keys speak for a base call: without any SSID of it, they go too.
    if (!holdsBaseCall(gw.db, userId, base)) revokeKeysWhere(gw, "user_id = ? AND call = ?", userId, base);
    if (row.active === 1) activateAny(gw.db, userId);
  })();
  return callsignsOf(gw.db, userId);
}

/** Makes the first held call the account may act as active (verified ones first), if any. */
export function activateAny(db: Database, userId: number): void {
  const calls = db.query("SELECT call FROM callsigns WHERE user_id = ? ORDER BY verified_at IS NULL, call").all(userId) as Array<{ call: string }>;
  const next = calls.find((c) => !verifiedElsewhere(db, userId, c.call));
  if (next) activate(db, userId, next.call);
}

/**
 * Marks a base call verified for an account: every SSID of it the account
 * holds (adding the base call itself if it holds none), and drops other
 * accounts' claims on it, their open challenges and their device keys for
 * it. `how` says what verified it, for the audit log. Returns the accounts
 * whose verified claim went (a takeover). Runs inside the caller's
 * transaction when there is one.
 */
export function markCallsignVerified(gw: Core, userId: number, call: string, how: string): number[] {
  const base = baseCall(call);
  const now = gw.clock.now();
  const db = gw.db;
  return db.transaction(() => {
    const previous = db
      .query("SELECT DISTINCT user_id AS userId FROM callsigns WHERE user_id != ? AND verified_at IS NOT NULL AND (call = ? OR call LIKE ? || '-%')")
      .all(userId, base, base) as Array<{ userId: number }>;
    if (!holdsBaseCall(db, userId, base)) {
      const count = (db.query("SELECT COUNT(*) AS n FROM callsigns WHERE user_id = ?").get(userId) as { n: number }).n;
      db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (?, ?, 0, ?, ?)").run(userId, base, now, now);
      if (count === 0) activate(db, userId, base);
    }
    db.query("UPDATE callsigns SET verified_at = ? WHERE user_id = ? AND verified_at IS NULL AND (call = ? OR call LIKE ? || '-%')").run(
      now,
      userId,
      base,
      base,
    );
    const others = db
      .query("SELECT DISTINCT user_id AS userId FROM callsigns WHERE user_id != ? AND (call = ? OR call LIKE ? || '-%')")
      .all(userId, base, base) as Array<{ userId: number }>;
    db.query("DELETE FROM callsigns WHERE user_id != ? AND (call = ? OR call LIKE ? || '-%')").run(userId, base, base);
    db.query("DELETE FROM callsign_challenges WHERE user_id != ? AND call = ? AND heard_at IS NULL").run(userId, base);
    revokeKeysWhere(gw, "(user_id IS NULL OR user_id != ?) AND call = ?", userId, base);
    for (const o of others) {
      if (!db.query("SELECT 1 FROM callsigns WHERE user_id = ? AND active = 1").get(o.userId)) activateAny(db, o.userId);
    }
    recordAudit(db, { at: now, kind: "verified", call: base, userId, subjectUserId: null, detail: how });
    for (const p of previous) {
      recordAudit(db, { at: now, kind: "taken_over", call: base, userId, subjectUserId: p.userId, detail: how });
    }
    return previous.map((p) => p.userId);
  })();
}

/** The account that verified this base call, if any. */
export function verifiedHolder(db: Database, call: string): number | null {
  const base = baseCall(call);
  const row = db
    .query("SELECT user_id AS userId FROM callsigns WHERE verified_at IS NOT NULL AND (call = ? OR call LIKE ? || '-%') LIMIT 1")
    .get(base, base) as { userId: number } | null;
  return row?.userId ?? null;
}

/**
 * Revokes the live keys matching an SQL condition on device_keys and
 * publishes each revocation; returns how many. Used wherever keys go: the
 * holder revokes one, drops a callsign, or loses it to a verified owner.
 */
export function revokeKeysWhere(gw: Core, where: string, ...params: Array<string | number>): number {
  return gw.db.transaction(() => {
    const rows = gw.db
      .query(
        `UPDATE device_keys SET revoked_at = ? WHERE revoked_at IS NULL AND (${where}) RETURNING id, user_id AS userId, call, public_key AS key, created_at AS createdAt, revoked_at AS revokedAt`,
      )
      .all(gw.clock.now(), ...params) as Array<{ id: number; userId: number | null; call: string; key: string; createdAt: number; revokedAt: number }>;
    for (const r of rows) {
      emitAccountRecord(gw, {
        kind: "key",
        call: r.call,
        key: r.key,
        account: r.userId === null ? null : publicIdOf(gw.db, r.userId),
        createdAt: r.createdAt,
        revokedAt: r.revokedAt,
      });
    }
    return rows.length;
  })();
}
