/**
 * The station registry's HTTP surface: decoding, ingest, stations, messages,
 * ports, own stations, weather push and the transmit queue. Thin: each route
 * checks its gate, parses, calls one service function.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { decodeLine, lineFromBody } from "./decode-route.ts";

export function stationsRoutes(gw: Gateway) {
  return new Elysia({ name: "stations" })
    .use(gatesPlugin(gw))
    .post("/api/decode", ({ body }) => decodeLine(lineFromBody(body)), { gate: "public" });
}
