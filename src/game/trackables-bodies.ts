/** The bodies of the trackable routes, defined once: the routes validate them, the services take their types. */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed } from "../lib/schema.ts";
import { MOVE_KINDS } from "./trackables-state.ts";

/** A new trackable (POST /api/trackables). */
export const TRACKABLE_BODY = closed({
  name: t.String({ maxLength: 100, description: "1-100 characters" }),
  goal: t.Optional(t.Union([t.String({ maxLength: 1000 }), t.Null()])),
  description: t.Optional(t.Union([t.String({ maxLength: 4000 }), t.Null()])),
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
  text: t.Optional(t.Union([t.String({ maxLength: 4000 }), t.Null()])),
  at: t.Optional(t.Number({ minimum: 0, multipleOf: 1, description: "when it happened, unix ms, not in the future; default now" })),
});
export type MoveBody = Static<typeof MOVE_BODY>;
