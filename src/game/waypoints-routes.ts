/**
 * A cache's waypoints over HTTP (docs/api.md "Waypoints"): anyone reads
 * them (the final only its owner and its finders), the owner adds, changes
 * and deletes them. Thin: gate, parse, call one service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { actorOf, CACHE_KEY, NATIVE_CACHE_ID } from "./model.ts";
import { addWaypoint, deleteWaypoint, editWaypoint, listWaypoints, WAYPOINT_BODY, WAYPOINT_PATCH } from "./waypoints.ts";
import { MAX_WAYPOINTS } from "./waypoints-store.ts";
import { answers } from "../http/openapi.ts";
import { DELETED, WAYPOINT_ONE, WAYPOINTS } from "./shapes.ts";

const TAGS = ["Caches"];
const reader = (caller: Caller) => (caller.user || caller.ingest ? actorOf(caller) : null);
const ONE = t.Object({ id: NATIVE_CACHE_ID, wid: t.Integer({ description: "the waypoint's id" }) });

export function waypointRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get("/api/caches/:id/waypoints", ({ params, caller }) => listWaypoints(gw, decodeURIComponent(params.id), reader(caller)), {
      gate: "public",
      params: t.Object({ id: CACHE_KEY }),
      detail: {
        summary: "A cache's waypoints: parking, stages, trailhead... and its final, for its owner and those who found it",
        tags: TAGS,
        responses: answers("the waypoints", WAYPOINTS),
      },
    })
    .post(
      "/api/caches/:id/waypoints",
      ({ params, body, caller, set }) => {
        set.status = 201;
        return addWaypoint(gw, actorOf(caller), params.id, body);
      },
      {
        gate: "actor",
        params: t.Object({ id: NATIVE_CACHE_ID }),
        body: WAYPOINT_BODY,
        detail: {
          summary: `Add a waypoint to a cache (its owner; at most ${MAX_WAYPOINTS})`,
          tags: TAGS,
          responses: answers("the waypoint", WAYPOINT_ONE, 201),
        },
      },
    )
    .patch("/api/caches/:id/waypoints/:wid", ({ params, body, caller }) => editWaypoint(gw, actorOf(caller), params.id, params.wid, body), {
      gate: "actor",
      params: ONE,
      body: WAYPOINT_PATCH,
      detail: { summary: "Change a cache's waypoint (its owner): the fields sent change", tags: TAGS, responses: answers("the waypoint", WAYPOINT_ONE) },
    })
    .delete("/api/caches/:id/waypoints/:wid", ({ params, caller }) => deleteWaypoint(gw, actorOf(caller), params.id, params.wid), {
      gate: "actor",
      params: ONE,
      detail: { summary: "Delete a cache's waypoint (its owner)", tags: TAGS, responses: answers("deleted", DELETED) },
    });
}
