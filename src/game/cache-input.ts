/** A cache's body as the hide and edit routes take it, checked field by field. */
import { badRequest } from "../lib/errors.ts";
import type { CacheAttribute } from "../lib/cache-attributes.ts";
import type { CacheBasics } from "../lib/fed/bodies.ts";
import { checkEvent, EVENT_TYPES, type EventTimes } from "./events.ts";
import { checkCacheAttributes } from "./attributes.ts";
import { contact, latitude, longitude, optText, pastTime, text, type CachePatch, type CacheStatus, type Contact } from "./model.ts";

export interface CacheInput extends CacheBasics {
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

/**
 * Checks what the schema (CACHE_BODY, CACHE_PATCH) cannot say of a hide or an
 * edit: text trimmed and free of control characters, coordinates rounded and
 * given together, a placement date not in the future, known attributes, an
 * event's day and zone.
 */
export function checkCacheBody(b: CachePatch, now: number): Partial<CacheInput> {
  const out: Partial<CacheInput> = {};
  if (b.name !== undefined) out.name = text(b.name, "name", 1, 100);
  if (b.type !== undefined) out.type = b.type;
  if (b.size !== undefined) out.size = b.size;
  if (b.difficulty !== undefined) out.difficulty = b.difficulty;
  if (b.terrain !== undefined) out.terrain = b.terrain;
  if (b.lat !== undefined) out.lat = latitude(b.lat);
  if (b.lon !== undefined) out.lon = longitude(b.lon);
  if (b.status !== undefined) out.status = b.status;
  if (b.unlisted !== undefined) out.unlisted = b.unlisted;
  if (b.hint !== undefined) out.hint = optText(b.hint, "hint", 1000);
  if (b.description !== undefined) out.description = optText(b.description, "description", 20_000) ?? "";
  if (b.contact !== undefined) out.contact = contact(b.contact);
  if (b.placedAt !== undefined) out.placedAt = b.placedAt === null ? null : pastTime(b.placedAt, "placedAt", now);
  if (b.attributes !== undefined) out.attributes = checkCacheAttributes(b.attributes);
  if (b.event !== undefined) out.event = b.event === null ? null : checkEvent(b.event, now);
  if ((b.lat !== undefined) !== (b.lon !== undefined)) throw badRequest("invalid", "lat and lon go together");
  return out;
}

/** An event or cito cache has its event; no other type has one (400). */
export function eventFits(type: string, event: EventTimes | null): void {
  if (EVENT_TYPES.includes(type) && !event) throw badRequest("invalid", `a ${type} cache needs its event: {date, start, end, timeZone}`);
  if (!EVENT_TYPES.includes(type) && event) throw badRequest("invalid", "only event and cito caches have an event");
}
