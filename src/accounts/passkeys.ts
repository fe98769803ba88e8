/**
 * Passkeys (WebAuthn) through @simplewebauthn/server. Each ceremony is an
 * options call that stores a random challenge and a verify call that consumes
 * it (once, within CHALLENGE_MS), whatever the outcome.
 *
 * The relying party is this instance: with PUBLIC_URL set, its host name and
 * origin; without it, the host the browser used (passkeys need a secure
 * context, so that means https or localhost).
 */
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@simplewebauthn/server";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { activeCallsign } from "./identity.ts";
import { createUser, newPublicId, publicIdOf } from "./users.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

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

/** One of the account's passkeys, as its holder sees it. */
export const PASSKEY = closed({
  id: t.String({ description: "the credential id, base64url" }),
  label: nullable(t.String(), "the name given to it"),
  createdAt: unixMs(),
  lastUsedAt: nullable(unixMs(), "when it last signed in, unix ms"),
});
export type PasskeyInfo = Static<typeof PASSKEY>;

/*
 * The WebAuthn options as @simplewebauthn/server makes them and
 * @simplewebauthn/browser reads them (the W3C's ...OptionsJSON dictionaries):
 * their real members, held to the library's types by the compiler (the
 * functions below return the library's value as these types).
 */
const b64url = (description: string) => t.String({ description: `${description}, base64url` });
const requirement = (description: string) => t.Union([t.Literal("discouraged"), t.Literal("preferred"), t.Literal("required")], { description });
const HINTS = t.Array(t.Union([t.Literal("hybrid"), t.Literal("security-key"), t.Literal("client-device")]), {
  description: "which kind of authenticator the browser should offer first",
});
/** The client extensions the options may ask for (AuthenticationExtensionsClientInputs; PRF, binary, is never asked here). */
const EXTENSIONS = closed(
  {
    appid: t.Optional(t.String({ description: "FIDO AppID of older U2F credentials" })),
    credProps: t.Optional(t.Boolean({ description: "report whether the credential is discoverable" })),
    hmacCreateSecret: t.Optional(t.Boolean()),
    minPinLength: t.Optional(t.Boolean()),
  },
  { description: "WebAuthn client extension inputs" },
);
const CREDENTIAL_DESCRIPTOR = closed({
  id: b64url("a credential id"),
  type: t.String({ description: "public-key" }),
  transports: t.Optional(t.Array(t.String(), { description: "how the browser reaches the authenticator: usb, nfc, ble, internal, hybrid..." })),
});

/** POST /auth/passkey/register/options: what navigator.credentials.create() takes (PublicKeyCredentialCreationOptionsJSON). */
export const REGISTRATION_OPTIONS = closed({
  rp: closed({
    name: t.String({ description: "this instance's name" }),
    id: t.Optional(t.String({ description: "the relying party id: this site's host name" })),
  }),
  user: closed({
    id: b64url("the account's user handle (its public id)"),
    name: t.String({ description: "the name the authenticator shows: the active callsign, the e-mail or the name asked for" }),
    displayName: t.String(),
  }),
  challenge: b64url("the random challenge to sign (single use, five minutes)"),
  pubKeyCredParams: t.Array(
    closed({ alg: t.Number({ description: "a COSE algorithm id (-8 EdDSA, -7 ES256, -257 RS256...)" }), type: t.String({ description: "public-key" }) }),
    {
      description: "the key types accepted, preferred first",
    },
  ),
  timeout: t.Optional(wholeNumber({ description: "milliseconds" })),
  excludeCredentials: t.Optional(t.Array(CREDENTIAL_DESCRIPTOR, { description: "the account's passkeys already registered" })),
  authenticatorSelection: t.Optional(
    closed({
      authenticatorAttachment: t.Optional(t.Union([t.Literal("cross-platform"), t.Literal("platform")])),
      requireResidentKey: t.Optional(t.Boolean()),
      residentKey: t.Optional(requirement("a discoverable credential")),
      userVerification: t.Optional(requirement("user verification (PIN, biometrics)")),
    }),
  ),
  hints: t.Optional(HINTS),
  attestation: t.Optional(t.Union([t.Literal("direct"), t.Literal("enterprise"), t.Literal("indirect"), t.Literal("none")])),
  attestationFormats: t.Optional(
    t.Array(
      t.Union([
        t.Literal("fido-u2f"),
        t.Literal("packed"),
        t.Literal("android-safetynet"),
        t.Literal("android-key"),
        t.Literal("tpm"),
        t.Literal("apple"),
        t.Literal("none"),
      ]),
    ),
  ),
  extensions: t.Optional(EXTENSIONS),
});
export type RegistrationOptions = Static<typeof REGISTRATION_OPTIONS>;

/** POST /auth/passkey/login/options: what navigator.credentials.get() takes (PublicKeyCredentialRequestOptionsJSON). */
export const LOGIN_OPTIONS = closed({
  challenge: b64url("the random challenge to sign (single use, five minutes)"),
  timeout: t.Optional(wholeNumber({ description: "milliseconds" })),
  rpId: t.Optional(t.String({ description: "the relying party id: this site's host name" })),
  allowCredentials: t.Optional(t.Array(CREDENTIAL_DESCRIPTOR, { description: "empty: any passkey of this site (discoverable credentials)" })),
  userVerification: t.Optional(requirement("user verification (PIN, biometrics)")),
  hints: t.Optional(HINTS),
  extensions: t.Optional(EXTENSIONS),
});
export type LoginOptions = Static<typeof LOGIN_OPTIONS>;

/**
 * The library's options as the declared type. The compiler holds every member
 * but the extensions to the schema's type (a member the library retypes fails
 * here; SameKeys below catches one it adds or drops); its extension inputs
 * also name PRF's binary values, never asked for here.
 */
const declared = <D extends { extensions?: unknown }>(options: Omit<D, "extensions"> & { extensions?: unknown }) => options as D;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
const sameCreationMembers: SameKeys<PublicKeyCredentialCreationOptionsJSON, RegistrationOptions> = true;
const sameRequestMembers: SameKeys<PublicKeyCredentialRequestOptionsJSON, LoginOptions> = true;
void sameCreationMembers;
void sameRequestMembers;

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
export async function registrationOptions(gw: Core, rp: RelyingParty, userId: number | null, name?: string): Promise<RegistrationOptions> {
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
  return declared<RegistrationOptions>(options);
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
export async function loginOptions(gw: Core, rp: RelyingParty): Promise<LoginOptions> {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.rpID, userVerification: "preferred", allowCredentials: [] });
  storeChallenge(gw, options.challenge, "login", null, null);
  return declared<LoginOptions>(options);
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
