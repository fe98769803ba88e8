/**
 * /api/v1: the versioned, stable read API. Every route is rate-limited per IP
 * (RateLimit-* headers), more with a free key from POST /api/v1.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { jsonObject } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { intParam } from "../http/params.ts";
import { baseUrl } from "../http/public-url.ts";
import { getStation, listStations, parseBbox } from "../stations/registry.ts";
import { leaderboard } from "../game/stats.ts";
import { buildInfo } from "../version.ts";
import { cacheLogs, getCache, issueApiKey, listCaches, listFinds } from "./service.ts";
import { openApi } from "./openapi.ts";
import { adifExport, gpxExport, kmlExport } from "../exports/exports.ts";
import { GPX_TYPE } from "../exports/gpx.ts";
import { KML_TYPE } from "../exports/kml.ts";
import { ADIF_TYPE } from "../exports/adif.ts";

const file = (body: string, type: string, name: string) =>
  new Response(body, { headers: { "content-type": type, "content-disposition": `attachment; filename="${name}"` } });

export function v1Routes(gw: Gateway) {
  const opts = { gate: "rate-limited" as const };
  return new Elysia({ name: "v1" })
    .use(gatesPlugin(gw))
    .get(
      "/api/v1",
      ({ request }) => ({
        api: "svc-gateway read API",
        version: 1,
        instance: gw.config.instance,
        openapi: `${baseUrl(gw, request)}/api/v1/openapi.json`,
        rateLimit: {
          perMinute: gw.config.rateLimitPerMinute,
          withKeyPerMinute: gw.config.rateLimitKeyPerMinute,
          keyHeader: "x-api-key",
          issueKey: "POST /api/v1",
        },
      }),
      opts,
    )
    .post(
      "/api/v1",
      ({ body, set }) => {
        set.status = 201;
        return issueApiKey(gw, body === undefined || body instanceof Uint8Array ? {} : jsonObject(body));
      },
      { gate: "rate-limited", rateLimit: "auth" },
    )
    .get("/api/v1/openapi.json", ({ request }) => openApi(baseUrl(gw, request), buildInfo().version), opts)
    .get(
      "/api/v1/caches",
      ({ query, request }) => listCaches(gw, baseUrl(gw, request), query, intParam(query.limit, "limit"), intParam(query.after, "after")),
      opts,
    )
    .get(
      "/api/v1/caches.gpx",
      ({ query, request }) => file(gpxExport(gw, baseUrl(gw, request), query, intParam(query.limit, "limit")), GPX_TYPE, "caches.gpx"),
      opts,
    )
    .get(
      "/api/v1/caches.kml",
      ({ query, request }) => file(kmlExport(gw, baseUrl(gw, request), query, intParam(query.limit, "limit")), KML_TYPE, "caches.kml"),
      opts,
    )
    .get("/api/v1/caches/:id", ({ params, request }) => getCache(gw, baseUrl(gw, request), decodeURIComponent(params.id)), opts)
    .get("/api/v1/caches/:id/logs", ({ params, query }) => cacheLogs(gw, decodeURIComponent(params.id), intParam(query.limit, "limit")), opts)
    .get(
      "/api/v1/finds",
      ({ query }) =>
        listFinds(gw, {
          call: query.call,
          kind: query.kind,
          since: intParam(query.since, "since"),
          limit: intParam(query.limit, "limit"),
          before: intParam(query.before, "before"),
        }),
      opts,
    )
    .get(
      "/api/v1/finds/:file",
      ({ params, query }) => {
        const m = /^(.+)\.adif$/i.exec(decodeURIComponent(params.file));
        if (!m) throw badRequest("invalid", "finds of a callsign as ADIF: /api/v1/finds/N0CALL.adif");
        return file(adifExport(gw, m[1]!, query.band), ADIF_TYPE, `${m[1]!.toUpperCase()}-finds.adif`);
      },
      opts,
    )
    .get(
      "/api/v1/stations",
      ({ query }) =>
        listStations(gw, {
          bbox: query.bbox ? parseBbox(query.bbox) : undefined,
          q: query.q,
          since: intParam(query.since, "since"),
          limit: intParam(query.limit, "limit"),
        }),
      opts,
    )
    .get("/api/v1/stations/:call", ({ params }) => getStation(gw, decodeURIComponent(params.call)), opts)
    .get("/api/v1/leaderboard", ({ query }) => leaderboard(gw, { since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") }), opts);
}
