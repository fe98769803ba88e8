/**
 * Caches: hide, edit, read, and the map query. Native caches live in `caches`
 * (with the R*Tree `caches_geo` holding the ones on the public map); other
 * instances' caches are read from mirror storage (src/fed/mirror.ts), trust
 * filtered. Every change of a listed, non-draft, native cache is published as
 * a signed cache record; the owner's contact fields never are.
 */
import type { Core } from "../gateway.ts";
import { badRequest, conflict, forbidden, notFound } from "../errors.ts";
import { cacheToWire, waypointsToWire } from "../fed/bodies.ts";
import { publicWaypoints, scrubWaypoints } from "./waypoints-store.ts";
import { accountGid, localGid, publishRecord } from "../fed/feed.ts";
import { mirroredCache, mirroredCachesInBox, type MirroredCache } from "../fed/mirror.ts";
import { parseGid } from "../fed/record.ts";
import { publicIdOf, verifiedHolder } from "../accounts/users.ts";
import { listLivingCaches, livingCache, type LivingCache } from "../stations/living-caches.ts";
import { fromSigned, type CacheAttribute } from "../cache-attributes.ts";
import { isReviewer, mirrorExtras, reviewOn } from "./maintenance-roles.ts";
import { checkEvent, eventInfo, EVENT_TYPES, type EventInfo, type EventTimes } from "./events.ts";
import { attrFilterSql, attributesColumn, attributesOf, checkCacheAttributes, hasAttributes, parseAttrFilter, signedOf } from "./attributes.ts";
import {
  bool,
  CACHE_SIZES,
  CACHE_STATUSES,
  CACHE_TYPES,
  callsign,
  contact,
  distanceM,
  latitude,
  longitude,
  oneOf,
  optText,
  pastTime,
  rating,
  text,
  TRANSITIONS,
  type Actor,
  type CacheFilterQuery,
  type CacheStatus,
  type Contact,
} from "./model.ts";

export interface CacheRow {
  id: number;
  owner_id: number | null;
  owner_call: string | null;
  name: string;
  type: string;
  size: string;
  difficulty: number;
  terrain: number;
  lat: number;
  lon: number;
  status: CacheStatus;
  /** 1 while a needs-maintenance or needs-archive log is open (maintenance.ts) */
  needs_maintenance: number;
  /** REVIEW=on: a draft waiting for a reviewer, or sent back with a reviewer note */
  review: "queued" | "returned" | null;
  unlisted: number;
  hint: string | null;
  description: string;
  contact: string | null;
  placed_at: number;
  created_at: number;
  updated_at: number;
  source: string | null;
  source_ref: string | null;
  placed_by: string | null;
  /** event caches (events.ts): when it takes place, unix ms, and its IANA time zone */
  event_start_at: number | null;
  event_end_at: number | null;
  time_zone: string | null;
  /** signed attribute ids as JSON (./attributes.ts), null when none */
  attributes: string | null;
}

/** A cache as the API shows it (never with contact fields: see cacheDetail). */
export interface Cache {
  /** native: the local id; mirrored: the gid */
  id: number | string;
  gid: string;
  /** short waypoint code (GPX <name>): SV + base-36 id, or the catalog's code for imports */
  code: string;
  name: string;
  type: string;
  size: string;
  difficulty: number;
  terrain: number;
  lat: number;
  lon: number;
  /** active, disabled, archived; draft and review (waiting for a reviewer) are seen by the owner (and reviewers) only */
  status: string;
  /** a needs-maintenance or needs-archive log is open (until owner-maintenance or enable); native caches and one mirrored cache's detail */
  needsMaintenance?: boolean;
  /** a draft a reviewer sent back with a reviewer note (REVIEW=on) */
  returned?: boolean;
  unlisted: boolean;
  hint: string | null;
  description: string | null;
  ownerCall: string | null;
  placedAt: number | null;
  updatedAt: number;
  /** the instance the cache belongs to */
  origin: string;
  /** a mirror of another instance's cache, display only */
  mirror: boolean;
  /** mirrored caches: the origin's trust tier */
  trust?: "trusted" | "unvetted";
  /** a living cache: the station whose beacon is the cache's position */
  station?: string;
  /** catalog imports: where from, and the placer named there */
  source?: string;
  placedBy?: string;
  /** event and cito caches: the day, start and end in its time zone (events.ts) */
  event?: EventInfo;
  /** the attributes set yes or no, by id (src/cache-attributes.ts) */
  attributes: CacheAttribute[];
  finds: number;
  favorites: number;
  rating: { average: number | null; count: number };
}

export const codeOf = (r: Pick<CacheRow, "id" | "source_ref">): string => r.source_ref ?? "SV" + r.id.toString(36).toUpperCase().padStart(4, "0");

const stats = (gw: Core, id: number, gid: string) =>
  gw.db
    .query(
      `SELECT (SELECT count(*) FROM logs WHERE cache_gid = ?2 AND kind = 'find' AND state = 'active') AS finds,
         (SELECT count(*) FROM favorites WHERE cache_id = ?1) AS favorites,
         (SELECT avg(stars) FROM ratings WHERE cache_id = ?1) AS avg, (SELECT count(*) FROM ratings WHERE cache_id = ?1) AS n`,
    )
    .get(id, gid) as { finds: number; favorites: number; avg: number | null; n: number };

type Stats = { finds: number; favorites: number; avg: number | null; n: number };

/** Many rows at once: one query for all their counts (maps, lists, exports). */
export function cachesJson(gw: Core, rows: CacheRow[]): Cache[] {
  if (rows.length === 0) return [];
  const ids = JSON.stringify(rows.map((r) => r.id));
  const gids = JSON.stringify(rows.map((r) => localGid(gw, "cache", r.id)));
  const finds = new Map(
    (
      gw.db
        .query(
          "SELECT cache_id AS id, count(*) AS n FROM logs WHERE cache_gid IN (SELECT value FROM json_each(?)) AND kind = 'find' AND state = 'active' GROUP BY cache_id",
        )
        .all(gids) as Array<{ id: number; n: number }>
    ).map((r) => [r.id, r.n]),
  );
  const favs = new Map(
    (
      gw.db
        .query("SELECT cache_id AS id, count(*) AS n FROM favorites WHERE cache_id IN (SELECT value FROM json_each(?)) GROUP BY cache_id")
        .all(ids) as Array<{ id: number; n: number }>
    ).map((r) => [r.id, r.n]),
  );
  const rates = new Map(
    (
      gw.db
        .query("SELECT cache_id AS id, avg(stars) AS avg, count(*) AS n FROM ratings WHERE cache_id IN (SELECT value FROM json_each(?)) GROUP BY cache_id")
        .all(ids) as Array<{ id: number; avg: number; n: number }>
    ).map((r) => [r.id, r]),
  );
  return rows.map((r) =>
    cacheJson(gw, r, { finds: finds.get(r.id) ?? 0, favorites: favs.get(r.id) ?? 0, avg: rates.get(r.id)?.avg ?? null, n: rates.get(r.id)?.n ?? 0 }),
  );
}

export function cacheJson(gw: Core, r: CacheRow, known?: Stats | false): Cache {
  const gid = localGid(gw, "cache", r.id);
  const s = known === false ? { finds: 0, favorites: 0, avg: null, n: 0 } : (known ?? stats(gw, r.id, gid));
  const c: Cache = {
    id: r.id,
    gid,
    code: codeOf(r),
    name: r.name,
    type: r.type,
    size: r.size,
    difficulty: r.difficulty,
    terrain: r.terrain,
    lat: r.lat,
    lon: r.lon,
    status: r.review === "queued" ? "review" : r.status,
    needsMaintenance: r.needs_maintenance === 1,
    ...(r.review === "returned" ? { returned: true } : {}),
    unlisted: r.unlisted === 1,
    hint: r.hint,
    description: r.description,
    ownerCall: r.owner_call,
    placedAt: r.placed_at,
    updatedAt: r.updated_at,
    origin: gw.config.instance,
    mirror: false,
    attributes: attributesOf(r.attributes),
    finds: s.finds,
    favorites: s.favorites,
    rating: { average: s.avg === null ? null : Math.round(s.avg * 10) / 10, count: s.n },
  };
  if (r.source) c.source = r.source;
  if (r.placed_by) c.placedBy = r.placed_by;
  const ev = eventInfo(r.event_start_at, r.event_end_at, r.time_zone);
  if (ev) c.event = ev;
  return c;
}

/**
 * Finds on mirrored caches, by gid: those mirrored from their origin plus those
 * logged here, for any number of caches in one query.
 */
function mirrorFinds(gw: Core, gids: string[]): Map<string, number> {
  if (gids.length === 0) return new Map();
  const rows = gw.db
    .query(
      `SELECT gid, sum(n) AS n FROM (
         SELECT cache_gid AS gid, count(*) AS n FROM mirror_finds
          WHERE cache_gid IN (SELECT value FROM json_each(?1)) AND kind = 'find' AND (state IS NULL OR state <> 'withdrawn') GROUP BY cache_gid
         UNION ALL
         SELECT cache_gid, count(*) FROM logs
          WHERE cache_gid IN (SELECT value FROM json_each(?1)) AND kind = 'find' AND state = 'active' GROUP BY cache_gid
       ) GROUP BY gid`,
    )
    .all(JSON.stringify(gids)) as Array<{ gid: string; n: number }>;
  return new Map(rows.map((r) => [r.gid, r.n]));
}

/** Many mirrored caches as JSON, their find counts read in one query. */
function mirrorsJson(gw: Core, ms: MirroredCache[]): Cache[] {
  const finds = mirrorFinds(
    gw,
    ms.map((m) => m.gid),
  );
  return ms.map((m) => mirrorJson(gw, m, finds.get(m.gid) ?? 0));
}

function mirrorJson(gw: Core, m: MirroredCache, knownFinds?: number): Cache {
  const finds = knownFinds ?? mirrorFinds(gw, [m.gid]).get(m.gid) ?? 0;
  const g = parseGid(m.gid)!;
  return {
    id: m.gid,
    gid: m.gid,
    code: `SV-${g.origin}-${g.localId}`.toUpperCase(),
    name: m.name,
    type: m.type,
    size: m.size,
    difficulty: m.difficulty,
    terrain: m.terrain,
    lat: m.lat,
    lon: m.lon,
    status: m.status,
    unlisted: m.unlisted,
    hint: m.hint,
    description: m.description,
    ownerCall: m.ownerCall,
    placedAt: m.placedAt,
    updatedAt: m.updatedAt,
    origin: m.origin,
    mirror: true,
    trust: m.trust,
    attributes: fromSigned(m.attributes),
    finds,
    favorites: 0,
    rating: { average: null, count: 0 },
  };
}

export function cacheRow(gw: Core, id: number): CacheRow | null {
  return gw.db.query("SELECT * FROM caches WHERE id = ?").get(id) as CacheRow | null;
}

/** Whether the actor may manage (edit, set stages) a native cache. */
export function isOwner(actor: Actor, r: CacheRow): boolean {
  return actor.ingest || (actor.userId !== null && actor.userId === r.owner_id);
}

/** A cache the caller may see: its own drafts, anything else that exists. 404 otherwise. */
export function visibleRow(gw: Core, id: number, actor: Actor | null): CacheRow {
  const r = cacheRow(gw, id);
  if (!r || (r.status === "draft" && !(actor && (isOwner(actor, r) || (r.review !== null && isReviewer(gw, actor)))))) throw notFound(`cache ${id}`);
  return r;
}

/**
 * A native cache (numeric id, or this instance's gid), a mirrored one (another
 * instance's gid) or a living cache (`living-<station id>`, as the map lists it,
 * or its gid `<instance>:living:<station id>`).
 */
export type CacheRef = { native: CacheRow } | { mirror: MirroredCache } | { living: LivingCache };

/** The gid a living cache's logs are kept under; these logs stay on this instance. */
export const livingGid = (gw: Core, stationId: number) => `${gw.config.instance}:living:${stationId}`;

export function resolveCache(gw: Core, raw: string, actor: Actor | null): CacheRef {
  if (/^\d{1,15}$/.test(raw)) return { native: visibleRow(gw, Number(raw), actor) };
  const living = /^living-(\d{1,15})$/.exec(raw)?.[1] ?? (raw.startsWith(`${gw.config.instance}:living:`) ? raw.slice(gw.config.instance.length + 8) : null);
  if (living !== null) {
    const l = /^\d{1,15}$/.test(living) ? livingCache(gw, Number(living)) : null;
    if (!l) throw notFound(`cache ${raw}`);
    return { living: l };
  }
  const g = parseGid(raw);
  if (!g || g.kind !== "cache") throw notFound(`cache ${raw}`);
  if (g.origin === gw.config.instance) {
    if (!/^\d{1,15}$/.test(g.localId)) throw notFound(`cache ${raw}`);
    return { native: visibleRow(gw, Number(g.localId), actor) };
  }
  const m = mirroredCache(gw, raw);
  if (!m) throw notFound(`cache ${raw}`);
  return { mirror: m };
}

/** The detail view: the cache, plus the owner's contact fields for signed-in users of this instance. */
export function cacheDetail(gw: Core, raw: string, actor: Actor | null): Cache & { contact?: Contact | null; mine?: boolean } {
  const ref = resolveCache(gw, raw, actor);
  if ("mirror" in ref) return { ...mirrorJson(gw, ref.mirror), ...mirrorExtras(gw, ref.mirror.gid) };
  if ("living" in ref) {
    const gid = livingGid(gw, ref.living.stationId);
    const finds = (gw.db.query("SELECT count(*) AS n FROM logs WHERE cache_gid = ? AND kind = 'find' AND state = 'active'").get(gid) as { n: number }).n;
    return { ...livingJson(gw, ref.living), finds, mine: !!actor && actor.userId !== null && actor.userId === ref.living.ownerUserId };
  }
  const c = cacheJson(gw, ref.native);
  const signedIn = actor !== null && actor.userId !== null;
  return {
    ...c,
    ...(signedIn ? { contact: ref.native.contact ? (JSON.parse(ref.native.contact) as Contact) : null } : {}),
    mine: !!actor && isOwner(actor, ref.native) && !actor.ingest,
  };
}

// ---------------------------------------------------------------- writes

/** Bumped on every cache write: cached map answers are keyed on it. */
const versions = new WeakMap<Core, number>();
const cachesVersion = (gw: Core) => versions.get(gw) ?? 0;
const bump = (gw: Core) => versions.set(gw, cachesVersion(gw) + 1);

const searchText = (name: string, code: string, owner: string | null, placedBy: string | null) =>
  [name, code, owner ?? "", placedBy ?? ""].join(" ").toLowerCase();

/** Publishes the cache's current state, if it is one this instance federates (native, not a draft). */
function publishCache(gw: Core, r: CacheRow): void {
  if (r.source !== null || r.status === "draft") return;
  const ownerAccount = r.owner_id !== null ? accountGid(gw, publicIdOf(gw.db, r.owner_id)) : null;
  publishRecord(gw, "cache", r.id, {
    ...cacheToWire({
      name: r.name,
      type: r.type,
      size: r.size,
      difficulty: r.difficulty,
      terrain: r.terrain,
      lat: r.lat,
      lon: r.lon,
      status: r.status,
      needsMaintenance: r.needs_maintenance === 1,
      hint: r.hint,
      attributes: signedOf(r.attributes),
      description: r.description || null,
      unlisted: r.unlisted === 1,
      ownerCall: r.owner_call,
      ownerAccount,
      placedAt: r.placed_at,
      eventStartAt: r.event_start_at,
      eventEndAt: r.event_end_at,
      timeZone: r.time_zone,
    }),
    // the final stays here (waypoints-store.ts); an unlisted cache's, as its description, go to no one
    waypoints: r.unlisted === 1 ? undefined : waypointsToWire(publicWaypoints(gw, r.id)),
  });
}

/** Publishes a native cache again after a change to what its record carries besides its row (its waypoints). */
export function republishCache(gw: Core, id: number): void {
  const r = cacheRow(gw, id);
  if (r) publishCache(gw, r);
}

export interface CacheInput {
  name: string;
  type: string;
  size: string;
  difficulty: number;
  terrain: number;
  lat: number;
  lon: number;
  status: CacheStatus;
  unlisted: boolean;
  hint: string | null;
  description: string;
  contact: Contact | null;
  placedAt: number | null;
  attributes: CacheAttribute[];
  /** event and cito caches (events.ts) */
  event: EventTimes | null;
}

const FIELDS = [
  "name",
  "type",
  "size",
  "difficulty",
  "terrain",
  "lat",
  "lon",
  "status",
  "unlisted",
  "hint",
  "description",
  "contact",
  "placedAt",
  "ownerCall",
  "attributes",
  "event",
];

/** Checks a create (all required fields) or patch (only those given) body. */
export function checkCacheBody(b: Record<string, unknown>, now: number, partial: boolean): Partial<CacheInput> {
  for (const k of Object.keys(b)) if (!FIELDS.includes(k)) throw badRequest("invalid", `unknown field "${k}"; a cache has ${FIELDS.join(", ")}`);
  const out: Partial<CacheInput> = {};
  const has = (k: string) => b[k] !== undefined;
  if (!partial) for (const k of ["name", "type", "size", "difficulty", "terrain", "lat", "lon"]) if (!has(k)) throw badRequest("invalid", `${k} is required`);
  if (has("name")) out.name = text(b.name, "name", 1, 100);
  if (has("type")) out.type = oneOf(b.type, "type", CACHE_TYPES);
  if (has("size")) out.size = oneOf(b.size, "size", CACHE_SIZES);
  if (has("difficulty")) out.difficulty = rating(b.difficulty, "difficulty");
  if (has("terrain")) out.terrain = rating(b.terrain, "terrain");
  if (has("lat")) out.lat = latitude(b.lat);
  if (has("lon")) out.lon = longitude(b.lon);
  if (has("status")) out.status = oneOf(b.status, "status", CACHE_STATUSES);
  if (has("unlisted")) out.unlisted = bool(b.unlisted, "unlisted");
  if (has("hint")) out.hint = optText(b.hint, "hint", 1000);
  if (has("description")) out.description = optText(b.description, "description", 20_000) ?? "";
  if (has("contact")) out.contact = contact(b.contact);
  if (has("placedAt")) out.placedAt = b.placedAt === null ? null : pastTime(b.placedAt, "placedAt", now);
  if (has("attributes")) out.attributes = checkCacheAttributes(b.attributes);
  if (has("event")) out.event = b.event === null ? null : checkEvent(b.event, now);
  if ((has("lat") && !has("lon")) || (has("lon") && !has("lat"))) throw badRequest("invalid", "lat and lon go together");
  return out;
}

/** Hides a cache. A session hides it as its active callsign; the ingest box names `ownerCall`. */
export function hideCache(gw: Core, actor: Actor, body: Record<string, unknown>): Cache & { contact: Contact | null } {
  const now = gw.clock.now();
  const input = checkCacheBody(body, now, false) as CacheInput;
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
          input.name,
          input.type,
          input.size,
          input.difficulty,
          input.terrain,
          input.lat,
          input.lon,
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
  bump(gw);
  return { ...cacheJson(gw, row), contact: input.contact ?? null };
}

/** Updates a native cache (owner, or the ingest box). Status moves follow TRANSITIONS. */
export function updateCache(gw: Core, actor: Actor, id: number, body: Record<string, unknown>): Cache & { contact: Contact | null } {
  const now = gw.clock.now();
  const r = visibleRow(gw, id, actor);
  if (!isOwner(actor, r)) throw forbidden("only the cache's owner may change it", "not_owner");
  if (body.ownerCall !== undefined) throw badRequest("invalid", "the owner of a cache cannot be changed");
  const p = checkCacheBody(body, now, true);
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
  bump(gw);
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
  bump(gw);
  return rows.length;
}

/** An event or cito cache has its event; no other type has one (400). */
function eventFits(type: string, event: EventTimes | null): void {
  if (EVENT_TYPES.includes(type) && !event) throw badRequest("invalid", `a ${type} cache needs its event: {date, start, end, timeZone}`);
  if (!EVENT_TYPES.includes(type) && event) throw badRequest("invalid", "only event and cito caches have an event");
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
  bump(gw);
  return n;
}

// ---------------------------------------------------------------- the map query

/** `bbox=` is minLon,minLat,maxLon,maxLat (west,south,east,north), parsed once for the whole API. */
export { parseBbox as parseBox, type Bbox as Box } from "../stations/registry.ts";
import type { Bbox as Box } from "../stations/registry.ts";

export interface CacheFilters {
  q?: string;
  types?: string[];
  sizes?: string[];
  difficulty?: [number, number];
  terrain?: [number, number];
  owner?: string;
  /** personal filters (near.ts personalFilters): native caches only */
  foundBy?: { userId: number; found: boolean };
  ownedBy?: { userId: number; mine: boolean };
  disabled?: boolean;
  tierA?: boolean;
  /** the open-maintenance flag (native caches: a mirror's is read from its record, so `true` leaves mirrors out) */
  maintenance?: boolean;
  /** `attr=`: signed attribute ids the cache must have (+id yes, -id no) */
  attrs?: number[];
}

/** A personal filter is set: mirrors and living caches are left out. */
const personal = (f: CacheFilters) => f.foundBy !== undefined || f.ownedBy !== undefined || f.tierA !== undefined;

export interface Cluster {
  lat: number;
  lon: number;
  count: number;
  /** the cluster's extent: zoom to it */
  bbox: [number, number, number, number];
}

export interface MapAnswer {
  /** true: the box holds more than `limit` caches, so `clusters` summarise it and `caches` is empty (but for `singles`) */
  clustered: boolean;
  caches: MapCache[];
  clusters: Cluster[];
  /** caches in the box (native and shown mirrors) */
  total: number;
}

const MAP_LIMIT = 500;
const MAP_MAX_LIMIT = 2000;
/** Clusters along the box's longer side. */
const CLUSTER_CELLS = 24;

const range = (raw: string, field: string): [number, number] => {
  const m = /^(\d(?:\.5)?)(?:-(\d(?:\.5)?))?$/.exec(raw);
  if (!m) throw badRequest("invalid", `${field} is a value or a range such as 1.5-3`);
  const lo = Number(m[1]);
  const hi = Number(m[2] ?? m[1]);
  if (lo < 1 || hi > 5 || lo > hi) throw badRequest("invalid", `${field} is within 1-5`);
  return [lo, hi];
};

/** The search filters from query parameters: q, type, size, difficulty, terrain, owner. */
export function parseFilters(q: CacheFilterQuery): CacheFilters {
  const f: CacheFilters = {};
  if (q.q !== undefined && q.q.trim() !== "") {
    if (q.q.length > 100) throw badRequest("invalid", "q is at most 100 characters");
    f.q = q.q.trim().toLowerCase();
  }
  if (q.type) f.types = q.type.split(",").map((t) => oneOf(t.trim(), "type", [...CACHE_TYPES, "living"]));
  if (q.size) f.sizes = q.size.split(",").map((s) => oneOf(s.trim(), "size", CACHE_SIZES));
  if (q.difficulty) f.difficulty = range(q.difficulty, "difficulty");
  if (q.terrain) f.terrain = range(q.terrain, "terrain");
  if (q.owner) f.owner = callsign(q.owner, "owner");
  if (q.attr) f.attrs = parseAttrFilter(q.attr);
  return f;
}

const hasFilters = (f: CacheFilters) => Object.keys(f).length > 0;

/** SQL conditions on `c` (caches) for the filters. */
export function filterSql(f: CacheFilters): { sql: string; args: Array<string | number> } {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (f.q) {
    where.push("(c.search LIKE ? ESCAPE '\\' OR lower(c.description) LIKE ? ESCAPE '\\')");
    const t = "%" + f.q.replace(/[%_\\]/g, (ch) => "\\" + ch) + "%";
    args.push(t, t);
  }
  if (f.types) where.push(`c.type IN (${f.types.map(() => "?").join(",")})`), args.push(...f.types);
  if (f.sizes) where.push(`c.size IN (${f.sizes.map(() => "?").join(",")})`), args.push(...f.sizes);
  if (f.difficulty) where.push("c.difficulty BETWEEN ? AND ?"), args.push(...f.difficulty);
  if (f.terrain) where.push("c.terrain BETWEEN ? AND ?"), args.push(...f.terrain);
  if (f.owner) where.push("(c.owner_call = ? OR c.owner_call LIKE ? || '-%')"), args.push(f.owner.split("-")[0]!, f.owner.split("-")[0]!);
  if (f.foundBy) {
    where.push(
      `${f.foundBy.found ? "" : "NOT "}EXISTS (SELECT 1 FROM logs l WHERE l.cache_id = c.id AND l.user_id = ? AND l.kind = 'find' AND l.state = 'active')`,
    );
    args.push(f.foundBy.userId);
  }
  if (f.ownedBy) where.push(f.ownedBy.mine ? "c.owner_id = ?" : "c.owner_id IS NOT ?"), args.push(f.ownedBy.userId);
  if (f.disabled !== undefined) where.push(f.disabled ? "c.status = 'disabled'" : "c.status <> 'disabled'");
  if (f.maintenance !== undefined) where.push(`c.needs_maintenance = ${f.maintenance ? 1 : 0}`);
  if (f.tierA) where.push("EXISTS (SELECT 1 FROM logs l WHERE l.cache_id = c.id AND l.kind = 'find' AND l.tier = 'a' AND l.state = 'active')");
  if (f.attrs?.length) {
    const a = attrFilterSql(f.attrs);
    where.push(a.sql), args.push(...a.args);
  }
  return { sql: where.length ? " AND " + where.join(" AND ") : "", args };
}

/** A living cache (an own station, src/stations/living-caches.ts) as a map entry: its id is `living-<station id>`, its page the station's. */
function livingJson(gw: Core, l: LivingCache): Cache {
  return {
    id: `living-${l.stationId}`,
    gid: livingGid(gw, l.stationId),
    code: l.call,
    name: l.name,
    type: "living",
    size: "other",
    difficulty: 1,
    terrain: 1,
    lat: l.lat,
    lon: l.lon,
    status: "active",
    unlisted: false,
    hint: null,
    description: null,
    ownerCall: l.call,
    placedAt: l.createdAt,
    updatedAt: l.positionAt ?? l.createdAt,
    origin: gw.config.instance,
    mirror: false,
    station: l.call,
    attributes: [],
    finds: 0,
    favorites: 0,
    rating: { average: null, count: 0 },
  };
}

/** What the map needs of a cache: everything but the long texts (the page loads those). */
export type MapCache = Omit<Cache, "description" | "hint">;
export function forMap(c: Cache): MapCache {
  const { description: _d, hint: _h, ...rest } = c;
  return rest;
}

/** Living caches are shown while their station was heard within a day (or has a fixed position). */
const LIVING_MAX_AGE_MS = 24 * 3_600_000;

function livingMatches(f: CacheFilters): boolean {
  return (
    !f.q &&
    !f.sizes &&
    !f.difficulty &&
    !f.terrain &&
    !f.owner &&
    !personal(f) &&
    !f.disabled &&
    !f.maintenance &&
    !f.attrs?.length &&
    (!f.types || f.types.includes("living"))
  );
}

function mirrorMatches(m: MirroredCache, f: CacheFilters): boolean {
  if (personal(f) || f.maintenance) return false;
  if (f.disabled !== undefined && (m.status === "disabled") !== f.disabled) return false;
  if (f.q && !`${m.name} ${m.ownerCall ?? ""} ${m.description ?? ""}`.toLowerCase().includes(f.q)) return false;
  if (f.types && !f.types.includes(m.type)) return false;
  if (f.sizes && !f.sizes.includes(m.size)) return false;
  if (f.difficulty && (m.difficulty < f.difficulty[0] || m.difficulty > f.difficulty[1])) return false;
  if (f.terrain && (m.terrain < f.terrain[0] || m.terrain > f.terrain[1])) return false;
  if (f.owner && (m.ownerCall ?? "").split("-")[0] !== f.owner.split("-")[0]) return false;
  if (f.attrs?.length && !hasAttributes(m.attributes, f.attrs)) return false;
  return m.status === "active" || m.status === "disabled";
}

/**
 * R*Tree conditions for a box (two boxes across the antimeridian). The R*Tree
 * keeps 32-bit floats rounded outward, so it is asked for overlap and the
 * exact position is checked on the cache row where it matters (exactSql).
 */
function geoSql(b: Box): { sql: string; args: number[] } {
  const parts =
    b.west <= b.east
      ? [[b.west, b.east]]
      : [
          [b.west, 180],
          [-180, b.east],
        ];
  return {
    sql: "(" + parts.map(() => "(g.max_lat >= ? AND g.min_lat <= ? AND g.max_lon >= ? AND g.min_lon <= ?)").join(" OR ") + ")",
    args: parts.flatMap(([w, e]) => [b.south, b.north, w!, e!]),
  };
}

function exactSql(b: Box): { sql: string; args: number[] } {
  const lon = b.west <= b.east ? "c.lon BETWEEN ? AND ?" : "(c.lon >= ? OR c.lon <= ?)";
  return { sql: ` AND c.lat BETWEEN ? AND ? AND ${lon}`, args: [b.south, b.north, b.west, b.east] };
}

/** The width of a box in degrees of longitude, across the antimeridian too. */
const lonSpan = (b: Box) => (b.west <= b.east ? b.east - b.west : 360 - b.west + b.east);

/**
 * Caches in a box for the map: every native cache on the map plus mirrors of
 * trusted peers (unvetted ones too with `includeUnvetted`; blocked never).
 * A box holding more than `limit` answers clusters instead: at most
 * CLUSTER_CELLS² cells (or `cells`²), each with its count, centre and extent. With
 * `singles`, a cell holding one cache answers that cache in `caches` (cells
 * counted from the per-degree table excepted), so a map draws it rather
 * than a cluster of one.
 */
export function cachesInBox(
  gw: Core,
  box: Box,
  opts: { limit?: number; includeUnvetted?: boolean; singles?: boolean; cells?: number; filters?: CacheFilters } = {},
): MapAnswer {
  if (opts.limit !== undefined && (opts.limit < 1 || opts.limit > MAP_MAX_LIMIT)) throw badRequest("invalid", `limit must be 1-${MAP_MAX_LIMIT}`);
  const limit = opts.limit ?? MAP_LIMIT;
  const f = opts.filters ?? {};
  const geo = geoSql(box);
  const flt = filterSql(f);
  const join = hasFilters(f) ? " JOIN caches c ON c.id = g.id" : "";
  const mirrored = mirroredCachesInBox(
    gw,
    { south: box.south, north: box.north, west: box.west, east: box.east },
    { includeUnvetted: opts.includeUnvetted, limit: 20_000 },
  ).filter((m) => mirrorMatches(m, f));
  const living = livingMatches(f) ? listLivingCaches(gw, { bbox: box, maxAgeMs: LIVING_MAX_AGE_MS }).map((l) => livingJson(gw, l)) : [];
  // Clusters need only positions: find counts are read only for a listed answer.
  const mirrors: Array<MirroredCache | Cache> = [...mirrored, ...living];
  const isLiving = new Set<object>(living);
  const count = (
    gw.db
      .query(`SELECT count(*) AS n FROM (SELECT 1 FROM caches_geo g${join} WHERE ${geo.sql}${flt.sql} LIMIT ?)`)
      .get(...geo.args, ...flt.args, limit + 1) as { n: number }
  ).n;
  if (count + mirrors.length <= limit) {
    const ex = exactSql(box);
    const rows = gw.db
      .query(`SELECT c.* FROM caches_geo g JOIN caches c ON c.id = g.id WHERE ${geo.sql}${ex.sql}${flt.sql}`)
      .all(...geo.args, ...ex.args, ...flt.args) as CacheRow[];
    const caches = [...cachesJson(gw, rows), ...mirrorsJson(gw, mirrored), ...living].map(forMap);
    return { clustered: false, caches, clusters: [], total: caches.length };
  }
  const cell = Math.max(lonSpan(box), box.north - box.south, 1e-6) / (opts.cells ?? CLUSTER_CELLS);
  const bins = new Map<
    string,
    { n: number; latSum: number; xSum: number; s: number; nn: number; w: number; e: number; one?: number | MirroredCache | Cache }
  >();
  const level = hasFilters(f) ? 0 : cell >= 10 ? 5 : cell >= 2 ? 1 : 0;
  if (level) {
    // A large view: the per-cell counts (migration 12) stand for the caches, each cell at its centre.
    // Counts at the very edge of the view are exact to the cell (1° or 5°), not to the degree.
    const cy0 = Math.floor((box.south + 90) / level);
    const cy1 = Math.floor((box.north + 90) / level);
    const ranges =
      box.west <= box.east
        ? [[box.west, box.east]]
        : [
            [box.west, 180],
            [-180, box.east],
          ];
    const cells = ranges.flatMap(
      ([w, e]) =>
        gw.db
          .query("SELECT cx, cy, n, slat, slon FROM caches_cells WHERE size = ? AND cy BETWEEN ? AND ? AND cx BETWEEN ? AND ?")
          .all(level, cy0, cy1, Math.floor((w! + 180) / level), Math.floor((e! + 180) / level)) as Array<{
          cx: number;
          cy: number;
          n: number;
          slat: number;
          slon: number;
        }>,
    );
    for (const c of cells) {
      const lat = c.slat / c.n;
      const lon = c.slon / c.n;
      const xc = (lon < box.west ? lon + 360 : lon) - box.west;
      // the cell's extent, clipped to the view, in the same eastward measure
      const cw = c.cx * level - 180;
      const cs = Math.max(box.south, c.cy * level - 90);
      const cn = Math.min(box.north, c.cy * level - 90 + level);
      const xw = Math.max(0, (cw < box.west ? cw + 360 : cw) - box.west);
      const xe = Math.min(lonSpan(box), xw + level);
      const key = `${Math.floor((lat - box.south) / cell)}:${Math.floor(xc / cell)}`;
      const bin = bins.get(key);
      if (bin) {
        bin.n += c.n;
        bin.latSum += c.slat;
        bin.xSum += xc * c.n;
        bin.s = Math.min(bin.s, cs);
        bin.nn = Math.max(bin.nn, cn);
        bin.w = Math.min(bin.w, xw);
        bin.e = Math.max(bin.e, xe);
      } else bins.set(key, { n: c.n, latSum: c.slat, xSum: xc * c.n, s: cs, nn: cn, w: xw, e: xe });
    }
  } else {
    // Longitudes measured eastward from the box's west edge, so a box across the antimeridian bins continuously.
    const x = "(CASE WHEN g.min_lon < ?1 THEN g.min_lon + 360 ELSE g.min_lon END - ?1)";
    // Numbered parameters: ?1 west, ?2 south, ?3 cell, then the box's and the filters' own.
    let k = 3;
    const numbered = (sql: string) => sql.replace(/\?/g, () => `?${++k}`);
    const where = numbered(geo.sql) + numbered(flt.sql);
    const rows = gw.db
      .query(
        `SELECT count(*) AS n, avg(g.min_lat) AS lat, avg(${x}) AS x, min(g.min_lat) AS s, max(g.min_lat) AS nn, min(${x}) AS w, max(${x}) AS e, min(g.id) AS one
         FROM caches_geo g${join} WHERE ${where}
         GROUP BY CAST((g.min_lat - ?2) / ?3 AS INTEGER), CAST(${x} / ?3 AS INTEGER)`,
      )
      .all(box.west, box.south, cell, ...geo.args, ...flt.args) as Array<{
      n: number;
      lat: number;
      x: number;
      s: number;
      nn: number;
      w: number;
      e: number;
      one: number;
    }>;
    for (const r of rows) {
      const key = `${Math.floor((r.lat - box.south) / cell)}:${Math.floor(r.x / cell)}`;
      bins.set(key, { n: r.n, latSum: r.lat * r.n, xSum: r.x * r.n, s: r.s, nn: r.nn, w: r.w, e: r.e, ...(r.n === 1 ? { one: r.one } : {}) });
    }
  }
  for (const m of mirrors) {
    const xm = (m.lon < box.west ? m.lon + 360 : m.lon) - box.west;
    const key = `${Math.floor((m.lat - box.south) / cell)}:${Math.floor(xm / cell)}`;
    const b = bins.get(key);
    if (b) {
      b.n++;
      b.latSum += m.lat;
      b.xSum += xm;
      b.s = Math.min(b.s, m.lat);
      b.nn = Math.max(b.nn, m.lat);
      b.w = Math.min(b.w, xm);
      b.e = Math.max(b.e, xm);
    } else bins.set(key, { n: 1, latSum: m.lat, xSum: xm, s: m.lat, nn: m.lat, w: xm, e: xm, one: m });
  }
  // The R*Tree's 32-bit floats are good to about 1e-5 degrees: round everything alike, so a centre stays inside its extent.
  const r5 = (v: number) => Math.round(v * 1e5) / 1e5;
  const lonOf = (xv: number) => {
    const l = xv + box.west;
    return r5(l > 180 ? l - 360 : l);
  };
  const all = [...bins.values()];
  const alone = opts.singles ? all.filter((b) => b.n === 1 && b.one !== undefined) : [];
  const ids = alone.flatMap((b) => (typeof b.one === "number" ? [b.one] : []));
  const rows = ids.length ? (gw.db.query("SELECT * FROM caches WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as CacheRow[]) : [];
  // A mirror alone in its cell is listed with its find counts, read for those few only.
  const others = alone.flatMap((b) => (typeof b.one === "object" ? [b.one] : []));
  const lone = others.filter((o) => !isLiving.has(o)) as MirroredCache[];
  const singles = [...cachesJson(gw, rows), ...mirrorsJson(gw, lone), ...(others.filter((o) => isLiving.has(o)) as Cache[])].map(forMap);
  const clusters: Cluster[] = all
    .filter((b) => !(opts.singles && b.n === 1 && b.one !== undefined))
    .map((b) => ({
      lat: r5(b.latSum / b.n),
      lon: lonOf(b.xSum / b.n),
      count: b.n,
      bbox: [lonOf(b.w), r5(b.s), lonOf(b.e), r5(b.nn)],
    }));
  return { clustered: true, caches: singles, clusters, total: all.reduce((s, b) => s + b.n, 0) };
}

/** A cache from an external catalog (GPX/LOC import): never federated. */
export interface CatalogCache {
  code: string;
  name: string;
  type: string;
  size: string;
  difficulty: number;
  terrain: number;
  lat: number;
  lon: number;
  status: "active" | "disabled" | "archived";
  hint: string | null;
  description: string;
  placedAt: number | null;
  placedBy: string | null;
}

/**
 * Inserts or updates a catalog cache by (source, code): importing the same
 * file twice changes nothing the second time. Inside the caller's transaction.
 */
export function upsertCatalogCache(gw: Core, source: string, ownerId: number | null, c: CatalogCache): "created" | "updated" | "unchanged" {
  const now = gw.clock.now();
  const cur = gw.db.query("SELECT * FROM caches WHERE source = ? AND source_ref = ?").get(source, c.code) as CacheRow | null;
  const search = searchText(c.name, c.code, null, c.placedBy);
  if (!cur) {
    gw.db
      .query(
        `INSERT INTO caches (owner_id, owner_call, name, type, size, difficulty, terrain, lat, lon, status, unlisted, hint, description, placed_at,
           created_at, updated_at, source, source_ref, placed_by, search) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        ownerId,
        c.name,
        c.type,
        c.size,
        c.difficulty,
        c.terrain,
        c.lat,
        c.lon,
        c.status,
        c.hint,
        c.description,
        c.placedAt ?? now,
        now,
        now,
        source,
        c.code,
        c.placedBy,
        search,
      );
    bump(gw);
    return "created";
  }
  const same =
    cur.name === c.name &&
    cur.type === c.type &&
    cur.size === c.size &&
    cur.difficulty === c.difficulty &&
    cur.terrain === c.terrain &&
    cur.lat === c.lat &&
    cur.lon === c.lon &&
    cur.status === c.status &&
    cur.hint === c.hint &&
    cur.description === c.description &&
    cur.placed_by === c.placedBy &&
    (c.placedAt === null || cur.placed_at === c.placedAt);
  if (same) return "unchanged";
  gw.db
    .query(
      `UPDATE caches SET name = ?, type = ?, size = ?, difficulty = ?, terrain = ?, lat = ?, lon = ?, status = ?, hint = ?, description = ?,
         placed_at = COALESCE(?, placed_at), placed_by = ?, search = ?, updated_at = ? WHERE id = ?`,
    )
    .run(c.name, c.type, c.size, c.difficulty, c.terrain, c.lat, c.lon, c.status, c.hint, c.description, c.placedAt, c.placedBy, search, now, cur.id);
  bump(gw);
  return "updated";
}

/** Marks the caches a signed-in user has found (`found: true`), for their map. */
export function markFound<T extends { gid: string }>(gw: Core, userId: number, caches: T[]): Array<T & { found?: boolean }> {
  if (!caches.length) return caches;
  const found = new Set(
    (
      gw.db
        .query("SELECT cache_gid AS g FROM logs WHERE user_id = ? AND kind = 'find' AND state = 'active' AND cache_gid IN (SELECT value FROM json_each(?))")
        .all(userId, JSON.stringify(caches.map((c) => c.gid))) as Array<{ g: string }>
    ).map((r) => r.g),
  );
  return caches.map((c) => (found.has(c.gid) ? { ...c, found: true } : c));
}

// ---------------------------------------------------------------- by code, and nearest (playing from a radio: src/radio-play/)

/**
 * A native cache by its code (`codeOf`: SV + base-36 id, or a catalog import's
 * own code such as GC1234), any status; null when none. Case does not matter.
 */
export function cacheByCode(gw: Core, raw: string): CacheRow | null {
  const code = raw.trim().toUpperCase();
  if (!/^[A-Z0-9-]{2,20}$/.test(code)) return null;
  const m = /^SV([0-9A-Z]{1,10})$/.exec(code);
  if (m) {
    const id = Number.parseInt(m[1]!, 36);
    const r = Number.isSafeInteger(id) ? cacheRow(gw, id) : null;
    // an import's code is its own: SV… names native caches only
    if (r && r.source_ref === null) return r;
  }
  return gw.db.query("SELECT * FROM caches WHERE source_ref = ? COLLATE NOCASE ORDER BY id LIMIT 1").get(code) as CacheRow | null;
}

/**
 * The `n` active, listed native caches nearest to a point within `maxKm`,
 * nearest first, each with its distance in metres (from the map index).
 */
export function nearestActiveCaches(gw: Core, lat: number, lon: number, n: number, maxKm: number): Array<{ cache: CacheRow; distanceM: number }> {
  // widen the box until it holds enough (most calls stop at the first)
  for (let km = Math.min(2, maxKm); ; km = Math.min(km * 4, maxKm)) {
    const dLat = km / 111;
    const dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180));
    const box = { south: Math.max(-90, lat - dLat), north: Math.min(90, lat + dLat), west: lon - dLon, east: lon + dLon };
    const rows = gw.db
      .query(
        `SELECT c.* FROM caches_geo g JOIN caches c ON c.id = g.id
         WHERE g.max_lat >= ?1 AND g.min_lat <= ?2 AND g.max_lon >= ?3 AND g.min_lon <= ?4 AND c.status = 'active' LIMIT 2000`,
      )
      .all(box.south, box.north, box.west, box.east) as CacheRow[];
    const near = rows
      .map((cache) => ({ cache, distanceM: distanceM(lat, lon, cache.lat, cache.lon) }))
      .filter((x) => x.distanceM <= km * 1000)
      .sort((a, b) => a.distanceM - b.distanceM);
    if (near.length >= n || km >= maxKm) return near.slice(0, n);
  }
}
