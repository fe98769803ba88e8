/**
 * Callsign control verification through an APRS challenge. The account asks
 * for a short code and sends it in an APRS message from any SSID of the base
 * call (to this instance's APRS call when one is configured, else to
 * anyone). The decision is made on a message actually heard: the APRS ingest
 * pipeline emits `aprsMessage` for every message heard through the ingest box,
 * APRS-IS or RF, and onHeard() completes a pending challenge whose code it
 * carries. `confirm` looks for it in the stored APRS message log as well.
 *
 * APRS has no authentication, so what counts is how the message reached us
 * (HeardProof, docs/api.md "Callsign verification"): heard on the air by this
 * gateway's radio or the operator's ingest box. APRS-IS counts only where the
 * operator allows it (VERIFY_APRSIS): anyone with a passcode can send as any
 * call there. A device key's /ingest and the inner packet of a third-party
 * wrapper never count, nor does this station's own transmission heard back
 * through a digipeater (src/radio-node/echoes.ts: proof "relayed"), whoever had us
 * send it (a KISS client, the outbox). Taking over a call another account verified needs a
 * message heard on the air, always; the audit log keeps it and the previous
 * holder is told.
 */
import { randomInt } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { GatewayEvents, HeardProof } from "../core/events.ts";
import { conflict, notFound } from "../lib/errors.ts";
import { baseCall } from "../lib/callsign.ts";
import { holdsBaseCall, markCallsignVerified, parseCallsign, verifiedAtFor, verifiedElsewhere } from "./users.ts";
import { tellPreviousHolders } from "./audit.ts";
import { closed, unixMs } from "../lib/schema.ts";

const CHALLENGE_TTL_MS = 60 * 60_000;
const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 6;
/** Addressee suggested when this instance has no APRS call (any addressee counts). */
const DEFAULT_ADDRESSEE = "VERIFY";

/** How a message must reach this gateway to answer a challenge (HeardProof's kinds that may count). */
const ACCEPTED_PROOF = t.Union([t.Literal("radio"), t.Literal("box"), t.Literal("internet")], {
  description: "radio: this gateway's radio; box: the operator's ingest box; internet: APRS-IS (only where VERIFY_APRSIS allows it)",
});
type AcceptedProof = Static<typeof ACCEPTED_PROOF> & HeardProof;

/** An account's APRS challenge for a base call (POST /verify/aprs/start, /confirm; GET /verify/aprs/status). */
export const CHALLENGE_STATUS = closed({
  call: t.String({ description: "the base call; empty when the account has no challenge at all" }),
  status: t.Union([t.Literal("none"), t.Literal("pending"), t.Literal("verified"), t.Literal("expired")]),
  code: t.Optional(t.String({ description: "the code to send (with a challenge)" })),
  message: t.Optional(t.String({ description: "the APRS message text to send, e.g. VERIFY K7M2QX" })),
  addressee: t.Optional(t.String({ description: "whom to send it to (any addressee counts)" })),
  expiresAt: t.Optional(unixMs()),
  heardAt: t.Optional(unixMs("when the answer was heard, unix ms")),
  heardFrom: t.Optional(t.String({ description: "the station it was heard from" })),
  heardVia: t.Optional(t.String({ description: "how it reached us, e.g. rf via N0GATE, or operator" })),
  accepts: t.Optional(t.Array(ACCEPTED_PROOF, { description: "how the message must reach this gateway to count" })),
  takeover: t.Optional(t.Boolean({ description: "another account verified this call: answering takes it over (on the air only)" })),
});
export type ChallengeStatus = Static<typeof CHALLENGE_STATUS>;

/** What may answer a challenge: the air always; APRS-IS only where allowed, and never for a takeover. */
function acceptedProofs(gw: Core, takeover: boolean): AcceptedProof[] {
  return gw.config.verifyAprsIs && !takeover ? ["radio", "box", "internet"] : ["radio", "box"];
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

function suggestedAddressee(gw: Core): string {
  return gw.config.fedAprsCall ?? DEFAULT_ADDRESSEE;
}

function newCode(): string {
  let c = "";
  for (let i = 0; i < CODE_LENGTH; i++) c += ALPHABET[randomInt(ALPHABET.length)];
  return c;
}

function view(gw: Core, row: ChallengeRow | null, base: string, userId: number): ChallengeStatus {
  const verifiedAt = verifiedAtFor(gw.db, userId, base);
  if (!row) return verifiedAt ? { call: base, status: "verified" } : { call: base, status: "none" };
  const addressee = suggestedAddressee(gw);
  const takeover = verifiedElsewhere(gw.db, userId, base);
  const common = {
    call: base,
    code: row.code,
    message: `VERIFY ${row.code}`,
    addressee,
    expiresAt: row.expiresAt,
    accepts: acceptedProofs(gw, takeover),
    takeover,
  };
  if (row.heardAt !== null) {
    return { ...common, status: "verified", heardAt: row.heardAt, heardFrom: row.heardSrc ?? undefined, heardVia: row.heardVia ?? undefined };
  }
  if (verifiedAt) return { call: base, status: "verified" };
  return { ...common, status: row.expiresAt > gw.clock.now() ? "pending" : "expired" };
}

function latest(gw: Core, userId: number, base: string): ChallengeRow | null {
  return gw.db
    .query(`SELECT ${COLUMNS} FROM callsign_challenges WHERE user_id = ? AND call = ? ORDER BY id DESC LIMIT 1`)
    .get(userId, base) as ChallengeRow | null;
}

function heldBase(gw: Core, userId: number, rawCall: unknown): string {
  const base = baseCall(parseCallsign(rawCall));
  if (!holdsBaseCall(gw.db, userId, base)) throw notFound(`callsign ${base} on this account (add it first)`);
  return base;
}

/** Issues a fresh code for a base call the account holds (replacing a pending one). */
export function startChallenge(gw: Core, userId: number, rawCall: unknown): ChallengeStatus {
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
export function challengeStatus(gw: Core, userId: number, rawCall?: unknown): ChallengeStatus {
  if (rawCall === undefined || rawCall === "") {
    const row = gw.db.query(`SELECT ${COLUMNS} FROM callsign_challenges WHERE user_id = ? ORDER BY id DESC LIMIT 1`).get(userId) as ChallengeRow | null;
    if (!row) return { call: "", status: "none" };
    return view(gw, row, row.call, userId);
  }
  const base = heldBase(gw, userId, rawCall);
  return view(gw, latest(gw, userId, base), base, userId);
}

/** Whether a message reached us in a way that may answer this challenge. */
function counts(gw: Core, row: ChallengeRow, proof: HeardProof | null): boolean {
  return proof !== null && (acceptedProofs(gw, verifiedElsewhere(gw.db, row.userId, row.call)) as HeardProof[]).includes(proof);
}

/** Completes a challenge: marks it heard and the callsign verified, all at once. */
function complete(gw: Core, row: ChallengeRow, src: string, via: string, proof: HeardProof, at: number): void {
  const how = `APRS challenge heard from ${src} via ${via} (${proof})`;
  const previous = gw.db.transaction(() => {
    gw.db.query("UPDATE callsign_challenges SET heard_at = ?, heard_src = ?, heard_via = ? WHERE id = ?").run(at, src, via, row.id);
    return markCallsignVerified(gw, row.userId, row.call, how);
  })();
  gw.log.info("accounts", `callsign ${row.call} verified: challenge heard from ${src} via ${via} (${proof})`);
  if (previous.length) {
    gw.log.warn("accounts", `callsign ${row.call} taken over from ${previous.length} account(s) that had verified it: ${how}`);
    void tellPreviousHolders(gw, row.call, previous, how, { src, via, proof });
  }
}

function codeIn(text: string, code: string): boolean {
  return new RegExp(`(^|[^A-Z0-9])${code}([^A-Z0-9]|$)`).test(text.toUpperCase());
}

/** How a heard message reached us, in words kept on the challenge. */
function viaOf(m: { source: string; igate?: string }): string {
  return m.igate ? `${m.source} via ${m.igate}` : m.source;
}

/** The `aprsMessage` listener: completes a pending challenge whose code the message carries. */
export function onHeard(gw: Core, m: GatewayEvents["aprsMessage"]): void {
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
    if (codeIn(m.text, row.code) && counts(gw, row, m.proof)) complete(gw, row, m.src.toUpperCase(), viaOf(m), m.proof, now);
  }
}

/**
 * `/verify/aprs/confirm`: finishes the challenge if its message was heard,
 * looking in the stored APRS message log too; else 409 not_heard.
 */
export function confirmChallenge(gw: Core, userId: number, rawCall: unknown): ChallengeStatus {
  const base = heldBase(gw, userId, rawCall);
  const row = latest(gw, userId, base);
  const now = gw.clock.now();
  if (row && row.heardAt === null && row.expiresAt > now) {
    const heard = gw.db
      .query(
        "SELECT src, text, source, igate, proof FROM aprs_messages WHERE (src = ? OR src LIKE ? || '-%') AND kind = 'message' AND ts >= ? AND instr(upper(text), ?) > 0 ORDER BY ts LIMIT 20",
      )
      .all(base, base, row.createdAt, row.code) as Array<{ src: string; text: string; source: string | null; igate: string | null; proof: HeardProof | null }>;
    const hit = heard.find((h) => codeIn(h.text, row.code) && counts(gw, row, h.proof));
    if (hit) complete(gw, row, hit.src, viaOf({ source: hit.source ?? "aprs", igate: hit.igate ?? undefined }), hit.proof!, now);
  }
  const status = view(gw, latest(gw, userId, base), base, userId);
  if (status.status === "verified") return status;
  if (status.status === "pending") {
    const how = status.accepts!.includes("internet")
      ? "on the air or through APRS-IS"
      : "on the air (heard by this gateway's radio or its ingest box; APRS-IS does not count here)";
    throw conflict(
      "not_heard",
      `no APRS message with ${status.message} from ${base} has been heard yet; send it as an APRS message to ${status.addressee}, ${how}, and try again`,
    );
  }
  throw conflict("no_challenge", `there is no open challenge for ${base}; start one first`);
}

/**
 * The local operator verifies a callsign by hand (`svc-gateway callsign
 * verify`), e.g. on an instance without radio or APRS-IS. Recorded as a
 * challenge heard "via operator".
 */
export function operatorVerify(gw: Core, userId: number, rawCall: unknown): number[] {
  const base = baseCall(parseCallsign(rawCall));
  const now = gw.clock.now();
  return gw.db.transaction(() => {
    gw.db.query("DELETE FROM callsign_challenges WHERE user_id = ? AND call = ? AND heard_at IS NULL").run(userId, base);
    gw.db
      .query(
        "INSERT INTO callsign_challenges (user_id, call, code, created_at, expires_at, heard_at, heard_src, heard_via) VALUES (?, ?, '', ?, ?, ?, ?, 'operator')",
      )
      .run(userId, base, now, now, now, base);
    return markCallsignVerified(gw, userId, base, "verified by the operator (svc-gateway callsign verify)");
  })();
}
