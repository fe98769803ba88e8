/**
 * Own stations, living caches and weather stations: /api/my/stations/*,
 * /api/me/cache, /api/wx/key, /api/wx/tx, and the weather push URLs
 * /updateweatherstation and /api/wx/submit. Thin: gate, parse, one service call.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import type { Caller } from "../accounts/caller.ts";
import { jsonObject } from "../http/body.ts";
import { badRequest, notFound } from "../errors.ts";
import { addOwn, findOwnByCall, listOwn, ownRow, stationId, updateOwn, viewOwn } from "./own.ts";
import { becomeLivingCache, livingCacheView, setLivingCache } from "./living-caches.ts";
import { ownWxKey, stationWxKey, weatherStations } from "./wx-keys.ts";
import { setWxTx } from "./wx-tx.ts";
import { pushParams, submitWeather } from "./wx-push.ts";

/** A JSON object body, or {} when the request sent none. */
function optionalObject(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null || (body instanceof Uint8Array && body.byteLength === 0)) return {};
  return jsonObject(body);
}

interface PushContext {
  query: Record<string, unknown>;
  body: unknown;
  caller: Caller;
  request: Request;
  set: { headers: Record<string, unknown> };
}

export function ownStationRoutes(gw: Gateway) {
  const push = ({ query, body, caller, request, set }: PushContext) => {
    const r = submitWeather(gw, caller.wxStation!, pushParams(query, body));
    const json = (request.headers.get("content-type") ?? "").includes("json") || (request.headers.get("accept") ?? "").includes("application/json");
    if (json) return r;
    // What Weather Underground answers, and what WU clients (weewx, Cumulus, consoles) look for.
    set.headers["content-type"] = "text/plain; charset=utf-8";
    return "success\n";
  };
  return new Elysia({ name: "own-stations" })
    .use(gatesPlugin(gw))
    .get("/api/my/stations", ({ caller }) => ({ stations: listOwn(gw, caller.user!.id) }), { gate: "session" })
    .post(
      "/api/my/stations",
      ({ caller, body, set }) => {
        const station = addOwn(gw, caller.user!.id, jsonObject(body));
        set.status = 201;
        return { station };
      },
      { gate: "session" },
    )
    .get("/api/my/stations/:sid", ({ caller, params }) => ({ station: viewOwn(gw, ownRow(gw, caller.user!.id, stationId(params.sid))) }), { gate: "session" })
    .post("/api/my/stations/:sid", ({ caller, params, body }) => updateOwn(gw, caller.user!.id, stationId(params.sid), jsonObject(body)), { gate: "session" })
    .get(
      "/api/my/stations/:sid/wx-key",
      ({ caller, params }) => {
        const station = viewOwn(gw, ownRow(gw, caller.user!.id, stationId(params.sid)));
        return { wxKey: station.wxKey, station };
      },
      { gate: "session" },
    )
    .post(
      "/api/my/stations/:sid/wx-key",
      ({ caller, params, body, set }) => {
        const r = stationWxKey(gw, caller.user!.id, stationId(params.sid), optionalObject(body));
        if ("key" in r) set.status = 201;
        return r;
      },
      { gate: "session" },
    )
    .get("/api/my/stations/:sid/cache", ({ caller, params }) => livingCacheView(gw, caller.user!.id, stationId(params.sid)), { gate: "session" })
    .post("/api/my/stations/:sid/cache", ({ caller, params, body }) => setLivingCache(gw, caller.user!.id, stationId(params.sid), optionalObject(body)), {
      gate: "session",
    })
    .post("/api/me/cache", ({ caller, body }) => becomeLivingCache(gw, caller.user!, optionalObject(body)), { gate: "session" })
    .get("/api/wx/key", ({ caller }) => ({ stations: weatherStations(gw, caller.user!.id) }), { gate: "session" })
    .post(
      "/api/wx/key",
      ({ caller, body, set }) => {
        const r = ownWxKey(gw, caller.user!, optionalObject(body));
        set.status = 201;
        return r;
      },
      { gate: "session" },
    )
    .get("/api/wx/tx", ({ caller }) => ({ stations: weatherStations(gw, caller.user!.id), intervalMinutes: gw.config.wxTxIntervalMinutes }), {
      gate: "session",
    })
    .post(
      "/api/wx/tx",
      ({ caller, body }) => {
        const b = jsonObject(body, '{"stationId" or "call", "on": true|false}');
        const extra = Object.keys(b).filter((k) => !["stationId", "call", "on"].includes(k));
        if (extra.length) throw badRequest("invalid", `unknown field(s) ${extra.join(", ")}; send stationId (or call) and on`);
        let id: number;
        if (Number.isInteger(b.stationId)) id = b.stationId as number;
        else if (typeof b.call === "string") {
          const row = findOwnByCall(gw, caller.user!.id, b.call);
          if (!row) throw notFound(`own station ${b.call}`);
          id = row.id;
        } else throw badRequest("invalid", "name the station: stationId, or call");
        return { station: setWxTx(gw, caller.user!.id, id, b.on), intervalMinutes: gw.config.wxTxIntervalMinutes };
      },
      { gate: "session" },
    )
    .get("/updateweatherstation", push, { gate: "wx-key" })
    .post("/updateweatherstation", push, { gate: "wx-key" })
    .get("/api/wx/submit", push, { gate: "wx-key" })
    .post("/api/wx/submit", push, { gate: "wx-key" });
}
