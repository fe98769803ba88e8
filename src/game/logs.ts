/**
 * The logbook: finds, DNFs and notes, on native caches and on mirrored caches
 * of other instances. Every log is published as a signed find record (type 2
 * covers all three kinds), except logs on catalog imports, which are not
 * federated. The `log` event fires after each write commits.
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden, notFound } from "../lib/errors.ts";
import { localGid, publishTombstone } from "../fed/feed.ts";
import { refuseUnlessClockSane } from "../system/clock-sanity.ts";
import { mirroredFindsOf } from "../fed/mirror.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { baseCall } from "../lib/callsign.ts";
import { callsign, INGEST_FIND, optText, pastTime, type Actor, type LogBody, type LogKind } from "./model.ts";
import { check, closed } from "../lib/schema.ts";
import { cacheRow, isOwner, resolveCache } from "./cache-lookup.ts";
import { livingGid } from "./caches.ts";
import { applyLogEffect, gateKind, kindsFor, type LogRole } from "./maintenance-logs.ts";
import { isReviewer, mirrorExtras } from "./maintenance-roles.ts";
import { checkEventLog, eventInfo, EVENT_TYPES, type EventInfo } from "./events.ts";
import { localSighting, pinPosition, unpinPosition, type PendingFind } from "./corroborate.ts";
import { logRow, republishLog, type LogRow } from "./log-record.ts";
import type { CacheRow } from "./caches.ts";
import { LOG_JSON, type FindsIngested, type Log } from "./shapes.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";

/** The log kinds the caller may log on a cache now, for the log form (GET /api/caches/:id/log-kinds). */
export const LOG_KINDS_ON = closed({ kinds: t.Array(LOG_JSON.properties.kind) });

export type { Log } from "./shapes.ts";

export function logJson(gw: Core, r: LogRow): Log {
  return {
    id: r.id,
    gid: localGid(gw, "find", r.id),
    cacheGid: r.cache_gid,
    kind: r.kind,
    call: r.call,
    text: r.text,
    foundAt: r.found_at,
    createdAt: r.created_at,
    tier: r.tier,
    state: r.state,
    corroboration: r.tier === "a" ? { source: r.corr_source ?? "local", igate: r.corr_igate, distanceM: r.corr_distance_m, at: r.corr_at } : null,
    origin: gw.config.instance,
  };
}

const emitLog = (gw: Core, r: LogRow, lat: number, lon: number) =>
  gw.events.emit("log", { logId: r.id, cacheId: r.cache_id ?? 0, cacheGid: r.cache_gid, kind: r.kind, call: r.call ?? "", ts: r.created_at, lat, lon });

interface Target {
  cacheId: number | null;
  cacheGid: string;
  lat: number;
  lon: number;
  status: string;
  ownerId: number | null;
  ownerCall: string | null;
  /** when a native cache was placed: no log is dated before it */
  placedAt: number | null;
  type: string;
  /** REVIEW=on: a draft waiting for a reviewer, or sent back */
  review: "queued" | "returned" | null;
  /** the native cache's row, for its owner */
  row: CacheRow | null;
  /** an event cache's times, for will-attend and attended */
  event: EventInfo | null;
}

function target(gw: Core, raw: string, actor: Actor | null): Target {
  const ref = resolveCache(gw, raw, actor);
  if ("native" in ref) {
    const c = ref.native;
    return {
      cacheId: c.id,
      cacheGid: localGid(gw, "cache", c.id),
      lat: c.lat,
      lon: c.lon,
      status: c.status,
      ownerId: c.owner_id,
      ownerCall: c.owner_call,
      placedAt: c.placed_at,
      type: c.type,
      review: c.review,
      row: c,
      event: eventInfo(c.event_start_at, c.event_end_at, c.time_zone),
    };
  }
  if ("living" in ref) {
    // A living cache is where its station was last heard: a find is corroborated near that.
    const l = ref.living;
    return {
      cacheId: null,
      cacheGid: livingGid(gw, l.stationId),
      lat: l.lat,
      lon: l.lon,
      status: "active",
      ownerId: l.ownerUserId,
      ownerCall: l.call,
      placedAt: null,
      type: "living",
      review: null,
      row: null,
      event: null,
    };
  }
  const m = ref.mirror;
  return {
    cacheId: null,
    cacheGid: m.gid,
    lat: m.lat,
    lon: m.lon,
    status: m.status,
    ownerId: null,
    ownerCall: m.ownerCall,
    placedAt: null,
    type: m.type,
    review: null,
    row: null,
    event: EVENT_TYPES.includes(m.type) ? (mirrorExtras(gw, m.gid).event ?? null) : null,
  };
}

export interface LogInput {
  kind: LogKind;
  text: string | null;
  foundAt: number;
  /** the client's own name for this log, so a retried POST returns the first log instead of a second */
  clientId: string | null;
  /** ingest only: whose log it is */
  call?: string;
}

/**
 * Checks what the schema (LOG_BODY, INGEST_FIND) cannot say of a log: a note
 * has text, trimmed and free of control characters; foundAt within the last
 * year and not ahead of this clock; the finder's callsign (ingest only).
 */
export function checkLogBody(b: LogBody, now: number, withCall: boolean): LogInput {
  const kind = b.kind ?? "find";
  const text = optText(b.text, "text", 4000);
  if (kind === "note" && !text) throw badRequest("invalid", "a note needs text");
  const foundAt = b.foundAt === undefined ? now : pastTime(b.foundAt, "foundAt", now);
  if (foundAt < now - 366 * 86_400_000) throw badRequest("invalid", "foundAt is within the last year");
  const out: LogInput = { kind, text, foundAt, clientId: b.clientId ?? null };
  if (withCall) out.call = callsign(b.call, "call");
  else if (b.call !== undefined) throw badRequest("invalid", "call is named by the ingest box only; a log is yours");
  return out;
}

/** Radio logs and relayed finds: neither an owner's nor a reviewer's, nor verified. */
const NO_ROLE: LogRole = { owner: false, reviewer: false, verified: false };

interface Written {
  row: LogRow;
  target: Target;
  pending: PendingFind | null;
  /** a retry: the log this client already wrote with the same clientId, unchanged */
  replayed?: boolean;
}

/** Writes one log inside the caller's transaction; events and hand-offs are for the caller to run after commit. */
function writeLog(
  gw: Core,
  t: Target,
  input: LogInput,
  who: { userId: number | null; call: string; tier: "b" | "c"; via: string },
  role: LogRole = NO_ROLE,
): Written {
  const now = gw.clock.now();
  gateKind(input.kind, role, t);
  if (input.kind === "will-attend" || input.kind === "attended") checkEventLog(input.kind, t.event, input.foundAt, now);
  if (t.status === "archived" && input.kind !== "note" && input.kind !== "reviewer-note")
    throw conflict("cache_archived", "this cache is archived: only notes can be logged");
  const base = baseCall(who.call);
  if (input.clientId !== null) {
    // A retry of a log that reached us (the answer was lost): the same log again, before any other check.
    const first = gw.db.query("SELECT * FROM logs WHERE base_call = ? AND client_id = ?").get(base, input.clientId) as LogRow | null;
    if (first) {
      if (first.cache_gid !== t.cacheGid || first.kind !== input.kind) throw conflict("client_id_reused", "this clientId names another log of yours");
      return { row: first, target: t, pending: null, replayed: true };
    }
  }
  if (input.kind === "find") {
    if ((who.userId !== null && who.userId === t.ownerId) || (t.ownerCall && baseCall(t.ownerCall) === base))
      throw conflict("own_cache", "you cannot log a find on your own cache");
    const dup = gw.db.query("SELECT id FROM logs WHERE cache_gid = ? AND base_call = ? AND kind = 'find' AND state = 'active'").get(t.cacheGid, base);
    if (dup) throw conflict("already_found", `${base} has already logged a find on this cache`);
  }
  const sighting = input.kind === "find" ? localSighting(gw, who.call, t.lat, t.lon, input.foundAt) : null;
  const id = Number(
    gw.db
      .query(
        `INSERT INTO logs (cache_id, cache_gid, kind, user_id, call, base_call, text, found_at, created_at, updated_at, tier, via,
           corr_position_id, corr_igate, corr_distance_m, corr_at, corr_source, client_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        t.cacheId,
        t.cacheGid,
        input.kind,
        who.userId,
        who.call,
        base,
        input.text,
        input.foundAt,
        now,
        now,
        sighting ? "a" : who.tier,
        who.via,
        sighting?.positionId ?? null,
        sighting?.igate ?? null,
        sighting?.distanceM ?? null,
        sighting ? now : null,
        sighting ? "local" : null,
        input.clientId,
      ).lastInsertRowid,
  );
  if (sighting) pinPosition(gw, id, sighting.positionId);
  applyLogEffect(gw, input.kind, t.cacheId);
  republishLog(gw, id);
  const row = logRow(gw, id)!;
  const pending =
    input.kind === "find" && !sighting
      ? { logId: id, gid: localGid(gw, "find", id), cacheGid: t.cacheGid, call: who.call, lat: t.lat, lon: t.lon, foundAt: input.foundAt }
      : null;
  return { row, target: t, pending };
}

function afterCommit(gw: Core, written: Written[]): void {
  const w = written.filter((x) => !x.replayed);
  for (const x of w) emitLog(gw, x.row, x.target.lat, x.target.lon);
  // cross-instance corroboration (src/fed/corroborate.ts) listens; until it answers, the find stays at its tier
  for (const x of w) if (x.pending) gw.events.emit("findPending", x.pending);
}

/**
 * Logs a find, DNF or note. A session logs as its active callsign (tier b
 * when verified, else c); the ingest box names `call` (tier c: relayed); any
 * find is Tier A at once when an RF sighting corroborates it.
 */
export function logOnCache(gw: Core, actor: Actor, rawCache: string, body: LogBody): Log & { replayed?: true } {
  // dated and signed by this clock: refused (503, kept by the client) while it is not set, before times are checked against it
  refuseUnlessClockSane(gw);
  const input = checkLogBody(body, gw.clock.now(), actor.ingest && actor.userId === null);
  let who: { userId: number | null; call: string; tier: "b" | "c"; via: string };
  if (actor.userId !== null || actor.via === "device") {
    if (!actor.call) throw forbidden("choose a callsign for your account before logging", "callsign_required");
    who = { userId: actor.userId, call: actor.call, tier: actor.verified ? "b" : "c", via: actor.via };
  } else {
    who = { userId: verifiedHolder(gw.db, input.call!), call: input.call!, tier: "c", via: "ingest" };
  }
  const t = target(gw, rawCache, actor);
  const role = roleOf(gw, actor, t);
  // A log kept offline and sent later carries its own time: not before the cache existed. A
  // placement date is a day in someone's time zone, so a day's slack.
  if (body.foundAt !== undefined && t.placedAt !== null && input.foundAt < t.placedAt - 86_400_000)
    throw badRequest("invalid", "foundAt is before the cache was placed");
  const w = gw.db.transaction(() => writeLog(gw, t, input, who, role))();
  afterCommit(gw, [w]);
  return { ...logJson(gw, w.row), ...(w.replayed ? { replayed: true } : {}) };
}

/**
 * A log sent as an APRS message to the station's call (src/radio-play/): logged
 * as the sender's callsign, for the account that verified that call if there
 * is one (else a radio-only player, shown by callsign). Tier c (APRS has no
 * authentication); Tier A at once when an RF sighting corroborates it, as any
 * find. `via`: "radio" (heard on our radio) or "aprsis". Throws the game's
 * refusals (own cache, already found, archived) as for any log.
 */
export function logFromRadio(gw: Core, cacheId: number, m: { call: string; kind: LogKind; text: string | null; via: "radio" | "aprsis" }): Log {
  refuseUnlessClockSane(gw);
  const input = checkLogBody({ kind: m.kind, ...(m.text ? { text: m.text } : {}) }, gw.clock.now(), false);
  const who = { userId: verifiedHolder(gw.db, m.call), call: m.call.toUpperCase(), tier: "c" as const, via: m.via };
  const t = target(gw, String(cacheId), null);
  const w = gw.db.transaction(() => writeLog(gw, t, input, who))();
  afterCommit(gw, [w]);
  return logJson(gw, w.row);
}

/**
 * Finds in `/ingest` batches (`finds: [{cache, call, kind?, text?, foundAt?}]`),
 * inside the batch's transaction. A device key may log only its own callsign's
 * finds. Everything is checked first; a bad item refuses the whole batch.
 */
export function ingestFinds(
  gw: Core,
  finds: unknown[],
  ctx: { caller: { ingest: boolean; assertion: { call: string | null; userId: number | null } | null }; heardAt: number },
): FindsIngested {
  const now = gw.clock.now();
  const items = finds.map((v, k) => {
    const b = check(INGEST_FIND, v, `finds.${k}`);
    let input: LogInput;
    try {
      input = checkLogBody({ foundAt: ctx.heardAt <= now + 60_000 ? ctx.heardAt : now, ...b }, now, true);
    } catch (e) {
      throw badRequest("invalid", `finds.${k}: ${(e as Error).message}`);
    }
    if (!ctx.caller.ingest && ctx.caller.assertion && baseCall(input.call!) !== ctx.caller.assertion.call) {
      throw forbidden(`a device key of ${ctx.caller.assertion.call} may only log its own finds, not ${input.call}'s`, "not_your_station");
    }
    const t = target(gw, String(b.cache), null);
    return { input, t };
  });
  const written: Written[] = [];
  for (const { input, t } of items) {
    const device = !ctx.caller.ingest && !!ctx.caller.assertion;
    const who = device
      ? { userId: ctx.caller.assertion!.userId, call: input.call!, tier: "b" as const, via: "device" }
      : { userId: verifiedHolder(gw.db, input.call!), call: input.call!, tier: "c" as const, via: "ingest" };
    written.push(writeLog(gw, t, input, who, { owner: false, reviewer: false, verified: device }));
  }
  // The batch's transaction commits before queued microtasks run.
  queueMicrotask(() => afterCommit(gw, written));
  return { stored: written.length, tierA: written.filter((w) => w.row.tier === "a").length, logs: written.map((w) => logJson(gw, w.row)) };
}

const roleOf = (gw: Core, actor: Actor, t: Target): LogRole => ({
  owner: t.row !== null && isOwner(actor, t.row),
  reviewer: isReviewer(gw, actor),
  verified: actor.ingest || actor.verified,
});

/** The kinds the actor may log on a cache now, for the web app's log form (docs/api.md "Log kinds"). */
export function logKindsOn(gw: Core, actor: Actor, rawCache: string): Static<typeof LOG_KINDS_ON> {
  const t = target(gw, rawCache, actor);
  const role = roleOf(gw, actor, t);
  let kinds = kindsFor(role, t);
  if (role.owner) kinds = kinds.filter((k) => k !== "find" && k !== "dnf");
  if (t.status === "archived") kinds = kinds.filter((k) => k === "note" || k === "reviewer-note");
  return { kinds };
}

/** A cache's logbook, newest first: local logs and mirrored find records of other instances. */
export function logbook(gw: Core, rawCache: string, actor: Actor | null, opts: { limit?: number; before?: number } = {}): { logs: Log[] } {
  const t = target(gw, rawCache, actor);
  const limit = Math.min(Math.max(1, opts.limit ?? 100), 500);
  const rows = gw.db
    .query(`SELECT * FROM logs WHERE cache_gid = ? ${opts.before ? "AND created_at < ?" : ""} ORDER BY created_at DESC, id DESC LIMIT ?`)
    .all(...(opts.before ? [t.cacheGid, opts.before, limit] : [t.cacheGid, limit])) as LogRow[];
  const local = rows.map((r) => logJson(gw, r));
  const remote: Log[] = opts.before
    ? []
    : mirroredFindsOf(gw, t.cacheGid, limit).map((m) => ({
        id: m.gid,
        gid: m.gid,
        cacheGid: m.cacheGid,
        kind: m.kind as LogKind,
        call: m.state === "withdrawn" ? null : m.call,
        text: m.state === "withdrawn" ? null : m.text,
        foundAt: m.loggedAt,
        createdAt: m.loggedAt,
        tier: (m.tier as Log["tier"]) ?? null,
        state: m.state === "withdrawn" ? "withdrawn" : "active",
        corroboration: m.tier === "a" ? { source: "origin", igate: null, distanceM: m.distanceM, at: null } : null,
        origin: m.origin,
      }));
  return { logs: [...local, ...remote].sort((a, b) => b.createdAt - a.createdAt).slice(0, limit) };
}

/** Deletes a log (its author, the cache's owner, or the ingest box): unpins its position and tombstones its record. */
export function deleteLog(gw: Core, actor: Actor, logId: number): { deleted: true } {
  const r = logRow(gw, logId);
  if (!r) throw notFound(`log ${logId}`);
  const cache = r.cache_id !== null ? cacheRow(gw, r.cache_id) : null;
  const mayDelete = actor.ingest || (actor.userId !== null && (actor.userId === r.user_id || (cache !== null && isOwner(actor, cache))));
  if (!mayDelete) throw forbidden("only the log's author or the cache's owner may delete it", "not_yours");
  gw.db.transaction(() => {
    const wasPublished = !!gw.db.query("SELECT 1 FROM fed_feed WHERE gid = ?").get(localGid(gw, "find", logId));
    unpinPosition(gw, logId);
    gw.db.query("DELETE FROM logs WHERE id = ?").run(logId);
    if (wasPublished) publishTombstone(gw, localGid(gw, "find", logId));
  })();
  return { deleted: true };
}

/**
 * GDPR erase: the account's logs (and those logged by its verified base
 * calls, e.g. relayed by the ingest box) anonymised and WITHDRAWN, positions
 * unpinned, records re-published. Inside the erase transaction.
 */
export function withdrawLogsOf(gw: Core, userId: number, verifiedCalls: string[] = []): number {
  const ids = (
    gw.db
      .query("SELECT id FROM logs WHERE (user_id = ? OR base_call IN (SELECT value FROM json_each(?))) AND state = 'active'")
      .all(userId, JSON.stringify(verifiedCalls)) as Array<{ id: number }>
  ).map((r) => r.id);
  for (const id of ids) {
    unpinPosition(gw, id);
    gw.db
      .query(
        "UPDATE logs SET state = 'withdrawn', user_id = NULL, call = NULL, base_call = NULL, text = NULL, corr_position_id = NULL, updated_at = ? WHERE id = ?",
      )
      .run(gw.clock.now(), id);
    republishLog(gw, id);
  }
  return ids.length;
}
