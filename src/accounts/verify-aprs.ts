/**
 * Callsign control verification through an APRS challenge. The account asks
 * for a short code and sends it in an APRS message from any SSID of the base
 * call (to this instance's APRS call when one is configured, else to
 * anyone). The decision is made on a message actually heard: the APRS ingest
 * pipeline emits `aprsMessage` for every message heard through the ingest box,
 * APRS-IS or RF, and onHeard() completes a pending challenge whose code it
 * carries. `confirm` looks for it in the stored APRS message log as well.
 *
 * APRS has no authentication: whoever can transmit (or inject into APRS-IS)
 * as a callsign can pass this. It proves what the network can prove, and the
 * challenge keeps how the code was heard (RF via which IGate, or internet).
 */
import { randomInt } from "node:crypto";
import type { Gateway } from "../gateway.ts";
import type { GatewayEvents } from "../events.ts";
import { conflict, notFound } from "../errors.ts";
import { baseCall } from "../callsign.ts";
import { holdsBaseCall, markCallsignVerified, parseCallsign, verifiedAtFor } from "./users.ts";

export const CHALLENGE_TTL_MS = 60 * 60_000;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 6;
/** Addressee suggested when this instance has no APRS call (any addressee counts). */
export const DEFAULT_ADDRESSEE = "VERIFY";

export interface ChallengeStatus {
  call: string;
  status: "none" | "pending" | "verified" | "expired";
  code?: string;
  /** the APRS message to send, e.g. `:VERIFY   :VERIFY K7M2QX` as text `VERIFY K7M2QX` */
  message?: string;
  addressee?: string;
  expiresAt?: number;
  heardAt?: number;
  heardFrom?: string;
  heardVia?: string;
}

interface ChallengeRow {
  id: number;
  userId: number;
  call: string;
  code: string;
  createdAt: number;
  expiresAt: number;
  heardAt: number | null;
  heardSrc: string | null;
  heardVia: string | null;
}

const COLUMNS =
  "id, user_id AS userId, call, code, created_at AS createdAt, expires_at AS expiresAt, heard_at AS heardAt, heard_src AS heardSrc, heard_via AS heardVia";

export function suggestedAddressee(gw: Gateway): string {
  return gw.config.fedAprsCall ?? DEFAULT_ADDRESSEE;
}

function newCode(): string {
  let c = "";
  for (let i = 0; i < CODE_LENGTH; i++) c += ALPHABET[randomInt(ALPHABET.length)];
  return c;
}

function view(gw: Gateway, row: ChallengeRow | null, base: string, userId: number): ChallengeStatus {
  const verifiedAt = verifiedAtFor(gw.db, userId, base);
  if (!row) return verifiedAt ? { call: base, status: "verified" } : { call: base, status: "none" };
  const addressee = suggestedAddressee(gw);
  const common = { call: base, code: row.code, message: `VERIFY ${row.code}`, addressee, expiresAt: row.expiresAt };
  if (row.heardAt !== null) {
    return { ...common, status: "verified", heardAt: row.heardAt, heardFrom: row.heardSrc ?? undefined, heardVia: row.heardVia ?? undefined };
  }
  if (verifiedAt) return { call: base, status: "verified" };
  return { ...common, status: row.expiresAt > gw.clock.now() ? "pending" : "expired" };
}

function latest(gw: Gateway, userId: number, base: string): ChallengeRow | null {
  return gw.db.query(`SELECT ${COLUMNS} FROM callsign_challenges WHERE user_id = ? AND call = ? ORDER BY id DESC LIMIT 1`).get(userId, base) as ChallengeRow | null;
}

function heldBase(gw: Gateway, userId: number, rawCall: unknown): string {
  const base = baseCall(parseCallsign(rawCall));
  if (!holdsBaseCall(gw.db, userId, base)) throw notFound(`callsign ${base} on this account (add it first)`);
  return base;
}

/** Issues a fresh code for a base call the account holds (replacing a pending one). */
export function startChallenge(gw: Gateway, userId: number, rawCall: unknown): ChallengeStatus {
  const base = heldBase(gw, userId, rawCall);
  if (verifiedAtFor(gw.db, userId, base)) throw conflict("already_verified", `${base} is already verified on this account`);
  const now = gw.clock.now();
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM callsign_challenges WHERE user_id = ? AND call = ? AND heard_at IS NULL").run(userId, base);
    gw.db
      .query("INSERT INTO callsign_challenges (user_id, call, code, created_at, expires_at) VALUES (?, ?, ?, ?, ?)")
      .run(userId, base, newCode(), now, now + CHALLENGE_TTL_MS);
  })();
  return view(gw, latest(gw, userId, base), base, userId);
}

/** The account's challenge for a callsign (or its most recent one when no callsign is named). */
export function challengeStatus(gw: Gateway, userId: number, rawCall?: unknown): ChallengeStatus {
  if (rawCall === undefined || rawCall === "") {
    const row = gw.db.query(`SELECT ${COLUMNS} FROM callsign_challenges WHERE user_id = ? ORDER BY id DESC LIMIT 1`).get(userId) as ChallengeRow | null;
    if (!row) return { call: "", status: "none" };
    return view(gw, row, row.call, userId);
  }
  const base = heldBase(gw, userId, rawCall);
  return view(gw, latest(gw, userId, base), base, userId);
}

/** Completes a challenge: marks it heard and the callsign verified, all at once. */
function complete(gw: Gateway, row: ChallengeRow, src: string, via: string, at: number): void {
  gw.db.transaction(() => {
    gw.db.query("UPDATE callsign_challenges SET heard_at = ?, heard_src = ?, heard_via = ? WHERE id = ?").run(at, src, via, row.id);
    markCallsignVerified(gw, row.userId, row.call);
  })();
  gw.log.info("accounts", `callsign ${row.call} verified: challenge heard from ${src} via ${via}`);
}

function codeIn(text: string, code: string): boolean {
  return new RegExp(`(^|[^A-Z0-9])${code}([^A-Z0-9]|$)`).test(text.toUpperCase());
}

/** How a heard message reached us, in words kept on the challenge. */
function viaOf(m: { source: string; igate?: string }): string {
  return m.igate ? `${m.source} via ${m.igate}` : m.source;
}

/** The `aprsMessage` listener: completes a pending challenge whose code the message carries. */
export function onHeard(gw: Gateway, m: GatewayEvents["aprsMessage"]): void {
  if (m.kind !== "message") return;
  let base: string;
  try {
    base = baseCall(parseCallsign(m.src));
  } catch {
    return; // objects, tactical names: not a licensed call
  }
  const now = gw.clock.now();
  const pending = gw.db
    .query(`SELECT ${COLUMNS} FROM callsign_challenges WHERE call = ? AND heard_at IS NULL AND expires_at > ?`)
    .all(base, now) as ChallengeRow[];
  for (const row of pending) {
    if (codeIn(m.text, row.code)) complete(gw, row, m.src.toUpperCase(), viaOf(m), now);
  }
}

/**
 * `/verify/aprs/confirm`: finishes the challenge if its message was heard,
 * looking in the stored APRS message log too; else 409 not_heard.
 */
export function confirmChallenge(gw: Gateway, userId: number, rawCall: unknown): ChallengeStatus {
  const base = heldBase(gw, userId, rawCall);
  const row = latest(gw, userId, base);
  const now = gw.clock.now();
  if (row && row.heardAt === null && row.expiresAt > now) {
    const heard = gw.db
      .query(
        "SELECT src, text, source, igate FROM aprs_messages WHERE (src = ? OR src LIKE ? || '-%') AND kind = 'message' AND ts >= ? AND instr(upper(text), ?) > 0 ORDER BY ts LIMIT 20",
      )
      .all(base, base, row.createdAt, row.code) as Array<{ src: string; text: string; source: string | null; igate: string | null }>;
    const hit = heard.find((h) => codeIn(h.text, row.code));
    if (hit) complete(gw, row, hit.src, viaOf({ source: hit.source ?? "aprs", igate: hit.igate ?? undefined }), now);
  }
  const status = view(gw, latest(gw, userId, base), base, userId);
  if (status.status === "verified") return status;
  if (status.status === "pending") {
    throw conflict(
      "not_heard",
      `no APRS message with ${status.message} from ${base} has been heard yet; send it as an APRS message to ${status.addressee} and try again`,
    );
  }
  throw conflict("no_challenge", `there is no open challenge for ${base}; start one first`);
}

/**
 * The local operator verifies a callsign by hand (`svc-gateway callsign
 * verify`), e.g. on an instance without radio or APRS-IS. Recorded as a
 * challenge heard "via operator".
 */
export function operatorVerify(gw: Gateway, userId: number, rawCall: unknown): void {
  const base = baseCall(parseCallsign(rawCall));
  const now = gw.clock.now();
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM callsign_challenges WHERE user_id = ? AND call = ? AND heard_at IS NULL").run(userId, base);
    gw.db
      .query("INSERT INTO callsign_challenges (user_id, call, code, created_at, expires_at, heard_at, heard_src, heard_via) VALUES (?, ?, '', ?, ?, ?, ?, 'operator')")
      .run(userId, base, now, now, now, base);
    markCallsignVerified(gw, userId, base);
  })();
}
