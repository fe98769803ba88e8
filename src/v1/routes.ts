/**
 * /api/v1: the versioned, stable read API. Every route is rate-limited per IP
 * (RateLimit-* headers), more with a free key from POST /api/v1. Its OpenAPI
 * document is generated from these routes' own schemas and details.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { openApiDocument } from "../http/openapi.ts";
import { getStation, listStations, parseBbox } from "../stations/registry.ts";
import { STATION_CALL, STATION_LIST_QUERY } from "../stations/model.ts";
import { CACHE_FILTER_QUERY, CACHE_KEY, callsign, LOG_KINDS } from "../game/model.ts";
import { leaderboard } from "../game/stats.ts";
import { buildInfo } from "../lib/version.ts";
import { API_KEY_BODY, cacheLogs, getCache, issueApiKey, listCaches, listFinds, publicList, publicListCaches, upcomingEvents, V1_MAX } from "./service.ts";
import { finderStats } from "../game/finder-stats.ts";
import { v1DocumentInfo, v1Responses } from "./openapi.ts";
import { adifExport, gpxExport, gpxOfCaches, kmlExport, MAX_EXPORT } from "../exports/exports.ts";
import { GPX_TYPE } from "../exports/gpx.ts";
import { KML_TYPE } from "../exports/kml.ts";
import { ADIF_TYPE } from "../exports/adif.ts";
import { closed } from "../lib/schema.ts";
import { LEADERBOARD } from "../game/stats.ts";
import { FINDER_STATS } from "../game/finder-stats.ts";
import { STATION_DETAIL, STATION_LIST } from "../stations/shapes.ts";
import { OPENAPI_DOCUMENT } from "../http/api-docs.ts";
import { V1_CACHE, V1_CACHE_DETAIL, V1_EVENT_CACHE, V1_INDEX, V1_KEY, V1_LIST, V1_LOG, V1_NEAR_CACHE, v1Page } from "./shapes.ts";

const file = (body: string, type: string, name: string) =>
  new Response(body, { headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"` } });

const TAGS = ["Read API"];
export function v1Routes(gw: Core, kit: RouteKit) {
  const opts = { gate: "rate-limited" as const };
  const docs = new Map<string, ReturnType<typeof openApiDocument>>();
  const app = kit.app
    .get(
      "/api/v1",
      ({ request }) => ({
        api: "svc-gateway read API",
        version: 1,
        instance: gw.config.instance,
        openapi: `${kit.baseUrl(request)}/api/v1/openapi.json`,
        rateLimit: {
          perMinute: gw.config.rateLimitPerMinute,
          withKeyPerMinute: gw.config.rateLimitKeyPerMinute,
          keyHeader: "x-api-key",
          issueKey: "POST /api/v1",
        },
      }),
      {
        ...opts,
        detail: {
          summary: "What this API offers: its document, its rate limits and how to get a key",
          tags: TAGS,
          responses: v1Responses("the index", V1_INDEX),
        },
      },
    )
    .post(
      "/api/v1",
      ({ body, set }) => {
        set.status = 201;
        return issueApiKey(gw, body);
      },
      {
        gate: "rate-limited",
        rateLimit: "auth",
        body: API_KEY_BODY,
        detail: {
          summary: "Issue a free API key that raises the rate limit",
          description: "Shown once; only its hash is stored. Send it as x-api-key. The body may be left out.",
          tags: TAGS,
          responses: v1Responses("the key", V1_KEY, { status: 201 }),
        },
      },
    )
    .get(
      "/api/v1/openapi.json",
      ({ request }) => {
        const base = kit.baseUrl(request);
        let d = docs.get(base);
        if (!d) docs.set(base, (d = openApiDocument(app, { ...v1DocumentInfo(buildInfo().version), base })));
        return d;
      },
      { ...opts, detail: { summary: "This API's OpenAPI 3.1 document", tags: TAGS, responses: v1Responses("OpenAPI 3.1", OPENAPI_DOCUMENT) } },
    )
    .get("/api/v1/caches", ({ query, request }) => listCaches(gw, kit.baseUrl(request), query, query.limit, query.after), {
      ...opts,
      query: t.Object({
        ...CACHE_FILTER_QUERY,
        near: t.Optional(
          t.String({ description: "LAT,LON: nearest first, each with distanceM and bearingDeg; one page (limit 1-200, default 20), not with bbox or after" }),
        ),
        limit: t.Optional(t.Integer({ description: `how many, 1-${V1_MAX}, default 100` })),
        after: t.Optional(t.Integer({ description: "the `next` of the previous page" })),
      }),
      detail: {
        summary: "Listed caches hidden on this instance, by id, paged (or nearest a point first with near=)",
        tags: TAGS,
        responses: v1Responses("a page: caches, or with near= caches with distanceM and bearingDeg", v1Page("caches", t.Union([V1_CACHE, V1_NEAR_CACHE]))),
      },
    })
    .get(
      "/api/v1/caches.gpx",
      ({ query, request, caller }) => file(gpxExport(gw, kit.baseUrl(request), query, query.limit, caller.user?.id ?? null), GPX_TYPE, "caches.gpx"),
      {
        ...opts,
        query: t.Object({ ...CACHE_FILTER_QUERY, limit: t.Optional(t.Integer({ description: `how many, 1-${MAX_EXPORT}, default ${MAX_EXPORT}` })) }),
        detail: {
          summary: "Caches as GPX 1.0 with the Groundspeak cache extension 1.0.1 (c:geo, GSAK, gpsbabel)",
          tags: TAGS,
          responses: v1Responses("the file", t.String(), { type: GPX_TYPE }),
        },
      },
    )
    .get("/api/v1/caches.kml", ({ query, request }) => file(kmlExport(gw, kit.baseUrl(request), query, query.limit), KML_TYPE, "caches.kml"), {
      ...opts,
      query: t.Object({ ...CACHE_FILTER_QUERY, limit: t.Optional(t.Integer({ description: `how many, 1-${MAX_EXPORT}` })) }),
      detail: { summary: "Caches as KML 2.2 for Google Earth", tags: TAGS, responses: v1Responses("the file", t.String(), { type: KML_TYPE }) },
    })
    .get("/api/v1/caches/:id", ({ params, request }) => getCache(gw, kit.baseUrl(request), decodeURIComponent(params.id)), {
      ...opts,
      params: t.Object({ id: CACHE_KEY }),
      detail: {
        summary: "One cache (a local id, or a trusted mirror's gid)",
        tags: TAGS,
        responses: v1Responses("the cache", V1_CACHE_DETAIL, { notFound: true }),
      },
    })
    .get("/api/v1/caches/:id/logs", ({ params, query }) => cacheLogs(gw, decodeURIComponent(params.id), query.limit), {
      ...opts,
      params: t.Object({ id: CACHE_KEY }),
      query: t.Object({ limit: t.Optional(t.Integer({ description: "how many, 1-500" })) }),
      detail: {
        summary: "A cache's logbook, newest first",
        tags: TAGS,
        responses: v1Responses("logs", closed({ logs: t.Array(V1_LOG) }), { notFound: true }),
      },
    })
    .get("/api/v1/finds", ({ query }) => listFinds(gw, { call: query.call, kind: query.kind, since: query.since, limit: query.limit, before: query.before }), {
      ...opts,
      query: t.Object({
        call: t.Optional(t.String({ description: "a callsign (any SSID)" })),
        kind: t.Optional(
          t.UnionEnum([...LOG_KINDS], { description: 'find (default), or another log kind: dnf, note, needs-maintenance, ... (docs/api.md "Log kinds")' }),
        ),
        since: t.Optional(t.Integer({ description: "foundAt at or after, unix ms" })),
        limit: t.Optional(t.Integer({ description: `how many, 1-${V1_MAX}, default 100` })),
        before: t.Optional(t.Integer({ description: "the `next` of the previous page" })),
      }),
      detail: { summary: "Logs on this instance, newest first, paged", tags: TAGS, responses: v1Responses("a page", v1Page("finds", V1_LOG)) },
    })
    .get(
      "/api/v1/finds/:file",
      ({ params, query }) => {
        const call = decodeURIComponent(params.file).slice(0, -".adif".length);
        return file(adifExport(gw, call, query.band), ADIF_TYPE, `${call.toUpperCase()}-finds.adif`);
      },
      {
        ...opts,
        params: t.Object({ file: t.String({ pattern: "^.+\\.[Aa][Dd][Ii][Ff]$", description: "a callsign and .adif, e.g. N0CALL.adif" }) }),
        query: t.Object({
          band: t.Optional(
            t.String({ pattern: "^\\d{1,4}(\\.\\d+)?([mM]|[cC][mM]|[mM][mM])$", description: "the ADIF band to write, e.g. 2m or 70cm (default 2m)" }),
          ),
        }),
        detail: {
          summary: "ADIF 3.1.4: a callsign's RF-verified finds as contacts (the IGate that heard the finder at the cache)",
          tags: TAGS,
          responses: v1Responses("the file", t.String(), { type: ADIF_TYPE }),
        },
      },
    )
    .get("/api/v1/events", ({ query, request }) => upcomingEvents(gw, kit.baseUrl(request), query.near, query.limit), {
      ...opts,
      query: t.Object({
        near: t.Optional(t.String({ description: "LAT,LON (required): events nearest this point first" })),
        limit: t.Optional(t.Integer({ description: "how many, 1-200, default 20" })),
      }),
      detail: {
        summary: "Upcoming events (not yet over) of this instance, nearest a point first, each with distanceM (as /api/events)",
        tags: TAGS,
        responses: v1Responses("events", closed({ events: t.Array(V1_EVENT_CACHE) })),
      },
    })
    .get(
      "/api/v1/lists/:id",
      ({ params, request }) => {
        const base = kit.baseUrl(request);
        const gpx = params.id.toLowerCase().endsWith(".gpx");
        const id = Number(gpx ? params.id.slice(0, -".gpx".length) : params.id);
        if (!gpx) return publicList(gw, base, id);
        // v1 reads as nobody: the list's GPX with no one's corrected coordinates.
        return file(gpxOfCaches(gw, base, publicListCaches(gw, id).caches, null), GPX_TYPE, `list-${id}.gpx`);
      },
      {
        ...opts,
        params: t.Object({
          id: t.String({
            pattern: "^[1-9][0-9]{0,15}(\\.[Gg][Pp][Xx])?$",
            description: "a public list's id, or its id and .gpx for its GPX file, e.g. 12.gpx",
          }),
        }),
        detail: {
          summary: "A public bookmark list with its caches (or, as ID.gpx, its caches as GPX); a private list is a 404 like an unknown one",
          tags: TAGS,
          responses: v1Responses("the list", V1_LIST, { notFound: true }),
        },
      },
    )
    .get("/api/v1/profiles/:call/stats", ({ params }) => finderStats(gw, callsign(decodeURIComponent(params.call), "call")), {
      ...opts,
      params: t.Object({ call: t.String({ description: "a callsign; its SSIDs count as one finder" }) }),
      detail: {
        summary: "A finder's statistics (as /api/profile/:call/stats): the D/T grid, finds per day, streaks, milestones, per type, RF-proven share",
        tags: TAGS,
        responses: v1Responses("the statistics", FINDER_STATS),
      },
    })
    .get(
      "/api/v1/stations",
      ({ query }) => listStations(gw, { bbox: query.bbox ? parseBbox(query.bbox) : undefined, q: query.q, since: query.since, limit: query.limit }),
      {
        ...opts,
        query: t.Object(STATION_LIST_QUERY),
        detail: {
          summary: "Stations heard, newest first",
          tags: TAGS,
          responses: v1Responses("stations", STATION_LIST),
        },
      },
    )
    .get("/api/v1/stations/:call", ({ params }) => getStation(gw, decodeURIComponent(params.call)), {
      ...opts,
      params: t.Object({ call: STATION_CALL }),
      detail: { summary: "One station with its recent track", tags: TAGS, responses: v1Responses("the station", STATION_DETAIL, { notFound: true }) },
    })
    .get("/api/v1/leaderboard", ({ query }) => leaderboard(gw, { since: query.since, limit: query.limit }), {
      ...opts,
      query: t.Object({
        since: t.Optional(t.Integer({ description: "count finds and hides since, unix ms" })),
        limit: t.Optional(t.Integer({ description: "how many of each, 1-100, default 20" })),
      }),
      detail: {
        summary: "Top finders and hiders",
        tags: TAGS,
        responses: v1Responses("the leaderboard", LEADERBOARD),
      },
    });
  return app;
}
