/**
 * Web push: one VAPID key pair per instance (generated on first use, kept in
 * `meta`), the accounts' subscriptions, and sendPush(), which encrypts with the
 * web-push library (RFC 8291/8292) and posts with fetch. A subscription the
 * push service says is gone (404/410) is dropped; one that keeps failing is
 * dropped after MAX_FAILURES.
 *
 *   await sendPush(gw, userId, { title: "New find on GC42", body: "N0CALL found it", url: "/caches/42" });
 */
import { createECDH } from "node:crypto";
import { isIP } from "node:net";
import type { Core } from "../core/core.ts";
import { getMeta, setMeta } from "../core/store/db.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { mailFrom } from "./mail.ts";
import { guardedFetch, OutboundRefused, outboundProblem, specialAddress } from "../lib/net/outbound.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

/** One of the account's Web Push subscriptions (GET /api/push/subscriptions). */
export const PUSH_SUBSCRIPTION = closed({
  endpoint: t.String({ description: "the push service's URL" }),
  createdAt: unixMs(),
  lastOkAt: nullable(unixMs(), "when a push last went through, unix ms"),
  failures: wholeNumber({ description: "failed pushes in a row (the subscription goes after a few)" }),
});
export const PUSH_SUBSCRIPTIONS = closed({ subscriptions: t.Array(PUSH_SUBSCRIPTION) });

/** What a push did (POST /api/push/test). */
export const PUSH_SENT = closed({
  sent: wholeNumber({ description: "subscriptions the push service accepted it for" }),
  failed: wholeNumber({ description: "subscriptions it failed for (kept, and counted)" }),
  removed: wholeNumber({ description: "subscriptions removed: gone at the push service, or failing too often" }),
});

export type PushSubscriptionInfo = Static<typeof PUSH_SUBSCRIPTION>;
export type PushSent = Static<typeof PUSH_SENT>;

const MAX_SUBSCRIPTIONS = 10;
export const MAX_FAILURES = 5;

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** A new P-256 key pair as web push wants it: the raw public point and the 32-byte secret, base64url. */
function newVapidKeys(): VapidKeys {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const priv = ecdh.getPrivateKey();
  return {
    publicKey: ecdh.getPublicKey().toString("base64url"),
    privateKey: Buffer.concat([Buffer.alloc(32 - priv.length), priv]).toString("base64url"),
  };
}

/** This instance's VAPID keys, made once and kept. */
export function vapidKeys(gw: Core): VapidKeys {
  const pub = getMeta(gw.db, "vapid_public_key");
  const priv = getMeta(gw.db, "vapid_private_key");
  if (pub && priv) return { publicKey: pub, privateKey: priv };
  const keys = newVapidKeys();
  gw.db.transaction(() => {
    // Another process may have made them first: keep theirs.
    if (!getMeta(gw.db, "vapid_public_key")) {
      setMeta(gw.db, "vapid_public_key", keys.publicKey);
      setMeta(gw.db, "vapid_private_key", keys.privateKey);
    }
  })();
  return { publicKey: getMeta(gw.db, "vapid_public_key")!, privateKey: getMeta(gw.db, "vapid_private_key")! };
}

/** The VAPID subject: the instance's https address, else its mail address. */
function vapidSubject(gw: Core): string {
  return gw.config.publicUrl?.startsWith("https:") ? gw.config.publicUrl : `mailto:${mailFrom(gw)}`;
}

function privateHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")) return true;
  return isIP(h) !== 0 && specialAddress(h) !== null;
}

/** Whether push connections may reach loopback and private addresses (a local test push service). */
function privateAllowed(gw: Core): boolean {
  return gw.config.pushAllowPrivateEndpoints || gw.config.outboundAllowPrivate;
}

/**
 * Checks a PushSubscription from a browser. Push services are public https
 * servers; anything else would let a user make this instance post to the LAN
 * (unless PUSH_ALLOW_PRIVATE_ENDPOINTS or OUTBOUND_ALLOW_PRIVATE, for a local
 * test push service). This is the literal check; subscribe() resolves the
 * name, and sendPush() connects only through the outbound guard.
 */
function parseSubscription(gw: Core, body: Record<string, unknown>) {
  const keys = body.keys as Record<string, unknown> | undefined;
  const endpoint = body.endpoint;
  if (typeof endpoint !== "string" || endpoint.length > 2048 || !keys || typeof keys !== "object") {
    throw badRequest("bad_subscription", "expected a PushSubscription: {endpoint, keys: {p256dh, auth}}");
  }
  let u: URL;
  try {
    u = new URL(endpoint);
  } catch {
    throw badRequest("bad_subscription", "endpoint is not a URL");
  }
  const lax = gw.config.pushAllowPrivateEndpoints;
  if (!(u.protocol === "https:" || (lax && u.protocol === "http:")) || u.username || u.password) {
    throw badRequest("bad_subscription", "endpoint must be an https URL of a push service");
  }
  if (!privateAllowed(gw) && privateHost(u.hostname)) throw badRequest("bad_subscription", "endpoint must be a public push service");
  const p256dh = keys.p256dh;
  const auth = keys.auth;
  if (typeof p256dh !== "string" || !/^[A-Za-z0-9_-]{86,88}={0,2}$/.test(p256dh) || Buffer.from(p256dh, "base64url").length !== 65) {
    throw badRequest("bad_subscription", "keys.p256dh must be a base64url P-256 public key");
  }
  if (typeof auth !== "string" || !/^[A-Za-z0-9_-]{22,24}={0,2}$/.test(auth) || Buffer.from(auth, "base64url").length !== 16) {
    throw badRequest("bad_subscription", "keys.auth must be a base64url 16-byte secret");
  }
  return { endpoint, p256dh, auth };
}

export function subscriptionsOf(gw: Core, userId: number): PushSubscriptionInfo[] {
  return gw.db
    .query("SELECT endpoint, created_at AS createdAt, last_ok_at AS lastOkAt, failures FROM push_subscriptions WHERE user_id = ? ORDER BY id")
    .all(userId) as PushSubscriptionInfo[];
}

/**
 * Stores (or takes over) a browser's subscription for the account. A host name
 * that resolves to a loopback, private or other special address is refused
 * now; one that does not resolve yet is checked again at every send.
 */
export async function subscribe(gw: Core, userId: number, body: Record<string, unknown>) {
  const s = parseSubscription(gw, body);
  const problem = await outboundProblem(new URL(s.endpoint).hostname, { allowPrivate: privateAllowed(gw) });
  if (problem) throw badRequest("bad_subscription", `endpoint must be a public push service: ${problem}`);
  gw.db.transaction(() => {
    gw.db.query("DELETE FROM push_subscriptions WHERE endpoint = ?").run(s.endpoint);
    const n = (gw.db.query("SELECT COUNT(*) AS n FROM push_subscriptions WHERE user_id = ?").get(userId) as { n: number }).n;
    if (n >= MAX_SUBSCRIPTIONS) throw conflict("too_many_subscriptions", `an account has at most ${MAX_SUBSCRIPTIONS} push subscriptions; remove one first`);
    gw.db
      .query("INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(userId, s.endpoint, s.p256dh, s.auth, gw.clock.now());
  })();
  return subscriptionsOf(gw, userId);
}

export function unsubscribe(gw: Core, userId: number, endpoint: string) {
  if (gw.db.query("DELETE FROM push_subscriptions WHERE user_id = ? AND endpoint = ?").run(userId, endpoint).changes === 0) throw notFound("push subscription");
  return subscriptionsOf(gw, userId);
}

export interface PushMessage {
  title: string;
  body: string;
  /** where a click on the notification leads, e.g. /caches/42 */
  url?: string;
}

/** Sends one notification to every subscription of an account. */
export async function sendPush(gw: Core, userId: number, message: PushMessage): Promise<PushSent> {
  const subs = gw.db.query("SELECT id, endpoint, p256dh, auth FROM push_subscriptions WHERE user_id = ?").all(userId) as Array<{
    id: number;
    endpoint: string;
    p256dh: string;
    auth: string;
  }>;
  const keys = vapidKeys(gw);
  // Loaded on the first push: it is heavy to load, and most instances start without sending any.
  const { default: webpush } = await import("web-push");
  const payload = JSON.stringify(message);
  let sent = 0;
  let failed = 0;
  let removed = 0;
  await Promise.all(
    subs.map(async (s) => {
      let status = 0;
      try {
        const req = webpush.generateRequestDetails({ endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } }, payload, {
          vapidDetails: { subject: vapidSubject(gw), publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: 24 * 3600,
        });
        // Resolved and checked again now, and sent to the checked address: the name may point elsewhere than when it was stored.
        const res = await guardedFetch(
          req.endpoint,
          {
            method: req.method,
            headers: req.headers as Record<string, string>,
            body: req.body as Uint8Array<ArrayBuffer>,
            signal: AbortSignal.timeout(10_000),
          },
          { allowPrivate: privateAllowed(gw) },
        );
        status = res.status;
        await res.body?.cancel();
      } catch (e) {
        if (e instanceof OutboundRefused) gw.log.warn("push", "push endpoint refused", { endpoint: new URL(s.endpoint).origin, error: e.message });
        else gw.log.warn("push", "push service unreachable", { endpoint: new URL(s.endpoint).origin, error: String((e as Error).message ?? e) });
      }
      if (status >= 200 && status < 300) {
        sent++;
        gw.db.query("UPDATE push_subscriptions SET last_ok_at = ?, failures = 0 WHERE id = ?").run(gw.clock.now(), s.id);
      } else if (status === 404 || status === 410) {
        removed++;
        gw.db.query("DELETE FROM push_subscriptions WHERE id = ?").run(s.id);
      } else {
        failed++;
        const f = gw.db.query("UPDATE push_subscriptions SET failures = failures + 1 WHERE id = ? RETURNING failures").get(s.id) as { failures: number } | null;
        if (f && f.failures >= MAX_FAILURES) {
          removed++;
          gw.db.query("DELETE FROM push_subscriptions WHERE id = ?").run(s.id);
        }
      }
    }),
  );
  return { sent, failed, removed };
}
