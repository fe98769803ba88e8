/**
 * The game's HTTP surface: caches, logs and their aliases. Thin: gate, parse,
 * call one service function.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest } from "../errors.ts";
import { cellsParam, intParam } from "../http/params.ts";
import { setFindIngest } from "../stations/ingest-batch.ts";
import { actorOf, callsign, type Actor } from "./model.ts";
import { baseCall } from "../callsign.ts";
import { cacheDetail, cachesInBox, hideCache, markFound, parseBox, parseFilters, updateCache } from "./caches.ts";
import { deleteLog, ingestFinds, logbook, logOnCache } from "./logs.ts";
import { favoriteCache, myCacheState, rateCache, watchCache } from "./social.ts";
import { deleteMedia, listMedia, mediaFile, MAX_MEDIA_BYTES, uploadMedia } from "./media.ts";
import { listStages, setStages, unlockStage } from "./stages.ts";
import { activity, corroborators, leaderboard } from "./stats.ts";
import { allowLargerBody, jsonObject, mediaType } from "../http/body.ts";
import { baseUrl } from "../http/public-url.ts";
import { cacheGpx } from "../exports/exports.ts";
import { GPX_TYPE } from "../exports/gpx.ts";

allowLargerBody("POST", /^\/api\/caches\/[^/]+\/media$/, MAX_MEDIA_BYTES);

/** A path id that must be a native cache's numeric id. */
function nativeId(raw: string): number {
  const id = intParam(raw, "id");
  if (id === undefined) throw badRequest("invalid", "id is a cache id");
  return id;
}

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
  setFindIngest(gw, (g, finds, ctx) => ingestFinds(g, finds, ctx));
  return new Elysia({ name: "game" })
    .use(gatesPlugin(gw))
    .get(
      "/api/caches",
      ({ query, caller }) => {
        if (!query.bbox) throw badRequest("bad_bbox", "bbox is required: minLon,minLat,maxLon,maxLat");
        const a = cachesInBox(gw, parseBox(query.bbox), {
          limit: intParam(query.limit, "limit"),
          includeUnvetted: flag(query.unvetted),
          singles: flag(query.singles),
          cells: cellsParam(query.cells),
          filters: parseFilters(query),
        });
        return caller.user ? { ...a, caches: markFound(gw, caller.user.id, a.caches) } : a;
      },
      { gate: "public" },
    )
    .post(
      "/api/caches",
      ({ body, caller, set }) => {
        set.status = 201;
        return hideCache(gw, actorOf(caller), jsonObject(body, "a cache"));
      },
      { gate: "actor" },
    )
    .get(
      "/api/caches/:id",
      ({ params, caller }) => {
        const c = cacheDetail(gw, decodeURIComponent(params.id), reader(caller));
        return caller.user && typeof c.id === "number" ? { ...c, my: myCacheState(gw, caller.user.id, c.id) } : c;
      },
      { gate: "public" },
    )
    .get(
      "/api/caches/:id/gpx",
      ({ params, caller, request }) => {
        const f = cacheGpx(gw, baseUrl(gw, request), decodeURIComponent(params.id), reader(caller));
        return new Response(f.gpx, { headers: { "content-type": GPX_TYPE, "content-disposition": `attachment; filename="${f.name}"` } });
      },
      { gate: "public" },
    )
    .patch(
      "/api/caches/:id",
      ({ params, body, caller }) => {
        const id = intParam(params.id, "id");
        if (id === undefined) throw badRequest("invalid", "id is a cache id");
        return updateCache(gw, actorOf(caller), id, jsonObject(body, "the fields to change"));
      },
      { gate: "actor" },
    )
    .get(
      "/api/caches/:id/logs",
      ({ params, query, caller }) =>
        logbook(gw, decodeURIComponent(params.id), reader(caller), { limit: intParam(query.limit, "limit"), before: intParam(query.before, "before") }),
      { gate: "public" },
    )
    .post(
      "/api/caches/:id/logs",
      ({ params, body, caller, set }) => {
        const log = logOnCache(gw, actorOf(caller), decodeURIComponent(params.id), jsonObject(body, "a log: {kind, text, foundAt, clientId}"));
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      { gate: "actor" },
    )
    .post(
      "/api/logs",
      ({ body, caller, set }) => {
        const { cache, rest } = aliasBody(body);
        const log = logOnCache(gw, actorOf(caller), cache, rest);
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      { gate: "actor" },
    )
    .post(
      "/api/logs/find",
      ({ body, caller, set }) => {
        const { cache, rest } = aliasBody(body, "find");
        const log = logOnCache(gw, actorOf(caller), cache, rest);
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      { gate: "actor" },
    )
    .delete(
      "/api/logs/:id",
      ({ params, caller }) => {
        const id = intParam(params.id, "id");
        if (id === undefined) throw badRequest("invalid", "id is a log id");
        return deleteLog(gw, actorOf(caller), id);
      },
      { gate: "actor" },
    )
    .post("/api/caches/:id/rate", ({ params, body, caller }) => rateCache(gw, actorOf(caller), params.id, jsonObject(body, "{stars}")), { gate: "session" })
    .post(
      "/api/caches/:id/favorite",
      ({ params, body, caller }) => favoriteCache(gw, actorOf(caller), params.id, body === undefined || body instanceof Uint8Array ? {} : jsonObject(body)),
      { gate: "session" },
    )
    .post(
      "/api/caches/:id/watch",
      ({ params, body, caller }) => watchCache(gw, actorOf(caller), params.id, body === undefined || body instanceof Uint8Array ? {} : jsonObject(body)),
      { gate: "session" },
    )
    .get("/api/caches/:id/media", ({ params, caller }) => listMedia(gw, nativeId(params.id), reader(caller)), { gate: "public" })
    .post(
      "/api/caches/:id/media",
      ({ params, body, caller, request, query, set }) => {
        set.status = 201;
        return uploadMedia(gw, actorOf(caller), nativeId(params.id), mediaType(request.headers.get("content-type")), body, query.caption);
      },
      { gate: "actor" },
    )
    .get(
      "/api/media/:id",
      ({ params }) => {
        const f = mediaFile(gw, nativeId(params.id));
        return new Response(f.bytes as Uint8Array<ArrayBuffer>, {
          headers: {
            "content-type": f.type,
            "cache-control": "public, max-age=86400",
            etag: `"${f.sha256}"`,
            "content-security-policy": "default-src 'none'",
            "x-content-type-options": "nosniff",
          },
        });
      },
      { gate: "public" },
    )
    .delete("/api/media/:id", ({ params, caller }) => deleteMedia(gw, actorOf(caller), nativeId(params.id)), { gate: "session" })
    .get("/api/caches/:id/stages", ({ params, caller }) => listStages(gw, nativeId(params.id), reader(caller)), { gate: "public" })
    .post("/api/caches/:id/stages", ({ params, body, caller }) => setStages(gw, actorOf(caller), nativeId(params.id), jsonObject(body, "{stages: [...]}")), {
      gate: "actor",
    })
    .post(
      "/api/caches/:id/stages/:n/unlock",
      ({ params, body, caller }) => {
        const n = intParam(params.n, "n");
        if (n === undefined || n < 1) throw badRequest("invalid", "n is a stage number");
        return unlockStage(gw, actorOf(caller), nativeId(params.id), n, jsonObject(body, "{answer}"));
      },
      { gate: "actor", rateLimit: "auth" },
    )
    .get("/api/leaderboard", ({ query }) => leaderboard(gw, { since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") }), {
      gate: "public",
    })
    .get(
      "/api/activity",
      ({ query }) =>
        activity(gw, {
          since: intParam(query.since, "since"),
          limit: intParam(query.limit, "limit"),
          call: query.call ? baseCall(callsign(query.call, "call")) : undefined,
        }),
      { gate: "public" },
    )
    .get("/api/corroborators", ({ query }) => corroborators(gw, { since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") }), {
      gate: "public",
    });
}
