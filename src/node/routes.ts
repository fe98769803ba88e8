/**
 * The node's HTTP surface: the MHeard list and the NET/ROM NODES table.
 * Reads are public (what a station hears on the air is public); writes are
 * sysop-gated.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { intParam } from "../stations/routes.ts";
import { mheard } from "./heard.ts";

export function nodeRoutes(gw: Gateway) {
  return new Elysia({ name: "node" })
    .use(gatesPlugin(gw))
    .get("/api/node/mheard", ({ query }) => ({ heard: mheard(gw, { port: query.port, limit: intParam(query.limit, "limit") }) }), { gate: "public" });
}
