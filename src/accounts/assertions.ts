/**
 * Signed-body assertions: a request body signed by an Ed25519 device key
 * registered to a callsign. The body carries `key` (base64url public key),
 * `at` (unix seconds) and `sig` (base64url signature) beside its own fields.
 *
 * Signed bytes: "svc-assert/1\n" + METHOD + " " + PATH + "\n" + the RFC 8785
 * canonical JSON of the body without `sig`. An assertion is fresh for
 * ASSERTION_WINDOW_S either side of the server's clock and is accepted once.
 */
import canonicalize from "canonicalize";
import { AppError, badRequest, conflict, forbidden } from "../lib/errors.ts";
import type { Database } from "../core/store/db.ts";
import { baseCall } from "../lib/callsign.ts";
import { verifyEd25519 } from "../lib/fed/ed25519.ts";

const ASSERTION_WINDOW_S = 300;

export function assertionBytes(method: string, path: string, body: Record<string, unknown>): Uint8Array {
  const { sig: _sig, ...rest } = body;
  return new TextEncoder().encode(`svc-assert/1\n${method.toUpperCase()} ${path}\n${canonicalize(rest)}`);
}

export interface VerifiedAssertion {
  /** the device key that signed (base64url) */
  key: string;
  /** the registered device key's row, its base call and account; null for an unbound assertion */
  keyId: number | null;
  call: string | null;
  userId: number | null;
}

interface SignedFields {
  key: string;
  at: number;
  sig: string;
}

/** Shape and freshness of a signed body; throws AppError. */
function signedFields(body: unknown, nowMs: number): SignedFields {
  if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array) {
    throw badRequest("bad_body", "a signed body is a JSON object with key, at and sig");
  }
  const { key, at, sig } = body as Record<string, unknown>;
  if (typeof key !== "string" || !/^[A-Za-z0-9_-]{43}$/.test(key)) throw new AppError(401, "bad_assertion", "key must be a base64url Ed25519 public key");
  if (typeof sig !== "string" || !/^[A-Za-z0-9_-]{86}$/.test(sig)) throw new AppError(401, "bad_assertion", "sig must be a base64url Ed25519 signature");
  if (typeof at !== "number" || !Number.isInteger(at)) throw new AppError(401, "bad_assertion", "at must be unix seconds");
  const now = Math.floor(nowMs / 1000);
  if (Math.abs(now - at) > ASSERTION_WINDOW_S) {
    throw new AppError(401, "stale_assertion", `the assertion was signed at ${at}, more than ${ASSERTION_WINDOW_S} s from this server's clock (${now})`);
  }
  return { key, at, sig };
}

/** The signature over method, path and body, then the replay check (each signature is accepted once). */
function verifyAndSpend(db: Database, f: SignedFields, req: { method: string; path: string; body: unknown }): void {
  // The federation's one verification rule (strict: canonical keys, no small order), node:crypto path.
  const verdict = verifyEd25519(
    Buffer.from(f.key, "base64url"),
    assertionBytes(req.method, req.path, req.body as Record<string, unknown>),
    Buffer.from(f.sig, "base64url"),
  );
  if (verdict !== "ok") throw new AppError(401, "bad_signature", "the signature does not verify for this body, method and path");
  const fresh = db
    .query("INSERT INTO used_assertions (sig, expires_at) VALUES (?, ?) ON CONFLICT(sig) DO NOTHING")
    .run(f.sig, (f.at + ASSERTION_WINDOW_S + 1) * 1000).changes;
  if (fresh === 0) throw conflict("replayed", "this signed request was already used");
}

/** Checks a signed body for `call`; records it so it cannot be replayed. Throws AppError. */
export function checkAssertion(db: Database, req: { call: string; method: string; path: string; body: unknown }, nowMs: number): VerifiedAssertion {
  const f = signedFields(req.body, nowMs);
  const row = db.query("SELECT id, user_id AS userId, call FROM device_keys WHERE public_key = ? AND revoked_at IS NULL").get(f.key) as {
    id: number;
    userId: number | null;
    call: string;
  } | null;
  if (!row || row.call !== baseCall(req.call)) {
    throw forbidden(`that key is not registered to ${baseCall(req.call)}`, "unknown_key");
  }
  verifyAndSpend(db, f, req);
  return { key: f.key, keyId: row.id, call: row.call, userId: row.userId };
}

/**
 * Checks a signed body under the key it names, registered here or not (an
 * account import brings keys from another instance): fresh, valid, once. The
 * caller must decide whether that key may speak for what the body asks.
 */
export function checkUnboundAssertion(db: Database, req: { method: string; path: string; body: unknown }, nowMs: number): VerifiedAssertion {
  const f = signedFields(req.body, nowMs);
  verifyAndSpend(db, f, req);
  return { key: f.key, keyId: null, call: null, userId: null };
}
