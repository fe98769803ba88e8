/**
 * Passkeys (WebAuthn) through @simplewebauthn/server. Each ceremony is an
 * options call that stores a random challenge and a verify call that consumes
 * it (once, within CHALLENGE_MS), whatever the outcome.
 *
 * The relying party is this instance: with PUBLIC_URL set, its host name and
 * origin; without it, the host the browser used (passkeys need a secure
 * context, so that means https or localhost).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { activeCallsign } from "./identity.ts";
import { createUser, newPublicId, publicIdOf } from "./users.ts";

const CHALLENGE_MS = 5 * 60_000;

/** The WebAuthn library, loaded at the first ceremony: it is heavy to load, and start-up does not need it. */
let webauthnLib: Promise<typeof import("@simplewebauthn/server")> | undefined;
const webauthn = () => (webauthnLib ??= import("@simplewebauthn/server"));

export interface RelyingParty {
  /** the registrable host name, e.g. "gw.example.org" or "localhost" */
  rpID: string;
  /** the exact origin the browser reports, e.g. "https://gw.example.org" */
  origin: string;
  name: string;
}

export interface PasskeyInfo {
  id: string;
  label: string | null;
  createdAt: number;
  lastUsedAt: number | null;
}

export function passkeysOf(gw: Core, userId: number): PasskeyInfo[] {
  return gw.db
    .query("SELECT id, label, created_at AS createdAt, last_used_at AS lastUsedAt FROM passkeys WHERE user_id = ? ORDER BY created_at")
    .all(userId) as PasskeyInfo[];
}

function storeChallenge(gw: Core, challenge: string, kind: "register" | "login", userId: number | null, handle: string | null): void {
  const now = gw.clock.now();
  gw.db.query("DELETE FROM webauthn_challenges WHERE expires_at <= ?").run(now);
  gw.db
    .query("INSERT INTO webauthn_challenges (challenge, kind, user_id, user_handle, expires_at) VALUES (?, ?, ?, ?, ?)")
    .run(challenge, kind, userId, handle, now + CHALLENGE_MS);
}

/** Reads the challenge the browser signed and consumes its stored row (single use). */
function consumeChallenge(gw: Core, clientDataJSON: unknown, kind: "register" | "login") {
  let challenge: unknown;
  try {
    challenge = JSON.parse(Buffer.from(String(clientDataJSON), "base64url").toString("utf8")).challenge;
  } catch {
    throw badRequest("bad_credential", "response.clientDataJSON is not base64url JSON");
  }
  if (typeof challenge !== "string") throw badRequest("bad_credential", "clientDataJSON carries no challenge");
  const row = gw.db
    .query("DELETE FROM webauthn_challenges WHERE challenge = ? AND kind = ? RETURNING user_id AS userId, user_handle AS handle, expires_at AS expiresAt")
    .get(challenge, kind) as { userId: number | null; handle: string | null; expiresAt: number } | null;
  if (!row || row.expiresAt <= gw.clock.now()) {
    throw new AppError(401, "challenge_expired", "this passkey request is unknown, used or expired; start again");
  }
  return { challenge, ...row };
}

function credentialShape(body: unknown, type: "create" | "get") {
  const b = body as { credential?: { id?: unknown; rawId?: unknown; type?: unknown; response?: Record<string, unknown> } } | null;
  const c = b?.credential;
  if (!c || typeof c !== "object" || typeof c.id !== "string" || typeof c.response !== "object" || c.response === null) {
    throw badRequest("bad_credential", `expected {"credential": <the PublicKeyCredential JSON from navigator.credentials.${type}()>}`);
  }
  return c;
}

/** Step 1 of adding a passkey: to a signed-in account, or to a new account (`name`: at most 64 characters, as the route's schema checks). */
export async function registrationOptions(gw: Core, rp: RelyingParty, userId: number | null, name?: string) {
  let handle: string;
  let userName: string;
  let exclude: Array<{ id: string; transports?: string[] }> = [];
  if (userId !== null) {
    handle = publicIdOf(gw.db, userId);
    const u = gw.db.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string | null };
    userName = activeCallsign(gw.db, userId)?.call ?? u.email ?? `account ${userId}`;
    exclude = (gw.db.query("SELECT id, transports FROM passkeys WHERE user_id = ?").all(userId) as Array<{ id: string; transports: string | null }>).map(
      (p) => ({ id: p.id, transports: p.transports ? JSON.parse(p.transports) : undefined }),
    );
  } else {
    handle = newPublicId();
    userName = name?.trim() || `${gw.config.instance} account`;
  }
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.rpID,
    userName,
    userID: new Uint8Array(Buffer.from(handle, "base64url")),
    attestationType: "none",
    excludeCredentials: exclude as never,
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
  });
  storeChallenge(gw, options.challenge, "register", userId, handle);
  return options;
}

/** What an answer must match: the challenge we issued, this site's origin and RP ID; presence is enough (no user verification required). */
const expected = (rp: RelyingParty, challenge: string) => ({
  expectedChallenge: challenge,
  expectedOrigin: rp.origin,
  expectedRPID: rp.rpID,
  requireUserVerification: false,
});

/** Step 2: checks the authenticator's answer and stores the passkey. Returns the account. */
export async function verifyRegistration(gw: Core, rp: RelyingParty, body: { credential?: unknown; label?: string }, sessionUserId: number | null) {
  const cred = credentialShape(body, "create");
  const label = body.label;
  const ch = consumeChallenge(gw, cred.response!.clientDataJSON, "register");
  if (ch.userId !== null && ch.userId !== sessionUserId) {
    throw forbidden("this passkey request was started by another account", "wrong_account");
  }
  let result;
  try {
    result = await (await webauthn()).verifyRegistrationResponse({
      response: cred as unknown as RegistrationResponseJSON,
      ...expected(rp, ch.challenge),
    });
  } catch (e) {
    throw new AppError(401, "passkey_failed", `the passkey could not be verified: ${(e as Error).message}`);
  }
  if (!result.verified) throw new AppError(401, "passkey_failed", "the passkey could not be verified");
  const info = result.registrationInfo;
  const now = gw.clock.now();
  return gw.db.transaction(() => {
    if (gw.db.query("SELECT 1 FROM passkeys WHERE id = ?").get(info.credential.id)) {
      throw conflict("passkey_exists", "this passkey is already registered");
    }
    const created = ch.userId === null;
    const userId = ch.userId ?? createUser(gw.db, now, { publicId: ch.handle! });
    gw.db
      .query("INSERT INTO passkeys (id, user_id, public_key, counter, transports, label, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(
        info.credential.id,
        userId,
        info.credential.publicKey,
        info.credential.counter,
        info.credential.transports ? JSON.stringify(info.credential.transports) : null,
        label?.trim() || null,
        now,
      );
    return { userId, created, passkeyId: info.credential.id };
  })();
}

/** Step 1 of signing in: a challenge for any passkey of this site (discoverable credentials). */
export async function loginOptions(gw: Core, rp: RelyingParty) {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.rpID, userVerification: "preferred", allowCredentials: [] });
  storeChallenge(gw, options.challenge, "login", null, null);
  return options;
}

/** Step 2: checks the signature against the stored passkey; returns the account it belongs to. */
export async function verifyLogin(gw: Core, rp: RelyingParty, body: unknown): Promise<number> {
  const cred = credentialShape(body, "get");
  const ch = consumeChallenge(gw, cred.response!.clientDataJSON, "login");
  const pk = gw.db.query("SELECT id, user_id AS userId, public_key AS publicKey, counter, transports FROM passkeys WHERE id = ?").get(cred.id as string) as {
    id: string;
    userId: number;
    publicKey: Uint8Array;
    counter: number;
    transports: string | null;
  } | null;
  if (!pk) throw new AppError(401, "unknown_passkey", "this passkey is not registered here (it may have been removed)");
  let result;
  try {
    result = await (await webauthn()).verifyAuthenticationResponse({
      response: cred as unknown as AuthenticationResponseJSON,
      ...expected(rp, ch.challenge),
      credential: {
        id: pk.id,
        publicKey: new Uint8Array(pk.publicKey),
        counter: pk.counter,
        transports: pk.transports ? JSON.parse(pk.transports) : undefined,
      },
    });
  } catch (e) {
    throw new AppError(401, "passkey_failed", `the passkey could not be verified: ${(e as Error).message}`);
  }
  if (!result.verified) throw new AppError(401, "passkey_failed", "the passkey could not be verified");
  gw.db.query("UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ?").run(result.authenticationInfo.newCounter, gw.clock.now(), pk.id);
  return pk.userId;
}

/** Removes a passkey, unless it is the account's last way to sign in. */
export function removePasskey(gw: Core, userId: number, id: string): PasskeyInfo[] {
  gw.db.transaction(() => {
    if (!gw.db.query("SELECT 1 FROM passkeys WHERE id = ? AND user_id = ?").get(id, userId)) throw notFound("passkey");
    const others = (gw.db.query("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ? AND id != ?").get(userId, id) as { n: number }).n;
    const email = (gw.db.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string | null }).email;
    if (others === 0 && !email) {
      throw conflict("last_sign_in", "this is the account's only way to sign in; add another passkey or an e-mail address first");
    }
    gw.db.query("DELETE FROM passkeys WHERE id = ?").run(id);
  })();
  return passkeysOf(gw, userId);
}
