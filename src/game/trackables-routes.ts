/**
 * Trackables over HTTP (docs/api.md "Trackables"): make one, read one with
 * its moves, list by holder, cache or owner, log a move. Thin: gate, parse,
 * call one service function.
 */
import { t } from "elysia";
import { MOVE_BODY, TRACKABLE_BODY } from "./trackables-shapes.ts";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { actorOf } from "./model.ts";
import { createTrackable, listTrackables, trackableDetail } from "./trackables.ts";
import { logMove } from "./trackables-moves.ts";
import { answers } from "../http/openapi.ts";
import { MOVE_LOGGED, TRACKABLE_DETAIL, TRACKABLE_LIST, TRACKABLE_MADE } from "./trackables-shapes.ts";

const TAGS = ["Trackables"];
const REF = t.Object({ ref: t.String({ description: "the trackable's ref (e.g. SVT0K3ZQ1, any case) or its gid" }) });
const reader = (caller: Caller) => (caller.user ? actorOf(caller) : null);

export function trackableRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .post(
      "/api/trackables",
      ({ body, caller, set }) => {
        set.status = 201;
        return createTrackable(gw, actorOf(caller), body);
      },
      {
        gate: "verified",
        body: TRACKABLE_BODY,
        detail: {
          summary: "Make a trackable, owned by your verified callsign; the answer holds its tracking code, shown this once",
          tags: TAGS,
          responses: answers("the trackable and its tracking code", TRACKABLE_MADE, 201),
        },
      },
    )
    .get("/api/trackables", ({ query, caller }) => listTrackables(gw, query, reader(caller)), {
      gate: "public",
      query: t.Object({
        holder: t.Optional(t.String({ description: "trackables this callsign holds now (any SSID)" })),
        cache: t.Optional(t.String({ description: "trackables in this cache now: its id or gid" })),
        owner: t.Optional(t.String({ description: "trackables this callsign owns (any SSID)" })),
      }),
      detail: { summary: "Trackables by holder, by cache or by owner (one of them)", tags: TAGS, responses: answers("the trackables", TRACKABLE_LIST) },
    })
    .get("/api/trackables/:ref", ({ params }) => trackableDetail(gw, decodeURIComponent(params.ref)), {
      gate: "public",
      params: REF,
      detail: {
        summary: "One trackable: its state (holder, cache, distance) and its moves, oldest first",
        tags: TAGS,
        responses: answers("the trackable and its moves", TRACKABLE_DETAIL),
      },
    })
    .post(
      "/api/trackables/:ref/moves",
      ({ params, body, caller, set }) => {
        set.status = 201;
        return logMove(gw, actorOf(caller), decodeURIComponent(params.ref), body);
      },
      {
        gate: "session",
        params: REF,
        body: MOVE_BODY,
        detail: {
          summary: "Log a move: drop, retrieve, grab, discover, visit, note, or missing (the owner)",
          tags: TAGS,
          responses: answers("the move and the trackable after it", MOVE_LOGGED, 201),
        },
      },
    );
}
