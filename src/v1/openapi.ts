/** The OpenAPI 3.1 document of /api/v1, served at /api/v1/openapi.json. */
import { CACHE_SIZES, CACHE_TYPES } from "../game/model.ts";
import { MAX_EXPORT } from "../exports/exports.ts";
import { V1_MAX } from "./service.ts";

const q = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }, required = false) => ({
  name,
  in: "query",
  required,
  description,
  schema,
});
const p = (name: string, description: string) => ({ name, in: "path", required: true, description, schema: { type: "string" } });
const FILTERS = [
  q("bbox", "minLon,minLat,maxLon,maxLat (GeoJSON order); minLon > maxLon crosses the antimeridian"),
  q("q", "text in the name, code, owner or description"),
  q("type", `comma list of ${CACHE_TYPES.join(", ")}, living`),
  q("size", `comma list of ${CACHE_SIZES.join(", ")}`),
  q("difficulty", "a value or a range, e.g. 1.5-3"),
  q("terrain", "a value or a range, e.g. 1-2.5"),
  q("owner", "owner callsign (any SSID)"),
];
const RATE = {
  "RateLimit-Limit": { schema: { type: "integer" }, description: "requests allowed per minute" },
  "RateLimit-Remaining": { schema: { type: "integer" }, description: "requests left in this window" },
  "RateLimit-Reset": { schema: { type: "integer" }, description: "seconds until the window resets" },
};
const ok = (description: string, schema: Record<string, unknown>, type = "application/json") => ({
  "200": { description, headers: RATE, content: { [type]: { schema } } },
  "400": { $ref: "#/components/responses/Error" },
  "429": { $ref: "#/components/responses/RateLimited" },
});
const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });

export function openApi(base: string, version: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "svc-gateway read API",
      version: "1",
      description:
        "The stable, versioned read API of a svc-gateway instance: caches, finds, stations, the leaderboard and exports. Throttled per IP; a free API key (POST /api/v1, sent as x-api-key) raises the limit. Software version " +
        version,
    },
    servers: [{ url: base }],
    components: {
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key" } },
      responses: {
        Error: { description: "bad input", content: { "application/json": { schema: ref("Error") } } },
        RateLimited: {
          description: "too many requests",
          headers: { ...RATE, "Retry-After": { schema: { type: "integer" } } },
          content: { "application/json": { schema: ref("Error") } },
        },
        NotFound: { description: "no such resource", content: { "application/json": { schema: ref("Error") } } },
      },
      schemas: {
        Error: { type: "object", required: ["error", "message"], properties: { error: { type: "string" }, message: { type: "string" } } },
        Cache: {
          type: "object",
          required: ["id", "gid", "code", "name", "type", "size", "difficulty", "terrain", "lat", "lon", "status"],
          properties: {
            id: { oneOf: [{ type: "integer" }, { type: "string" }], description: "local id, or the gid of a mirrored cache" },
            gid: { type: "string" },
            code: { type: "string" },
            url: { type: "string" },
            name: { type: "string" },
            type: { type: "string" },
            size: { type: "string" },
            difficulty: { type: "number", minimum: 1, maximum: 5, multipleOf: 0.5 },
            terrain: { type: "number", minimum: 1, maximum: 5, multipleOf: 0.5 },
            lat: { type: "number" },
            lon: { type: "number" },
            status: { type: "string", enum: ["active", "disabled", "archived"] },
            hint: { type: ["string", "null"] },
            description: { type: ["string", "null"] },
            ownerCall: { type: ["string", "null"] },
            placedAt: { type: ["integer", "null"], description: "unix ms" },
            updatedAt: { type: "integer" },
            origin: { type: "string" },
            finds: { type: "integer" },
            favorites: { type: "integer" },
            rating: { type: "object", properties: { average: { type: ["number", "null"] }, count: { type: "integer" } } },
          },
        },
        Log: {
          type: "object",
          properties: {
            id: { oneOf: [{ type: "integer" }, { type: "string" }] },
            gid: { type: "string" },
            cacheGid: { type: "string" },
            kind: { type: "string", enum: ["find", "dnf", "note"] },
            call: { type: ["string", "null"] },
            text: { type: ["string", "null"] },
            foundAt: { type: "integer" },
            tier: { type: ["string", "null"], enum: ["a", "b", "c", null] },
            state: { type: "string", enum: ["active", "withdrawn"] },
            igate: { type: ["string", "null"] },
            distanceM: { type: ["number", "null"] },
            origin: { type: "string" },
          },
        },
        Station: {
          type: "object",
          properties: { call: { type: "string" }, lat: { type: "number" }, lon: { type: "number" }, lastHeard: { type: "integer" } },
          additionalProperties: true,
        },
      },
    },
    security: [{}, { apiKey: [] }],
    paths: {
      "/api/v1": {
        get: { summary: "What this API offers", responses: ok("the index", { type: "object" }) },
        post: {
          summary: "Issue a free API key",
          description: "Shown once; only its hash is stored. Send it as x-api-key.",
          requestBody: { content: { "application/json": { schema: { type: "object", properties: { label: { type: "string", maxLength: 80 } } } } } },
          responses: {
            "201": {
              description: "the key",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { key: { type: "string" }, id: { type: "integer" }, label: { type: ["string", "null"] }, limitPerMinute: { type: "integer" } },
                  },
                },
              },
            },
            "429": { $ref: "#/components/responses/RateLimited" },
          },
        },
      },
      "/api/v1/openapi.json": { get: { summary: "This document", responses: ok("OpenAPI 3.1", { type: "object" }) } },
      "/api/v1/caches": {
        get: {
          summary: "Listed caches hidden on this instance, by id, paged",
          parameters: [
            ...FILTERS,
            q("limit", `1-${V1_MAX}, default 100`, { type: "integer" }),
            q("after", "the `next` of the previous page", { type: "integer" }),
          ],
          responses: ok("a page", { type: "object", properties: { caches: { type: "array", items: ref("Cache") }, next: { type: ["integer", "null"] } } }),
        },
      },
      "/api/v1/caches.gpx": {
        get: {
          summary: "GPX 1.0 with the Groundspeak cache extension 1.0.1 (c:geo, GSAK, gpsbabel)",
          parameters: [...FILTERS, q("limit", `1-${MAX_EXPORT}, default ${MAX_EXPORT}`, { type: "integer" })],
          responses: ok("the file", { type: "string" }, "application/gpx+xml"),
        },
      },
      "/api/v1/caches.kml": {
        get: {
          summary: "KML 2.2 for Google Earth",
          parameters: [...FILTERS, q("limit", `1-${MAX_EXPORT}`, { type: "integer" })],
          responses: ok("the file", { type: "string" }, "application/vnd.google-earth.kml+xml"),
        },
      },
      "/api/v1/caches/{id}": {
        get: {
          summary: "One cache (a local id, or a trusted mirror's gid)",
          parameters: [p("id", "id or gid")],
          responses: { ...ok("the cache", ref("Cache")), "404": { $ref: "#/components/responses/NotFound" } },
        },
      },
      "/api/v1/caches/{id}/logs": {
        get: {
          summary: "A cache's logbook, newest first",
          parameters: [p("id", "id or gid"), q("limit", "1-500", { type: "integer" })],
          responses: ok("logs", { type: "object", properties: { logs: { type: "array", items: ref("Log") } } }),
        },
      },
      "/api/v1/finds": {
        get: {
          summary: "Logs on this instance, newest first",
          parameters: [
            q("call", "a callsign (any SSID)"),
            q("kind", "find (default), dnf or note"),
            q("since", "foundAt at or after, unix ms", { type: "integer" }),
            q("limit", `1-${V1_MAX}`, { type: "integer" }),
            q("before", "the `next` of the previous page", { type: "integer" }),
          ],
          responses: ok("a page", { type: "object", properties: { finds: { type: "array", items: ref("Log") }, next: { type: ["integer", "null"] } } }),
        },
      },
      "/api/v1/finds/{call}.adif": {
        get: {
          summary: "ADIF 3.1.4: a callsign's RF-verified finds as contacts (the IGate that heard the finder at the cache)",
          parameters: [p("call", "a callsign"), q("band", "ADIF band to write (default 2m)")],
          responses: ok("the file", { type: "string" }, "text/plain"),
        },
      },
      "/api/v1/stations": {
        get: {
          summary: "Stations heard, newest first",
          parameters: [
            q("bbox", "minLon,minLat,maxLon,maxLat"),
            q("q", "call prefix or comment text"),
            q("since", "unix ms", { type: "integer" }),
            q("limit", "1-5000", { type: "integer" }),
          ],
          responses: ok("stations", { type: "object", properties: { stations: { type: "array", items: ref("Station") }, truncated: { type: "boolean" } } }),
        },
      },
      "/api/v1/stations/{call}": {
        get: {
          summary: "One station with its recent track",
          parameters: [p("call", "callsign or object name")],
          responses: { ...ok("the station", ref("Station")), "404": { $ref: "#/components/responses/NotFound" } },
        },
      },
      "/api/v1/leaderboard": {
        get: {
          summary: "Top finders and hiders",
          parameters: [q("since", "unix ms", { type: "integer" }), q("limit", "1-100", { type: "integer" })],
          responses: ok("the leaderboard", { type: "object", properties: { finders: { type: "array" }, hiders: { type: "array" } } }),
        },
      },
    },
  };
}
