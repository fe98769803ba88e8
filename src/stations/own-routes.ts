/**
 * Own stations, living caches and weather stations: /api/my/stations/*,
 * /api/me/cache, /api/wx/key, /api/wx/tx, and the weather push URLs
 * /updateweatherstation and /api/wx/submit. Thin: gate, parse, one service call.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import type { Caller } from "../accounts/caller.ts";
import {
  addOwn,
  listOwn,
  OWN_STATION_BODY,
  OWN_STATION_CHANGE,
  OWN_STATION_CHANGED,
  OWN_STATION_ONE,
  OWN_STATIONS,
  ownRow,
  updateOwn,
  viewOwn,
} from "./own.ts";
import { becomeLivingCache, LIVING_CACHE_BODY, LIVING_CACHE_VIEW, livingCacheView, ME_CACHE_BODY, setLivingCache } from "./living-caches.ts";
import {
  ISSUED_KEY,
  KEY_REVOKED,
  OWN_WX_KEY_BODY,
  ownWxKey,
  STATION_WX_KEY_BODY,
  stationWxKey,
  weatherStations,
  WX_KEY_STATE,
  WX_STATIONS,
} from "./wx-keys.ts";
import { setWxTxOf, WX_TX_BODY, WX_TX_SET, WX_TX_STATE } from "./wx-tx.ts";
import { PUSH_PARAMS, PUSH_RESULT, pushParams, submitWeather } from "./wx-push.ts";
import { answers, answersMedia } from "../http/openapi.ts";

interface PushContext {
  query: Record<string, unknown>;
  body: unknown;
  caller: Caller;
  request: Request;
  set: { headers: Record<string, unknown> };
}

const TAGS = ["Own stations"];
const WX = ["Weather"];
const SID = t.Object({ sid: t.Integer({ description: "one of your stations: its numeric id" }) });
/** What a weather station pushes: its key, the time, and the readings we take (all others are ignored, so the query stays open). */
const PUSH_QUERY = t.Object(
  {
    ID: t.Optional(t.String({ description: "the station's Weather Underground id (ignored)" })),
    PASSWORD: t.Optional(t.String({ description: "the weather key (Weather Underground)" })),
    key: t.Optional(t.String({ description: "the weather key (Ecowitt's configured path)" })),
    PASSKEY: t.Optional(t.String({ description: "Ecowitt's station passkey" })),
    stationtype: t.Optional(t.String({ description: "Ecowitt's station type" })),
    dateutc: t.Optional(t.String({ description: '"now" or YYYY-MM-DD HH:MM:SS (UTC)' })),
    ...Object.fromEntries(
      PUSH_PARAMS.map((p) => [p.name, t.Optional(t.String({ description: `${p.field}: ${p.min} to ${p.max} in the unit of the parameter` }))]),
    ),
  },
  { additionalProperties: true },
);
const PUSH_BODY = t.Unknown({ description: "the same fields as a form (application/x-www-form-urlencoded or multipart), or JSON" });

export function ownStationRoutes(gw: Core, kit: RouteKit) {
  const push = ({ query, body, caller, request, set }: PushContext) => {
    const r = submitWeather(gw, caller.wxStation!, pushParams(query, body));
    const json = (request.headers.get("content-type") ?? "").includes("json") || (request.headers.get("accept") ?? "").includes("application/json");
    if (json) return r;
    // What Weather Underground answers, and what WU clients (weewx, Cumulus, consoles) look for.
    set.headers["content-type"] = "text/plain; charset=utf-8";
    return "success\n";
  };
  const pushGet = ({ query, caller, request, set }: Omit<PushContext, "body">) => push({ query, body: undefined, caller, request, set });
  const pushDoc = (where: string) => ({
    summary: `A weather station pushes a reading (${where})`,
    description: 'Answers "success" as Weather Underground does (JSON when asked). The reading is stored, and sent on APRS when the owner turned that on.',
    tags: WX,
    // one status, two bodies: "success" as text, or the reading stored as JSON (a JSON body, or Accept: application/json)
    responses: {
      "200": {
        description: 'the reading stored: "success" as text, or as JSON when asked',
        content: { ...answers("", PUSH_RESULT)["200"]!.content, ...answersMedia("", "text/plain")["200"]!.content },
      },
    },
  });
  return kit.app
    .get("/api/my/stations", ({ caller }) => ({ stations: listOwn(gw, caller.user!.id) }), {
      gate: "session",
      detail: { summary: "Your stations (the SSIDs of your callsigns you run)", tags: TAGS, responses: answers("your stations", OWN_STATIONS) },
    })
    .post(
      "/api/my/stations",
      ({ caller, body, set }) => {
        const station = addOwn(gw, caller.user!.id, body);
        set.status = 201;
        return { station };
      },
      {
        gate: "session",
        body: OWN_STATION_BODY,
        detail: { summary: "Add one of your stations", tags: TAGS, responses: answers("the station", OWN_STATION_ONE, 201) },
      },
    )
    .get("/api/my/stations/:sid", ({ caller, params }) => ({ station: viewOwn(gw, ownRow(gw, caller.user!.id, params.sid)) }), {
      gate: "session",
      params: SID,
      detail: { summary: "One of your stations", tags: TAGS, responses: answers("the station", OWN_STATION_ONE) },
    })
    .post("/api/my/stations/:sid", ({ caller, params, body }) => updateOwn(gw, caller.user!.id, params.sid, body), {
      gate: "session",
      params: SID,
      body: OWN_STATION_CHANGE,
      detail: {
        summary: "Change a station's label or position, or remove it",
        tags: TAGS,
        responses: answers("the station as changed, or removed", OWN_STATION_CHANGED),
      },
    })
    .get(
      "/api/my/stations/:sid/wx-key",
      ({ caller, params }) => {
        const station = viewOwn(gw, ownRow(gw, caller.user!.id, params.sid));
        return { wxKey: station.wxKey, station };
      },
      {
        gate: "session",
        params: SID,
        detail: {
          summary: "Whether a station has a weather key (never the key itself)",
          tags: WX,
          responses: answers("the key's dates (null: none) and the station", WX_KEY_STATE),
        },
      },
    )
    .post(
      "/api/my/stations/:sid/wx-key",
      ({ caller, params, body, set }) => {
        const r = stationWxKey(gw, caller.user!.id, params.sid, body);
        if ("key" in r) set.status = 201;
        return r;
      },
      {
        gate: "session",
        params: SID,
        body: STATION_WX_KEY_BODY,
        detail: {
          summary: "Issue a station's weather key (shown once), or revoke it",
          description: "The body may be left out (a new key).",
          tags: WX,
          responses: { ...answers("the new key, shown this once", ISSUED_KEY, 201), ...answers("revoked", KEY_REVOKED) },
        },
      },
    )
    .get("/api/my/stations/:sid/cache", ({ caller, params }) => livingCacheView(gw, caller.user!.id, params.sid), {
      gate: "session",
      params: SID,
      detail: { summary: "Whether a station is a living cache, and the cache", tags: TAGS, responses: answers("the station and its cache", LIVING_CACHE_VIEW) },
    })
    .post("/api/my/stations/:sid/cache", ({ caller, params, body }) => setLivingCache(gw, caller.user!.id, params.sid, body), {
      gate: "session",
      params: SID,
      body: LIVING_CACHE_BODY,
      detail: {
        summary: "Make a station a living cache (found where it beacons), or stop",
        description: "The body may be left out (on).",
        tags: TAGS,
        responses: answers("the station and its cache", LIVING_CACHE_VIEW),
      },
    })
    .post("/api/me/cache", ({ caller, body }) => becomeLivingCache(gw, caller.user!, body), {
      gate: "session",
      body: ME_CACHE_BODY,
      detail: {
        summary: "Make yourself (a station of yours) a living cache, or stop",
        description: "The body may be left out (on, as your active callsign).",
        tags: TAGS,
        responses: answers("the station and its cache", LIVING_CACHE_VIEW),
      },
    })
    .get("/api/wx/key", ({ caller }) => ({ stations: weatherStations(gw, caller.user!.id) }), {
      gate: "session",
      detail: { summary: "Your weather stations and whether each has a key", tags: WX, responses: answers("your weather stations", WX_STATIONS) },
    })
    .post(
      "/api/wx/key",
      ({ caller, body, set }) => {
        const r = ownWxKey(gw, caller.user!, body);
        set.status = 201;
        return r;
      },
      {
        gate: "session",
        body: OWN_WX_KEY_BODY,
        detail: {
          summary: "Issue a weather key for a station of yours, adding the station if needed",
          description: "The key is shown once. The body may be left out.",
          tags: WX,
          responses: answers("the new key, shown this once", ISSUED_KEY, 201),
        },
      },
    )
    .get("/api/wx/tx", ({ caller }) => ({ stations: weatherStations(gw, caller.user!.id), intervalMinutes: gw.config.wxTxIntervalMinutes }), {
      gate: "session",
      detail: {
        summary: "Which of your weather stations are sent on APRS, and how often",
        tags: WX,
        responses: answers("your weather stations", WX_TX_STATE),
      },
    })
    .post("/api/wx/tx", ({ caller, body }) => ({ station: setWxTxOf(gw, caller.user!.id, body), intervalMinutes: gw.config.wxTxIntervalMinutes }), {
      gate: "session",
      body: WX_TX_BODY,
      detail: { summary: "Send a weather station's readings on APRS, or stop", tags: WX, responses: answers("the station", WX_TX_SET) },
    })
    .get("/updateweatherstation", pushGet, { gate: "wx-key", query: PUSH_QUERY, detail: pushDoc("Weather Underground protocol") })
    .post("/updateweatherstation", push, {
      gate: "wx-key",
      query: PUSH_QUERY,
      body: PUSH_BODY,
      detail: { ...pushDoc("Weather Underground protocol, as a form"), bodyType: "application/x-www-form-urlencoded" },
    })
    .get("/api/wx/submit", pushGet, { gate: "wx-key", query: PUSH_QUERY, detail: pushDoc("Weather Underground parameters") })
    .post("/api/wx/submit", push, {
      gate: "wx-key",
      query: PUSH_QUERY,
      body: PUSH_BODY,
      detail: { ...pushDoc("Ecowitt's customized upload, or Weather Underground's fields, as a form"), bodyType: "application/x-www-form-urlencoded" },
    });
}
