/**
 * What /api/v1 answers, for its OpenAPI document: the shapes of a cache and a
 * log (src/v1/shapes.ts) and of a station (src/stations/shapes.ts), the
 * schemas the services build to,
 * the RateLimit headers, and the responses each route names in its
 * `detail.responses`. A route declares the schema itself; the document names
 * a component's schema by its $ref (openapi.ts). The document itself (served at
 * /api/v1/openapi.json) is generated from the v1 routes (src/http/openapi.ts).
 */

import type { TSchema } from "@sinclair/typebox";
import { STATION_DETAIL, STATION_JSON, STATION_LIST } from "../stations/shapes.ts";
import { V1_CACHE, V1_CACHE_DETAIL, V1_EVENT_CACHE, V1_LOG, V1_NEAR_CACHE } from "./shapes.ts";

const RATE = {
  "RateLimit-Limit": { schema: { type: "integer" }, description: "requests allowed per minute" },
  "RateLimit-Remaining": { schema: { type: "integer" }, description: "requests left in this window" },
  "RateLimit-Reset": { schema: { type: "integer" }, description: "seconds until the window resets" },
};

/** A v1 route's responses: 200 with the RateLimit headers, bad input, too many requests, and 404 when it names one thing. */
export function v1Responses(description: string, schema: TSchema, o: { type?: string; status?: number; notFound?: boolean } = {}) {
  return {
    [String(o.status ?? 200)]: { description, headers: RATE, content: { [o.type ?? "application/json"]: { schema } } },
    "400": { $ref: "#/components/responses/Error" },
    ...(o.notFound ? { "404": { $ref: "#/components/responses/NotFound" } } : {}),
    "429": { $ref: "#/components/responses/RateLimited" },
  };
}

const COMPONENTS: Record<string, Record<string, unknown>> = {
  responses: {
    RateLimited: {
      description: "too many requests",
      headers: { ...RATE, "Retry-After": { schema: { type: "integer" } } },
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    },
    NotFound: { description: "no such resource", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
  },
  schemas: {
    Error: { type: "object", required: ["error", "message"], properties: { error: { type: "string" }, message: { type: "string" } } },
    Cache: V1_CACHE,
    NearCache: V1_NEAR_CACHE,
    EventCache: V1_EVENT_CACHE,
    CacheDetail: V1_CACHE_DETAIL,
    Log: V1_LOG,
    Station: STATION_JSON,
    StationList: STATION_LIST,
    StationDetail: STATION_DETAIL,
  },
};

/** The title, description and shared components of the /api/v1 document. */
export function v1DocumentInfo(version: string) {
  return {
    title: "svc-gateway read API",
    version: "1",
    prefix: "/api/v1",
    description:
      "The stable, versioned read API of a svc-gateway instance: caches, finds, stations, the leaderboard and exports. Throttled per IP; a free API key (POST /api/v1, sent as x-api-key) raises the limit. Software version " +
      version,
    components: COMPONENTS,
  };
}
