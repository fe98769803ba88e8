/**
 * Live feeds (public read: everything here is already public through
 * /api/stations and /api/caches): the region rooms over WebSocket, the
 * Cursor-on-Target snapshot and SSE stream, and the spots list.
 */
import { Elysia } from "elysia";
import type { Server, ServerWebSocket } from "bun";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import type { Caller } from "../accounts/caller.ts";
import { AppError } from "../errors.ts";
import { liveHub, parseRegions } from "./rooms.ts";
import { parseBbox } from "../stations/registry.ts";
import { baseUrl } from "../http/public-url.ts";
import { cotDocument } from "./cot.ts";
import { cotSnapshot, cotStream } from "./stream.ts";
import { listSpots } from "./spots.ts";
import { intParam } from "../http/params.ts";

export const COT_TYPE = "application/xml; charset=utf-8";

export function liveRoutes(gw: Gateway) {
  const hub = liveHub(gw);
  return new Elysia({ name: "live" })
    .use(gatesPlugin(gw))
    .get(
      "/ws",
      () => {
        throw new AppError(426, "upgrade_required", "GET /ws?region=FN42 upgrades to a WebSocket (docs/api.md, Live)");
      },
      { gate: "public" },
    )
    .ws("/ws", {
      gate: "public",
      beforeHandle({ query, caller }: { query: Record<string, string | undefined>; caller: Caller }) {
        parseRegions(query.region);
        hub.checkAdmit(caller.ip);
      },
      open(ws) {
        const data = ws.data as unknown as { query: Record<string, string | undefined>; caller: Caller };
        hub.open(ws.raw as ServerWebSocket<unknown>, data.caller.ip, parseRegions(data.query.region));
      },
      message(ws, msg) {
        hub.message(ws.raw as ServerWebSocket<unknown>, msg);
      },
      close(ws) {
        hub.close(ws.raw as ServerWebSocket<unknown>);
      },
    })
    .get(
      "/api/cot",
      ({ query, request }) => {
        const snap = cotSnapshot(gw, baseUrl(gw, request), query.bbox ? parseBbox(query.bbox) : undefined);
        return new Response(cotDocument(snap.events), {
          headers: { "content-type": COT_TYPE, "cache-control": "no-cache", "x-truncated": String(snap.truncated) },
        });
      },
      { gate: "public" },
    )
    .get(
      "/api/cot/stream",
      ({ query, request, caller, server }) =>
        cotStream(gw, {
          base: baseUrl(gw, request),
          bbox: query.bbox ? parseBbox(query.bbox) : undefined,
          lastEventId: request.headers.get("last-event-id"),
          ip: caller.ip,
          request,
          server: server as Server<unknown> | null,
        }),
      { gate: "public" },
    )
    .get("/api/spots", ({ query }) => listSpots(gw, { since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") }), { gate: "public" });
}
