/**
 * Live feeds (public read: everything here is already public through
 * /api/stations and /api/caches): the region rooms over WebSocket, the
 * Cursor-on-Target snapshot and SSE stream, and the spots list.
 */
import { t } from "elysia";
import type { Server, ServerWebSocket } from "bun";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import { AppError } from "../lib/errors.ts";
import { parseRegions } from "./rooms.ts";
import { parseBbox } from "../stations/registry.ts";
import { cotDocument } from "./cot.ts";
import { cotSnapshot, cotStream } from "./stream.ts";
import { listSpots, SPOT_LIST } from "./spots.ts";
import { answers, answersEmpty, answersMedia } from "../http/openapi.ts";
import type { Live } from "./service.ts";

const COT_TYPE = "application/xml; charset=utf-8";

const regionText = "Maidenhead fields (FN) or squares (FN42), comma-separated";
const bboxQuery = t.Object({
  bbox: t.Optional(t.String({ description: "west,south,east,north in decimal degrees; absent: the whole world" })),
});

export function liveRoutes(gw: Core, kit: RouteKit, live: Live) {
  const rooms = live.rooms;
  return kit.app
    .get(
      "/ws",
      () => {
        throw new AppError(426, "upgrade_required", "GET /ws?region=FN42 upgrades to a WebSocket (docs/api.md, Live)");
      },
      {
        gate: "public",
        detail: {
          summary: "Without an upgrade: 426, pointing to the WebSocket on the same path",
          tags: ["Live"],
          responses: answersEmpty("never here: a request with Upgrade: websocket switches to the WebSocket (WS /ws); without one the answer is 426", 101),
        },
      },
    )
    .ws("/ws", {
      gate: "public",
      query: t.Object({ region: t.Optional(t.String({ description: regionText + "; a signed-in user may leave it out" })) }),
      detail: {
        summary: "Live stations and caches of some Maidenhead regions over a WebSocket, for the map",
        description:
          "Joins the rooms named by region; then JSON messages: { type: subscribe | unsubscribe, regions: [...] } and { type: ping }. " +
          "A bad region is 400 bad_region before the upgrade; too many connections from one address are refused. " +
          "A signed-in user's socket also carries their own channel: messages to their verified calls, their sent messages' acks, watch and emergency alerts.",
        tags: ["Live"],
        responses: answersEmpty("Switching Protocols: the WebSocket is open", 101),
      },
      beforeHandle({ query, caller }: { query: Record<string, string | undefined>; caller: Caller }) {
        parseRegions(query.region, !!caller.user);
        rooms.checkAdmit(caller.ip);
      },
      open(ws) {
        const data = ws.data as unknown as { query: Record<string, string | undefined>; caller: Caller };
        const user = data.caller.user?.id ?? null;
        rooms.open(ws.raw as ServerWebSocket<unknown>, data.caller.ip, parseRegions(data.query.region, user !== null), user);
      },
      message(ws, msg) {
        rooms.message(ws.raw as ServerWebSocket<unknown>, msg);
      },
      close(ws) {
        rooms.close(ws.raw as ServerWebSocket<unknown>);
      },
    })
    .get(
      "/api/cot",
      ({ query, request }) => {
        const snap = cotSnapshot(gw, kit.baseUrl(request), query.bbox ? parseBbox(query.bbox) : undefined);
        return new Response(cotDocument(snap.events), {
          headers: { "content-type": COT_TYPE, "cache-control": "no-cache", "x-truncated": String(snap.truncated) },
        });
      },
      {
        gate: "public",
        query: bboxQuery,
        detail: {
          summary: "Stations and caches as a Cursor-on-Target XML snapshot, for TAK clients",
          description: "One <events> document; x-truncated: true when the snapshot was cut at its limit.",
          tags: ["Live"],
          responses: answersMedia("the snapshot", "application/xml"),
        },
      },
    )
    .get(
      "/api/cot/stream",
      ({ query, request, caller, server }) =>
        cotStream(gw, live, {
          base: kit.baseUrl(request),
          bbox: query.bbox ? parseBbox(query.bbox) : undefined,
          lastEventId: request.headers.get("last-event-id"),
          ip: caller.ip,
          request,
          server: server as Server<unknown> | null,
        }),
      {
        gate: "public",
        query: bboxQuery,
        detail: {
          summary: "Cursor-on-Target events as a server-sent event stream, for TAK clients",
          description: "A snapshot first, then each change; Last-Event-ID resumes after a reconnect.",
          tags: ["Live"],
          responses: answersMedia("the event stream", "text/event-stream"),
        },
      },
    )
    .get("/api/spots", ({ query }) => listSpots(gw, query), {
      gate: "public",
      query: t.Object({
        since: t.Optional(t.Integer({ description: "unix milliseconds: spots after this (the window is bounded by the server)" })),
        limit: t.Optional(t.Integer({ description: "spots at most, 1 to 500" })),
      }),
      detail: {
        summary: "Recent activity spots (stations heard, finds logged) for the live list",
        description: "Answers { spots, since }; 404 spots_disabled when the operator turned spots off.",
        tags: ["Live"],
        responses: answers("the spots, newest first", SPOT_LIST),
      },
    });
}
