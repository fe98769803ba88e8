/**
 * The game's vocabulary and input checks: cache types, sizes, lifecycle,
 * difficulty/terrain steps, who is acting. Pure.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../lib/schema.ts";
import type { CONTACT } from "./shapes.ts";
import { badRequest } from "../lib/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import { isCallsign, normalizeCall } from "../lib/callsign.ts";
import { FIND_LOG_KINDS, type FindLogKind } from "../lib/log-kinds.ts";

/** Types a cache can be hidden as (a `living` cache is a station: /api/me/cache). */
export const CACHE_TYPES = ["traditional", "multi", "mystery", "letterbox", "virtual", "event", "cito", "audio", "earth", "webcam", "other"] as const;
export const CACHE_SIZES = ["micro", "small", "regular", "large", "other", "none"] as const;
export type CacheType = (typeof CACHE_TYPES)[number] | "living";
export type CacheSize = (typeof CACHE_SIZES)[number];

/**
 * Lifecycle (docs/api.md "Cache lifecycle"):
 *   draft    -> active | archived   (only the owner sees a draft; it is never federated)
 *   active   -> disabled | archived
 *   disabled -> active | archived
 *   archived    final: kept for its logbook, off the map, no new finds
 */
export type CacheStatus = "draft" | "active" | "disabled" | "archived";
export const CACHE_STATUSES: readonly CacheStatus[] = ["draft", "active", "disabled", "archived"];
export const TRANSITIONS: Readonly<Record<CacheStatus, readonly CacheStatus[]>> = {
  draft: ["active", "archived"],
  active: ["disabled", "archived"],
  disabled: ["active", "archived"],
  archived: [],
};

/**
 * Log kinds (docs/api.md "Log kinds"). Only `find` counts as a find. Who may
 * log which: anyone find/dnf/note (and the event kinds); verified users the
 * needs-* kinds; the cache's owner the OWNER_KINDS; reviewers reviewer-note.
 * The one list is the wire's (src/lib/fed/bodies.ts FIND_LOG_KINDS): a kind a
 * log may have is a kind its record may name.
 */
export const LOG_KINDS = FIND_LOG_KINDS;
export type LogKind = FindLogKind;
/** The owner's kinds: each changes the cache (status, or the maintenance flag). */
export const OWNER_LOG_KINDS: readonly LogKind[] = ["owner-maintenance", "temp-disable", "enable", "archive"];
/** A verified user's report of a problem: sets the cache's open-maintenance flag. */
export const NEEDS_LOG_KINDS: readonly LogKind[] = ["needs-maintenance", "needs-archive"];

/** Who is acting: a signed-in user, or the ingest box (an RF write), or a device key. */
export interface Actor {
  userId: number | null;
  /** the user's active callsign (session), or the device key's call */
  call: string | null;
  verified: boolean;
  ingest: boolean;
  via: "web" | "ingest" | "device";
}

export function actorOf(caller: Caller): Actor {
  if (caller.user) return { userId: caller.user.id, call: caller.user.call, verified: caller.user.verified, ingest: false, via: "web" };
  if (caller.assertion) return { userId: caller.assertion.userId, call: caller.assertion.call, verified: true, ingest: false, via: "device" };
  return { userId: null, call: null, verified: false, ingest: caller.ingest, via: "ingest" };
}

// ---------------------------------------------------------------- field checks

const invalid = (message: string) => badRequest("invalid", message);

export function text(v: unknown, field: string, min: number, max: number): string {
  if (typeof v !== "string") throw invalid(`${field} must be text`);
  const s = v.trim();
  if (s.length < min || s.length > max) throw invalid(`${field} must be ${min}-${max} characters`);
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s)) throw invalid(`${field} has control characters`);
  return s;
}

export function optText(v: unknown, field: string, max: number): string | null {
  if (v === undefined || v === null || v === "") return null;
  return text(v, field, 0, max) || null;
}

/** 1.0 to 5.0 in half steps. */
export function rating(v: unknown, field: string): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < 1 || v > 5 || Math.round(v * 2) !== v * 2) {
    throw invalid(`${field} must be 1 to 5 in steps of 0.5`);
  }
  return v;
}

export function latitude(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < -90 || v > 90) throw invalid("lat must be decimal degrees, -90 to 90");
  return Math.round(v * 1e7) / 1e7;
}

export function longitude(v: unknown): number {
  if (typeof v !== "number" || !Number.isFinite(v) || v < -180 || v > 180) throw invalid("lon must be decimal degrees, -180 to 180");
  const r = Math.round(v * 1e7) / 1e7;
  return r === -180 ? 180 : r;
}

export function oneOf<T extends string>(v: unknown, field: string, allowed: readonly T[]): T {
  if (typeof v !== "string" || !allowed.includes(v as T)) throw invalid(`${field} must be one of ${allowed.join(", ")}`);
  return v as T;
}

export function callsign(v: unknown, field: string): string {
  if (typeof v !== "string" || !isCallsign(v)) throw invalid(`${field} must be a callsign such as N0CALL or N0CALL-9`);
  return normalizeCall(v);
}

export function bool(v: unknown, field: string): boolean {
  if (typeof v !== "boolean") throw invalid(`${field} must be true or false`);
  return v;
}

/** A time in unix ms, not in the future (a minute's clock skew allowed). */
export function pastTime(v: unknown, field: string, now: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > now + 60_000) throw invalid(`${field} must be unix milliseconds, not in the future`);
  return v;
}

/** Owner contact fields: kept here, shown to signed-in users of this instance only. */
export type Contact = Static<typeof CONTACT>;

export function contact(c: { email?: string | null; phone?: string | null; note?: string | null } | null | undefined): Contact | null {
  if (c === undefined || c === null) return null;
  const out: Contact = {};
  if (c.email !== undefined && c.email !== null && c.email !== "") {
    const e = text(c.email, "contact.email", 3, 200);
    if (!/^[^\s@]+@[^\s@]+$/.test(e)) throw invalid("contact.email is not an e-mail address");
    out.email = e;
  }
  const phone = optText(c.phone, "contact.phone", 40);
  if (phone) out.phone = phone;
  const note = optText(c.note, "contact.note", 200);
  if (note) out.note = note;
  return Object.keys(out).length ? out : null;
}

/** Great-circle distance in metres. */
export function distanceM(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const R = 6_371_008.8;
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)));
}

// ---------------------------------------------------------------- request schemas

/**
 * The search filters of a cache listing as query parameters (the web app's
 * map, /api/v1/caches and its exports). parseFilters and parseBox check the
 * values, for every caller.
 */
export const CACHE_FILTER_QUERY = {
  bbox: t.Optional(t.String({ description: "minLon,minLat,maxLon,maxLat (GeoJSON order); minLon > maxLon crosses the antimeridian" })),
  q: t.Optional(t.String({ description: "text in the name, code, owner or description (at most 100 characters)" })),
  type: t.Optional(t.String({ description: `comma list of ${CACHE_TYPES.join(", ")}, living` })),
  size: t.Optional(t.String({ description: `comma list of ${CACHE_SIZES.join(", ")}` })),
  difficulty: t.Optional(t.String({ description: "a value or a range, e.g. 1.5-3" })),
  terrain: t.Optional(t.String({ description: "a value or a range, e.g. 1-2.5" })),
  owner: t.Optional(t.String({ description: "owner callsign (any SSID)" })),
  attr: t.Optional(t.String({ description: "attribute ids the cache must have, comma list, negative for a no: 1,-32 (dogs yes, bicycles no)" })),
};

/** The filter parameters as they arrive: text, checked by parseFilters and parseBox. */
export type CacheFilterQuery = { [K in keyof typeof CACHE_FILTER_QUERY]?: string };

/** A cache hidden on this instance, named in a path by its numeric id. */
export const NATIVE_CACHE_ID = t.Integer({ description: "a cache hidden on this instance: its numeric id" });

/** A cache named in a path: its local id, or the gid of a mirrored cache. */
export const CACHE_KEY = t.String({ description: "a cache: its local id, or the gid of a mirrored cache" });

/**
 * The fields of a cache as a body sends them (hide: POST /api/caches; edit:
 * PATCH, every field optional). checkCacheBody trims, rounds and checks what a
 * schema cannot say (control characters, lat with lon, a past placedAt).
 */
export const CACHE_FIELDS = {
  name: t.String({ maxLength: 100, description: "1-100 characters" }),
  type: t.Union(
    CACHE_TYPES.map((v) => t.Literal(v)),
    { description: CACHE_TYPES.join(", ") },
  ),
  size: t.Union(
    CACHE_SIZES.map((v) => t.Literal(v)),
    { description: CACHE_SIZES.join(", ") },
  ),
  difficulty: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5, description: "1 to 5 in steps of 0.5" }),
  terrain: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5, description: "1 to 5 in steps of 0.5" }),
  lat: t.Number({ minimum: -90, maximum: 90, description: "decimal degrees" }),
  lon: t.Number({ minimum: -180, maximum: 180, description: "decimal degrees" }),
  status: t.Optional(
    t.Union(
      CACHE_STATUSES.map((v) => t.Literal(v)),
      { description: "a new cache is a draft or active (default); an edit moves along the lifecycle" },
    ),
  ),
  unlisted: t.Optional(t.Boolean({ description: "left off the map and lists; found by its link" })),
  hint: t.Optional(nullable(t.String({ maxLength: 1000 }))),
  description: t.Optional(nullable(t.String({ maxLength: 20_000 }))),
  contact: t.Optional(
    nullable(
      closed(
        { email: t.Optional(nullable(t.String())), phone: t.Optional(nullable(t.String())), note: t.Optional(nullable(t.String())) },
        { description: "shown to signed-in users of this instance only" },
      ),
    ),
  ),
  placedAt: t.Optional(nullable(t.Number({ minimum: 0, multipleOf: 1, description: "unix ms, not in the future" }))),
  attributes: t.Optional(
    nullable(
      t.Array(closed({ id: t.Number({ multipleOf: 1 }), inc: t.Boolean() }), {
        description: "Groundspeak attribute ids set yes (inc true) or no (inc false); replaces the cache's set; null or [] clears it",
      }),
    ),
  ),
  event: t.Optional(
    nullable(
      closed(
        {
          date: t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "the day, YYYY-MM-DD" }),
          start: t.String({ pattern: "^([01]\\d|2[0-3]):[0-5]\\d$", description: "HH:MM in timeZone" }),
          end: t.String({ pattern: "^([01]\\d|2[0-3]):[0-5]\\d$", description: "HH:MM in timeZone, after start" }),
          timeZone: t.String({ maxLength: 64, description: "IANA time zone, e.g. Europe/Berlin" }),
        },
        { description: "event and cito caches: when it takes place (required for them, refused for others); not in the past" },
      ),
    ),
  ),
  ownerCall: t.Optional(t.String({ description: "the owner's callsign: only the ingest box names it; a session hides as its active callsign" })),
};

/** A log as a body sends it; checkLogBody checks it for every caller (web, RF, device). */
export const LOG_FIELDS = {
  kind: t.Optional(
    t.Union(
      LOG_KINDS.map((v) => t.Literal(v)),
      {
        description:
          "find (default), dnf, note; needs-maintenance, needs-archive (verified users); owner-maintenance, temp-disable, enable, archive (the owner); reviewer-note (reviewers); will-attend, attended (events)",
      },
    ),
  ),
  text: t.Optional(nullable(t.String({ maxLength: 4000, description: "a note needs text" }))),
  foundAt: t.Optional(t.Number({ minimum: 0, multipleOf: 1, description: "unix ms, within the last year; default now" })),
  clientId: t.Optional(nullable(t.String({ pattern: "^[A-Za-z0-9_-]{8,64}$", description: "the client's idempotency key: a retry returns the first log" }))),
  call: t.Optional(t.String({ description: "the finder: only the ingest box names it" })),
};

/** A new cache (POST /api/caches): the one definition of its body; checkCacheBody checks what a schema cannot. */
export const CACHE_BODY = closed(CACHE_FIELDS);
export type CacheBody = Static<typeof CACHE_BODY>;
/** An edit (PATCH /api/caches/:id): any of the fields. */
export const CACHE_PATCH = t.Partial(CACHE_BODY);
export type CachePatch = Static<typeof CACHE_PATCH>;
/** A log on a cache (web, device, and the ingest box naming `call`). */
export const LOG_BODY = closed(LOG_FIELDS);
export type LogBody = Static<typeof LOG_BODY>;
/** A find in an `/ingest` batch: a log naming its cache and finder, checked with check() as a route checks LOG_BODY. */
export const INGEST_FIND = closed({
  ...LOG_FIELDS,
  cache: t.Union([t.String({ maxLength: 64 }), t.Number({ multipleOf: 1 })], { description: "the cache: its id or gid" }),
  call: t.String({ description: "the finder's callsign" }),
});
