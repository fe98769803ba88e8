/**
 * A cache and a log as the API answers them, defined once: the schemas the
 * OpenAPI documents show, the types every service builds (`Cache`, `Log`)
 * and the web app reads (src/v1/shapes.ts derives /api/v1's stable
 * projection from them). A cache never carries the owner's contact fields
 * but where CACHE_WITH_CONTACT says so (its owner's answers, and signed-in
 * users of this instance).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { FIND_LOG_KINDS as LOG_KINDS } from "../lib/log-kinds.ts";
import { CLUSTER } from "../stations/shapes.ts";

/** The attributes set yes or no, by id (src/lib/cache-attributes.ts). */
export const CACHE_ATTRIBUTE = closed({ id: wholeNumber(), inc: t.Boolean() });

/** Event and cito caches: the day, start and end in its time zone, and the instants (events.ts). */
export const EVENT_INFO = closed(
  {
    date: t.String({ description: "the day, YYYY-MM-DD" }),
    start: t.String({ description: "HH:MM in timeZone" }),
    end: t.String({ description: "HH:MM in timeZone" }),
    timeZone: t.String({ description: "IANA time zone, e.g. Europe/Berlin" }),
    startAt: unixMs(),
    endAt: unixMs(),
  },
  { description: "event and cito caches: the day and times in timeZone, and the instants (unix ms)" },
);

export const CACHE_JSON_FIELDS = {
  id: t.Union([wholeNumber(), t.String()], { description: "native: the local id; mirrored: the gid" }),
  gid: t.String(),
  code: t.String({ description: "the short waypoint code (GPX <name>): SV + base-36 id, or the catalog's code for imports" }),
  name: t.String(),
  type: t.String(),
  size: t.String(),
  difficulty: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5 }),
  terrain: t.Number({ minimum: 1, maximum: 5, multipleOf: 0.5 }),
  lat: t.Number(),
  lon: t.Number(),
  status: t.String({ description: "active, disabled, archived; draft and review (waiting for a reviewer) are seen by the owner (and reviewers) only" }),
  needsMaintenance: t.Optional(t.Boolean({ description: "a needs-maintenance or needs-archive log is open (until owner-maintenance or enable)" })),
  returned: t.Optional(t.Boolean({ description: "a draft a reviewer sent back with a reviewer note (REVIEW=on)" })),
  unlisted: t.Boolean(),
  hint: nullable(t.String()),
  description: nullable(t.String()),
  ownerCall: nullable(t.String()),
  placedAt: nullable(unixMs()),
  updatedAt: unixMs(),
  origin: t.String({ description: "the instance the cache belongs to" }),
  mirror: t.Boolean({ description: "a mirror of another instance's cache, display only" }),
  trust: t.Optional(t.Union([t.Literal("trusted"), t.Literal("unvetted")], { description: "mirrored caches: the origin's trust tier" })),
  station: t.Optional(t.String({ description: "a living cache: the station whose beacon is the cache's position" })),
  source: t.Optional(t.String({ description: "catalog imports: where from" })),
  placedBy: t.Optional(t.String({ description: "catalog imports: the placer named there" })),
  event: t.Optional(EVENT_INFO),
  attributes: t.Array(CACHE_ATTRIBUTE),
  finds: wholeNumber(),
  favorites: wholeNumber(),
  rating: closed({ average: nullable(t.Number()), count: wholeNumber() }),
};

export const CACHE_JSON = closed(CACHE_JSON_FIELDS);
export type Cache = Static<typeof CACHE_JSON>;

/** Owner contact fields: kept here, shown to signed-in users of this instance only. */
export const CONTACT = closed({ email: t.Optional(t.String()), phone: t.Optional(t.String()), note: t.Optional(t.String()) });

/** A cache with its contact fields: what its owner's hide and edit answer. */
export const CACHE_WITH_CONTACT = closed({ ...CACHE_JSON_FIELDS, contact: nullable(CONTACT) });

export const LOG_JSON = closed({
  id: t.Union([wholeNumber(), t.String()], { description: "a log of this instance: its id; a mirrored find: its gid" }),
  gid: t.String(),
  cacheGid: t.String(),
  kind: t.Union(
    LOG_KINDS.map((k) => t.Literal(k)),
    { description: 'only find counts as a find (docs/api.md "Log kinds")' },
  ),
  call: nullable(t.String(), "the finder's callsign; null once withdrawn"),
  text: nullable(t.String()),
  foundAt: unixMs(),
  createdAt: unixMs(),
  tier: nullable(t.Union([t.Literal("a"), t.Literal("b"), t.Literal("c")])),
  state: t.Union([t.Literal("active"), t.Literal("withdrawn")]),
  corroboration: nullable(
    closed({ source: t.String(), igate: nullable(t.String()), distanceM: nullable(t.Number()), at: nullable(unixMs()) }),
    "Tier A evidence",
  ),
  origin: t.String({ description: "the instance the log was written on" }),
});
export type Log = Static<typeof LOG_JSON>;

/** A log as its POST answers it: 201 with the log; 200 with the first log, `replayed`, when its clientId was sent before. */
export const LOG_POSTED = closed({ ...LOG_JSON.properties, replayed: t.Optional(t.Literal(true)) });

/** A cache's logbook, newest first (GET /api/caches/:id/logs). */
export const LOGBOOK = closed({ logs: t.Array(LOG_JSON) });

// ---------------------------------------------------------------- the map (GET /api/caches)

const { description: _d, hint: _h, ...MAP_FIELDS } = CACHE_JSON_FIELDS;
/** A signed-in player's marks on a cache of the map: found, and where their solution puts it. */
const MARKS = {
  found: t.Optional(t.Boolean({ description: "signed in: you logged a find" })),
  corrected: t.Optional(t.Literal(true, { description: "signed in: shown where your corrected coordinates put it" })),
  original: t.Optional(closed({ lat: t.Number(), lon: t.Number() }, { description: "with corrected: where the cache is listed" })),
};

/** What the map needs of a cache: everything but the long texts (the page loads those). */
export const MAP_CACHE = closed(MAP_FIELDS);
export type MapCache = Static<typeof MAP_CACHE>;

/** Caches counted into one cell of the map: the same shape as the station map's clusters. */
export { CLUSTER, type Cluster } from "../stations/shapes.ts";

/** The map's view of a box: its caches, or clusters that count them. */
export const MAP_ANSWER = closed({
  clustered: t.Boolean({ description: "true: the box holds more than limit caches, so clusters summarise it and caches is empty (but for singles)" }),
  caches: t.Array(closed({ ...MAP_FIELDS, ...MARKS })),
  clusters: t.Array(CLUSTER),
  total: wholeNumber({ description: "caches in the box (native and shown mirrors)" }),
});
export type MapAnswer = Static<typeof MAP_ANSWER>;

/** The caches nearest a point (near=), nearest first. */
export const NEAR_ANSWER = closed({
  caches: t.Array(
    closed({
      ...MAP_FIELDS,
      ...MARKS,
      distanceM: wholeNumber({ description: "metres from near (from your corrected coordinates, signed in)" }),
      bearingDeg: t.Number({ description: "degrees from north" }),
    }),
  ),
});

/** Upcoming events nearest a point (GET /api/events), nearest first. */
export const EVENTS_ANSWER = closed({
  events: t.Array(closed({ ...CACHE_JSON_FIELDS, distanceM: t.Number({ description: "metres from near, to 0.1 m" }) })),
});

// ---------------------------------------------------------------- a cache's page (GET /api/caches/:id)

/** A cache's waypoint as the API shows it (waypoints-store.ts); a mirrored cache's have no id (they are part of its record). */
export const WAYPOINT_JSON = closed({
  id: nullable(wholeNumber(), "null: a mirrored cache's waypoint (part of its record)"),
  kind: t.String({ description: "parking, physical-stage, virtual-stage, question, trailhead, reference, final" }),
  code: t.String({ description: "its prefix and the cache code's tail: PK1ABCD" }),
  name: t.String(),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  note: nullable(t.String()),
});
export type Waypoint = Static<typeof WAYPOINT_JSON>;

/** A cache's waypoints as the caller may see them (GET /api/caches/:id/waypoints). */
export const WAYPOINTS = closed({ waypoints: t.Array(WAYPOINT_JSON, { description: "the final only for its owner and those who found it" }) });
/** One waypoint, added or changed. */
export const WAYPOINT_ONE = closed({ waypoint: WAYPOINT_JSON });

/** What a delete answers. */
export const DELETED = closed({ deleted: t.Literal(true) });

/** A cache's logbook in two figures (cache-summary.ts). */
export const LOG_SUMMARY_FIELDS = {
  logCounts: t.Record(t.String(), wholeNumber(), { description: 'active logs by kind, e.g. {"find": 3, "dnf": 1}' }),
  lastFoundAt: nullable(unixMs(), "the newest active find's time, unix ms; null when never found"),
};
export const LOG_SUMMARY = closed(LOG_SUMMARY_FIELDS);
export type LogSummary = Static<typeof LOG_SUMMARY>;

/** The signed-in account's own relation to a native cache (social.ts). */
export const MY_CACHE_STATE = closed(
  {
    stars: nullable(wholeNumber({ minimum: 1, maximum: 5 }), "your rating; null: none"),
    favorite: t.Boolean(),
    watch: t.Boolean(),
    found: t.Boolean({ description: "you logged a find" }),
  },
  { description: "signed in, native caches: your rating, favorite, watch and find" },
);

/** A player's own note and corrected coordinates of a cache (personal.ts). */
export const PERSONAL_JSON = closed({
  note: nullable(t.String()),
  corrected: nullable(closed({ lat: t.Number(), lon: t.Number() })),
  updatedAt: wholeNumber({ description: "unix ms" }),
});
export type Personal = Static<typeof PERSONAL_JSON>;

/** A cache's page: the detail view, its logbook's figures and the waypoints the caller may see; signed in, the player's own. */
export const CACHE_PAGE = closed({
  ...CACHE_JSON_FIELDS,
  contact: t.Optional(nullable(CONTACT, "native caches, signed-in users of this instance: the owner's contact fields")),
  mine: t.Optional(t.Boolean({ description: "native and living caches: the caller owns it" })),
  ...LOG_SUMMARY_FIELDS,
  waypoints: t.Array(WAYPOINT_JSON, { description: "the final only for its owner and those who found it" }),
  my: t.Optional(MY_CACHE_STATE),
  personal: t.Optional(nullable(PERSONAL_JSON, "signed in: your note and corrected coordinates; null: none")),
});

/** What the finds of an `/ingest` batch answer (logs.ts ingestFinds), under the batch's `finds`. */
export const FINDS_INGESTED = closed({
  stored: wholeNumber({ description: "finds logged" }),
  tierA: wholeNumber({ description: "of them, proven on RF at once" }),
  logs: t.Array(LOG_JSON),
});
export type FindsIngested = Static<typeof FINDS_INGESTED>;
