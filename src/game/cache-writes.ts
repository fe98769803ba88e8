/**
 * Changing a native cache: hiding, editing, its status and maintenance flag,
 * and archiving an erased owner's caches. Every change of a listed, non-draft
 * cache is published as a signed record (cache-publish.ts); the owner's
 * contact fields never are.
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { scrubWaypoints } from "./waypoints-store.ts";
import { reviewOn } from "./maintenance-roles.ts";
import { attributesColumn } from "./attributes.ts";
import { callsign, TRANSITIONS, type Actor, type CacheBody, type CachePatch, type CacheStatus, type Contact } from "./model.ts";
import { basicValues, cacheJson, codeOf, type Cache, type CacheRow } from "./caches.ts";
import { cacheRow, isOwner, visibleRow } from "./cache-lookup.ts";
import { checkCacheBody, eventFits, type CacheInput } from "./cache-input.ts";
import { publishCache } from "./cache-publish.ts";

export const searchText = (name: string, code: string, owner: string | null, placedBy: string | null) =>
  [name, code, owner ?? "", placedBy ?? ""].join(" ").toLowerCase();

/** Hides a cache. A session hides it as its active callsign; the ingest box names `ownerCall`. */
export function hideCache(gw: Core, actor: Actor, body: CacheBody): Cache & { contact: Contact | null } {
  const now = gw.clock.now();
  const input = checkCacheBody(body, now) as CacheInput;
  const status = input.status ?? "active";
  // REVIEW=on: a cache leaving draft waits for a reviewer, a draft until one publishes it
  const queued = status === "active" && reviewOn(gw);
  if (status !== "draft" && status !== "active") throw badRequest("invalid", "a new cache is a draft or active");
  eventFits(input.type, input.event ?? null);
  let ownerId: number | null;
  let ownerCall: string;
  if (actor.userId !== null) {
    if (body.ownerCall !== undefined) throw badRequest("invalid", "ownerCall is your active callsign; leave it out");
    if (!actor.call) throw forbidden("choose a callsign for your account before hiding a cache", "callsign_required");
    ownerId = actor.userId;
    ownerCall = actor.call;
  } else {
    ownerCall = callsign(body.ownerCall, "ownerCall");
    ownerId = verifiedHolder(gw.db, ownerCall);
  }
  const row = gw.db.transaction(() => {
    const id = Number(
      gw.db
        .query(
          `INSERT INTO caches (owner_id, owner_call, name, type, size, difficulty, terrain, lat, lon, status, unlisted, hint, description,
             contact, placed_at, created_at, updated_at, attributes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          ownerId,
          ownerCall,
          ...basicValues(input),
          queued ? "draft" : status,
          input.unlisted ? 1 : 0,
          input.hint ?? null,
          input.description ?? "",
          input.contact ? JSON.stringify(input.contact) : null,
          input.placedAt ?? now,
          now,
          now,
          attributesColumn(input.attributes ?? []),
        ).lastInsertRowid,
    );
    if (queued) gw.db.query("UPDATE caches SET review = 'queued' WHERE id = ?").run(id);
    if (input.event)
      gw.db
        .query("UPDATE caches SET event_start_at = ?, event_end_at = ?, time_zone = ? WHERE id = ?")
        .run(input.event.startAt, input.event.endAt, input.event.timeZone, id);
    const r = cacheRow(gw, id)!;
    gw.db.query("UPDATE caches SET search = ? WHERE id = ?").run(searchText(r.name, codeOf(r), r.owner_call, null), id);
    publishCache(gw, r);
    return r;
  })();
  return { ...cacheJson(gw, row), contact: input.contact ?? null };
}

/** Updates a native cache (owner, or the ingest box). Status moves follow TRANSITIONS. */
export function updateCache(gw: Core, actor: Actor, id: number, body: CachePatch): Cache & { contact: Contact | null } {
  const now = gw.clock.now();
  const r = visibleRow(gw, id, actor);
  if (!isOwner(actor, r)) throw forbidden("only the cache's owner may change it", "not_owner");
  if (body.ownerCall !== undefined) throw badRequest("invalid", "the owner of a cache cannot be changed");
  const p = checkCacheBody(body, now);
  if (Object.keys(p).length === 0) throw badRequest("invalid", "nothing to change");
  // REVIEW=on: a draft sent to be active goes to the reviewers' queue instead (once more after a return)
  const toQueue = r.status === "draft" && p.status === "active" && reviewOn(gw);
  if (toQueue) delete p.status;
  if (r.review === "queued" && p.status === "draft") throw conflict("in_review", "this cache waits for a reviewer; archive it to withdraw it");
  if (p.status !== undefined && p.status !== r.status && !TRANSITIONS[r.status].includes(p.status)) {
    throw conflict(
      "bad_transition",
      `a ${r.status} cache cannot become ${p.status}${TRANSITIONS[r.status].length ? ` (it can become ${TRANSITIONS[r.status].join(" or ")})` : ""}`,
    );
  }
  if (r.status === "archived") throw conflict("archived", "an archived cache cannot be changed");
  if (p.type !== undefined || p.event !== undefined) {
    const stored = r.event_start_at !== null ? { startAt: r.event_start_at, endAt: r.event_end_at!, timeZone: r.time_zone! } : null;
    eventFits(p.type ?? r.type, p.event === undefined ? stored : p.event);
  }
  const next = gw.db.transaction(() => {
    const sets: string[] = [];
    const args: Array<string | number | null> = [];
    const set = (col: string, v: string | number | null) => (sets.push(`${col} = ?`), args.push(v));
    if (toQueue) set("review", "queued");
    else if (p.status === "archived" && r.review !== null) set("review", null);
    if (p.name !== undefined) set("name", p.name);
    if (p.type !== undefined) set("type", p.type);
    if (p.size !== undefined) set("size", p.size);
    if (p.difficulty !== undefined) set("difficulty", p.difficulty);
    if (p.terrain !== undefined) set("terrain", p.terrain);
    if (p.lat !== undefined) set("lat", p.lat);
    if (p.lon !== undefined) set("lon", p.lon);
    if (p.status !== undefined) set("status", p.status);
    if (p.unlisted !== undefined) set("unlisted", p.unlisted ? 1 : 0);
    if (p.hint !== undefined) set("hint", p.hint);
    if (p.description !== undefined) set("description", p.description);
    if (p.contact !== undefined) set("contact", p.contact ? JSON.stringify(p.contact) : null);
    if (p.placedAt !== undefined) set("placed_at", p.placedAt ?? r.placed_at);
    if (p.attributes !== undefined) set("attributes", attributesColumn(p.attributes));
    if (p.event !== undefined) {
      set("event_start_at", p.event?.startAt ?? null);
      set("event_end_at", p.event?.endAt ?? null);
      set("time_zone", p.event?.timeZone ?? null);
    }
    set("updated_at", now);
    gw.db.query(`UPDATE caches SET ${sets.join(", ")} WHERE id = ?`).run(...args, id);
    const n = cacheRow(gw, id)!;
    gw.db.query("UPDATE caches SET search = ? WHERE id = ?").run(searchText(n.name, codeOf(n), n.owner_call, n.placed_by), id);
    publishCache(gw, n);
    return n;
  })();
  return { ...cacheJson(gw, next), contact: next.contact ? (JSON.parse(next.contact) as Contact) : null };
}

/** What an erased owner's callsign becomes in the text of its archived caches. */
const ERASED_CALL = "(erased)";

/** Archives every cache an account owns (GDPR erase), anonymised, and re-publishes them. Inside the caller's transaction. */
export function archiveOwnedCaches(gw: Core, userId: number, calls: readonly string[] = []): number {
  const rows = gw.db.query("SELECT * FROM caches WHERE owner_id = ?").all(userId) as CacheRow[];
  const now = gw.clock.now();
  // The owner's callsigns leave the text it wrote too (a cache named for its owner stays, nameless).
  const callRe = calls.length ? new RegExp(`\\b(?:${calls.join("|")})(?:-\\d{1,2})?\\b`, "gi") : null;
  const scrub = (t: string | null) => (t === null || !callRe ? t : t.replace(callRe, ERASED_CALL));
  for (const r of rows) {
    const status = r.status === "draft" ? "draft" : "archived";
    const name = scrub(r.name)!;
    gw.db
      .query(
        "UPDATE caches SET status = ?, owner_id = NULL, owner_call = NULL, contact = NULL, name = ?, description = ?, hint = ?, search = ?, updated_at = ? WHERE id = ?",
      )
      .run(status, name, scrub(r.description), scrub(r.hint), searchText(name, codeOf(r), null, r.placed_by), now, r.id);
    scrubWaypoints(gw, r.id, scrub);
    if (r.status === "draft") gw.db.query("DELETE FROM caches WHERE id = ?").run(r.id);
    else publishCache(gw, cacheRow(gw, r.id)!);
  }
  return rows.length;
}

/**
 * Changes a native cache's status or open-maintenance flag (a maintenance log,
 * a reviewer's publish), republishing its record. Inside the caller's transaction.
 */
export function setCacheState(gw: Core, id: number, change: { status?: CacheStatus; needsMaintenance?: boolean; review?: null | "returned" }): CacheRow {
  const r = cacheRow(gw, id);
  if (!r) throw notFound(`cache ${id}`);
  const status = change.status ?? r.status;
  const flag = change.needsMaintenance === undefined ? r.needs_maintenance : change.needsMaintenance ? 1 : 0;
  const review = change.review === undefined ? r.review : change.review;
  if (status === r.status && flag === r.needs_maintenance && review === r.review) return r;
  gw.db.query("UPDATE caches SET status = ?, needs_maintenance = ?, review = ?, updated_at = ? WHERE id = ?").run(status, flag, review, gw.clock.now(), id);
  const n = cacheRow(gw, id)!;
  publishCache(gw, n);
  return n;
}
