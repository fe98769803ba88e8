/**
 * The trackable routes' bodies and answers, defined once: the routes validate
 * the bodies and declare the answers, the services take and build their
 * types, the web app reads them.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { MOVE_KINDS } from "./trackables-state.ts";

/** A new trackable (POST /api/trackables). */
export const TRACKABLE_BODY = closed({
  name: t.String({ maxLength: 100, description: "1-100 characters" }),
  goal: t.Optional(nullable(t.String({ maxLength: 1000 }))),
  description: t.Optional(nullable(t.String({ maxLength: 4000 }))),
});
export type TrackableBody = Static<typeof TRACKABLE_BODY>;

/** A move (POST /api/trackables/:ref/moves). */
export const MOVE_BODY = closed({
  kind: t.Union(
    MOVE_KINDS.map((k) => t.Literal(k)),
    { description: MOVE_KINDS.join(", ") },
  ),
  cacheId: t.Optional(t.Union([t.String(), t.Number()], { description: "the cache: its id or gid (drop, visit; retrieve checks it)" })),
  trackingCode: t.Optional(t.String({ maxLength: 64, description: "the code on the tag: needed to retrieve, grab or discover" })),
  text: t.Optional(nullable(t.String({ maxLength: 4000 }))),
  at: t.Optional(t.Number({ minimum: 0, multipleOf: 1, description: "when it happened, unix ms, not in the future; default now" })),
});
export type MoveBody = Static<typeof MOVE_BODY>;

/** A trackable with its state: who holds it, the cache it is in, how far it went. */
export const TRACKABLE_JSON = closed({
  ref: t.String({ description: "e.g. SVT0K3ZQ1" }),
  gid: t.String(),
  origin: t.String({ description: "the instance it was made on" }),
  name: t.String(),
  goal: nullable(t.String()),
  description: nullable(t.String()),
  owner: t.String({ description: "the owner's callsign" }),
  createdAt: wholeNumber({ description: "unix ms" }),
  holder: nullable(t.String(), "who has it in hand (a callsign)"),
  inCache: nullable(t.String(), "the gid of the cache it is in"),
  missing: t.Boolean(),
  distanceM: t.Number({ description: "metres travelled, to 0.1 m" }),
});
export type Trackable = Static<typeof TRACKABLE_JSON>;

export const MOVE_JSON = closed({
  gid: t.String(),
  origin: t.String(),
  kind: t.Union(MOVE_KINDS.map((k) => t.Literal(k))),
  call: t.String(),
  cacheGid: nullable(t.String()),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  text: nullable(t.String()),
  at: wholeNumber({ description: "unix ms" }),
  tier: nullable(t.String()),
});
export type Move = Static<typeof MOVE_JSON>;

/** A new trackable: its tracking code is in this answer only. */
export const TRACKABLE_MADE = closed({ ...TRACKABLE_JSON.properties, trackingCode: t.String({ description: "shown this once" }) });
export const TRACKABLE_DETAIL = closed({ ...TRACKABLE_JSON.properties, moves: t.Array(MOVE_JSON, { description: "oldest first" }) });
export const TRACKABLE_LIST = closed({ trackables: t.Array(TRACKABLE_JSON) });
export const MOVE_LOGGED = closed({ move: MOVE_JSON, trackable: TRACKABLE_JSON });
