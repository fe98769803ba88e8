/**
 * The node's HTTP surface: the MHeard list and the NET/ROM NODES table (the
 * best route to each node) with every route behind it.
 * Reads are public (what a station hears on the air is public); writes are
 * sysop-gated.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { counterSamples, mheard } from "./heard.ts";
import { editRoute, listRoutes, NODE_ROUTE_BODY, NODE_ROUTE_EDITED, nodeCall, nodesTable } from "./netrom.ts";
import { radioOf } from "./running-radio.ts";
import { answers } from "../http/openapi.ts";
import { COUNTERS, MHEARD, NODES } from "./shapes.ts";

const tags = ["Node"];

/** POST /api/node/nodes: a route set by hand (netrom.ts editRoute checks the callsigns and that quality comes unless remove). */

export function nodeRoutes(gw: Core, kit: RouteKit) {
  return (
    kit.app
      .get("/api/node/mheard", ({ query }) => ({ heard: mheard(gw, { port: query.port, limit: query.limit }) }), {
        gate: "public",
        query: t.Object({
          port: t.Optional(t.String({ description: "one radio port (an id from /api/ports); default all" })),
          limit: t.Optional(t.Integer({ description: "stations (default 200; 1-1000, beyond is clamped)" })),
        }),
        detail: { summary: "MHeard: the stations this node heard on the air, most recent first", tags, responses: answers("the stations heard", MHEARD) },
      })
      // Traffic history: what each counter of a port grew by per sample (every minute), PORT_COUNTERS_TTL_DAYS back.
      .get("/api/node/counters", ({ query }) => ({ port: query.port, samples: counterSamples(gw, query.port, query.since, query.limit) }), {
        gate: "public",
        query: t.Object({
          port: t.String({ minLength: 1, description: "the radio port: a port id from /api/ports" }),
          since: t.Optional(t.Integer({ description: "samples after this time (unix milliseconds)" })),
          limit: t.Optional(t.Integer({ description: "samples (default 1440; 1-10000, beyond is clamped)" })),
        }),
        detail: {
          summary: "A radio port's traffic history: what each counter grew by per minute",
          description: "Kept PORT_COUNTERS_TTL_DAYS back.",
          tags,
          responses: answers("the port's samples, oldest first", COUNTERS),
        },
      })
      .get(
        "/api/node/nodes",
        () => ({
          node: gw.config.nodeAlias
            ? {
                alias: gw.config.nodeAlias,
                call: nodeCall(gw),
                broadcastMinutes: gw.config.nodesIntervalMin,
                lastBroadcastAt: radioOf(gw)?.schedule.nodesAt ?? null,
              }
            : null,
          nodes: nodesTable(gw),
          routes: listRoutes(gw),
        }),
        {
          gate: "public",
          detail: {
            summary: "The NET/ROM node: its alias and call, the NODES table (best route to each node) and every route behind it",
            tags,
            responses: answers("the node, its NODES table and its routes", NODES),
          },
        },
      )
      .post("/api/node/nodes", ({ body }) => editRoute(gw, body), {
        gate: "sysop",
        body: NODE_ROUTE_BODY,
        detail: {
          summary: "Set a NET/ROM route by hand (quality, alias) or remove one",
          tags,
          responses: answers("the route as it is now (null once removed)", NODE_ROUTE_EDITED),
        },
      })
  );
}
