/**
 * Personal weather station pushes: GET or POST /updateweatherstation and
 * /api/wx/submit, authenticated by the station's weather key (gate wx-key).
 * Two protocols, told apart by their fields:
 *
 *   wunderground  the Weather Underground upload protocol: ID, PASSWORD (our
 *                 weather key), dateutc, tempf, humidity, winddir,
 *                 windspeedmph, windgustmph, baromin, rainin, dailyrainin,
 *                 solarradiation, ... as query parameters (GET) or a form (POST)
 *   ecowitt       the Ecowitt "customized" upload (protocol Ecowitt): a form
 *                 POST with PASSKEY, stationtype, dateutc, tempf, humidity,
 *                 winddir, windspeedmph, windgustmph, baromrelin, hourlyrainin,
 *                 dailyrainin, solarradiation, ...; the weather key rides in
 *                 the configured path: /api/wx/submit?key=KEY
 *
 * Imperial units are converted exactly (1 mph = 1.609344 km/h, 1 in = 25.4 mm,
 * 1 inHg = 33.86389 hPa, °C = (°F - 32) × 5/9) and kept to 0.01. A reading is
 * stored like an APRS weather report (sensor_readings, the station's latest
 * weather: GET /api/stations/:call/series), then transmitted as an APRS
 * weather packet when the owner turned that on (wx-tx.ts).
 */
import type { Core } from "../core/core.ts";
import type { Weather } from "../lib/aprs/index.ts";
import { badRequest } from "../lib/errors.ts";
import type { WxKeyStation } from "../accounts/caller.ts";
import { flushEvents, ingestPositionsTx, newSink, storeWeatherTx } from "./ingest.ts";
import { ownRow, usableRow, type OwnRow } from "./own.ts";
import { transmitWeatherIfDue } from "./wx-tx.ts";
import { OUTBOX_ITEM } from "./outbox.ts";
import { WEATHER } from "./shapes.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs } from "../lib/schema.ts";

export type PushProtocol = "wunderground" | "ecowitt";

export const MPH_KMH = 1.609344;
export const INCH_MM = 25.4;
const INHG_HPA = 33.86389;
/** A reading may be this far ahead of our clock (station clocks drift). */
const MAX_AHEAD_MS = 5 * 60_000;

const round2 = (v: number) => Math.round(v * 100) / 100;

interface Param {
  /** parameter names, first present wins */
  names: string[];
  field: keyof Weather;
  /** valid range in the parameter's own unit */
  min: number;
  max: number;
  convert: (v: number) => number;
}

/** Every parameter we read; everything else (ID, softwaretype, uv, indoor values...) is ignored. */
const PARAMS: Param[] = [
  { names: ["tempf"], field: "tempC", min: -100, max: 200, convert: (f) => round2(((f - 32) * 5) / 9) },
  { names: ["humidity"], field: "humidityPct", min: 0, max: 100, convert: round2 },
  { names: ["winddir", "winddir_avg2m"], field: "windDirDeg", min: 0, max: 360, convert: round2 },
  { names: ["windspeedmph", "windspdmph_avg2m"], field: "windSpeedKmh", min: 0, max: 300, convert: (v) => round2(v * MPH_KMH) },
  { names: ["windgustmph", "windgustmph_10m"], field: "windGustKmh", min: 0, max: 300, convert: (v) => round2(v * MPH_KMH) },
  { names: ["baromin", "baromrelin"], field: "pressureHpa", min: 15, max: 35, convert: (v) => round2(v * INHG_HPA) },
  { names: ["rainin", "hourlyrainin"], field: "rain1hMm", min: 0, max: 100, convert: (v) => round2(v * INCH_MM) },
  { names: ["24hourrainin", "last24hrainin"], field: "rain24hMm", min: 0, max: 200, convert: (v) => round2(v * INCH_MM) },
  { names: ["dailyrainin"], field: "rainMidnightMm", min: 0, max: 200, convert: (v) => round2(v * INCH_MM) },
  { names: ["solarradiation"], field: "luminosityWm2", min: 0, max: 1999, convert: round2 },
];

/** WU's "no value". */
const MISSING = new Set(["", "-9999", "-9999.0", "-9999.00", "NaN", "nan", "N/A"]);

/** The readings a push may carry, by parameter name, for the routes' schemas: the field each fills and its range. */
export const PUSH_PARAMS: ReadonlyArray<{ name: string; field: keyof Weather; min: number; max: number }> = PARAMS.flatMap((p) =>
  p.names.map((name) => ({ name, field: p.field, min: p.min, max: p.max })),
);

export interface PushReading {
  protocol: PushProtocol;
  /** when it was measured, unix ms */
  ts: number;
  wx: Weather;
}

/** The push's parameters: the query string, then the body's fields over it. Values are text (or numbers, from JSON). */
export function pushParams(query: Record<string, unknown>, body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  const add = (k: string, v: unknown) => {
    if (typeof v === "string") out[k] = v;
    else if (typeof v === "number" && Number.isFinite(v)) out[k] = String(v);
  };
  for (const [k, v] of Object.entries(query ?? {})) add(k, Array.isArray(v) ? v[v.length - 1] : v);
  if (body instanceof FormData) {
    for (const [k, v] of body.entries()) add(k, v);
  } else if (body instanceof Uint8Array) {
    // Some stations post a url-encoded form without saying so.
    if (body.byteLength > 0) for (const [k, v] of new URLSearchParams(new TextDecoder("latin1").decode(body))) add(k, v);
  } else if (body && typeof body === "object" && !Array.isArray(body)) {
    for (const [k, v] of Object.entries(body)) add(k, v);
  }
  return out;
}

/** dateutc: "now", or "YYYY-MM-DD HH:MM:SS" in UTC (a `T` or `+` for the space is fine). */
function parseDateUtc(raw: string | undefined, now: number): number {
  if (raw === undefined || raw === "" || raw.toLowerCase() === "now") return now;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})[ T+](\d{1,2})(?::|%3A)(\d{1,2})(?::|%3A)(\d{1,2})$/i.exec(raw.trim());
  if (!m) throw badRequest("bad_time", `dateutc "${raw.slice(0, 40)}" is not "now" or YYYY-MM-DD HH:MM:SS (UTC)`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(t);
  if (back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d || h > 23 || mi > 59 || s > 59)
    throw badRequest("bad_time", `dateutc "${raw}" is not a real time`);
  return t;
}

/** Reads and checks a push; throws 400 naming the first bad parameter. */
function parsePush(params: Record<string, string>, now: number, oldestMs: number): PushReading {
  const protocol: PushProtocol = params.PASSKEY !== undefined || params.stationtype !== undefined ? "ecowitt" : "wunderground";
  const ts = parseDateUtc(params.dateutc, now);
  if (ts > now + MAX_AHEAD_MS) throw badRequest("bad_time", "dateutc is in the future; is the station's clock set to UTC?");
  if (ts < now - oldestMs) throw badRequest("bad_time", "dateutc is older than this instance keeps weather readings");
  const wx: Weather = {};
  for (const p of PARAMS) {
    const name = p.names.find((n) => params[n] !== undefined && !MISSING.has(params[n]!.trim()));
    if (name === undefined) continue;
    const text = params[name]!.trim();
    const v = /^[-+]?(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
    if (!Number.isFinite(v)) throw badRequest("invalid", `${name} "${text.slice(0, 20)}" is not a number`);
    if (v < p.min || v > p.max) throw badRequest("invalid", `${name} ${v} is out of range (${p.min} to ${p.max})`);
    (wx as Record<string, number>)[p.field] = p.convert(v);
  }
  if (Object.keys(wx).length === 0) {
    throw badRequest(
      "no_readings",
      "no weather value in the push (tempf, humidity, winddir, windspeedmph, windgustmph, baromin/baromrelin, rainin/hourlyrainin, dailyrainin, solarradiation)",
    );
  }
  return { protocol, ts, wx };
}

/** What a push answers, as JSON (when asked). */
export const PUSH_RESULT = closed({
  stored: t.Literal(true),
  protocol: t.Union([t.Literal("wunderground"), t.Literal("ecowitt")]),
  call: t.String({ description: "the station" }),
  ts: unixMs("the reading's time"),
  wx: WEATHER,
  transmit: nullable(OUTBOX_ITEM, "the APRS weather packet queued for transmit by this push, if one was due"),
});
export type PushResult = Static<typeof PUSH_RESULT>;

/** Stores one push for the key's station; transmits it as APRS when due. */
export function submitWeather(gw: Core, key: WxKeyStation, params: Record<string, string>): PushResult {
  const now = gw.clock.now();
  const row = usableRow(gw, ownRow(gw, key.userId, key.stationId));
  const r = parsePush(params, now, gw.config.sensorTtlDays * 86_400_000);
  const sink = newSink();
  gw.db.transaction(() => {
    storeWeatherTx(gw, { call: row.call, ts: r.ts, wx: r.wx, source: "wx" });
    const fixed = fixedPositionToStore(gw, row);
    if (fixed) ingestPositionsTx(gw, [{ call: row.call, lat: fixed.lat, lon: fixed.lon, ts: r.ts, symbol: "/_", source: "wx" }], "web", sink);
  })();
  flushEvents(gw, sink);
  const transmit = r.ts >= now - gw.config.wxTxIntervalMinutes * 60_000 ? transmitWeatherIfDue(gw, row, r.wx, r.ts) : null;
  return { stored: true, protocol: r.protocol, call: row.call, ts: r.ts, wx: r.wx, transmit };
}

/**
 * A weather station that does not beacon is placed on the map at its fixed
 * position: stored when the registry has no position for it yet, or when the
 * owner moved it (its last position came from a push). A position heard from
 * the station's own beacons wins.
 */
function fixedPositionToStore(gw: Core, row: OwnRow): { lat: number; lon: number } | null {
  if (row.lat === null || row.lon === null) return null;
  const s = gw.db.query("SELECT lat, lon FROM stations WHERE call = ?").get(row.call) as { lat: number | null; lon: number | null } | null;
  if (!s || s.lat === null) return { lat: row.lat, lon: row.lon };
  if (s.lat === row.lat && s.lon === row.lon) return null;
  const last = gw.db.query("SELECT source FROM positions WHERE call = ? ORDER BY ts DESC LIMIT 1").get(row.call) as { source: string } | null;
  return !last || last.source === "wx" ? { lat: row.lat, lon: row.lon } : null;
}
