/** `GET /api/search`: the header's search box. */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { intParam } from "../http/params.ts";
import { viewerOf } from "../bbs/access.ts";
import { search } from "./service.ts";

export function searchRoutes(gw: Gateway) {
  return new Elysia({ name: "search" })
    .use(gatesPlugin(gw))
    .get("/api/search", ({ query, caller }) => search(gw, query, viewerOf(gw, caller), intParam(query.limit, "limit")), { gate: "public" });
}
