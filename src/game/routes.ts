/**
 * The game's HTTP surface: caches, logs and their aliases. Thin: gate, parse,
 * call one service function.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin, type Caller } from "../http/gates.ts";
import { jsonObject } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { intParam } from "../stations/routes.ts";
import { setFindIngest } from "../stations/ingest-batch.ts";
import { actorOf, type Actor } from "./model.ts";
import { cacheDetail, cachesInBox, hideCache, parseBox, parseFilters, updateCache } from "./caches.ts";
import { deleteLog, ingestFinds, logbook, logOnCache } from "./logs.ts";
import { onPosition } from "./corroborate.ts";

/** The caller as an actor for reads: null when signed out (drafts stay hidden). */
const reader = (caller: Caller): Actor | null => (caller.user || caller.ingest ? actorOf(caller) : null);

const flag = (v: string | undefined) => v === "1" || v === "true";

/** The log body of an alias route: `cache` names the cache. */
function aliasBody(body: unknown, kind?: "find"): { cache: string; rest: Record<string, unknown> } {
  const { cache, ...rest } = jsonObject(body, "a log: {cache, kind, text, foundAt}");
  if (typeof cache !== "string" && typeof cache !== "number") throw badRequest("invalid", "cache is the cache's id or gid");
  if (kind) {
    if (rest.kind !== undefined && rest.kind !== kind) throw badRequest("invalid", "this route logs finds");
    rest.kind = kind;
  }
  return { cache: String(cache), rest };
}

export function gameRoutes(gw: Gateway) {
  gw.events.on("position", (p) => onPosition(gw, p));
  setFindIngest(gw, (g, finds, ctx) => ingestFinds(g, finds, ctx));
  return new Elysia({ name: "game" })
    .use(gatesPlugin(gw))
    .get("/api/caches", ({ query }) => {
      if (!query.bbox) throw badRequest("bad_bbox", "bbox is required: minLon,minLat,maxLon,maxLat");
      return cachesInBox(gw, parseBox(query.bbox), { limit: intParam(query.limit, "limit"), includeUnvetted: flag(query.unvetted), filters: parseFilters(query) });
    }, { gate: "public" })
    .post("/api/caches", ({ body, caller, set }) => {
      set.status = 201;
      return hideCache(gw, actorOf(caller), jsonObject(body, "a cache"));
    }, { gate: "actor" })
    .get("/api/caches/:id", ({ params, caller }) => cacheDetail(gw, decodeURIComponent(params.id), reader(caller)), { gate: "public" })
    .patch("/api/caches/:id", ({ params, body, caller }) => {
      const id = intParam(params.id, "id");
      if (id === undefined) throw badRequest("invalid", "id is a cache id");
      return updateCache(gw, actorOf(caller), id, jsonObject(body, "the fields to change"));
    }, { gate: "actor" })
    .get("/api/caches/:id/logs", ({ params, query, caller }) =>
      logbook(gw, decodeURIComponent(params.id), reader(caller), { limit: intParam(query.limit, "limit"), before: intParam(query.before, "before") }), { gate: "public" })
    .post("/api/caches/:id/logs", ({ params, body, caller, set }) => {
      set.status = 201;
      return logOnCache(gw, actorOf(caller), decodeURIComponent(params.id), jsonObject(body, "a log: {kind, text, foundAt}"));
    }, { gate: "actor" })
    .post("/api/logs", ({ body, caller, set }) => {
      const { cache, rest } = aliasBody(body);
      set.status = 201;
      return logOnCache(gw, actorOf(caller), cache, rest);
    }, { gate: "actor" })
    .post("/api/logs/find", ({ body, caller, set }) => {
      const { cache, rest } = aliasBody(body, "find");
      set.status = 201;
      return logOnCache(gw, actorOf(caller), cache, rest);
    }, { gate: "actor" })
    .delete("/api/logs/:id", ({ params, caller }) => {
      const id = intParam(params.id, "id");
      if (id === undefined) throw badRequest("invalid", "id is a log id");
      return deleteLog(gw, actorOf(caller), id);
    }, { gate: "actor" });
}
