/**
 * What /api/v1 answers, defined once as closed schemas: the service builds
 * these (their static types), the OpenAPI document shows them
 * (src/v1/openapi.ts), and test/v1 holds the real answers to them, so an
 * answer cannot carry a member the document does not name.
 */
import { t } from "elysia";
import type { Static, TSchema } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON_FIELDS, LOG_JSON } from "../game/shapes.ts";
import { CACHE_LIST } from "../game/lists.ts";

/** A waypoint as anyone sees it (never the final). */
export const V1_WAYPOINT = closed({
  kind: t.String({ description: "parking, physical-stage, virtual-stage, question, trailhead, reference" }),
  code: t.String(),
  name: t.String(),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  note: nullable(t.String()),
});

// The game's cache (src/game/shapes.ts) without what is this instance's business: whether it is
// a mirror, unlisted, sent back by a reviewer, its trust tier, living station and catalog source.
const { mirror: _m, unlisted: _u, returned: _r, trust: _t, station: _s, source: _so, placedBy: _p, ...GAME } = CACHE_JSON_FIELDS;
const CACHE_FIELDS = {
  ...GAME,
  url: t.String({ description: "the cache's page" }),
  status: t.Union([t.Literal("active"), t.Literal("disabled"), t.Literal("archived")]),
  description: nullable(t.String(), "null for an unlisted cache"),
  needsMaintenance: t.Boolean({ description: "a needs-maintenance or needs-archive log is open" }),
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

// The game's log (src/game/shapes.ts) with its Tier A evidence flattened, and without when it was written here.
const { createdAt: _c, corroboration: _e, ...LOG } = LOG_JSON.properties;
export const V1_LOG = closed({
  ...LOG,
  igate: nullable(t.String(), "Tier A: the IGate that heard the finder"),
  distanceM: nullable(t.Number(), "Tier A: how far from the cache"),
});
export type V1Log = Static<typeof V1_LOG>;

/** A page of a paged list: the items, and where the next page starts. */
export const v1Page = <T extends TSchema>(items: string, schema: T) =>
  closed({ [items]: t.Array(schema), next: nullable(wholeNumber(), "pass as after/before for the next page; null on the last") });

/** GET /api/v1: what this API offers. */
export const V1_INDEX = closed({
  api: t.String(),
  version: wholeNumber(),
  instance: t.String(),
  openapi: t.String({ description: "this API's OpenAPI document" }),
  rateLimit: closed({
    perMinute: wholeNumber(),
    withKeyPerMinute: wholeNumber(),
    keyHeader: t.String(),
    issueKey: t.String({ description: "how to get a key" }),
  }),
});

/** POST /api/v1: a key, shown once. */
export const V1_KEY = closed({
  key: t.String({ description: "send it as x-api-key; only its hash is stored" }),
  id: wholeNumber(),
  label: nullable(t.String()),
  limitPerMinute: wholeNumber(),
});
export type V1Key = Static<typeof V1_KEY>;

/** A public bookmark list with its caches. */
export const V1_LIST = closed({ ...CACHE_LIST.properties, caches: t.Array(V1_CACHE) });
export type V1List = Static<typeof V1_LIST>;
