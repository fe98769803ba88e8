/** A cache's body as the hide and edit routes take it, checked field by field. */
import { badRequest } from "../lib/errors.ts";
import type { CacheAttribute } from "../lib/cache-attributes.ts";
import type { CacheBasics } from "../lib/fed/bodies.ts";
import { checkEvent, EVENT_TYPES, type EventTimes } from "./events.ts";
import { checkCacheAttributes } from "./attributes.ts";
import {
  bool,
  CACHE_SIZES,
  CACHE_STATUSES,
  CACHE_TYPES,
  contact,
  latitude,
  longitude,
  oneOf,
  optText,
  pastTime,
  rating,
  text,
  type CacheStatus,
  type Contact,
} from "./model.ts";

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

/** An event or cito cache has its event; no other type has one (400). */
export function eventFits(type: string, event: EventTimes | null): void {
  if (EVENT_TYPES.includes(type) && !event) throw badRequest("invalid", `a ${type} cache needs its event: {date, start, end, timeZone}`);
  if (!EVENT_TYPES.includes(type) && event) throw badRequest("invalid", "only event and cito caches have an event");
}
