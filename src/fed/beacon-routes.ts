/**
 * SVCB1 presence beacons over HTTP: this instance's datagrams (presence, or
 * with ?record=have its have-list; for an ingest box to put on the air), and
 * heard datagrams handed in by the box.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { badRequest } from "../errors.ts";
import { applyBeacon, BEACON_MAX_BYTES, ownBeacon, ownHaveList } from "./beacon.ts";

/** The datagram from a request: raw bytes (application/octet-stream), or JSON {"datagram": base64}. */
function datagramFrom(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  const d = body && typeof body === "object" && !Array.isArray(body) ? (body as { datagram?: unknown }).datagram : undefined;
  if (typeof d === "string" && /^[A-Za-z0-9+/_-]*={0,2}$/.test(d) && d.length <= 2 * BEACON_MAX_BYTES)
    return new Uint8Array(Buffer.from(d, d.includes("-") || d.includes("_") ? "base64url" : "base64"));
  throw badRequest("bad_body", 'send the datagram as application/octet-stream, or {"datagram": "<base64>"}');
}

/** A datagram as itself, or (`format=json`) base64 with its size, the limit and what it carries. */
function answer(datagram: Uint8Array, format: string | undefined, about: Record<string, unknown>) {
  if (format === "json") return { datagram: Buffer.from(datagram).toString("base64"), bytes: datagram.length, limit: BEACON_MAX_BYTES, ...about };
  return new Response(datagram as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/octet-stream", "cache-control": "no-store" } });
}

export function beaconRoutes(gw: Gateway) {
  return new Elysia({ name: "beacon" })
    .use(gatesPlugin(gw))
    .get(
      "/federation/beacon",
      ({ query }) => {
        if (query.record !== undefined && query.record !== "presence" && query.record !== "have")
          throw badRequest("invalid", "record is presence (the default) or have");
        if (query.format !== undefined && query.format !== "json") throw badRequest("invalid", "format is json, or left out for the datagram itself");
        if (query.record === "have") {
          const h = ownHaveList(gw);
          return answer(h.datagram, query.format, { have: h.have, dropped: h.dropped });
        }
        const b = ownBeacon(gw);
        return answer(b.datagram, query.format, { endpoints: b.endpoints, dropped: b.dropped });
      },
      { gate: "public" },
    )
    .post("/federation/beacon", ({ body }) => applyBeacon(gw, datagramFrom(body)), { gate: "ingest" });
}
