/**
 * What /api/v1 answers, defined once as closed schemas: the service builds
 * these (their static types), the OpenAPI document shows them
 * (src/v1/openapi.ts), and test/v1 holds the real answers to them, so an
 * answer cannot carry a member the document does not name.
 */
import { t } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import { closed, wholeNumber } from "../lib/schema.ts";
import { LOG_KINDS } from "../game/model.ts";

const nullable = <T extends TSchema>(s: T, description?: string) => t.Union([s, t.Null()], description ? { description } : {});
const unixMs = (description = "unix ms") => wholeNumber({ description });

export const V1_ATTRIBUTE = closed({ id: wholeNumber(), inc: t.Boolean() });

export const V1_EVENT = closed(
  {
    date: t.String({ description: "the day, YYYY-MM-DD" }),
    start: t.String({ description: "HH:MM in timeZone" }),
    end: t.String({ description: "HH:MM in timeZone" }),
    timeZone: t.String({ description: "IANA time zone" }),
    startAt: unixMs(),
    endAt: unixMs(),
  },
  { description: "event and cito caches: the day and times in timeZone, and the instants (unix ms)" },
);

/** A waypoint as anyone sees it (never the final). */
export const V1_WAYPOINT = closed({
  kind: t.String({ description: "parking, physical-stage, virtual-stage, question, trailhead, reference" }),
  code: t.String(),
  name: t.String(),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  note: nullable(t.String()),
});

const CACHE_FIELDS = {
  id: t.Union([wholeNumber(), t.String()], { description: "local id, or the gid of a mirrored cache" }),
  gid: t.String(),
  code: t.String({ description: "the short waypoint code, e.g. SV00A1" }),
  url: t.String({ description: "the cache's page" }),
  name: t.String(),
  type: t.String(),
  size: t.String(),
  difficulty: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5 }),
  terrain: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5 }),
  lat: t.Number(),
  lon: t.Number(),
  status: t.Union([t.Literal("active"), t.Literal("disabled"), t.Literal("archived")]),
  hint: nullable(t.String()),
  description: nullable(t.String(), "null for an unlisted cache"),
  ownerCall: nullable(t.String()),
  placedAt: nullable(unixMs()),
  updatedAt: unixMs(),
  attributes: t.Array(V1_ATTRIBUTE, { description: "Groundspeak attributes set yes (inc true) or no, by id" }),
  needsMaintenance: t.Boolean({ description: "a needs-maintenance or needs-archive log is open" }),
  event: t.Optional(V1_EVENT),
  origin: t.String({ description: "the instance the cache belongs to" }),
  finds: wholeNumber(),
  favorites: wholeNumber(),
  rating: closed({ average: nullable(t.Number()), count: wholeNumber() }),
};

/** A cache in a list or a page of /api/v1/caches. */
export const V1_CACHE = closed(CACHE_FIELDS);
export type V1Cache = Static<typeof V1_CACHE>;

/** A cache of a near= query: how far, and which way. */
export const V1_NEAR_CACHE = closed({
  ...CACHE_FIELDS,
  distanceM: wholeNumber({ description: "metres from near" }),
  bearingDeg: t.Number({ description: "degrees from north, from near" }),
});

/** An upcoming event: a cache with how far it is. */
export const V1_EVENT_CACHE = closed({ ...CACHE_FIELDS, distanceM: wholeNumber({ description: "metres from near" }) });

/** One cache (GET /api/v1/caches/{id}): with its waypoints. */
export const V1_CACHE_DETAIL = closed({ ...CACHE_FIELDS, waypoints: t.Array(V1_WAYPOINT, { description: "its waypoints, never the final" }) });

export const V1_LOG = closed({
  id: t.Union([wholeNumber(), t.String()]),
  gid: t.String(),
  cacheGid: t.String(),
  kind: t.Union(
    LOG_KINDS.map((k) => t.Literal(k)),
    { description: 'only find counts as a find (docs/api.md "Log kinds")' },
  ),
  call: nullable(t.String(), "null once withdrawn"),
  text: nullable(t.String()),
  foundAt: unixMs(),
  tier: nullable(t.Union([t.Literal("a"), t.Literal("b"), t.Literal("c")])),
  state: t.Union([t.Literal("active"), t.Literal("withdrawn")]),
  igate: nullable(t.String(), "Tier A: the IGate that heard the finder"),
  distanceM: nullable(t.Number(), "Tier A: how far from the cache"),
  origin: t.String(),
});
export type V1Log = Static<typeof V1_LOG>;
