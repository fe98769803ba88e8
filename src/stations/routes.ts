/**
 * The station registry's HTTP surface: decoding, ingest, stations, messages,
 * ports and the transmit queue. Thin: each route checks its gate, parses,
 * calls one service function.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { isSysop } from "../accounts/caller.ts";
import { allowLargerBody } from "../http/body.ts";
import { badRequest } from "../errors.ts";
import { decodeLine, lineFromBody } from "./decode-route.ts";
import { ingestBody } from "./ingest-batch.ts";
import { getStation, listMessages, listStations, parseBbox, stationsForMap, stationPackets, stationSeries } from "./registry.ts";
import { ingestPort, listPorts, type PortStatus } from "./ports.ts";
import { leaseDue, reportSent, userOutbox } from "./outbox.ts";
import { transmit } from "./tx.ts";
import { ownStationRoutes } from "./own-routes.ts";
import { cellsParam, intParam } from "../http/params.ts";

allowLargerBody("POST", /^\/ingest$/, 8 * 1024 * 1024);

/** A port whose `clients` (KISS and APRS-IS servers) lose their network addresses. */
function withoutClientAddresses(p: PortStatus): PortStatus {
  if (!Array.isArray(p.clients)) return p;
  return { ...p, clients: (p.clients as Array<Record<string, unknown>>).map((c) => ({ ...c, address: null })) };
}

export function stationsRoutes(gw: Gateway) {
  const ingestStats = ingestPort(gw);
  return (
    new Elysia({ name: "stations" })
      .use(gatesPlugin(gw))
      .use(ownStationRoutes(gw))
      .post("/api/decode", ({ body }) => decodeLine(lineFromBody(body)), { gate: "public" })
      .post(
        "/ingest",
        ({ body, caller, query }) => {
          const r = ingestBody(gw, body, caller, { igate: query.igate });
          ingestStats.lastRxAt = gw.clock.now();
          ingestStats.rx += r.packets.stored + r.positions.stored;
          return r;
        },
        { gate: "ingest-or-device" },
      )
      .get(
        "/api/stations",
        ({ query }) => {
          if (query.cluster !== undefined && query.cluster !== "1") throw badRequest("invalid", "cluster is 1 or left out");
          if (query.cluster === "1") {
            if (!query.bbox) throw badRequest("bad_bbox", "cluster=1 needs a bbox");
            if (query.q !== undefined || query.since !== undefined) throw badRequest("invalid", "cluster=1 takes only bbox, limit and cells");
            return stationsForMap(gw, parseBbox(query.bbox), { limit: intParam(query.limit, "limit"), cells: cellsParam(query.cells) });
          }
          return listStations(gw, {
            bbox: query.bbox ? parseBbox(query.bbox) : undefined,
            q: query.q,
            since: intParam(query.since, "since"),
            limit: intParam(query.limit, "limit"),
          });
        },
        { gate: "public" },
      )
      .get("/api/stations/:call", ({ params, query }) => getStation(gw, decodeURIComponent(params.call), { trackSince: intParam(query.since, "since") }), {
        gate: "public",
      })
      .get(
        "/api/stations/:call/series",
        ({ params, query }) =>
          stationSeries(gw, decodeURIComponent(params.call), { since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") }),
        { gate: "public" },
      )
      .get(
        "/api/stations/:call/packets",
        ({ params, query }) =>
          stationPackets(gw, decodeURIComponent(params.call), { limit: intParam(query.limit, "limit"), before: intParam(query.before, "before") }),
        { gate: "public" },
      )
      .get(
        "/api/messages",
        ({ query }) => {
          if (query.call !== undefined && (query.to !== undefined || query.from !== undefined))
            throw badRequest("invalid", "call is either party: send call, or to and/or from");
          const call = query.call ?? query.to ?? query.from;
          const rows = listMessages(gw, { call, since: intParam(query.since, "since"), limit: intParam(query.limit, "limit") });
          const filtered = rows.filter((m) => (!query.to || m.addressee === query.to.toUpperCase()) && (!query.from || m.src === query.from.toUpperCase()));
          return { messages: filtered };
        },
        { gate: "public" },
      )
      // the addresses of the hub servers' clients are for the sysop only
      .get("/api/ports", ({ caller }) => ({ ports: isSysop(gw, caller) ? listPorts(gw) : listPorts(gw).map(withoutClientAddresses) }), { gate: "public" })
      .get(
        "/outbox",
        ({ query }) => {
          ingestStats.lastPollAt = gw.clock.now();
          return { items: leaseDue(gw, { by: query.by ?? "ingest", limit: intParam(query.limit, "limit") }) };
        },
        { gate: "ingest" },
      )
      .post(
        "/outbox/ack",
        ({ body }) => {
          const b = body as { sent?: unknown; failed?: unknown } | null;
          if (!b || typeof b !== "object" || Array.isArray(b) || b instanceof Uint8Array)
            throw badRequest("bad_body", 'expected {"sent": [ids], "failed": [{id, error}]}');
          const unknown = Object.keys(b).filter((k) => k !== "sent" && k !== "failed");
          if (unknown.length)
            throw badRequest(
              "invalid",
              `unknown field ${unknown.map((k) => JSON.stringify(k)).join(", ")}: an acknowledgement is {"sent": [ids], "failed": [{id, error}]}`,
            );
          if (b.sent === undefined && b.failed === undefined) throw badRequest("invalid", 'nothing acknowledged: send "sent" or "failed"');
          const sent = b.sent ?? [];
          const failed = b.failed ?? [];
          if (!Array.isArray(sent) || sent.some((x) => !Number.isInteger(x))) throw badRequest("invalid", "sent is an array of outbox ids");
          if (!Array.isArray(failed) || failed.some((x) => !x || typeof x !== "object" || !Number.isInteger((x as { id?: unknown }).id)))
            throw badRequest("invalid", "failed is an array of {id, error}");
          return reportSent(gw, { sent: sent as number[], failed: failed as Array<{ id: number; error?: string }> });
        },
        { gate: "ingest" },
      )
      .post("/api/tx/aprs", ({ body, caller }) => transmit(gw, caller.user!, body), { gate: "verified" })
      .get("/api/tx/aprs", ({ caller }) => ({ items: userOutbox(gw, caller.user!.id) }), { gate: "session" })
  );
}
