/**
 * An account's preferences, watchlist and notification settings.
 *
 * Preferences are the web app's to define (units, map layers, ...): any JSON
 * object within MAX_PREFS_BYTES. The watchlist holds cache ids; the game's
 * `POST /api/caches/:id/watch` and the watch-alert digests use setWatch() and
 * watchersOf() rather than the table.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { closed, unixMs, wholeNumber } from "../lib/schema.ts";

export const MAX_PREFS_BYTES = 8192;
export const MAX_WATCHES = 1000;

/** The web app's saved preferences (GET and PUT /api/prefs): its own settings, free-form. */
export const PREFS = t.Record(t.String(), t.Unknown(), {
  description: `the web app's own settings (units, map layers, language...): free-form, the app defines them; at most ${MAX_PREFS_BYTES} bytes of JSON`,
});

export function getPrefs(gw: Core, userId: number): Static<typeof PREFS> {
  const row = gw.db.query("SELECT data FROM prefs WHERE user_id = ?").get(userId) as { data: string } | null;
  return row ? JSON.parse(row.data) : {};
}

/** Replaces the preferences with `body` (a JSON object). */
export function putPrefs(gw: Core, userId: number, body: Record<string, unknown>): Record<string, unknown> {
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text) > MAX_PREFS_BYTES) throw badRequest("invalid", `preferences are at most ${MAX_PREFS_BYTES} bytes of JSON`);
  gw.db
    .query(
      "INSERT INTO prefs (user_id, data, updated_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at",
    )
    .run(userId, text, gw.clock.now());
  return body;
}

function parseCacheId(raw: unknown): number {
  const n = typeof raw === "number" ? raw : typeof raw === "string" && /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw badRequest("invalid", "a cache id is a positive whole number");
  return n;
}

/** A cache the account watches (GET /api/watch). */
export const WATCH = closed({ cacheId: wholeNumber({ description: "the cache's id" }), createdAt: unixMs("since when, unix ms") });
export type Watch = Static<typeof WATCH>;

export function watchesOf(gw: Core, userId: number): Watch[] {
  return gw.db.query("SELECT cache_id AS cacheId, created_at AS createdAt FROM watches WHERE user_id = ? ORDER BY created_at").all(userId) as Watch[];
}

/** Watches or unwatches a cache; returns whether the account now watches it. */
export function setWatch(gw: Core, userId: number, rawCacheId: unknown, watch: boolean): boolean {
  const cacheId = parseCacheId(rawCacheId);
  if (!watch) {
    gw.db.query("DELETE FROM watches WHERE user_id = ? AND cache_id = ?").run(userId, cacheId);
    return false;
  }
  // Only a cache this account can see: a draft is its owner's alone. Unwatching
  // stays possible for a cache that has gone.
  const c = gw.db.query("SELECT status, owner_id AS ownerId FROM caches WHERE id = ?").get(cacheId) as { status: string; ownerId: number | null } | null;
  if (!c || (c.status === "draft" && c.ownerId !== userId)) throw notFound(`cache ${cacheId}`);
  gw.db.transaction(() => {
    const n = (gw.db.query("SELECT COUNT(*) AS n FROM watches WHERE user_id = ?").get(userId) as { n: number }).n;
    if (n >= MAX_WATCHES && !gw.db.query("SELECT 1 FROM watches WHERE user_id = ? AND cache_id = ?").get(userId, cacheId)) {
      throw conflict("too_many_watches", `an account watches at most ${MAX_WATCHES} caches`);
    }
    gw.db.query("INSERT OR IGNORE INTO watches (user_id, cache_id, created_at) VALUES (?, ?, ?)").run(userId, cacheId, gw.clock.now());
  })();
  return true;
}

/** The accounts watching a cache (for alerts). */
export function watchersOf(gw: Core, cacheId: number): number[] {
  return (gw.db.query("SELECT user_id AS id FROM watches WHERE cache_id = ?").all(cacheId) as Array<{ id: number }>).map((r) => r.id);
}

const DIGEST = t.Union([t.Literal("hourly"), t.Literal("daily"), t.Literal("off")], { description: "gather notifications into one message" });

/** How the account is notified (GET and PUT /api/notify/prefs). */
export const NOTIFY_PREFS = closed({
  email: t.Boolean({ description: "watch digests by e-mail (needs an e-mail address on the account)" }),
  push: t.Boolean({ description: "web push notifications (needs a push subscription)" }),
  digest: DIGEST,
});
export type NotifyPrefs = Static<typeof NOTIFY_PREFS>;

const DEFAULT_NOTIFY: NotifyPrefs = { email: false, push: false, digest: "daily" };

export function getNotifyPrefs(gw: Core, userId: number): NotifyPrefs {
  const row = gw.db.query("SELECT email, push, digest FROM notify_prefs WHERE user_id = ?").get(userId) as {
    email: number;
    push: number;
    digest: NotifyPrefs["digest"];
  } | null;
  return row ? { email: row.email === 1, push: row.push === 1, digest: row.digest } : { ...DEFAULT_NOTIFY };
}

/** PUT /api/notify/prefs, and a moved account's settings (checked with check()): any of the fields. */
export const NOTIFY_PREFS_BODY = closed({
  email: t.Optional(t.Boolean({ description: "notify by e-mail (the account needs an address)" })),
  push: t.Optional(t.Boolean({ description: "notify by Web Push" })),
  // Literals, not t.UnionEnum: that one carries a default, which would reset digest on every partial update.
  digest: t.Optional(DIGEST),
});
export type NotifyPrefsBody = Static<typeof NOTIFY_PREFS_BODY>;

/** Updates the fields given. */
export function putNotifyPrefs(gw: Core, userId: number, body: NotifyPrefsBody): NotifyPrefs {
  const p = getNotifyPrefs(gw, userId);
  if (body.email !== undefined) p.email = body.email;
  if (body.push !== undefined) p.push = body.push;
  if (body.digest !== undefined) p.digest = body.digest;
  if (p.email) {
    const email = (gw.db.query("SELECT email FROM users WHERE id = ?").get(userId) as { email: string | null }).email;
    if (!email) throw conflict("no_email", "add an e-mail address to the account before asking for e-mail digests");
  }
  gw.db
    .query(
      "INSERT INTO notify_prefs (user_id, email, push, digest, updated_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET email = excluded.email, push = excluded.push, digest = excluded.digest, updated_at = excluded.updated_at",
    )
    .run(userId, p.email ? 1 : 0, p.push ? 1 : 0, p.digest, gw.clock.now());
  return p;
}
