/**
 * Sign-in, the account's callsigns and profile, device keys: /auth/*, /keys/*,
 * /api/profile/:call. Thin: parse, call the service, set the cookie.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { isSysop, type Caller } from "./caller.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { createSession, endSession, renewSession, sessionCookie } from "./sessions.ts";
import { accountView, claimWithDeviceKey } from "./account.ts";
import { loginOptions, registrationOptions, removePasskey, verifyLogin, verifyRegistration, type RelyingParty } from "./passkeys.ts";
import { finishEmailSignIn, startEmailSignIn } from "./email-signin.ts";
import { fromAcceptLanguage } from "../i18n/server.ts";
import { addCallsign, callsignsOf, parseCallsign, removeCallsign } from "./users.ts";
import { baseCall } from "../lib/callsign.ts";
import { PROFILE_BODY, profileOf, publicProfile, updateProfile } from "./profile.ts";
import { publicKeysOf, registerDeviceKey, revokeDeviceKey } from "./device-keys.ts";
import { challengeStatus, confirmChallenge, operatorVerify, startChallenge } from "./verify-aprs.ts";
import { accountOfCaller, eraseAccount, exportAccount } from "./gdpr.ts";
import { completeMove, importBundle, makeBundle } from "./move.ts";
import { auditLog, lostCallsigns } from "./audit.ts";
import { callParams, callText, credentialBody, deviceKeyText, open, passkeyLabel, signedBody } from "./model.ts";
import { closed } from "../lib/schema.ts";
import { answers } from "../http/openapi.ts";
import { ACCOUNT_ERASED, ACCOUNT_EXPORT } from "./gdpr.ts";
import { ACCOUNT_BUNDLE, ACCOUNT_MOVED } from "./move.ts";
import { LOGIN_OPTIONS, REGISTRATION_OPTIONS } from "./passkeys.ts";
import { EMAIL_SENT } from "./email-signin.ts";
import { PUBLIC_PROFILE } from "./profile.ts";
import { DEVICE_KEY, PUBLIC_KEYS } from "./device-keys.ts";
import { CHALLENGE_STATUS } from "./verify-aprs.ts";
import {
  ACCOUNT_IMPORTED,
  ACTIVE_CALLSIGN,
  AUDIT_PAGE,
  CALLSIGNS,
  CALLSIGNS_AND_LOST,
  DEVICE_KEYS,
  EMAIL_SIGNED_IN,
  MAYBE_SIGNED_IN,
  OPERATOR_VERIFIED,
  PASSKEY_ADDED,
  PASSKEYS,
  PROFILE_SETTINGS,
  SIGNED_IN,
  SIGNED_OUT,
} from "./shapes.ts";

/** Whether the browser reached us over https (directly, via PUBLIC_URL, or a trusted proxy). */
function isHttps(gw: Core, request: Request): boolean {
  // the gateway's own HTTPS listener (TLS on), whatever PUBLIC_URL says
  if (new URL(request.url).protocol === "https:") return true;
  if (gw.config.publicUrl) return gw.config.publicUrl.startsWith("https:");
  if (gw.config.trustProxy && request.headers.get("x-forwarded-proto") === "https") return true;
  return new URL(request.url).protocol === "https:";
}

/** The WebAuthn relying party: PUBLIC_URL, else the host the browser used. */
function relyingParty(gw: Core, request: Request): RelyingParty {
  const name = gw.config.instance === "local" ? "svc-gateway" : gw.config.instance;
  if (gw.config.publicUrl) {
    const u = new URL(gw.config.publicUrl);
    return { rpID: u.hostname, origin: u.origin, name };
  }
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const origin = `${isHttps(gw, request) ? "https" : "http"}://${host}`;
  return { rpID: new URL(origin).hostname, origin, name };
}

const verifyBody = closed({ call: t.String({ description: `${callText}: one the account holds` }) });
/** `:call` of /api/account/:call/*: a callsign the signer holds, or `me` under a session. */
const accountParams = t.Object({ call: t.String({ description: `${callText}, or me for the signed-in account` }) });

export function accountRoutes(gw: Core, kit: RouteKit) {
  /** Starts a session for `userId`, replacing the caller's current one. */
  const signIn = (caller: Caller, request: Request, set: { headers: Record<string, unknown> }, userId: number) => {
    if (caller.sessionToken) endSession(gw.db, caller.sessionToken);
    const token = createSession(gw.db, userId, gw.clock.now());
    set.headers["set-cookie"] = sessionCookie(token, isHttps(gw, request));
  };
  const view = (caller: Caller, userId: number) => {
    const v = accountView(gw, userId);
    const sysop = isSysop(gw, { ...caller, ingest: false, user: { id: userId, call: v.call, verified: v.verified } });
    return { ...v, sysop };
  };
  const userId = (caller: Caller) => caller.user!.id;

  return (
    kit.app
      // `svc-gateway callsign verify` while the gateway serves: the command sends its change here
      .post(
        "/api/local/callsign-verify",
        ({ body }) => {
          if (!gw.db.query("SELECT 1 FROM users WHERE id = ?").get(body.account)) throw notFound(`account ${body.account}`);
          operatorVerify(gw, body.account, body.call);
          return { account: body.account, call: baseCall(parseCallsign(body.call)), verified: true };
        },
        {
          gate: "local-control",
          body: closed({ account: t.Integer({ minimum: 1 }), call: t.String({ maxLength: 12, description: callText }) }),
          detail: {
            summary: "The operator verifies a callsign by hand (svc-gateway callsign verify, through the serving gateway)",
            tags: ["Operator"],
            responses: answers("the account and the base call now verified for it", OPERATOR_VERIFIED),
          },
        },
      )
      .post(
        "/auth/passkey/register/options",
        ({ caller, request, body }) => registrationOptions(gw, relyingParty(gw, request), caller.user?.id ?? null, body.name),
        {
          gate: "public",
          rateLimit: "auth",
          body: closed({ name: t.Optional(t.String({ maxLength: 64, description: "the new account's name on the authenticator (no session only)" })) }),
          detail: {
            summary: "Step 1 of adding a passkey, to the signed-in account or to a new one: the WebAuthn creation options",
            description: "The body may be empty. Answers the options for navigator.credentials.create().",
            tags: ["Accounts"],
            responses: answers("the WebAuthn creation options (PublicKeyCredentialCreationOptionsJSON)", REGISTRATION_OPTIONS),
          },
        },
      )
      .post(
        "/auth/passkey/register/verify",
        async ({ caller, request, body, set }) => {
          const r = await verifyRegistration(gw, relyingParty(gw, request), body, caller.user?.id ?? null);
          if (!caller.user) signIn(caller, request, set, r.userId);
          return { created: r.created, passkeyId: r.passkeyId, account: view(caller, r.userId) };
        },
        {
          gate: "public",
          rateLimit: "auth",
          // open: the credential is the browser's WebAuthn JSON (model.ts, credentialBody)
          body: open({ ...credentialBody.properties, label: t.Optional(passkeyLabel) }),
          detail: {
            summary: "Step 2 of adding a passkey: the authenticator's answer; signs in to a new account when there was no session",
            description: "Answers { created, passkeyId, account } and sets the session cookie for a new account.",
            tags: ["Accounts"],
            responses: answers("the passkey added, and the account", PASSKEY_ADDED),
          },
        },
      )
      .post("/auth/passkey/login/options", ({ request }) => loginOptions(gw, relyingParty(gw, request)), {
        gate: "public",
        rateLimit: "auth",
        detail: {
          summary: "Step 1 of signing in with a passkey: the WebAuthn request options",
          tags: ["Accounts"],
          responses: answers("the WebAuthn request options (PublicKeyCredentialRequestOptionsJSON)", LOGIN_OPTIONS),
        },
      })
      .post(
        "/auth/passkey/login/verify",
        async ({ caller, request, body, set }) => {
          const id = await verifyLogin(gw, relyingParty(gw, request), body);
          signIn(caller, request, set, id);
          return { account: view(caller, id) };
        },
        {
          gate: "public",
          rateLimit: "auth",
          body: credentialBody,
          detail: {
            summary: "Step 2 of signing in with a passkey: the authenticator's answer; starts a session",
            tags: ["Accounts"],
            responses: answers("the signed-in account", SIGNED_IN),
          },
        },
      )
      .post("/auth/passkey/remove", ({ caller, body }) => ({ passkeys: removePasskey(gw, userId(caller), body.id) }), {
        gate: "session",
        body: closed({ id: t.String({ minLength: 1, maxLength: 1024, description: "the passkey's id, as GET /auth/session lists it" }) }),
        detail: {
          summary: "Remove a passkey from the signed-in account, unless it is the account's last way to sign in",
          description: "Answers { passkeys }, the ones left.",
          tags: ["Accounts"],
          responses: answers("the account's passkeys left", PASSKEYS),
        },
      })
      .post(
        "/auth/email/start",
        async ({ body, set, request }) => {
          const r = await startEmailSignIn(gw, body.email, fromAcceptLanguage(request.headers.get("accept-language")));
          set.status = 202;
          return r;
        },
        {
          gate: "public",
          rateLimit: "auth",
          body: closed({ email: t.String({ description: "the address to send the sign-in link and code to" }) }),
          detail: {
            summary: "Sign in by e-mail, step 1: send a link and a six-digit code to the address",
            description:
              "202 with the same answer for known and unknown addresses; 400 bad_email for an address that is not one. The message is in the language of the request's Accept-Language (English, German, Spanish; else English).",
            tags: ["Accounts"],
            responses: answers("the message went out (the same for known and unknown addresses)", EMAIL_SENT, 202),
          },
        },
      )
      .post(
        "/auth/email/verify",
        ({ caller, request, body, set }) => {
          const r = finishEmailSignIn(gw, body, caller.user?.id ?? null);
          if (caller.user?.id !== r.userId) signIn(caller, request, set, r.userId);
          return { created: r.created, account: view(caller, r.userId) };
        },
        {
          gate: "public",
          rateLimit: "auth",
          body: closed({
            token: t.Optional(t.String({ pattern: "^[A-Za-z0-9_-]{43}$", description: "the token from the e-mail's link" })),
            email: t.Optional(t.String({ description: "the address, with code" })),
            code: t.Optional(t.String({ pattern: "^\\s*\\d{6}\\s*$", description: "the six digits from the e-mail, with email" })),
          }),
          detail: {
            summary: "Sign in by e-mail, step 2: the link's token, or the address and code; starts a session",
            description: "Send { token } or { email, code }. Answers { created, account }; 401 link_expired or bad_code.",
            tags: ["Accounts"],
            responses: answers("the signed-in account, and whether it is new", EMAIL_SIGNED_IN),
          },
        },
      )
      .post(
        "/auth/claim",
        ({ caller, request, body, path, set }) => {
          const id = claimWithDeviceKey(gw, body, path);
          signIn(caller, request, set, id);
          return { account: view(caller, id) };
        },
        {
          gate: "public",
          rateLimit: "auth",
          // open: a signed body is verified over every member it carries (model.ts, signedBody)
          body: open(
            {
              call: t.String({ description: callText }),
              // key, at and sig are the signature's: checked with it (401 when missing or wrong).
              key: t.Optional(t.String({ description: deviceKeyText })),
              at: t.Optional(t.Number({ description: "when it was signed, unix seconds" })),
              sig: t.Optional(t.String({ description: "the base64url Ed25519 signature over method, path and the body without sig" })),
            },
            "a body signed by a device key registered to call",
          ),
          detail: {
            summary: "Sign in with a device key registered to a callsign: a signed body starts a session on its account",
            tags: ["Accounts"],
            responses: answers("the signed-in account", SIGNED_IN),
          },
        },
      )
      .post(
        "/auth/logout",
        ({ caller, request, set }) => {
          if (caller.sessionToken) endSession(gw.db, caller.sessionToken);
          set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return { signedOut: true };
        },
        {
          gate: "public",
          detail: { summary: "Sign out: ends the session and clears the cookie", tags: ["Accounts"], responses: answers("signed out", SIGNED_OUT) },
        },
      )
      .get("/auth/session", ({ caller }) => ({ account: view(caller, userId(caller)) }), {
        gate: "session",
        detail: {
          summary: "The signed-in account: callsigns, passkeys, device keys, e-mail and whether it is a sysop",
          tags: ["Accounts"],
          responses: answers("the signed-in account", SIGNED_IN),
        },
      })
      // The app asks this on every page: signed out is an answer here, not a 401 (which a browser logs as an error).
      .get("/auth/account", ({ caller }) => ({ account: caller.user ? view(caller, userId(caller)) : null }), {
        gate: "public",
        detail: {
          summary: "The signed-in account as GET /auth/session returns it, or null when signed out (never 401)",
          tags: ["Accounts"],
          responses: answers("the signed-in account, or null", MAYBE_SIGNED_IN),
        },
      })
      // Renews the session for another full period (the cookie's Max-Age too).
      .post(
        "/auth/session",
        ({ caller, request, set }) => {
          renewSession(gw.db, caller.sessionToken!, gw.clock.now());
          set.headers["set-cookie"] = sessionCookie(caller.sessionToken!, isHttps(gw, request));
          return { account: view(caller, userId(caller)) };
        },
        {
          gate: "session",
          detail: {
            summary: "Renew the session for another full period (the cookie too)",
            tags: ["Accounts"],
            responses: answers("the signed-in account", SIGNED_IN),
          },
        },
      )
      .get("/auth/callsign", ({ caller }) => ({ call: caller.user!.call, verified: caller.user!.verified }), {
        gate: "session",
        detail: {
          summary: "The signed-in account's active callsign and whether it is verified",
          tags: ["Accounts"],
          responses: answers("the active callsign", ACTIVE_CALLSIGN),
        },
      })
      .post("/auth/callsign", ({ caller, body }) => ({ callsigns: addCallsign(gw, userId(caller), body.call, { activate: true }) }), {
        gate: "session",
        body: closed({ call: t.String({ description: callText }) }),
        detail: {
          summary: "Add a callsign to the signed-in account and make it the active one",
          description: "Answers { callsigns }.",
          tags: ["Accounts"],
          responses: answers("the account's callsigns", CALLSIGNS),
        },
      })
      .get("/auth/callsigns", ({ caller }) => ({ callsigns: callsignsOf(gw.db, userId(caller)), lost: lostCallsigns(gw.db, userId(caller)) }), {
        gate: "session",
        detail: {
          summary: "The signed-in account's callsigns, and those it lost to a verified claim elsewhere",
          description: "Answers { callsigns, lost }.",
          tags: ["Accounts"],
          responses: answers("the account's callsigns, and those it lost", CALLSIGNS_AND_LOST),
        },
      })
      .post(
        "/auth/callsigns",
        ({ caller, body }) => {
          if (body.add !== undefined) return { callsigns: addCallsign(gw, userId(caller), body.add) };
          if (body.remove !== undefined) return { callsigns: removeCallsign(gw, userId(caller), body.remove) };
          throw badRequest("bad_body", 'expected {"add": "N0CALL"} or {"remove": "N0CALL"}');
        },
        {
          gate: "session",
          body: closed({
            add: t.Optional(t.String({ description: `${callText}, to add` })),
            remove: t.Optional(t.String({ description: `${callText}, to remove` })),
          }),
          detail: {
            summary: "Add or remove one of the signed-in account's callsigns",
            description: "Send { add } or { remove }. Answers { callsigns }.",
            tags: ["Accounts"],
            responses: answers("the account's callsigns", CALLSIGNS),
          },
        },
      )
      .get("/auth/profile", ({ caller }) => ({ profile: profileOf(gw, userId(caller)) }), {
        gate: "session",
        detail: {
          summary: "The signed-in account's public profile settings",
          tags: ["Accounts"],
          responses: answers("the profile settings", PROFILE_SETTINGS),
        },
      })
      .post("/auth/profile", ({ caller, body }) => ({ profile: updateProfile(gw, userId(caller), body) }), {
        gate: "session",
        body: PROFILE_BODY,
        detail: {
          summary: "Change the signed-in account's public profile",
          description: "Only public, about, grid and url; another field is refused by name. Answers { profile }.",
          tags: ["Accounts"],
          responses: answers("the profile settings as changed", PROFILE_SETTINGS),
        },
      })
      .get("/api/profile/:call", ({ params }) => publicProfile(gw, params.call), {
        gate: "public",
        params: callParams,
        detail: {
          summary: "A callsign's public profile and activity, when its holder made it public",
          tags: ["Accounts"],
          responses: answers("the callsign's public profile and each domain's public facts", PUBLIC_PROFILE),
        },
      })
      .post(
        "/keys/register",
        ({ caller, body, set }) => {
          const k = registerDeviceKey(gw, userId(caller), body);
          set.status = 201;
          return k;
        },
        {
          gate: "session",
          body: closed({
            call: t.String({ description: `${callText}: one the account holds` }),
            key: t.String({ description: deviceKeyText }),
            label: t.Optional(t.Nullable(t.String({ maxLength: 64, description: "a name for the device, at most 64 characters" }))),
          }),
          detail: {
            summary: "Register a device's key (a radio box, an app) to sign for one of the account's callsigns",
            description: "201 with the key.",
            tags: ["Accounts"],
            responses: answers("the key registered", DEVICE_KEY, 201),
          },
        },
      )
      .post("/keys/revoke", ({ caller, body }) => ({ deviceKeys: revokeDeviceKey(gw, userId(caller), body.key) }), {
        gate: "session",
        body: closed({ key: t.String({ description: deviceKeyText }) }),
        detail: {
          summary: "Revoke one of the account's device keys",
          description: "Answers { deviceKeys }, the ones left.",
          tags: ["Accounts"],
          responses: answers("the account's live device keys left", DEVICE_KEYS),
        },
      })
      .post(
        "/verify/aprs/start",
        ({ caller, body, set }) => {
          set.status = 201;
          return startChallenge(gw, userId(caller), body.call);
        },
        {
          gate: "session",
          body: verifyBody,
          detail: {
            summary: "Start verifying a callsign over APRS: a code to send from that station",
            description: "201 with the challenge { call, status, code, expiresAt, ... }.",
            tags: ["Accounts"],
            responses: answers("the new challenge", CHALLENGE_STATUS, 201),
          },
        },
      )
      .post("/verify/aprs/confirm", ({ caller, body }) => confirmChallenge(gw, userId(caller), body.call), {
        gate: "session",
        body: verifyBody,
        detail: {
          summary: "Check whether the APRS challenge for a callsign was answered, and verify it if so",
          description: "409 not_heard while the message has not been heard; 409 no_challenge without an open challenge.",
          tags: ["Accounts"],
          responses: answers("the challenge, verified", CHALLENGE_STATUS),
        },
      })
      .get("/verify/aprs/status", ({ caller, query }) => challengeStatus(gw, userId(caller), query.call), {
        gate: "session",
        query: t.Object({ call: t.Optional(t.String({ description: `${callText}; absent: the latest challenge` })) }),
        detail: {
          summary: "The state of the signed-in account's APRS challenge for a callsign",
          tags: ["Accounts"],
          responses: answers("the challenge's state", CHALLENGE_STATUS),
        },
      })
      .get("/keys/:call", ({ params }) => publicKeysOf(gw, params.call), {
        gate: "public",
        params: callParams,
        detail: {
          summary: "The device keys registered to a callsign, for peers checking its signatures",
          tags: ["Accounts"],
          responses: answers("the callsign's live keys", PUBLIC_KEYS),
        },
      })
      // Who came to hold which callsign, and whose verified claim went with it.
      .get("/api/admin/audit", ({ query }) => ({ entries: auditLog(gw.db, { limit: Math.min(500, Math.max(1, query.limit ?? 100)), before: query.before }) }), {
        gate: "sysop",
        query: t.Object({
          limit: t.Optional(t.Integer({ description: "entries at most: 1 to 500 (outside: the nearest), default 100" })),
          before: t.Optional(t.Integer({ description: "only entries with an id below this, to page back" })),
        }),
        detail: {
          summary: "The callsign audit log for the sysop: who came to hold which callsign, and whose claim went with it",
          tags: ["Accounts"],
          responses: answers("a page of the audit log", AUDIT_PAGE),
        },
      })
      // GDPR: signed by a device key of :call, or by a session holding it; about the whole account.
      .post(
        "/api/account/:call/export",
        ({ caller, params, set }) => {
          set.headers["content-disposition"] = `attachment; filename="account-${params.call.toUpperCase().replace(/[^A-Z0-9-]/g, "")}.json"`;
          set.headers["cache-control"] = "no-store";
          return exportAccount(gw, accountOfCaller(caller));
        },
        {
          gate: "signed-body",
          params: accountParams,
          body: signedBody({}, "Nothing of its own."),
          detail: {
            summary: "Export everything the account holds here, as one JSON file (GDPR access)",
            tags: ["Accounts"],
            responses: answers("the export, as an attachment", ACCOUNT_EXPORT),
          },
        },
      )
      .post(
        "/api/account/:call/delete",
        ({ caller, request, body, set }) => {
          const r = eraseAccount(gw, accountOfCaller(caller), body);
          if (caller.user) set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return r;
        },
        {
          gate: "signed-body",
          params: accountParams,
          body: signedBody(
            { confirm: t.Optional(t.Unknown({ description: "must be true: erasing cannot be undone (else 400 confirm_required)" })) },
            "{ confirm: true }.",
          ),
          detail: {
            summary: "Erase the account and what it wrote (GDPR erasure)",
            description: "400 confirm_required without { confirm: true }.",
            tags: ["Accounts"],
            responses: answers("what was erased", ACCOUNT_ERASED),
          },
        },
      )
      // Portability: bundle here, import there, move here (src/accounts/move.ts).
      .post("/api/account/:call/bundle", ({ caller }) => makeBundle(gw, accountOfCaller(caller)), {
        gate: "signed-body",
        params: accountParams,
        body: signedBody({}, "Nothing of its own."),
        detail: {
          summary: "Bundle the account to move it to another instance (signed, for that instance's import)",
          tags: ["Accounts"],
          responses: answers("the bundle, signed by this instance", ACCOUNT_BUNDLE),
        },
      })
      .post(
        "/api/account/:call/move",
        ({ caller, request, body, set }) => {
          const r = completeMove(gw, accountOfCaller(caller), body);
          if (caller.user) set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return r;
        },
        {
          gate: "signed-body",
          params: accountParams,
          body: signedBody(
            {
              acceptance: t.Optional(
                t.Unknown({ description: "the object the new instance's import answered; required (checked with its signature: 400 bad_acceptance)" }),
              ),
            },
            "{ acceptance }: what the new instance's import answered.",
          ),
          detail: {
            summary: "Finish moving the account away: the new instance's acceptance ends it here and points its callsigns there",
            tags: ["Accounts"],
            responses: answers("the move is final", ACCOUNT_MOVED),
          },
        },
      )
      .post(
        "/api/account/import",
        ({ caller, request, body, set }) => {
          const by = caller.user ? { userId: caller.user.id } : { key: caller.assertion!.key };
          const r = importBundle(gw, body, by);
          if (r.created) signIn(caller, request, set, r.userId);
          return {
            created: r.created,
            from: r.from,
            trusted: r.trusted,
            pendingKeys: r.pendingKeys,
            acceptance: r.acceptance,
            emailToConfirm: r.emailToConfirm,
            account: view(caller, r.userId),
          };
        },
        {
          gate: "signed-body",
          rateLimit: "auth",
          body: signedBody(
            {
              bundle: t.Optional(
                t.Unknown({ description: "the object the old instance's /bundle answered; required (checked with its signature: 400 bad_bundle)" }),
              ),
            },
            "{ bundle }, signed by a key the bundle names.",
          ),
          detail: {
            summary: "Import an account bundled on another instance: creates the account here and answers the acceptance for the move",
            tags: ["Accounts"],
            responses: answers("the imported account and the acceptance for the old instance", ACCOUNT_IMPORTED),
          },
        },
      )
  );
}
