/**
 * A station as the API answers it, defined once: the schemas the OpenAPI
 * documents show (/api and /api/v1), the types the registry builds
 * (`Station`, `StationDetail`) and the web app reads. Weather and telemetry
 * definitions mirror the decoder's own types (src/lib/aprs/types.ts), and
 * the compiler holds them equal (below).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { TelemetryDefinitions, Weather } from "../lib/aprs/index.ts";

const opt = (description: string) => t.Optional(t.Number({ description }));

export const WEATHER = closed({
  tempC: opt("°C"),
  humidityPct: opt("%"),
  windDirDeg: opt("degrees"),
  windSpeedKmh: opt("km/h"),
  windGustKmh: opt("km/h"),
  pressureHpa: opt("hPa"),
  rain1hMm: opt("mm in the last hour"),
  rain24hMm: opt("mm in the last 24 hours"),
  rainMidnightMm: opt("mm since midnight"),
  luminosityWm2: opt("W/m²"),
  snow24hMm: opt("mm in the last 24 hours"),
});

export const TELEMETRY_DEFINITIONS = closed({
  parm: t.Optional(t.Array(t.String(), { description: "the channels' names (PARM.)" })),
  unit: t.Optional(t.Array(t.String(), { description: "their units (UNIT.)" })),
  eqns: t.Optional(t.Array(t.Array(t.Number()), { description: "five [a, b, c] triples: value = a*x^2 + b*x + c (EQNS.)" })),
  bits: t.Optional(closed({ sense: t.String(), project: t.String() }, { description: "BITS." })),
});

export const STATION_FIELDS = {
  call: t.String(),
  kind: t.Union([t.Literal("station"), t.Literal("object"), t.Literal("item")]),
  owner: t.Optional(t.String({ description: "objects and items: the station that sent it" })),
  alive: t.Boolean({ description: "false: an object or item killed by its sender" }),
  lat: t.Optional(t.Number()),
  lon: t.Optional(t.Number()),
  ambiguity: t.Optional(wholeNumber({ description: "position ambiguity, 0-4 digits" })),
  symbol: t.Optional(t.String({ description: "APRS symbol: table and code" })),
  course: t.Optional(t.Number()),
  speedKmh: t.Optional(t.Number()),
  altitudeM: t.Optional(t.Number()),
  comment: t.Optional(t.String()),
  status: t.Optional(t.String()),
  device: t.Optional(t.String()),
  messaging: t.Optional(t.Boolean()),
  firstHeard: unixMs(),
  lastHeard: unixMs(),
  lastPositionAt: t.Optional(unixMs()),
  packets: wholeNumber(),
  source: t.Optional(t.String({ description: "rf, aprs-is, ingest, browser..." })),
  igate: t.Optional(t.String()),
  path: t.Optional(t.String()),
  wx: t.Optional(WEATHER),
  wxAt: t.Optional(unixMs()),
};

export const STATION_JSON = closed(STATION_FIELDS);
export type Station = Static<typeof STATION_JSON>;

/** One station (GET /api/stations/{call}, /api/v1/stations/{call}): with its recent track and how it was heard. */
export const STATION_DETAIL = closed({
  ...STATION_FIELDS,
  track: t.Array(closed({ ts: unixMs(), lat: t.Number(), lon: t.Number(), source: t.String(), igate: t.Optional(t.String()) }), {
    description: "recent track points, oldest first",
  }),
  heard: t.Array(closed({ ts: unixMs(), path: nullable(t.String()), source: t.String(), igate: nullable(t.String()), via: nullable(t.String()) }), {
    description: "how it was heard lately: path, RF IGate, feed",
  }),
  objects: t.Array(t.String(), { description: "objects and items this station sent" }),
  telemetryDefinitions: t.Optional(TELEMETRY_DEFINITIONS),
});
export type StationDetail = Static<typeof STATION_DETAIL>;

/** A list of stations (GET /api/stations, /api/v1/stations). */
export const STATION_LIST = closed({ stations: t.Array(STATION_JSON), truncated: t.Boolean({ description: "more matched than the limit" }) });

// The decoder's types and these schemas are one shape: the compiler refuses a drift either way.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameWeather: Same<Static<typeof WEATHER>, Weather> = true;
const sameDefinitions: Same<Static<typeof TELEMETRY_DEFINITIONS>, TelemetryDefinitions> = true;
void sameWeather;
void sameDefinitions;
