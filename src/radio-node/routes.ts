/**
 * The node's HTTP surface: the MHeard list and the NET/ROM NODES table (the
 * best route to each node) with every route behind it.
 * Reads are public (what a station hears on the air is public); writes are
 * sysop-gated.
 */
import { Elysia, t } from "elysia";
import { wholeNumber } from "../http/params.ts";
import type { Gateway } from "../http/gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { counterSamples, mheard } from "./heard.ts";
import { editRoute, listRoutes, nodeCall, nodesTable } from "./netrom.ts";
import { radioOf } from "./running-radio.ts";

/** A whole number in a JSON body (Elysia's t.Integer would also take the string "5"). */

const tags = ["Node"];

export function nodeRoutes(gw: Gateway) {
  return (
    new Elysia({ name: "node" })
      .use(gatesPlugin(gw))
      .get("/api/node/mheard", ({ query }) => ({ heard: mheard(gw, { port: query.port, limit: query.limit }) }), {
        gate: "public",
        query: t.Object({
          port: t.Optional(t.String({ description: "one radio port (an id from /api/ports); default all" })),
          limit: t.Optional(t.Integer({ description: "stations (default 200; 1-1000, beyond is clamped)" })),
        }),
        detail: { summary: "MHeard: the stations this node heard on the air, most recent first", tags },
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
          detail: { summary: "The NET/ROM node: its alias and call, the NODES table (best route to each node) and every route behind it", tags },
        },
      )
      .post("/api/node/nodes", ({ body }) => editRoute(gw, body), {
        gate: "sysop",
        body: t.Object(
          {
            call: t.String({ description: "the node's callsign, e.g. N0NODE-7" }),
            neighbour: t.String({ description: "the neighbour the route goes through, e.g. N0NBR-7" }),
            alias: t.Optional(t.String({ pattern: "^([A-Za-z0-9#_-]{1,6})?$", description: "the node's alias, 1-6 of A-Z 0-9 # _ -" })),
            quality: t.Optional(wholeNumber({ minimum: 0, maximum: 255, description: "0-255 (required unless remove)" })),
            port: t.Optional(t.String({ maxLength: 200, description: "the radio port the neighbour is on" })),
            remove: t.Optional(t.Boolean({ description: "true: remove this route instead" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "Set a NET/ROM route by hand (quality, alias) or remove one", tags },
      })
  );
}
