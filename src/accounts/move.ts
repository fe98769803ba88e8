/**
 * Account portability: carrying an account from instance A to instance B.
 *
 *   1. A: `POST /api/account/:call/bundle` (signed-body) → a bundle: the
 *      account's callsigns, device keys, e-mail and each domain's portable
 *      data, signed by A's instance key (a standalone document, svc-doc/1).
 *   2. B: `POST /api/account/import` with `{bundle}`, signed by one of the
 *      bundle's device keys (or with a session on B) → a new account on B
 *      (or the bundle merged into the signed-in one) and an acceptance,
 *      signed by B: "A's account X is now my account Y".
 *   3. A: `POST /api/account/:call/move` with `{acceptance}` (signed-body) →
 *      A publishes the account-move record (re-pointing attribution from X
 *      to Y on every peer) and keeps only a stub of the account.
 *
 * B trusts what A vouches for (verified callsigns, device keys) only when A
 * is a trusted peer and signed with one of its active pinned keys; otherwise
 * the callsigns arrive unverified and the keys wait until they are verified
 * on B. A bundle's content is input like any other and is checked as such.
 */
import { t } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, forbidden } from "../lib/errors.ts";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { documentBytes } from "../lib/fed/keys.ts";
import { verifyEd25519 } from "../lib/fed/ed25519.ts";
import { accountGid, instanceSigner } from "../fed/feed.ts";
import { parseGid } from "../lib/fed/record.ts";
import { getPeer, peerKeys } from "../fed/peers.ts";
import { baseCall, isCallsign, normalizeCall } from "../lib/callsign.ts";
import { accountRef, ACCOUNT_DATA, sectionsOf } from "./gdpr.ts";
import { activateAny, callsignsOf, createUser, markCallsignVerified, MAX_CALLSIGNS, publicIdOf, revokeKeysWhere, verifiedElsewhere } from "./users.ts";
import { parsePublicKey } from "./device-keys.ts";
import { emitAccountRecord } from "./records.ts";
import { parseEmail } from "./email-signin.ts";

/** How long a bundle or an acceptance can be used after it was signed. */
const DOC_MAX_AGE_S = 7 * 24 * 3600;

/** The members an instance adds when it signs a standalone document (svc-doc/1). */
const SIGNATURE = {
  at: wholeNumber({ description: "when it was signed, unix seconds" }),
  signerKey: t.String({ description: "the signing instance's Ed25519 public key, base64url" }),
  sig: t.String({ description: "the Ed25519 signature over the document without sig, base64url" }),
};

/** POST /api/account/{call}/bundle: the account, signed by this instance, for another instance's import. */
export const ACCOUNT_BUNDLE = closed({
  type: t.Literal("account-bundle"),
  origin: t.String({ description: "the instance it comes from" }),
  account: t.String({ description: "the account's global id on origin" }),
  calls: t.Array(closed({ call: t.String(), verified: t.Boolean() }), { description: "the callsigns it holds" }),
  keys: t.Array(closed({ call: t.String({ description: "the base call" }), key: t.String({ description: "an Ed25519 public key, base64url" }) }), {
    description: "its live device keys",
  }),
  email: nullable(t.String(), "its e-mail sign-in address, a claim until the new instance confirms it"),
  data: sectionsOf(ACCOUNT_DATA.flatMap((d) => (d.bundle ? [[d.name, d.bundleSchema] as [string, TSchema]] : []))),
  ...SIGNATURE,
});
export type Bundle = Static<typeof ACCOUNT_BUNDLE>;

/** The new instance's acceptance of a move: "A's account X is now my account Y" (part of POST /api/account/import's answer). */
export const MOVE_ACCEPTANCE = closed({
  type: t.Literal("account-move-accept"),
  origin: t.String({ description: "the new instance" }),
  from: t.String({ description: "the account's global id on the old instance" }),
  to: t.String({ description: "its global id on the new instance" }),
  ...SIGNATURE,
});
export type Acceptance = Static<typeof MOVE_ACCEPTANCE>;

/** POST /api/account/{call}/move: the move is final here. */
export const ACCOUNT_MOVED = closed({
  moved: t.Literal(true),
  to: t.String({ description: "the account's global id on the new instance" }),
  record: t.String({ description: "the global id of the account-move record published to peers" }),
});
export type AccountMoved = Static<typeof ACCOUNT_MOVED>;

function signDoc<T extends Record<string, unknown>>(gw: Core, doc: T): T & { signerKey: string; sig: string } {
  const signer = instanceSigner(gw);
  if (!signer) throw conflict("unsigned_instance", "this instance has no signing key (FED_PRIVATE_KEY), so it cannot vouch for an account move");
  const withKey = { ...doc, signerKey: signer.publicKey };
  return { ...withKey, sig: Buffer.from(signer.sign(documentBytes(withKey))).toString("base64url") };
}

/** Checks a standalone document's signature under the key it names; throws 400 bad_signature. */
function checkDocSignature(doc: Record<string, unknown>, what: string): void {
  const key = doc.signerKey;
  const sig = doc.sig;
  if (typeof key !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(key) || typeof sig !== "string" || !/^[A-Za-z0-9_-]{86}$/.test(sig)) {
    throw badRequest("bad_signature", `the ${what} carries no valid signerKey and sig`);
  }
  const verdict = verifyEd25519(Buffer.from(key, "base64url"), documentBytes(doc), Buffer.from(sig, "base64url"));
  if (verdict !== "ok") throw badRequest("bad_signature", `the ${what}'s signature does not verify (${String(verdict)})`);
}

function checkAge(gw: Core, at: unknown, what: string): void {
  const now = Math.floor(gw.clock.now() / 1000);
  if (typeof at !== "number" || !Number.isSafeInteger(at)) throw badRequest("invalid", `the ${what} has no signing time`);
  if (at > now + 300 || now - at > DOC_MAX_AGE_S) throw new AppError(409, "expired", `the ${what} was signed too long ago (or in the future); make a new one`);
}

/** Whether `key` is an active key of `origin`, a peer this instance trusts. */
function vouchedFor(gw: Core, origin: string, key: string): boolean {
  const peer = getPeer(gw, origin);
  if (!peer || peer.trust !== "trusted") return false;
  return peerKeys(gw, origin).some((k) => k.status === "active" && k.publicKey === key);
}

/** Step 1, on the old instance: the signed bundle. */
export function makeBundle(gw: Core, userId: number): Bundle {
  const account = accountRef(gw, userId);
  const user = gw.db.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string | null };
  const data: Record<string, unknown> = {};
  for (const d of ACCOUNT_DATA) {
    const v = d.bundle?.(gw, account);
    if (v !== undefined && v !== null) data[d.name] = v;
  }
  const keys = gw.db.query("SELECT call, public_key AS key FROM device_keys WHERE user_id = ? AND revoked_at IS NULL ORDER BY id").all(userId) as Array<{
    call: string;
    key: string;
  }>;
  return signDoc(gw, {
    type: "account-bundle" as const,
    origin: gw.config.instance,
    account: account.gid,
    calls: callsignsOf(gw.db, userId).map((c) => ({ call: c.call, verified: c.verified })),
    keys,
    email: user.email,
    data,
    at: Math.floor(gw.clock.now() / 1000),
  });
}

/** Checks a bundle from the wire: shape, signature, age, and that it comes from elsewhere. */
function checkBundle(gw: Core, raw: unknown): Bundle {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw badRequest("bad_bundle", "bundle must be the object /bundle returned");
  const b = raw as Record<string, unknown>;
  const bad = (m: string) => badRequest("bad_bundle", m);
  if (b.type !== "account-bundle") throw bad('bundle.type must be "account-bundle"');
  const from = typeof b.account === "string" ? parseGid(b.account) : null;
  if (!from || from.kind !== "account" || from.origin !== b.origin) throw bad("bundle.account must be an account gid of bundle.origin");
  if (b.origin === gw.config.instance) throw conflict("same_instance", "this bundle comes from this instance; there is nothing to move");
  if (
    !Array.isArray(b.calls) ||
    b.calls.length > MAX_CALLSIGNS ||
    !b.calls.every((c) => c && typeof c === "object" && typeof c.call === "string" && isCallsign(c.call) && typeof c.verified === "boolean")
  ) {
    throw bad(`bundle.calls must list up to ${MAX_CALLSIGNS} callsigns with their verification`);
  }
  if (
    !Array.isArray(b.keys) ||
    b.keys.length > 20 ||
    !b.keys.every((k) => k && typeof k === "object" && typeof k.call === "string" && isCallsign(k.call) && typeof k.key === "string")
  ) {
    throw bad("bundle.keys must list up to 20 device keys with their callsigns");
  }
  for (const k of b.keys as Array<{ key: string }>) parsePublicKey(k.key);
  if (b.email !== null) parseEmail(b.email);
  if (!b.data || typeof b.data !== "object" || Array.isArray(b.data)) throw bad("bundle.data must be an object");
  const extra = Object.keys(b).filter((k) => !["type", "origin", "account", "calls", "keys", "email", "data", "at", "signerKey", "sig"].includes(k));
  if (extra.length) throw bad(`unknown bundle member ${extra[0]}`);
  checkDocSignature(b, "bundle");
  checkAge(gw, b.at, "bundle");
  return b as unknown as Bundle;
}

/**
 * Step 2, on the new instance. `by` says who asks: a signed-in account (the
 * bundle is merged into it) or a device key (which must be one of the
 * bundle's; a new account is made). Returns the account and the acceptance.
 */
export function importBundle(gw: Core, body: Record<string, unknown>, by: { userId: number } | { key: string }) {
  const bundle = checkBundle(gw, body.bundle);
  if ("key" in by && !bundle.keys.some((k) => k.key === by.key)) {
    throw forbidden("the request is signed by a key the bundle does not list", "unknown_key");
  }
  const trusted = vouchedFor(gw, bundle.origin, bundle.signerKey);
  const now = gw.clock.now();
  const pendingKeys: Array<{ call: string; key: string }> = [];
  const result = gw.db.transaction(() => {
    if (gw.db.query("SELECT 1 FROM users WHERE imported_from = ?").get(bundle.account)) {
      throw conflict("already_imported", "this account was already imported here");
    }
    let userId: number;
    let created = false;
    if ("userId" in by) {
      userId = by.userId;
      if ((gw.db.query("SELECT imported_from AS f FROM users WHERE id = ?").get(userId) as { f: string | null }).f) {
        throw conflict("already_imported", "this account already holds an imported account");
      }
    } else {
      userId = createUser(gw.db, now);
      created = true;
    }
    // The bundle's e-mail address is only a claim: the account owns it once the
    // address answers an e-mail sign-in code (the response names it; see emailToConfirm).
    gw.db.query("UPDATE users SET imported_from = ? WHERE id = ?").run(bundle.account, userId);
    const held = new Set(callsignsOf(gw.db, userId).map((c) => c.call));
    for (const c of bundle.calls) {
      const call = normalizeCall(c.call);
      if (held.size >= MAX_CALLSIGNS && !held.has(call)) break;
      if (!held.has(call)) {
        gw.db.query("INSERT INTO callsigns (user_id, call, active, created_at) VALUES (?, ?, 0, ?)").run(userId, call, now);
        held.add(call);
      }
      // A peer's word never takes a call from an account that verified it here.
      if (trusted && c.verified && !verifiedElsewhere(gw.db, userId, call))
        markCallsignVerified(gw, userId, call, `vouched for by ${bundle.origin} (account import)`);
    }
    if (!gw.db.query("SELECT 1 FROM callsigns WHERE user_id = ? AND active = 1").get(userId)) activateAny(gw.db, userId);
    const verified = new Set(
      callsignsOf(gw.db, userId)
        .filter((c) => c.verified)
        .map((c) => baseCall(c.call)),
    );
    for (const k of bundle.keys) {
      const call = baseCall(k.call);
      if (!trusted || !verified.has(call) || gw.db.query("SELECT 1 FROM device_keys WHERE public_key = ?").get(k.key)) {
        pendingKeys.push({ call, key: k.key });
        continue;
      }
      gw.db
        .query("INSERT INTO device_keys (user_id, call, public_key, label, created_at) VALUES (?, ?, ?, ?, ?)")
        .run(userId, call, k.key, `from ${bundle.origin}`, now);
      emitAccountRecord(gw, { kind: "key", call, key: k.key, account: publicIdOf(gw.db, userId), createdAt: now });
    }
    const account = accountRef(gw, userId);
    for (const d of ACCOUNT_DATA) {
      const section = bundle.data[d.name];
      if (section !== undefined && d.import) d.import(gw, account, section);
    }
    const acceptance: Acceptance | null = instanceSigner(gw)
      ? signDoc(gw, { type: "account-move-accept" as const, origin: gw.config.instance, from: bundle.account, to: account.gid, at: Math.floor(now / 1000) })
      : null;
    return { userId, created, acceptance };
  })();
  const current = (gw.db.query("SELECT email FROM users WHERE id = ?").get(result.userId) as { email: string | null }).email;
  const emailToConfirm = bundle.email && bundle.email.toLowerCase() !== current ? bundle.email.toLowerCase() : null;
  return { ...result, trusted, pendingKeys, from: bundle.account, emailToConfirm };
}

/** Step 3, on the old instance: the move is final; peers are told. */
export function completeMove(gw: Core, userId: number, body: Record<string, unknown>): AccountMoved {
  const raw = body.acceptance;
  if (!raw || typeof raw !== "object" || Array.isArray(raw))
    throw badRequest("bad_acceptance", "acceptance must be the object the new instance's import returned");
  const a = raw as Record<string, unknown>;
  if (a.type !== "account-move-accept" || typeof a.origin !== "string" || typeof a.from !== "string" || typeof a.to !== "string") {
    throw badRequest("bad_acceptance", 'acceptance needs type "account-move-accept", origin, from and to');
  }
  const extra = Object.keys(a).filter((k) => !["type", "origin", "from", "to", "at", "signerKey", "sig"].includes(k));
  if (extra.length) throw badRequest("bad_acceptance", `unknown acceptance member ${extra[0]}`);
  checkDocSignature(a, "acceptance");
  checkAge(gw, a.at, "acceptance");
  const publicId = publicIdOf(gw.db, userId);
  if (a.from !== accountGid(gw, publicId)) throw conflict("wrong_account", "this acceptance is for another account");
  const to = parseGid(a.to);
  if (!to || to.kind !== "account" || to.origin !== a.origin || a.origin === gw.config.instance) {
    throw badRequest("bad_acceptance", "acceptance.to must be an account gid on the new instance");
  }
  // A known peer must have signed with one of its keys; an unknown instance is the user's choice.
  if (getPeer(gw, a.origin) && !peerKeys(gw, a.origin).some((k) => k.status === "active" && k.publicKey === a.signerKey)) {
    throw forbidden(`the acceptance is not signed by a key of ${a.origin}`, "unknown_key");
  }
  return gw.db.transaction(() => {
    const u = gw.db.query("SELECT moved_to AS movedTo FROM users WHERE id = ?").get(userId) as { movedTo: string | null };
    if (u.movedTo) throw conflict("already_moved", `this account already moved to ${u.movedTo}`);
    const [record] = emitAccountRecord(gw, { kind: "moved", publicId, toAccountGid: a.to as string });
    revokeKeysWhere(gw, "user_id = ?", userId);
    // What moved with the bundle, and every way to sign in, leaves this instance; the stub keeps the public id.
    for (const table of [
      "sessions",
      "passkeys",
      "callsigns",
      "callsign_challenges",
      "prefs",
      "watches",
      "notify_prefs",
      "push_subscriptions",
      "views",
      "webauthn_challenges",
    ]) {
      gw.db.query(`DELETE FROM ${table} WHERE user_id = ?`).run(userId);
    }
    const email = (gw.db.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string | null }).email;
    if (email) gw.db.query("DELETE FROM email_tokens WHERE email = ?").run(email);
    gw.db.query("UPDATE users SET email = NULL, profile = '{}', moved_to = ?, moved_at = ? WHERE id = ?").run(a.to as string, gw.clock.now(), userId);
    return { moved: true as const, to: a.to as string, record: record!.gid };
  })();
}
