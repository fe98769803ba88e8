/**
 * The node's HTTP surface: the MHeard list and the NET/ROM NODES table (the
 * best route to each node) with every route behind it.
 * Reads are public (what a station hears on the air is public); writes are
 * sysop-gated.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { intParam } from "../http/params.ts";
import { counterSamples, mheard } from "./heard.ts";
import { badRequest } from "../errors.ts";
import { editRoute, listRoutes, nodeCall, nodesTable } from "./netrom.ts";
import { radioOf } from "./radio.ts";

export function nodeRoutes(gw: Gateway) {
  return (
    new Elysia({ name: "node" })
      .use(gatesPlugin(gw))
      .get("/api/node/mheard", ({ query }) => ({ heard: mheard(gw, { port: query.port, limit: intParam(query.limit, "limit") }) }), { gate: "public" })
      // Traffic history: what each counter of a port grew by per sample (every minute), PORT_COUNTERS_TTL_DAYS back.
      .get(
        "/api/node/counters",
        ({ query }) => {
          if (!query.port) throw badRequest("invalid", "port is required: a port id from /api/ports");
          return { port: query.port, samples: counterSamples(gw, query.port, intParam(query.since, "since"), intParam(query.limit, "limit")) };
        },
        { gate: "public" },
      )
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
        { gate: "public" },
      )
      .post("/api/node/nodes", ({ body }) => editRoute(gw, body), { gate: "sysop" })
  );
}
