/**
 * The game's HTTP surface: caches, logs and their aliases. Thin: gate, parse,
 * call one service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { badRequest } from "../lib/errors.ts";
import { cellsParam } from "../http/params.ts";
import {
  actorOf,
  CACHE_BODY,
  CACHE_FILTER_QUERY,
  CACHE_KEY,
  CACHE_PATCH,
  callsign,
  distanceM,
  LOG_BODY,
  LOG_FIELDS,
  NATIVE_CACHE_ID,
  type Actor,
} from "./model.ts";
import { closed, nullable } from "../lib/schema.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import { CACHE_PAGE, CACHE_WITH_CONTACT, DELETED, LOG_POSTED, LOGBOOK, MAP_ANSWER, NEAR_ANSWER } from "./shapes.ts";
import { baseCall } from "../lib/callsign.ts";
import { cachePage, markFound } from "./cache-lookup.ts";
import { cachesInBox, parseBox } from "./cache-map.ts";
import { hideCache, updateCache } from "./cache-writes.ts";
import { parseFilters } from "./cache-filters.ts";
import { cachesNear, parseNear, PERSONAL_FILTER_QUERY, personalFilters, whereFrom } from "./near.ts";
import { deleteLog, logbook, logOnCache } from "./logs.ts";
import { FAVORITED, favoriteCache, myCacheState, RATED, rateCache, WATCHED, watchCache } from "./social.ts";
import { deleteMedia, listMedia, MEDIA_JSON, MEDIA_LIST, mediaFile, MAX_MEDIA_BYTES, MEDIA_TYPES, uploadMedia } from "./media.ts";
import { listStages, MAX_STAGES, setStages, STAGE_UNLOCKED, STAGES, unlockStage } from "./stages.ts";
import { ACTIVITY, activity, CORROBORATORS, corroborators, LEADERBOARD, leaderboard } from "./stats.ts";
import { FINDER_STATS, finderStats } from "./finder-stats.ts";
import { PERSONAL_BODY, personalOf, savePersonal, withCorrected } from "./personal.ts";
import { mediaType } from "../http/body.ts";
import { cacheGpx } from "../exports/exports.ts";
import { GPX_TYPE } from "../exports/gpx.ts";
import { PERSONAL_SAVED } from "./personal.ts";

/** The caller as an actor for reads: null when signed out (drafts stay hidden). */
const reader = (caller: Caller): Actor | null => (caller.user || caller.ingest ? actorOf(caller) : null);

const flag = (v: string | undefined) => v === "1" || v === "true";

const TAGS = ["Caches"];
const LOG_TAGS = ["Logs"];
const CACHE_PARAMS = t.Object({ id: CACHE_KEY });
const NATIVE_PARAMS = t.Object({ id: NATIVE_CACHE_ID });
const PAGE = {
  limit: t.Optional(t.Integer({ description: "how many" })),
  before: t.Optional(t.Integer({ description: "the `next` of the previous page" })),
};
const SINCE_LIMIT = t.Object({
  since: t.Optional(t.Integer({ description: "counted from, unix ms" })),
  limit: t.Optional(t.Integer({ description: "how many" })),
});
/** What a posted log answers: 201 the log, 200 the first log again (`replayed`). */
const LOGGED = { ...answers("the log", LOG_POSTED, 201), ...answers("the first log with this clientId, replayed", LOG_POSTED) };
/** A picture or audio file: its bytes, in the type it was uploaded with. */
const MEDIA_FILE = {
  "200": {
    description: "the file",
    content: Object.fromEntries(Object.keys(MEDIA_TYPES).map((type) => [type, answersMedia("the file", type)["200"]!.content[type]!])),
  },
};
const ALIAS_CACHE = t.Union([t.String(), t.Number()], { description: "the cache: its id or gid" });

/** The log of an alias route: `cache` names the cache. */
function aliasBody<B extends { cache: string | number }>(body: B): { cache: string; rest: Omit<B, "cache"> } {
  const { cache, ...rest } = body;
  return { cache: String(cache), rest };
}

export function gameRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get(
      "/api/caches",
      ({ query, caller }) => {
        const filters = { ...parseFilters(query), ...personalFilters(query, caller.user?.id ?? null) };
        if (query.near !== undefined) {
          if (query.bbox !== undefined) throw badRequest("invalid", "near and bbox together: give one of them");
          const at = parseNear(query.near);
          const n = cachesNear(gw, at, { limit: query.limit, filters });
          if (!caller.user) return n;
          // a corrected cache is where the player's solution puts it: its distance and bearing from there, nearest first again
          const mine = withCorrected(gw, caller.user.id, markFound(gw, caller.user.id, n.caches)).map((c) =>
            c.corrected ? { ...c, ...whereFrom(at, c, distanceM(at.lat, at.lon, c.lat, c.lon)) } : c,
          );
          return { caches: mine.sort((a, b) => a.distanceM - b.distanceM) };
        }
        if (query.bbox === undefined) throw badRequest("invalid", "bbox or near is required");
        const a = cachesInBox(gw, parseBox(query.bbox), {
          limit: query.limit,
          includeUnvetted: flag(query.unvetted),
          singles: flag(query.singles),
          cells: cellsParam(query.cells),
          filters,
        });
        return caller.user ? { ...a, caches: withCorrected(gw, caller.user.id, markFound(gw, caller.user.id, a.caches)) } : a;
      },
      {
        gate: "public",
        query: t.Object({
          ...CACHE_FILTER_QUERY,
          ...PERSONAL_FILTER_QUERY,
          bbox: t.Optional(t.String({ description: "minLon,minLat,maxLon,maxLat (GeoJSON order); minLon > maxLon crosses the antimeridian; bbox or near" })),
          limit: t.Optional(
            t.Integer({ description: "bbox: at most this many single caches before the answer is clustered, 1-2000; near: how many, 1-200 (20)" }),
          ),
          unvetted: t.Optional(t.String({ description: "1 or true: include mirrored caches of peers not yet vetted" })),
          singles: t.Optional(t.String({ description: "1 or true: single caches stay single while clustering" })),
          cells: t.Optional(t.String({ description: "clusters along the box's longer side, 4-64" })),
        }),
        detail: {
          summary: "Caches in a box, for the map (single caches, or clusters when there are many), or nearest a point (near=)",
          description: "Native and mirrored caches with the search filters; a signed-in user sees which they found.",
          tags: TAGS,
          responses: answers("bbox: the map's view of the box; near: the nearest caches", t.Union([MAP_ANSWER, NEAR_ANSWER])),
        },
      },
    )
    .post(
      "/api/caches",
      ({ body, caller, set }) => {
        set.status = 201;
        return hideCache(gw, actorOf(caller), body);
      },
      {
        gate: "actor",
        body: CACHE_BODY,
        detail: {
          summary: "Hide a cache (as a draft, or active)",
          tags: TAGS,
          responses: answers("the cache, with its contact fields", CACHE_WITH_CONTACT, 201),
        },
      },
    )
    .get(
      "/api/caches/:id",
      ({ params, caller }) => {
        const c = cachePage(gw, decodeURIComponent(params.id), reader(caller));
        if (!caller.user) return c;
        const personal = personalOf(gw, caller.user.id, c.gid);
        return typeof c.id === "number" ? { ...c, my: myCacheState(gw, caller.user.id, c.id), personal } : { ...c, personal };
      },
      {
        gate: "public",
        params: CACHE_PARAMS,
        detail: {
          summary:
            "One cache with its page's details and waypoints; a signed-in user also gets their rating, favorite and watch, and their personal note and corrected coordinates",
          tags: TAGS,
          responses: answers("the cache's page", CACHE_PAGE),
        },
      },
    )
    .put("/api/caches/:id/personal", ({ params, body, caller }) => savePersonal(gw, actorOf(caller), decodeURIComponent(params.id), body), {
      gate: "session",
      params: CACHE_PARAMS,
      body: PERSONAL_BODY,
      detail: {
        summary:
          "Your own note and corrected coordinates of a cache: on this instance only, never shared; your map, lists, GPX and saved areas put the cache there",
        tags: TAGS,
        responses: answers("the note as saved; null when both are cleared", PERSONAL_SAVED),
      },
    })
    .get(
      "/api/caches/:id/gpx",
      ({ params, caller, request }) => {
        const f = cacheGpx(gw, kit.baseUrl(request), decodeURIComponent(params.id), reader(caller));
        return new Response(f.gpx, { headers: { "content-type": GPX_TYPE, "content-disposition": `attachment; filename="${f.name}"` } });
      },
      {
        gate: "public",
        params: CACHE_PARAMS,
        detail: { summary: "One cache as a GPX file with its logs, for a GPS or c:geo", tags: TAGS, responses: answersMedia("the GPX file", GPX_TYPE) },
      },
    )
    .patch("/api/caches/:id", ({ params, body, caller }) => updateCache(gw, actorOf(caller), params.id, body), {
      gate: "actor",
      params: NATIVE_PARAMS,
      body: CACHE_PATCH,
      detail: {
        summary: "Edit a cache (its owner): the fields sent change, status along the lifecycle",
        tags: TAGS,
        responses: answers("the cache as changed, with its contact fields", CACHE_WITH_CONTACT),
      },
    })
    .get(
      "/api/caches/:id/logs",
      ({ params, query, caller }) => logbook(gw, decodeURIComponent(params.id), reader(caller), { limit: query.limit, before: query.before }),
      {
        gate: "public",
        params: CACHE_PARAMS,
        query: t.Object(PAGE),
        detail: { summary: "A cache's logbook, newest first, paged", tags: LOG_TAGS, responses: answers("the logs", LOGBOOK) },
      },
    )
    .post(
      "/api/caches/:id/logs",
      ({ params, body, caller, set }) => {
        const log = logOnCache(gw, actorOf(caller), decodeURIComponent(params.id), body);
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      {
        gate: "actor",
        params: CACHE_PARAMS,
        body: LOG_BODY,
        detail: {
          summary: "Log a find, a DNF or a note on a cache",
          description: "201 with the log; 200 with the first log when the same clientId is sent again.",
          tags: LOG_TAGS,
          responses: LOGGED,
        },
      },
    )
    .post(
      "/api/logs",
      ({ body, caller, set }) => {
        const { cache, rest } = aliasBody(body);
        const log = logOnCache(gw, actorOf(caller), cache, rest);
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      {
        gate: "actor",
        body: closed({ ...LOG_FIELDS, cache: ALIAS_CACHE }),
        detail: { summary: "Log on a cache named in the body (as POST /api/caches/{id}/logs)", tags: LOG_TAGS, responses: LOGGED },
      },
    )
    .post(
      "/api/logs/find",
      ({ body, caller, set }) => {
        const { cache, rest } = aliasBody(body);
        const log = logOnCache(gw, actorOf(caller), cache, { ...rest, kind: "find" });
        set.status = log.replayed ? 200 : 201;
        return log;
      },
      {
        gate: "actor",
        body: closed({ ...LOG_FIELDS, cache: ALIAS_CACHE, kind: t.Optional(t.Literal("find", { description: "this route logs finds" })) }),
        detail: { summary: "Log a find on a cache named in the body", tags: LOG_TAGS, responses: LOGGED },
      },
    )
    .delete("/api/logs/:id", ({ params, caller }) => deleteLog(gw, actorOf(caller), params.id), {
      gate: "actor",
      params: t.Object({ id: t.Integer({ description: "a log hidden on this instance: its numeric id" }) }),
      detail: { summary: "Withdraw a log (its author, or the cache's owner)", tags: LOG_TAGS, responses: answers("deleted", DELETED) },
    })
    .post("/api/caches/:id/rate", ({ params, body, caller }) => rateCache(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: NATIVE_PARAMS,
      body: closed({
        stars: nullable(t.Number({ minimum: 1, maximum: 5, multipleOf: 1 }), "1 to 5, or null to remove your rating"),
      }),
      detail: { summary: "Rate a cache you found, 1 to 5 stars", tags: TAGS, responses: answers("your rating and the cache's", RATED) },
    })
    .post("/api/caches/:id/favorite", ({ params, body, caller }) => favoriteCache(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: NATIVE_PARAMS,
      body: closed({ favorite: t.Optional(t.Boolean({ description: "default true" })) }),
      detail: {
        summary: "Mark a cache you found as a favorite, or unmark it",
        description: "The body may be left out (favorite).",
        tags: TAGS,
        responses: answers("whether it is your favorite, and the cache's favorites", FAVORITED),
      },
    })
    .post("/api/caches/:id/watch", ({ params, body, caller }) => watchCache(gw, actorOf(caller), params.id, body), {
      gate: "session",
      params: NATIVE_PARAMS,
      body: closed({ watch: t.Optional(t.Boolean({ description: "default true" })) }),
      detail: {
        summary: "Watch a cache: be told of its new logs",
        description: "The body may be left out (watch).",
        tags: TAGS,
        responses: answers("whether you watch it", WATCHED),
      },
    })
    .get("/api/caches/:id/media", ({ params, caller }) => listMedia(gw, params.id, reader(caller)), {
      gate: "public",
      params: NATIVE_PARAMS,
      detail: { summary: "A cache's pictures and audio files", tags: TAGS, responses: answers("the files, oldest first", MEDIA_LIST) },
    })
    .post(
      "/api/caches/:id/media",
      ({ params, body, caller, request, query, set }) => {
        set.status = 201;
        return uploadMedia(gw, actorOf(caller), params.id, mediaType(request.headers.get("content-type")), body, query.caption);
      },
      {
        gate: "actor",
        bodyLimit: MAX_MEDIA_BYTES,
        params: NATIVE_PARAMS,
        query: t.Object({ caption: t.Optional(t.String({ maxLength: 200, description: "at most 200 characters" })) }),
        body: t.Uint8Array({ description: `the file itself, sent with its type: ${Object.keys(MEDIA_TYPES).join(", ")}` }),
        detail: {
          summary: "Add a picture or an audio file to a cache (its owner, or one who logged it)",
          tags: TAGS,
          responses: answers("the file", MEDIA_JSON, 201),
        },
      },
    )
    .get(
      "/api/media/:id",
      ({ params }) => {
        const f = mediaFile(gw, params.id);
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
      {
        gate: "public",
        params: t.Object({ id: t.Integer({ description: "the file's numeric id" }) }),
        detail: { summary: "One picture or audio file of a cache", tags: TAGS, responses: MEDIA_FILE },
      },
    )
    .delete("/api/media/:id", ({ params, caller }) => deleteMedia(gw, actorOf(caller), params.id), {
      gate: "session",
      params: t.Object({ id: t.Integer({ description: "the file's numeric id" }) }),
      detail: { summary: "Delete a picture or audio file (its uploader, or the cache's owner)", tags: TAGS, responses: answers("deleted", DELETED) },
    })
    .get("/api/caches/:id/stages", ({ params, caller }) => listStages(gw, params.id, reader(caller)), {
      gate: "public",
      params: NATIVE_PARAMS,
      detail: {
        summary: "A multi-stage cache's stages: those the caller unlocked, and the next question",
        tags: TAGS,
        responses: answers("the stages", STAGES),
      },
    })
    .post("/api/caches/:id/stages", ({ params, body, caller }) => setStages(gw, actorOf(caller), params.id, body), {
      gate: "actor",
      params: NATIVE_PARAMS,
      body: closed({
        stages: t.Array(
          closed({
            title: t.String({ maxLength: 100 }),
            question: t.String({ maxLength: 1000 }),
            content: t.String({ maxLength: 4000, description: "shown once the stage is unlocked" }),
            answer: t.String({ maxLength: 200, description: "stored hashed" }),
            audioMediaId: t.Optional(nullable(t.Number({ multipleOf: 1 }), "an audio file of this cache")),
          }),
          { maxItems: MAX_STAGES, description: `at most ${MAX_STAGES}; replaces the cache's stages` },
        ),
      }),
      detail: { summary: "Set a cache's stages (its owner)", tags: TAGS, responses: answers("the stages as set", STAGES) },
    })
    .post(
      "/api/caches/:id/stages/:n/unlock",
      ({ params, body, caller }) => {
        if (params.n < 1) throw badRequest("invalid", "n is a stage number");
        return unlockStage(gw, actorOf(caller), params.id, params.n, body);
      },
      {
        gate: "actor",
        rateLimit: "auth",
        params: t.Object({ id: NATIVE_CACHE_ID, n: t.Integer({ description: "the stage number, from 1" }) }),
        body: closed({
          answer: t.String({ maxLength: 200 }),
          call: t.Optional(t.String({ description: "the player: only the ingest box names it" })),
        }),
        detail: {
          summary: "Answer a stage's question to unlock it, in order",
          tags: TAGS,
          responses: answers("the stage, unlocked, and the next", STAGE_UNLOCKED),
        },
      },
    )
    .get("/api/profile/:call/stats", ({ params }) => finderStats(gw, callsign(decodeURIComponent(params.call), "call")), {
      gate: "public",
      params: t.Object({ call: t.String({ description: "a callsign; its SSIDs count as one finder" }) }),
      detail: {
        summary: "A finder's statistics: the D/T grid, finds per calendar day, streaks, milestones, finds per type and the RF-proven share",
        tags: ["Game"],
        responses: answers("the finder's statistics", FINDER_STATS),
      },
    })
    .get("/api/leaderboard", ({ query }) => leaderboard(gw, { since: query.since, limit: query.limit }), {
      gate: "public",
      query: SINCE_LIMIT,
      detail: { summary: "Top finders and hiders", tags: ["Game"], responses: answers("the leaderboard", LEADERBOARD) },
    })
    .get(
      "/api/activity",
      ({ query }) => activity(gw, { since: query.since, limit: query.limit, call: query.call ? baseCall(callsign(query.call, "call")) : undefined }),
      {
        gate: "public",
        query: t.Object({
          since: t.Optional(t.Integer({ description: "from, unix ms" })),
          limit: t.Optional(t.Integer({ description: "how many, 1-200, default 50" })),
          call: t.Optional(t.String({ description: "only this callsign's (any SSID)" })),
        }),
        detail: { summary: "Recent finds, hides and notes, newest first", tags: ["Game"], responses: answers("the activity", ACTIVITY) },
      },
    )
    .get("/api/corroborators", ({ query }) => corroborators(gw, { since: query.since, limit: query.limit }), {
      gate: "public",
      query: SINCE_LIMIT,
      detail: { summary: "The IGates and digipeaters that heard the most RF finds", tags: ["Game"], responses: answers("the IGates", CORROBORATORS) },
    });
}
