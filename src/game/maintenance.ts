/**
 * Reviewing and reporting caches (docs/api.md "Maintenance and review").
 * With REVIEW=on a cache leaving draft waits in the reviewers' queue (a draft
 * with `review = 'queued'`, shown as status `review`, seen by its owner and
 * the reviewers only) until a reviewer publishes it or returns it with a
 * reviewer note. Any signed-in user may report a cache (one report per user
 * and cache; a new one replaces it); its owner and the reviewers read them.
 */
import type { Core } from "../core/core.ts";
import { conflict, forbidden, notFound } from "../lib/errors.ts";
import { text, type Actor } from "./model.ts";
import { cacheJson, cachesJson, type CacheRow } from "./caches.ts";
import { cacheRow, isOwner } from "./cache-lookup.ts";
import { setCacheState } from "./cache-writes.ts";
import { isReviewer } from "./maintenance-roles.ts";
import { logOnCache } from "./logs.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON, CACHE_JSON_FIELDS, LOG_JSON } from "./shapes.ts";

function mustReview(gw: Core, actor: Actor): void {
  if (!isReviewer(gw, actor)) throw forbidden("only a reviewer (a sysop, or REVIEWER_CALLSIGNS) may do this", "not_reviewer");
}

/** A user's report of a cache. */
export const REPORT = closed({
  cacheId: wholeNumber(),
  cacheName: t.String(),
  call: nullable(t.String(), "the reporter's active callsign then"),
  reason: t.String(),
  createdAt: unixMs(),
});
export type Report = Static<typeof REPORT>;
/** The reviewers' queue (oldest first) and the latest reports. */
export const REVIEW_QUEUE = closed({ queue: t.Array(CACHE_JSON), reports: t.Array(REPORT, { description: "the latest 200, newest first" }) });
/** A published cache, with the reviewer note logged with it. */
export const PUBLISHED = closed({ ...CACHE_JSON_FIELDS, note: t.Optional(LOG_JSON) });
/** A cache returned to its owner, with the reviewer note. */
export const RETURNED = closed({ ...CACHE_JSON_FIELDS, note: LOG_JSON });
export const REPORTED = closed({ reported: t.Literal(true) });
/** A cache's reports, newest first. */
export const CACHE_REPORTS = closed({ reports: t.Array(REPORT) });

const REPORTS = `SELECT r.cache_id AS cacheId, c.name AS cacheName, r.call, r.reason, r.created_at AS createdAt
  FROM cache_reports r JOIN caches c ON c.id = r.cache_id`;

/** The queue (oldest first) and the latest reports, for reviewers. */
export function reviewQueue(gw: Core, actor: Actor): Static<typeof REVIEW_QUEUE> {
  mustReview(gw, actor);
  const rows = gw.db.query("SELECT * FROM caches WHERE review = 'queued' ORDER BY updated_at, id LIMIT 500").all() as CacheRow[];
  const reports = gw.db.query(`${REPORTS} ORDER BY r.created_at DESC LIMIT 200`).all() as Report[];
  return { queue: cachesJson(gw, rows), reports };
}

function queued(gw: Core, id: number): CacheRow {
  const r = cacheRow(gw, id);
  if (!r) throw notFound(`cache ${id}`);
  if (r.review !== "queued") throw conflict("not_in_review", `cache ${id} is not waiting for a reviewer`);
  return r;
}

/** A reviewer publishes a queued cache: active, on the map, federated; an optional reviewer note with it. */
export function publishReviewed(gw: Core, actor: Actor, id: number, body: { text?: string | null }): Static<typeof PUBLISHED> {
  mustReview(gw, actor);
  queued(gw, id);
  const note = body.text === undefined || body.text === null || body.text === "" ? null : text(body.text, "text", 1, 4000);
  const row = gw.db.transaction(() => setCacheState(gw, id, { status: "active", review: null }))();
  const log = note ? logOnCache(gw, actor, String(id), { kind: "reviewer-note", text: note }) : null;
  return { ...cacheJson(gw, row), ...(log ? { note: log } : {}) };
}

/** A reviewer returns a queued cache to its owner with a reviewer note (required): a draft again, to fix and send once more. */
export function returnReviewed(gw: Core, actor: Actor, id: number, body: { text?: string | null }): Static<typeof RETURNED> {
  mustReview(gw, actor);
  queued(gw, id);
  const note = text(body.text, "text", 1, 4000);
  return gw.db.transaction(() => {
    const log = logOnCache(gw, actor, String(id), { kind: "reviewer-note", text: note });
    const row = setCacheState(gw, id, { review: "returned" });
    return { ...cacheJson(gw, row), note: log };
  })();
}

/** A signed-in user reports a cache (not their own): one report per user and cache, a new one replacing theirs. */
export function reportCache(gw: Core, actor: Actor, id: number, body: { reason?: string }): Static<typeof REPORTED> {
  const r = cacheRow(gw, id);
  if (!r || r.status === "draft") throw notFound(`cache ${id}`);
  if (actor.userId === null) throw forbidden("sign in to report a cache", "session_required");
  if (isOwner(actor, r)) throw conflict("own_cache", "this is your own cache: log owner-maintenance, temp-disable or archive instead");
  const reason = text(body.reason, "reason", 3, 1000);
  gw.db
    .query(
      `INSERT INTO cache_reports (cache_id, user_id, call, reason, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (cache_id, user_id) DO UPDATE SET call = excluded.call, reason = excluded.reason, created_at = excluded.created_at`,
    )
    .run(id, actor.userId, actor.call, reason, gw.clock.now());
  return { reported: true };
}

/** A cache's reports, newest first: for its owner and the reviewers. */
export function reportsOf(gw: Core, actor: Actor, id: number): Static<typeof CACHE_REPORTS> {
  const r = cacheRow(gw, id);
  if (!r) throw notFound(`cache ${id}`);
  if (!isOwner(actor, r) && !isReviewer(gw, actor)) throw forbidden("only the cache's owner and the reviewers read its reports", "not_owner");
  return { reports: gw.db.query(`${REPORTS} WHERE r.cache_id = ? ORDER BY r.created_at DESC`).all(id) as Report[] };
}
