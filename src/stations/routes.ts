/**
 * The station registry's HTTP surface: decoding, ingest, stations, messages,
 * ports and the transmit queue. Thin: each route checks its gate, parses,
 * calls one service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { isSysop } from "../accounts/caller.ts";
import { badRequest } from "../lib/errors.ts";
import { decodeLine, lineFromBody } from "./decode-route.ts";
import { INGEST_RESULT, ingestBody, MAX_BATCH } from "./ingest-batch.ts";
import { getStation, listMessages, listStations, parseBbox, stationsForMap, stationPackets, stationSeries } from "./registry.ts";
import { ingestPort, listPorts, PORTS, type PortStatus } from "./ports.ts";
import { leaseDue, OUTBOX_ACK, OUTBOX_ACKED, OUTBOX_ITEMS, reportSent, userOutbox } from "./outbox.ts";
import { noteSentLine } from "../radio-node/echoes.ts";
import { transmit, TX_BODY, TX_QUEUED } from "./tx.ts";
import { cellsParam } from "../http/params.ts";
import { STATION_CALL, STATION_LIST_QUERY } from "./model.ts";
import { answers } from "../http/openapi.ts";
import { APRS_MESSAGES, APRS_PACKET, SERIES, STATION_DETAIL, STATION_LIST, STATION_MAP, STATION_PACKETS } from "./shapes.ts";

/** A port whose `clients` (KISS and APRS-IS servers) lose their network addresses. */
function withoutClientAddresses(p: PortStatus): PortStatus {
  if (!Array.isArray(p.clients)) return p;
  return { ...p, clients: (p.clients as Array<Record<string, unknown>>).map((c) => ({ ...c, address: null })) };
}

const TAGS = ["Stations"];
const RADIO = ["Radio"];
const CALL_PARAMS = t.Object({ call: STATION_CALL });
const whole = (description: string) => t.Optional(t.Integer({ description }));

export function stationsRoutes(gw: Core, kit: RouteKit) {
  const ingestStats = ingestPort(gw);
  return (
    kit.app
      .post("/api/decode", ({ body }) => decodeLine(lineFromBody(body)), {
        gate: "public",
        // Raw bytes, or JSON that lineFromBody checks against DECODE_LINE (naming the field that fails).
        body: t.Union([t.Uint8Array({ description: "one TNC2 line as text/plain" }), t.Unknown({ description: 'JSON {"line": "..."} (DECODE_LINE)' })]),
        detail: {
          summary: "Decode one APRS line (TNC2 text) into its fields, for anyone",
          tags: TAGS,
          bodyType: "text/plain",
          responses: answers("the decoded packet", APRS_PACKET),
        },
      })
      .post(
        "/ingest",
        ({ body, caller, query }) => {
          const r = ingestBody(gw, body, caller, { igate: query.igate });
          ingestStats.lastRxAt = gw.clock.now();
          ingestStats.rx += r.packets.stored + r.positions.stored;
          return r;
        },
        {
          gate: "ingest-or-device",
          bodyLimit: 8 * 1024 * 1024,
          query: t.Object({ igate: t.Optional(t.String({ description: "the IGate that heard the lines (a callsign)" })) }),
          // Raw lines, or a JSON batch that ingestBody checks against INGEST_BATCH and each item
          // against its schema once the gate let the caller in (a signed batch is taken as it came).
          body: t.Union([
            t.Uint8Array({ description: "TNC2 lines, one per line (text/plain)" }),
            t.Unknown({ description: `a JSON batch {packets, positions, finds, heardAt, igate} (INGEST_BATCH), at most ${MAX_BATCH} items` }),
          ]),
          detail: {
            summary: "Take packets heard on RF (the radio box, or a device key's own station)",
            description: `TNC2 lines as text/plain, or a JSON batch {packets, positions, finds}; at most ${MAX_BATCH} items.`,
            tags: RADIO,
            bodyType: "text/plain",
            responses: answers("what became of the lines, positions and finds", INGEST_RESULT),
          },
        },
      )
      .get(
        "/api/stations",
        ({ query }) => {
          if (query.cluster === "1") {
            if (!query.bbox) throw badRequest("bad_bbox", "cluster=1 needs a bbox");
            if (query.q !== undefined || query.since !== undefined) throw badRequest("invalid", "cluster=1 takes only bbox, limit and cells");
            return stationsForMap(gw, parseBbox(query.bbox), { limit: query.limit, cells: cellsParam(query.cells) });
          }
          return listStations(gw, { bbox: query.bbox ? parseBbox(query.bbox) : undefined, q: query.q, since: query.since, limit: query.limit });
        },
        {
          gate: "public",
          query: t.Object({
            ...STATION_LIST_QUERY,
            cluster: t.Optional(t.Literal("1", { description: "1: the map's view of bbox, stations counted into cells where many" })),
            cells: t.Optional(t.String({ description: "with cluster=1: cells along the box's longer side, 4-64" })),
          }),
          detail: {
            summary: "Stations heard, newest first; or with cluster=1, the map's view of a box",
            tags: TAGS,
            responses: answers("the stations; with cluster=1, the map's view of the box", t.Union([STATION_LIST, STATION_MAP])),
          },
        },
      )
      .get("/api/stations/:call", ({ params, query }) => getStation(gw, decodeURIComponent(params.call), { trackSince: query.since }), {
        gate: "public",
        params: CALL_PARAMS,
        query: t.Object({ since: whole("the track from, unix ms; default the last 24 hours") }),
        detail: { summary: "One station with its track", tags: TAGS, responses: answers("the station", STATION_DETAIL) },
      })
      .get(
        "/api/stations/:call/series",
        ({ params, query }) => stationSeries(gw, decodeURIComponent(params.call), { since: query.since, limit: query.limit }),
        {
          gate: "public",
          params: CALL_PARAMS,
          query: t.Object({ since: whole("from, unix ms"), limit: whole("how many points") }),
          detail: { summary: "A station's weather and telemetry over time", tags: TAGS, responses: answers("the series, oldest first", SERIES) },
        },
      )
      .get(
        "/api/stations/:call/packets",
        ({ params, query }) => stationPackets(gw, decodeURIComponent(params.call), { limit: query.limit, before: query.before }),
        {
          gate: "public",
          params: CALL_PARAMS,
          query: t.Object({ limit: whole("how many"), before: whole("the `next` of the previous page") }),
          detail: {
            summary: "The raw packets heard from a station, newest first, paged",
            tags: TAGS,
            responses: answers("a page of packets", STATION_PACKETS),
          },
        },
      )
      .get(
        "/api/messages",
        ({ query }) => {
          if (query.call !== undefined && (query.to !== undefined || query.from !== undefined))
            throw badRequest("invalid", "call is either party: send call, or to and/or from");
          const call = query.call ?? query.to ?? query.from;
          const rows = listMessages(gw, { call, since: query.since, limit: query.limit });
          const filtered = rows.filter((m) => (!query.to || m.addressee === query.to.toUpperCase()) && (!query.from || m.src === query.from.toUpperCase()));
          return { messages: filtered };
        },
        {
          gate: "public",
          query: t.Object({
            call: t.Optional(t.String({ description: "either party; not with to or from" })),
            to: t.Optional(t.String({ description: "the addressee" })),
            from: t.Optional(t.String({ description: "the sender" })),
            since: whole("heard from, unix ms"),
            limit: whole("how many"),
          }),
          detail: { summary: "APRS messages heard, newest first", tags: TAGS, responses: answers("the messages", APRS_MESSAGES) },
        },
      )
      // the addresses of the hub servers' clients are for the sysop only
      .get("/api/ports", ({ caller }) => ({ ports: isSysop(gw, caller) ? listPorts(gw) : listPorts(gw).map(withoutClientAddresses) }), {
        gate: "public",
        detail: {
          summary: "The radio ports and hub servers with their counters; client addresses for the sysop only",
          tags: RADIO,
          responses: answers("the ports", PORTS),
        },
      })
      .get(
        "/outbox",
        ({ query }) => {
          const now = (ingestStats.lastPollAt = gw.clock.now());
          const items = leaseDue(gw, { by: query.by ?? "ingest", limit: query.limit });
          // the box transmits them for us: heard back, they are our echo (src/radio-node/echoes.ts)
          for (const i of items) noteSentLine(gw, i.line, now);
          return { items };
        },
        {
          gate: "ingest",
          query: t.Object({ by: t.Optional(t.String({ description: "who leases the items (default ingest)" })), limit: whole("how many") }),
          detail: { summary: "The radio box leases what is due for transmission", tags: RADIO, responses: answers("the leased lines", OUTBOX_ITEMS) },
        },
      )
      .post(
        "/outbox/ack",
        ({ body }) => {
          if (body.sent === undefined && body.failed === undefined) throw badRequest("invalid", 'nothing acknowledged: send "sent" or "failed"');
          return reportSent(gw, { sent: body.sent ?? [], failed: body.failed ?? [] });
        },
        {
          gate: "ingest",
          body: OUTBOX_ACK,
          detail: {
            summary: "The radio box reports which leased items it sent and which failed",
            tags: RADIO,
            responses: answers("how many changed", OUTBOX_ACKED),
          },
        },
      )
      .post("/api/tx/aprs", ({ body, caller }) => transmit(gw, caller.user!, body), {
        gate: "verified",
        body: TX_BODY,
        detail: {
          summary: "Transmit an APRS message, position or status as your verified callsign",
          tags: RADIO,
          responses: answers("the line queued", TX_QUEUED),
        },
      })
      .get("/api/tx/aprs", ({ caller }) => ({ items: userOutbox(gw, caller.user!.id) }), {
        gate: "session",
        detail: { summary: "Your transmissions and their state", tags: RADIO, responses: answers("your lines, newest first", OUTBOX_ITEMS) },
      })
  );
}
