/**
 * Sign-in, the account's callsigns and profile, device keys: /auth/*, /keys/*,
 * /api/profile/:call. Thin: parse, call the service, set the cookie.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { isSysop, type Caller } from "./caller.ts";
import { jsonObject } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { createSession, endSession, renewSession, sessionCookie } from "./sessions.ts";
import { accountView, claimWithDeviceKey } from "./account.ts";
import { loginOptions, registrationOptions, removePasskey, verifyLogin, verifyRegistration, type RelyingParty } from "./passkeys.ts";
import { finishEmailSignIn, startEmailSignIn } from "./email-signin.ts";
import { addCallsign, callsignsOf, removeCallsign } from "./users.ts";
import { profileOf, publicProfile, updateProfile } from "./profile.ts";
import { publicKeysOf, registerDeviceKey, revokeDeviceKey } from "./device-keys.ts";
import { challengeStatus, confirmChallenge, startChallenge } from "./verify-aprs.ts";
import { accountOfCaller, eraseAccount, exportAccount } from "./gdpr.ts";
import { prefsRoutes } from "./prefs-routes.ts";
import { completeMove, importBundle, makeBundle } from "./move.ts";
import { auditLog, lostCallsigns } from "./audit.ts";
import { intParam } from "../http/params.ts";

/** Whether the browser reached us over https (directly, via PUBLIC_URL, or a trusted proxy). */
function isHttps(gw: Gateway, request: Request): boolean {
  if (gw.config.publicUrl) return gw.config.publicUrl.startsWith("https:");
  if (gw.config.trustProxy && request.headers.get("x-forwarded-proto") === "https") return true;
  return new URL(request.url).protocol === "https:";
}

/** The WebAuthn relying party: PUBLIC_URL, else the host the browser used. */
export function relyingParty(gw: Gateway, request: Request): RelyingParty {
  const name = gw.config.instance === "local" ? "svc-gateway" : gw.config.instance;
  if (gw.config.publicUrl) {
    const u = new URL(gw.config.publicUrl);
    return { rpID: u.hostname, origin: u.origin, name };
  }
  const host = request.headers.get("host") ?? new URL(request.url).host;
  const origin = `${isHttps(gw, request) ? "https" : "http"}://${host}`;
  return { rpID: new URL(origin).hostname, origin, name };
}

export function accountRoutes(gw: Gateway) {
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
    new Elysia({ name: "accounts" })
      .use(gatesPlugin(gw))
      .use(prefsRoutes(gw))
      .post(
        "/auth/passkey/register/options",
        ({ caller, request, body }) => {
          const b = body === undefined || body instanceof Uint8Array ? {} : jsonObject(body);
          return registrationOptions(gw, relyingParty(gw, request), caller.user?.id ?? null, b.name);
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post(
        "/auth/passkey/register/verify",
        async ({ caller, request, body, set }) => {
          const r = await verifyRegistration(gw, relyingParty(gw, request), jsonObject(body), caller.user?.id ?? null);
          if (!caller.user) signIn(caller, request, set, r.userId);
          return { created: r.created, passkeyId: r.passkeyId, account: view(caller, r.userId) };
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post("/auth/passkey/login/options", ({ request }) => loginOptions(gw, relyingParty(gw, request)), { gate: "public", rateLimit: "auth" })
      .post(
        "/auth/passkey/login/verify",
        async ({ caller, request, body, set }) => {
          const id = await verifyLogin(gw, relyingParty(gw, request), jsonObject(body));
          signIn(caller, request, set, id);
          return { account: view(caller, id) };
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post("/auth/passkey/remove", ({ caller, body }) => ({ passkeys: removePasskey(gw, userId(caller), jsonObject(body).id) }), { gate: "session" })
      .post(
        "/auth/email/start",
        async ({ body, set }) => {
          const r = await startEmailSignIn(gw, jsonObject(body, '{"email": "..."}').email);
          set.status = 202;
          return r;
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post(
        "/auth/email/verify",
        ({ caller, request, body, set }) => {
          const r = finishEmailSignIn(gw, jsonObject(body), caller.user?.id ?? null);
          if (caller.user?.id !== r.userId) signIn(caller, request, set, r.userId);
          return { created: r.created, account: view(caller, r.userId) };
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post(
        "/auth/claim",
        ({ caller, request, body, path, set }) => {
          const id = claimWithDeviceKey(gw, jsonObject(body, "a signed body with call, key, at and sig"), path);
          signIn(caller, request, set, id);
          return { account: view(caller, id) };
        },
        { gate: "public", rateLimit: "auth" },
      )
      .post(
        "/auth/logout",
        ({ caller, request, set }) => {
          if (caller.sessionToken) endSession(gw.db, caller.sessionToken);
          set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return { signedOut: true };
        },
        { gate: "public" },
      )
      .get("/auth/session", ({ caller }) => ({ account: view(caller, userId(caller)) }), { gate: "session" })
      // Renews the session for another full period (the cookie's Max-Age too).
      .post(
        "/auth/session",
        ({ caller, request, set }) => {
          renewSession(gw.db, caller.sessionToken!, gw.clock.now());
          set.headers["set-cookie"] = sessionCookie(caller.sessionToken!, isHttps(gw, request));
          return { account: view(caller, userId(caller)) };
        },
        { gate: "session" },
      )
      .get("/auth/callsign", ({ caller }) => ({ call: caller.user!.call, verified: caller.user!.verified }), { gate: "session" })
      .post(
        "/auth/callsign",
        ({ caller, body }) => {
          const b = jsonObject(body, '{"call": "N0CALL-9"}');
          return { callsigns: addCallsign(gw, userId(caller), b.call, { activate: true }) };
        },
        { gate: "session" },
      )
      .get("/auth/callsigns", ({ caller }) => ({ callsigns: callsignsOf(gw.db, userId(caller)), lost: lostCallsigns(gw.db, userId(caller)) }), {
        gate: "session",
      })
      .post(
        "/auth/callsigns",
        ({ caller, body }) => {
          const b = jsonObject(body, '{"add": "N0CALL"} or {"remove": "N0CALL"}');
          if (b.add !== undefined) return { callsigns: addCallsign(gw, userId(caller), b.add) };
          if (b.remove !== undefined) return { callsigns: removeCallsign(gw, userId(caller), b.remove) };
          throw badRequest("bad_body", 'expected {"add": "N0CALL"} or {"remove": "N0CALL"}');
        },
        { gate: "session" },
      )
      .get("/auth/profile", ({ caller }) => ({ profile: profileOf(gw, userId(caller)) }), { gate: "session" })
      .post("/auth/profile", ({ caller, body }) => ({ profile: updateProfile(gw, userId(caller), jsonObject(body)) }), { gate: "session" })
      .get("/api/profile/:call", ({ params }) => publicProfile(gw, params.call), { gate: "public" })
      .post(
        "/keys/register",
        ({ caller, body, set }) => {
          const k = registerDeviceKey(gw, userId(caller), jsonObject(body, '{"call", "key", "label"?}'));
          set.status = 201;
          return k;
        },
        { gate: "session" },
      )
      .post("/keys/revoke", ({ caller, body }) => ({ deviceKeys: revokeDeviceKey(gw, userId(caller), jsonObject(body).key) }), { gate: "session" })
      .post(
        "/verify/aprs/start",
        ({ caller, body, set }) => {
          set.status = 201;
          return startChallenge(gw, userId(caller), jsonObject(body, '{"call": "N0CALL"}').call);
        },
        { gate: "session" },
      )
      .post("/verify/aprs/confirm", ({ caller, body }) => confirmChallenge(gw, userId(caller), jsonObject(body, '{"call": "N0CALL"}').call), {
        gate: "session",
      })
      .get("/verify/aprs/status", ({ caller, query }) => challengeStatus(gw, userId(caller), query.call), { gate: "session" })
      .get("/keys/:call", ({ params }) => publicKeysOf(gw, params.call), { gate: "public" })
      // Who came to hold which callsign, and whose verified claim went with it.
      .get(
        "/api/admin/audit",
        ({ query }) => ({
          entries: auditLog(gw.db, { limit: Math.min(500, Math.max(1, intParam(query.limit, "limit") ?? 100)), before: intParam(query.before, "before") }),
        }),
        { gate: "sysop" },
      )
      // GDPR: signed by a device key of :call, or by a session holding it; about the whole account.
      .post(
        "/api/account/:call/export",
        ({ caller, params, set }) => {
          set.headers["content-disposition"] = `attachment; filename="account-${params.call.toUpperCase().replace(/[^A-Z0-9-]/g, "")}.json"`;
          set.headers["cache-control"] = "no-store";
          return exportAccount(gw, accountOfCaller(caller));
        },
        { gate: "signed-body" },
      )
      .post(
        "/api/account/:call/delete",
        ({ caller, request, body, set }) => {
          const r = eraseAccount(gw, accountOfCaller(caller), jsonObject(body, '{"confirm": true}'));
          if (caller.user) set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return r;
        },
        { gate: "signed-body" },
      )
      // Portability: bundle here, import there, move here (src/accounts/move.ts).
      .post("/api/account/:call/bundle", ({ caller }) => makeBundle(gw, accountOfCaller(caller)), { gate: "signed-body" })
      .post(
        "/api/account/:call/move",
        ({ caller, request, body, set }) => {
          const r = completeMove(gw, accountOfCaller(caller), jsonObject(body, '{"acceptance": {...}}'));
          if (caller.user) set.headers["set-cookie"] = sessionCookie("", isHttps(gw, request));
          return r;
        },
        { gate: "signed-body" },
      )
      .post(
        "/api/account/import",
        ({ caller, request, body, set }) => {
          const by = caller.user ? { userId: caller.user.id } : { key: caller.assertion!.key };
          const r = importBundle(gw, jsonObject(body, '{"bundle": {...}}'), by);
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
        { gate: "signed-body", rateLimit: "auth" },
      )
  );
}
