/**
 * The gates of the spec's "Authentication", implemented once. Every route
 * names its gate: `{ gate: "session" }`, and may add a rate-limit bucket:
 * `{ gate: "public", rateLimit: "auth" }`. Handlers receive `caller`.
 *
 *   public             anyone
 *   rate-limited       anyone, throttled per IP (bucket "api"; more with an API key,
 *                      which also raises the "fed" bucket but not "auth")
 *   session            a signed-in user
 *   actor              a signed-in user, or the ingest box (x-ingest-secret)
 *   verified           a signed-in user whose active callsign passed the APRS challenge
 *   ingest             x-ingest-secret = INGEST_SECRET
 *   sysop              a signed-in user whose verified active callsign is in
 *                      ADMIN_CALLSIGNS, or x-ingest-secret; locked when neither is set up
 *   signed-body        a body signed by a device key registered to :call, or a
 *                      session holding :call (or `me`); on a route without
 *                      :call, a session or a body signed by the key it names
 *                      (the route binds that key)
 *   relay              x-relay-secret = FED_RELAY_SECRET
 *   fed-secret         x-fed-secret = FED_SUBMIT_SECRET (locked when unset)
 *   fed-secret-if-set  x-fed-secret when FED_SUBMIT_SECRET is set, else public
 *   ingest-or-device   x-ingest-secret, or a JSON body signed by any device key
 *                      registered on this instance (caller.assertion names its call)
 *   wx-key             a per-station weather key (PASSWORD=, ?key=, x-wx-key or a
 *                      wxkey form field); caller.wxStation names the station
 */
import { Elysia } from "elysia";
import type { HttpServer } from "./host.ts";
import type { Gateway } from "./gateway.ts";
import { AppError, forbidden, unauthorized } from "../lib/errors.ts";
import { cookieValue, findSession, SESSION_COOKIE } from "../accounts/sessions.ts";
import { activeCallsign, userHoldsCall } from "../accounts/identity.ts";
import { checkAssertion, checkUnboundAssertion } from "../accounts/assertions.ts";
import { RateLimiter } from "./ratelimit.ts";
import { hashApiKey, sameSecret } from "../lib/secret.ts";
import { isSysop, type Caller, type SignedInUser } from "../accounts/caller.ts";
import { clientIp } from "./client-ip.ts";
import { bodyLimitOf, isParsedType, mediaType, parseBody, routeBodyFor, type BodyLimit } from "./body.ts";
import { findWxKey, wxKeyFrom } from "../stations/wx-keys.ts";
import { CONTROL_HEADER, readControl } from "../core/store/control.ts";

export type GateName =
  | "public"
  | "rate-limited"
  | "session"
  | "actor"
  | "verified"
  | "ingest"
  | "sysop"
  | "signed-body"
  | "relay"
  | "fed-secret"
  | "fed-secret-if-set"
  | "ingest-or-device"
  | "wx-key"
  | "local-control";

/** Rate-limit buckets: requests per minute per IP, without and with an API key. */
export type RateBucket = "api" | "auth" | "fed";

/**
 * A state-changing request sent by a page of another origin (the browser says
 * so in Origin or Sec-Fetch-Site): its session cookie is ignored, so another
 * site on the same host or LAN cannot act with a visitor's session (CSRF).
 */
function crossOriginWrite(gw: Gateway, request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS") return false;
  if (request.headers.get("sec-fetch-site") === "cross-site") return true;
  const origin = request.headers.get("origin");
  if (!origin) return false;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return true;
  }
  if (gw.config.publicUrl && new URL(gw.config.publicUrl).host === host) return false;
  return host !== (request.headers.get("host") ?? new URL(request.url).host);
}

/** Identifies the caller once per request; gates then decide. */
export function identify(gw: Gateway, request: Request, server: HttpServer | null): Caller {
  const now = gw.clock.now();
  const token = cookieValue(request.headers.get("cookie"), SESSION_COOKIE);
  let user: SignedInUser | null = null;
  if (token && !crossOriginWrite(gw, request)) {
    const s = findSession(gw.db, token, now);
    if (s) {
      const active = activeCallsign(gw.db, s.userId);
      user = { id: s.userId, call: active?.call ?? null, verified: active?.verified ?? false };
    }
  }
  let apiKeyId: number | null = null;
  const key = request.headers.get("x-api-key");
  if (key) {
    const row = gw.db.query("SELECT id FROM api_keys WHERE key_hash = ?").get(hashApiKey(key)) as { id: number } | null;
    apiKeyId = row?.id ?? null;
  }
  return {
    // the gateway's own server first: on Bun with TLS it gives back the address behind the HTTPS port's front
    // door (src/tls/front-door.ts); Elysia's context has the raw Bun.serve (and no server at all on workerd)
    ip: clientIp(gw.config, request, gw.server ?? server),
    user,
    sessionToken: user ? token : null,
    ingest: sameSecret(request.headers.get("x-ingest-secret"), gw.config.ingestSecret),
    apiKeyId,
    assertion: null,
  };
}

function requireSignedIn(caller: Caller): SignedInUser {
  if (!caller.user) throw unauthorized("sign in first");
  return caller.user;
}

function requireSecret(given: string | null, expected: string | null, header: string, setting: string): void {
  if (!expected) throw forbidden(`${setting} is not set on this instance, so ${header} routes are locked`, "locked");
  if (!sameSecret(given, expected)) throw new AppError(401, "unauthorized", `${header} is missing or wrong`);
}

/** Enforces one gate; throws AppError (401/403) on refusal. */
function enforceGate(
  gw: Gateway,
  gate: GateName,
  caller: Caller,
  ctx: { request: Request; path: string; params: Record<string, string>; body: unknown },
): void {
  const h = (n: string) => ctx.request.headers.get(n);
  switch (gate) {
    case "public":
    case "rate-limited":
      return;
    case "session":
      requireSignedIn(caller);
      return;
    case "actor":
      if (caller.ingest) return;
      requireSignedIn(caller);
      return;
    case "verified": {
      const u = requireSignedIn(caller);
      if (!u.call || !u.verified) {
        throw forbidden("this needs a verified callsign: verify your active callsign with the APRS challenge first", "callsign_not_verified");
      }
      return;
    }
    case "ingest":
      requireSecret(h("x-ingest-secret"), gw.config.ingestSecret, "x-ingest-secret", "INGEST_SECRET");
      return;
    case "sysop": {
      if (caller.ingest) return;
      if (gw.config.adminCallsigns.length === 0) {
        throw forbidden("the operator surface is locked: ADMIN_CALLSIGNS is not set on this instance", "locked");
      }
      requireSignedIn(caller);
      if (!isSysop(gw, caller)) throw forbidden("only this instance's operators (ADMIN_CALLSIGNS, verified) may do this", "not_sysop");
      return;
    }
    case "signed-body": {
      const call = ctx.params?.call;
      const req = { method: ctx.request.method, path: ctx.path, body: ctx.body };
      if (call === undefined) {
        // A route without :call (account import) carries the keys that may sign
        // it in its body: the gate checks the signature under the key it names;
        // the route must bind that key (caller.assertion.key) to what it does.
        if (caller.user) return;
        caller.assertion = checkUnboundAssertion(gw.db, req, gw.clock.now());
        return;
      }
      // `me`: the signed-in account itself, for accounts that hold no callsign.
      if (caller.user && (call.toLowerCase() === "me" || userHoldsCall(gw.db, caller.user.id, call.toUpperCase()))) return;
      caller.assertion = checkAssertion(gw.db, { ...req, call: call.toUpperCase() }, gw.clock.now());
      return;
    }
    case "relay":
      requireSecret(h("x-relay-secret"), gw.config.fedRelaySecret, "x-relay-secret", "FED_RELAY_SECRET");
      return;
    case "fed-secret":
      requireSecret(h("x-fed-secret"), gw.config.fedSubmitSecret, "x-fed-secret", "FED_SUBMIT_SECRET");
      return;
    case "fed-secret-if-set":
      if (gw.config.fedSubmitSecret) requireSecret(h("x-fed-secret"), gw.config.fedSubmitSecret, "x-fed-secret", "FED_SUBMIT_SECRET");
      return;
    case "ingest-or-device": {
      if (caller.ingest) return;
      const b = ctx.body as Record<string, unknown> | null;
      if (b && typeof b === "object" && !(b instanceof Uint8Array) && !Array.isArray(b) && typeof b.key === "string") {
        const row = gw.db.query("SELECT call FROM device_keys WHERE public_key = ? AND revoked_at IS NULL").get(b.key) as { call: string } | null;
        if (!row) throw forbidden("that key is not registered on this instance", "unknown_key");
        caller.assertion = checkAssertion(gw.db, { call: row.call, method: ctx.request.method, path: ctx.path, body: b }, gw.clock.now());
        return;
      }
      requireSecret(h("x-ingest-secret"), gw.config.ingestSecret, "x-ingest-secret", "INGEST_SECRET");
      return;
    }
    case "local-control":
      // the token of the data directory's control file (store/control.ts): a command of the directory's owner
      requireSecret(h(CONTROL_HEADER), readControl(gw.config.dataDir)?.token ?? null, CONTROL_HEADER, "the data directory's control file");
      return;
    case "wx-key": {
      const key = wxKeyFrom(ctx.request, ctx.body);
      if (!key) throw new AppError(401, "unauthorized", "a weather key is needed (PASSWORD=, ?key=, x-wx-key header or a wxkey field)");
      const station = findWxKey(gw, key);
      if (!station) throw new AppError(401, "unauthorized", "that weather key is not known here");
      caller.wxStation = station;
      return;
    }
  }
}

/**
 * The part of a body gate that needs no body, checked before a byte is read:
 * a body that cannot carry what the gate looks for (a signature is JSON, a
 * weather key a form field) is refused here. Returns the body cap: a body
 * signed by a device key is held to MAX_BODY_BYTES, the larger caps are for
 * the ingest secret.
 */
function gateBeforeBody(gw: Gateway, gate: GateName, caller: Caller, request: Request, limit: number): number {
  const json = mediaType(request.headers.get("content-type")).endsWith("json");
  switch (gate) {
    case "ingest-or-device":
      if (caller.ingest) return limit;
      if (!json) requireSecret(request.headers.get("x-ingest-secret"), gw.config.ingestSecret, "x-ingest-secret", "INGEST_SECRET");
      return Math.min(limit, gw.config.maxBodyBytes);
    case "signed-body":
      if (!caller.user && !json) throw new AppError(401, "unauthorized", "sign in, or send a JSON body signed by a device key");
      return limit;
    case "wx-key":
      if (!wxKeyFrom(request, undefined) && !isParsedType(request.headers.get("content-type"))) {
        throw new AppError(401, "unauthorized", "a weather key is needed (PASSWORD=, ?key=, x-wx-key header or a wxkey field)");
      }
      return limit;
    default:
      return limit;
  }
}

function bucketLimit(gw: Gateway, bucket: RateBucket, withKey: boolean): number {
  switch (bucket) {
    case "api":
      return withKey ? gw.config.rateLimitKeyPerMinute : gw.config.rateLimitPerMinute;
    case "auth":
      // sign-in and set-up: a key does not buy more guesses
      return 20;
    case "fed":
      // corroboration and notify: the spec's "a free API key raises the limit"
      return withKey ? 600 : 60;
  }
}

/** The buckets an API key raises. */
const KEY_RAISES: ReadonlySet<RateBucket> = new Set(["api", "fed"]);

/**
 * The plugin every domain's routes `.use()`: it identifies the caller and
 * provides the `gate` and `rateLimit` route options.
 */
export function gatesPlugin(gw: Gateway): GatesPlugin {
  const slot = gw.services.http;
  slot.gates ??= makeGatesPlugin(gw);
  return slot.gates;
}

// One plugin per gateway, so the caller is identified once per request however
// many domains use it.
export type GatesPlugin = ReturnType<typeof makeGatesPlugin>;

declare module "../core/services.ts" {
  interface Services {
    /** the HTTP layer's own: the gates plugin every route file uses, made by the first */
    http: { gates: GatesPlugin | null };
  }
}

/** Gates that can only be decided from the request body (a signature or key inside it). */
const BODY_GATES: ReadonlySet<GateName> = new Set(["signed-body", "ingest-or-device", "wx-key"]);

function makeGatesPlugin(gw: Gateway) {
  const limiter = new RateLimiter();
  // The caller is identified in the parse step (for the gate) and reused by resolve.
  const callers = new WeakMap<Request, Caller>();
  // Requests whose gate the parse step already enforced (those with a body).
  const enforced = new WeakSet<Request>();
  const callerOf = (request: Request, server: unknown) => {
    let c = callers.get(request);
    if (!c) callers.set(request, (c = identify(gw, request, server as HttpServer | null)));
    return c;
  };
  return new Elysia({ name: "gates", seed: crypto.randomUUID() })
    .resolve({ as: "global" }, ({ request, server }) => ({ caller: callerOf(request, server) }))
    .macro({
      gate: (gate: GateName) => ({
        // Every body is read here, and only after the gate has let the caller
        // in: without credentials a request is refused (401/403) before a byte
        // of its body is read, parsed or checked for its content type. Gates
        // that read the body (a signature in it) are checked in beforeHandle.
        parse: ({ request, server, path, params }: { request: Request; server: unknown; path: string; params?: Record<string, string> }) => {
          const caller = callerOf(request, server);
          const route = routeBodyFor(request.method, path);
          let limit = bodyLimitOf(route, gw.config.maxBodyBytes, gw, request);
          if (!BODY_GATES.has(gate) && gate !== "rate-limited") {
            enforceGate(gw, gate, caller, { request, path, params: params ?? {}, body: undefined });
            enforced.add(request);
          } else if (BODY_GATES.has(gate)) limit = gateBeforeBody(gw, gate, caller, request, limit);
          return parseBody(request, limit, route);
        },
        // Before the route's schemas are checked: a request without a body (a
        // GET) meets its gate here, and every request is counted against its
        // rate limits, so neither a refusal nor a bad query or body goes
        // uncounted or tells an unauthorised caller about the route's schema.
        transform: ({ request, server, path, params, set }) => {
          const caller = callerOf(request, server);
          const headers = set.headers as Record<string, string>;
          if (gate === "rate-limited") applyRateLimit(gw, limiter, "api", caller, headers);
          if (BODY_GATES.has(gate) || gate === "rate-limited") return;
          if (!enforced.has(request)) enforceGate(gw, gate, caller, { request, path, params: (params ?? {}) as Record<string, string>, body: undefined });
          if (caller.user && !READ_METHODS.has(request.method)) applyWriteLimit(gw, limiter, caller.user.id, headers);
        },
        // Destructured on purpose: Elysia reads which context fields a hook uses
        // and only parses the body when one asks for it (signed-body needs it).
        beforeHandle: tagged({ gate }, ({ caller, request, path, params, body, set }) => {
          if (!BODY_GATES.has(gate)) return;
          enforceGate(gw, gate, caller, { request, path, params: params as Record<string, string>, body });
          if (caller.user && !READ_METHODS.has(request.method)) applyWriteLimit(gw, limiter, caller.user.id, set.headers as Record<string, string>);
        }),
      }),
      // Declared at the route and read by the gate's parse step above (body.ts learns them from the assembled app):
      // a body cap other than MAX_BODY_BYTES, and the one content type a route takes.
      bodyLimit: (_limit: BodyLimit) => ({}),
      accepts: (_mediaType: string) => ({}),
      rateLimit: (bucket: RateBucket) => ({
        transform: ({ request, server, set }) => applyRateLimit(gw, limiter, bucket, callerOf(request, server), set.headers as Record<string, string>),
        beforeHandle: tagged({ rateLimit: bucket }, () => {}),
      }),
    });
}

type Tag = { gate?: GateName; rateLimit?: RateBucket };

/** Marks a hook with what it enforces, so routeGates() can list every route's gate. */
function tagged<F extends (...a: any[]) => unknown>(tag: Tag, fn: F): F {
  return Object.assign(fn, { svcTag: tag });
}

export interface RouteGate {
  method: string;
  path: string;
  gate: GateName | null;
  rateLimit: RateBucket | null;
}

/** Every route of an app with the gate it declared (null: none declared). */
export function routeGates(app: { routes: Array<{ method: string; path: string; hooks?: unknown }> }): RouteGate[] {
  return app.routes.map((r) => {
    const hooks = [(r.hooks as { beforeHandle?: unknown })?.beforeHandle].flat() as Array<{ svcTag?: Tag; fn?: { svcTag?: Tag } } | undefined>;
    const tags = hooks.map((h) => h?.svcTag ?? h?.fn?.svcTag).filter((t): t is Tag => !!t);
    return {
      method: r.method,
      path: r.path,
      gate: tags.find((t) => t.gate)?.gate ?? null,
      rateLimit: tags.find((t) => t.rateLimit)?.rateLimit ?? (tags.some((t) => t.gate === "rate-limited") ? "api" : null),
    };
  });
}

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every write a signed-in account makes, whatever the route, counts against
 * one bucket per account (RATE_LIMIT_WRITES_PER_MINUTE): a session cannot
 * flood the database (and its write-ahead log) through any route.
 */
function applyWriteLimit(gw: Gateway, limiter: RateLimiter, userId: number, headers: Record<string, string>): void {
  const r = limiter.hit(`write:user:${userId}`, gw.config.rateLimitWritesPerMinute, gw.clock.now());
  if (!r.allowed) {
    headers["retry-after"] = String(r.resetS);
    throw new AppError(429, "rate_limited", `too many changes from this account; try again in ${r.resetS} s`);
  }
}

function applyRateLimit(gw: Gateway, limiter: RateLimiter, bucket: RateBucket, caller: Caller, headers: Record<string, string>): void {
  // Buckets a key does not raise count per IP whatever key is sent, so fresh
  // keys buy no extra sign-in attempts.
  const withKey = caller.apiKeyId !== null && KEY_RAISES.has(bucket);
  const key = withKey ? `${bucket}:key:${caller.apiKeyId}` : `${bucket}:ip:${caller.ip}`;
  const r = limiter.hit(key, bucketLimit(gw, bucket, withKey), gw.clock.now());
  headers["ratelimit-limit"] = String(r.limit);
  headers["ratelimit-remaining"] = String(r.remaining);
  headers["ratelimit-reset"] = String(r.resetS);
  if (!r.allowed) {
    headers["retry-after"] = String(r.resetS);
    const hint = caller.apiKeyId === null && KEY_RAISES.has(bucket) ? " (a free API key from POST /api/v1 raises the limit)" : "";
    throw new AppError(429, "rate_limited", `too many requests; try again in ${r.resetS} s${hint}`);
  }
}
