/**
 * What /api/v1 answers, for its OpenAPI document: the shapes of a cache, a log
 * and a station, the RateLimit headers, and the responses each route names in
 * its `detail.responses`. The document itself (served at
 * /api/v1/openapi.json) is generated from the v1 routes (src/http/openapi.ts).
 */

import { LOG_KINDS } from "../game/model.ts";

const RATE = {
  "RateLimit-Limit": { schema: { type: "integer" }, description: "requests allowed per minute" },
  "RateLimit-Remaining": { schema: { type: "integer" }, description: "requests left in this window" },
  "RateLimit-Reset": { schema: { type: "integer" }, description: "seconds until the window resets" },
};

/** A shared schema of the document, by name. */
export const ref = (name: "Cache" | "Log" | "Station") => ({ $ref: `#/components/schemas/${name}` });

/** A v1 route's responses: 200 with the RateLimit headers, bad input, too many requests, and 404 when it names one thing. */
export function v1Responses(description: string, schema: Record<string, unknown>, o: { type?: string; status?: number; notFound?: boolean } = {}) {
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
        attributes: {
          type: "array",
          description: "Groundspeak attributes set yes (inc true) or no, by id",
          items: { type: "object", required: ["id", "inc"], properties: { id: { type: "integer" }, inc: { type: "boolean" } } },
        },
        needsMaintenance: { type: "boolean", description: "a needs-maintenance or needs-archive log is open" },
        event: {
          type: "object",
          description: "event and cito caches: the day and times in timeZone, and the instants (unix ms)",
          properties: {
            date: { type: "string" },
            start: { type: "string" },
            end: { type: "string" },
            timeZone: { type: "string" },
            startAt: { type: "integer" },
            endAt: { type: "integer" },
          },
        },
        origin: { type: "string" },
        finds: { type: "integer" },
        favorites: { type: "integer" },
        rating: { type: "object", properties: { average: { type: ["number", "null"] }, count: { type: "integer" } } },
        waypoints: {
          type: "array",
          description: "one cache only (GET /api/v1/caches/{id}): its waypoints, never the final",
          items: {
            type: "object",
            required: ["kind", "code", "name"],
            properties: {
              kind: { type: "string", description: "parking, physical-stage, virtual-stage, question, trailhead, reference" },
              code: { type: "string" },
              name: { type: "string" },
              lat: { type: ["number", "null"] },
              lon: { type: ["number", "null"] },
              note: { type: ["string", "null"] },
            },
          },
        },
      },
    },
    Log: {
      type: "object",
      properties: {
        id: { oneOf: [{ type: "integer" }, { type: "string" }] },
        gid: { type: "string" },
        cacheGid: { type: "string" },
        kind: {
          type: "string",
          enum: [...LOG_KINDS],
          description: 'only find counts as a find (docs/api.md "Log kinds")',
        },
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
