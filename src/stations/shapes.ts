/**
 * A station as the API answers it, defined once: the schemas the OpenAPI
 * documents show (/api and /api/v1), the types the registry builds
 * (`Station`, `StationDetail`) and the web app reads. Weather and telemetry
 * definitions mirror the decoder's own types (src/lib/aprs/types.ts), and
 * the compiler holds them equal (below).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber, type Same } from "../lib/schema.ts";
import { type AprsPacket, PACKET_TYPES, type TelemetryDefinitions, type Weather } from "../lib/aprs/index.ts";

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

// ---------------------------------------------------------------- the map (GET /api/stations?cluster=1)

/** What the map draws of a station: its page and popup load the rest. */
export const MAP_STATION = closed({
  call: t.String(),
  kind: STATION_FIELDS.kind,
  lat: t.Number(),
  lon: t.Number(),
  symbol: t.Optional(t.String({ description: "APRS symbol: table and code" })),
  course: t.Optional(t.Number()),
  lastHeard: unixMs(),
});
export type MapStation = Static<typeof MAP_STATION>;

/** Many map points counted into one cell (stations here, caches in src/game/shapes.ts). */
export const CLUSTER = closed({
  lat: t.Number(),
  lon: t.Number(),
  count: wholeNumber(),
  bbox: t.Tuple([t.Number(), t.Number(), t.Number(), t.Number()], { description: "the cluster's extent (west, south, east, north): zoom to it" }),
});
export type Cluster = Static<typeof CLUSTER>;

/** The map's view of a box: its stations, or clusters that count them. */
export const STATION_MAP = closed({
  clustered: t.Boolean({ description: "true: the box holds more than limit stations, so clusters count them (a station alone in its cell is in stations)" }),
  stations: t.Array(MAP_STATION),
  clusters: t.Array(CLUSTER),
  total: wholeNumber({ description: "stations (and live objects and items) with a position in the box" }),
});
export type StationMap = Static<typeof STATION_MAP>;

// ---------------------------------------------------------------- a station's series and packets

/** Telemetry (latest definitions applied) and weather readings over time, oldest first. */
export const SERIES = closed({
  call: t.String(),
  telemetry: closed({
    channels: t.Array(closed({ id: t.String(), name: t.String(), unit: t.String() })),
    project: t.Optional(t.String({ description: "the project's title (BITS.)" })),
    points: t.Array(
      closed({
        ts: unixMs(),
        seq: t.Optional(wholeNumber()),
        values: t.Array(nullable(t.Number()), { description: "channel k's value at values[k]; null: not sent" }),
      }),
    ),
  }),
  wx: t.Array(closed({ ts: unixMs(), ...WEATHER.properties })),
});
export type Series = Static<typeof SERIES>;

/** A packet of the raw ring, as heard. */
export const RAW_PACKET = closed({
  id: wholeNumber(),
  ts: unixMs("heard at, unix ms"),
  raw: t.String({ description: "the TNC2 line (bytes that are not UTF-8 as Latin-1)" }),
  source: t.String({ description: "rf, aprsis, ingest..." }),
  igate: nullable(t.String()),
  via: nullable(t.String()),
  type: nullable(t.String(), "the decoded type, or the decode error code"),
});
export type RawPacket = Static<typeof RAW_PACKET>;
/** A page of a station's raw packets, newest first. */
export const STATION_PACKETS = closed({
  packets: t.Array(RAW_PACKET),
  next: nullable(wholeNumber(), "the before of the next page; null on the last"),
});

/** An APRS message (or ack, reject, bulletin) of the message log. */
export const APRS_MESSAGE = closed({
  id: wholeNumber(),
  ts: unixMs("heard at, unix ms"),
  src: t.String(),
  addressee: t.String(),
  kind: t.String({ description: "message, ack, rej, bulletin..." }),
  text: t.String(),
  msgId: nullable(t.String()),
  source: nullable(t.String()),
  igate: nullable(t.String()),
});
export type AprsMessageRow = Static<typeof APRS_MESSAGE>;
export const APRS_MESSAGES = closed({ messages: t.Array(APRS_MESSAGE) });

// ---------------------------------------------------------------- a decoded packet (POST /api/decode)

const num = (description?: string) => t.Optional(t.Number(description ? { description } : {}));
const text = (description?: string) => t.Optional(t.String(description ? { description } : {}));

/** What the APRS decoder returns (src/lib/aprs/types.ts): a field is present only when the packet carries it; units metric. */
export const APRS_PACKET = t.Recursive(
  (packet) =>
    closed({
      src: t.String(),
      dst: t.String(),
      path: t.Array(t.String(), { description: "digipeater path elements as heard, * marking those that have repeated" }),
      qConstruct: text("the q construct added by APRS-IS (qAR, qAC, ...)"),
      igate: text("the IGate (or server) named after the q construct"),
      digipeaters: t.Optional(t.Array(t.String(), { description: "digipeaters that repeated the packet" })),
      type: t.Union(PACKET_TYPES.map((k) => t.Literal(k))),
      format: t.Optional(t.Union([t.Literal("uncompressed"), t.Literal("compressed"), t.Literal("mic-e"), t.Literal("nmea")])),
      messaging: t.Optional(t.Boolean({ description: "the station accepts APRS messages" })),
      timestamp: text("as sent: DDHHMMz, DDHHMM/, HHMMSSh or MMDDHHMM"),
      lat: num(),
      lon: num(),
      ambiguity: num("position ambiguity: trailing digits blanked (0-4)"),
      symbol: text("symbol table (or overlay) and code"),
      speedKmh: num(),
      course: num(),
      altitudeM: num(),
      dao: text("DAO extension applied"),
      phg: t.Optional(closed({ powerW: t.Number(), heightFt: t.Number(), gainDbi: t.Number(), directivityDeg: t.Number({ description: "0 = omni" }) })),
      rangeKm: num(),
      dfs: t.Optional(closed({ strength: t.Number(), heightFt: t.Number(), gainDbi: t.Number(), directivityDeg: t.Number() })),
      comment: text(),
      name: text("objects and items"),
      alive: t.Optional(t.Boolean({ description: "objects and items: false when killed" })),
      addressee: text("messages, acks, rejects, bulletins; telemetry definitions"),
      text: text(),
      msgId: text(),
      replyAck: text("reply-ack: the id of the message this one acknowledges in passing"),
      micE: text('Mic-E message ("En Route", "Emergency", "Custom-3", ...)'),
      device: text("device or software, from the Mic-E suffix or the destination (tocall)"),
      status: text(),
      locator: text("a status report's Maidenhead locator (its centre is lat/lon)"),
      wx: t.Optional(WEATHER),
      telemetry: t.Optional(
        closed({
          seq: num(),
          analog: t.Array(t.Number(), { description: "analog channels A1..A5 as sent" }),
          bits: text("digital channels B1..B8 as 0/1"),
        }),
      ),
      telemetryDefinitions: t.Optional(TELEMETRY_DEFINITIONS),
      // the packet carried inside a third-party `}` packet
      inner: t.Optional(packet),
    }),
  { $id: "AprsPacket" },
);

// The decoder's types and these schemas are one shape: the compiler refuses a drift either way.
const sameWeather: Same<Static<typeof WEATHER>, Weather> = true;
const sameDefinitions: Same<Static<typeof TELEMETRY_DEFINITIONS>, TelemetryDefinitions> = true;
const samePacket: Same<Static<typeof APRS_PACKET>, AprsPacket> = true;
void sameWeather;
void sameDefinitions;
void samePacket;
