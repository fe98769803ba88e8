/**
 * SVCB1 presence beacons over HTTP: this instance's datagrams (presence, or
 * with ?record=have its have-list; for an ingest box to put on the air), and
 * heard datagrams handed in by the box.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { applyBeacon, BEACON_MAX_BYTES, ownBeacon, ownHaveList } from "./beacon.ts";
import { closed } from "../lib/schema.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import { BEACON_JSON_ANSWER, BEACON_REPORT } from "./shapes.ts";

const tags = ["Federation"];

/** A heard datagram handed in as JSON. */
const BEACON_JSON = closed({
  datagram: t.String({
    pattern: "^[A-Za-z0-9+/_-]*={0,2}$",
    maxLength: 2 * BEACON_MAX_BYTES,
    description: "the datagram in base64 (or base64url)",
  }),
});

/** The datagram from a request: raw bytes (application/octet-stream), or JSON {"datagram": base64} (its form checked by the schema). */
function datagramFrom(body: Uint8Array | { datagram: string }): Uint8Array {
  if (body instanceof Uint8Array) return body;
  const d = body.datagram;
  return new Uint8Array(Buffer.from(d, d.includes("-") || d.includes("_") ? "base64url" : "base64"));
}

/** A datagram as itself, or (`format=json`) base64 with its size, the limit and what it carries. */
function answer(datagram: Uint8Array, format: string | undefined, about: Record<string, unknown>) {
  if (format === "json") return { datagram: Buffer.from(datagram).toString("base64"), bytes: datagram.length, limit: BEACON_MAX_BYTES, ...about };
  return new Response(datagram as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream", "cache-control": "no-store" } });
}

export function beaconRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get(
      "/federation/beacon",
      ({ query }) => {
        if (query.record === "have") {
          const h = ownHaveList(gw);
          return answer(h.datagram, query.format, { have: h.have, dropped: h.dropped });
        }
        const b = ownBeacon(gw);
        return answer(b.datagram, query.format, { endpoints: b.endpoints, dropped: b.dropped });
      },
      {
        gate: "public",
        query: t.Object({
          record: t.Optional(
            t.Union([t.Literal("presence"), t.Literal("have")], { description: "presence (default): the presence beacon; have: the have-list" }),
          ),
          format: t.Optional(t.Literal("json", { description: "json: base64 with its size, the limit and what it carries; left out: the datagram itself" })),
        }),
        detail: {
          summary: "This instance's SVCB1 datagram (presence beacon or have-list) for an ingest box to put on the air",
          tags,
          responses: {
            "200": {
              description: "the datagram itself; with format=json, in base64 with its size, the limit and what it carries",
              content: {
                ...answersMedia("the datagram", "application/octet-stream")["200"].content,
                ...answers("format=json", BEACON_JSON_ANSWER)["200"].content,
              },
            },
          },
        },
      },
    )
    .post("/federation/beacon", ({ body }) => applyBeacon(gw, datagramFrom(body)), {
      gate: "ingest",
      body: t.Union([BEACON_JSON, t.Uint8Array({ description: "the datagram itself (application/octet-stream)" })]),
      detail: {
        summary: "A beacon datagram the box heard on the air: applied as a peer's presence or have-list",
        tags,
        responses: answers("what the datagram did", BEACON_REPORT),
      },
    });
}
