/**
 * What the APRS decoder returns. One flat object per packet; a field is
 * present only when the packet carries it. Units are metric and named in the
 * field (speedKmh, altitudeM, tempC...); positions are decimal degrees.
 */

/** Every kind of packet the decoder tells apart. */
export const PACKET_TYPES = [
  "position",
  "object",
  "item",
  "weather",
  "message",
  "ack",
  "rej",
  "bulletin",
  "announcement",
  "query",
  "status",
  "telemetry",
  "telemetry-definitions",
  "capabilities",
  "user-defined",
  "third-party",
] as const;
export type PacketType = (typeof PACKET_TYPES)[number];

export type PositionFormat = "uncompressed" | "compressed" | "mic-e" | "nmea";

/** Weather readings, converted to metric. */
export interface Weather {
  tempC?: number;
  humidityPct?: number;
  windDirDeg?: number;
  windSpeedKmh?: number;
  windGustKmh?: number;
  pressureHpa?: number;
  rain1hMm?: number;
  rain24hMm?: number;
  rainMidnightMm?: number;
  luminosityWm2?: number;
  snow24hMm?: number;
}

/** Raw telemetry values: `T#` reports, base-91 comment telemetry, Mic-E telemetry. */
export interface Telemetry {
  seq?: number;
  /** analog channels A1..A5 as sent (before any EQNS) */
  analog: number[];
  /** digital channels B1..B8 as a string of 0/1, when sent */
  bits?: string;
}

/** PARM./UNIT./EQNS./BITS. messages: they describe the addressee's telemetry. */
export interface TelemetryDefinitions {
  parm?: string[];
  unit?: string[];
  /** five [a, b, c] triples: value = a*x^2 + b*x + c */
  eqns?: number[][];
  bits?: { sense: string; project: string };
}

export interface Phg {
  powerW: number;
  heightFt: number;
  gainDbi: number;
  /** 0 = omni, else degrees */
  directivityDeg: number;
}

export interface AprsPacket {
  src: string;
  dst: string;
  /** digipeater path elements as heard, `*` marking the ones that have repeated */
  path: string[];
  /** the q construct added by APRS-IS (qAR, qAC, ...) */
  qConstruct?: string;
  /** the IGate (or server) named after the q construct */
  igate?: string;
  /** digipeaters that repeated the packet (elements marked `*`, without the mark) */
  digipeaters?: string[];
  type: PacketType;
  format?: PositionFormat;
  /** the station accepts APRS messages (`=` and `@` positions) */
  messaging?: boolean;
  /** timestamp as sent: DDHHMMz, DDHHMM/, HHMMSSh or MMDDHHMM */
  timestamp?: string;
  lat?: number;
  lon?: number;
  /** position ambiguity: number of trailing digits blanked (0-4) */
  ambiguity?: number;
  /** symbol table (or overlay) and code, e.g. "/>" */
  symbol?: string;
  speedKmh?: number;
  course?: number;
  altitudeM?: number;
  /** DAO extension applied (extra position precision) */
  dao?: string;
  phg?: Phg;
  rangeKm?: number;
  dfs?: { strength: number; heightFt: number; gainDbi: number; directivityDeg: number };
  comment?: string;
  /** objects and items */
  name?: string;
  alive?: boolean;
  /** messages, acks, rejects, bulletins; telemetry definitions */
  addressee?: string;
  text?: string;
  msgId?: string;
  /** reply-ack: the id of the message this one acknowledges in passing */
  replyAck?: string;
  /** Mic-E message ("En Route", "Emergency", "Custom-3", ...) */
  micE?: string;
  /** device or software, from the Mic-E suffix or the destination (tocall) */
  device?: string;
  status?: string;
  /** a status report's Maidenhead locator (its centre is lat/lon) */
  locator?: string;
  wx?: Weather;
  telemetry?: Telemetry;
  telemetryDefinitions?: TelemetryDefinitions;
  /** the packet carried inside a third-party `}` packet */
  inner?: AprsPacket;
}

/** Typed decode failures. `code` is stable; `message` says what was wrong. */
export type DecodeErrorCode =
  | "empty"
  | "too_long"
  | "bad_header"
  | "bad_source"
  | "bad_destination"
  | "bad_path"
  | "empty_info"
  | "bad_position"
  | "bad_compressed"
  | "bad_mic_e"
  | "bad_object"
  | "bad_item"
  | "bad_message"
  | "bad_telemetry"
  | "bad_weather"
  | "bad_nmea"
  | "bad_third_party"
  | "unsupported_format";

export interface DecodeError {
  code: DecodeErrorCode;
  message: string;
}

export type DecodeResult = { ok: true; packet: AprsPacket } | { ok: false; error: DecodeError };
