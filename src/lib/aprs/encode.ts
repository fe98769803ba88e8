/**
 * The encoder: TNC2 lines this gateway transmits (position beacons, weather,
 * objects, messages, acks and rejects). Inputs are checked; a value that
 * cannot be sent throws EncodeError with a stable code, which services turn
 * into a 400. Every line it builds decodes back to the same values.
 *
 *   encodeMessage({ src: "N0CALL-9", addressee: "W1AW", text: "hi", msgId: "12" })
 *   // "N0CALL-9>APZSVC,TCPIP*::W1AW     :hi{12"
 */
import type { Weather } from "./types.ts";

/** Our tocall (APZ = experimental software, per the tocall registry). */
export const TOCALL = "APZSVC";

export class EncodeError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "EncodeError";
  }
}

const bad = (code: string, message: string): never => {
  throw new EncodeError(code, message);
};

const CALL = /^[A-Z0-9]{1,6}(?:-(?:[0-9]|1[0-5]))?$/;
const ADDRESSEE = /^[A-Za-z0-9-]{1,9}$/;
/** Characters APRS reserves in free text: | and ~ (TNC channel switching), { (message id). */
const RESERVED = /[|~{\x00-\x1f\x7f]/;

export interface Header {
  src: string;
  /** digipeater path, e.g. ["WIDE1-1", "WIDE2-1"]; for APRS-IS use ["TCPIP*"] */
  path?: string[];
  dst?: string;
}

function header(h: Header): string {
  const src = h.src.toUpperCase();
  if (!CALL.test(src)) bad("bad_source", `"${h.src}" is not a callsign to transmit from`);
  const path = h.path ?? ["TCPIP*"];
  for (const p of path) if (!/^[A-Z0-9]{1,6}(?:-\d{1,2})?\*?$/.test(p)) bad("bad_path", `"${p}" is not a path element`);
  return `${src}>${h.dst ?? TOCALL}${path.length ? "," + path.join(",") : ""}:`;
}

function text(s: string, max: number, what: string): string {
  if (RESERVED.test(s)) bad("bad_text", `${what} may not contain control characters, | ~ or {`);
  if (s.length > max) bad("bad_text", `${what} is ${s.length} characters; at most ${max} fit`);
  return s;
}

/** Degrees to DDMM.hhN / DDDMM.hhW (hundredths of a minute, rounded). */
function latText(lat: number): string {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) bad("bad_position", "latitude must be between -90 and 90");
  let h = Math.round(Math.abs(lat) * 6000); // hundredths of minutes
  const deg = Math.floor(h / 6000);
  h -= deg * 6000;
  return `${String(deg).padStart(2, "0")}${String(Math.floor(h / 100)).padStart(2, "0")}.${String(h % 100).padStart(2, "0")}${lat < 0 ? "S" : "N"}`;
}

function lonText(lon: number): string {
  if (!Number.isFinite(lon) || lon < -180 || lon > 180) bad("bad_position", "longitude must be between -180 and 180");
  let h = Math.round(Math.abs(lon) * 6000);
  const deg = Math.floor(h / 6000);
  h -= deg * 6000;
  return `${String(deg).padStart(3, "0")}${String(Math.floor(h / 100)).padStart(2, "0")}.${String(h % 100).padStart(2, "0")}${lon < 0 ? "W" : "E"}`;
}

function symbolOf(symbol: string | undefined, fallback: string): [string, string] {
  const s = symbol ?? fallback;
  if (s.length !== 2 || !/^[/\\A-Z0-9]$/.test(s[0]!) || s.charCodeAt(1) < 33 || s.charCodeAt(1) > 126)
    bad("bad_symbol", `symbol "${s}" is not a table (/, \\, A-Z, 0-9) and a code`);
  return [s[0]!, s[1]!];
}

function posFields(lat: number, lon: number, symbol: [string, string]): string {
  return `${latText(lat)}${symbol[0]}${lonText(lon)}${symbol[1]}`;
}

const pad3 = (n: number) => String(Math.max(0, Math.min(999, Math.round(n)))).padStart(3, "0");

function altitude(altitudeM: number | undefined): string {
  if (altitudeM === undefined) return "";
  const ft = Math.round(altitudeM / 0.3048);
  if (ft < -99999 || ft > 999999) bad("bad_altitude", "altitude is out of range");
  return ft < 0 ? `/A=-${String(-ft).padStart(5, "0")}` : `/A=${String(ft).padStart(6, "0")}`;
}

export interface PositionBeacon extends Header {
  lat: number;
  lon: number;
  symbol?: string;
  comment?: string;
  course?: number;
  speedKmh?: number;
  altitudeM?: number;
  /** the station accepts messages (`=` rather than `!`) */
  messaging?: boolean;
}

/** A position beacon: `!` or `=`, optional CSE/SPD, `/A=`, comment. */
export function encodePosition(b: PositionBeacon): string {
  let out = header(b) + (b.messaging ? "=" : "!") + posFields(b.lat, b.lon, symbolOf(b.symbol, "/-"));
  if (b.course !== undefined || b.speedKmh !== undefined) {
    const c = b.course === undefined ? 0 : ((Math.round(b.course) % 360) + 360) % 360 || 360;
    out += `${pad3(c)}/${pad3((b.speedKmh ?? 0) / 1.852)}`;
  }
  out += altitude(b.altitudeM);
  if (b.comment) out += text(b.comment, 43, "the comment");
  return out;
}

export interface WeatherReport extends Header {
  /** without a position the report is positionless (`_MMDDHHMM`) */
  lat?: number;
  lon?: number;
  wx: Weather;
  /** report time, unix ms (used by the positionless form) */
  at?: number;
  /** software/station type suffix, e.g. "svc" */
  comment?: string;
}

const c2f = (c: number) => (c * 9) / 5 + 32;

/** Weather fields after the wind, in the spec's order. */
function wxFields(wx: Weather): string {
  let s = wx.windGustKmh === undefined ? "g..." : `g${pad3(wx.windGustKmh / 1.609344)}`;
  if (wx.tempC === undefined) s += "t...";
  else {
    const f = Math.round(c2f(wx.tempC));
    if (f < -99 || f > 999) bad("bad_weather", "temperature is out of range");
    s += "t" + (f < 0 ? "-" + String(-f).padStart(2, "0") : String(f).padStart(3, "0"));
  }
  const rain = (mm: number | undefined, letter: string) => (mm === undefined ? "" : `${letter}${pad3((mm / 25.4) * 100)}`);
  s += rain(wx.rain1hMm, "r") + rain(wx.rain24hMm, "p") + rain(wx.rainMidnightMm, "P");
  if (wx.humidityPct !== undefined) {
    const h = Math.round(wx.humidityPct);
    s += "h" + (h >= 100 ? "00" : String(Math.max(1, h)).padStart(2, "0"));
  }
  if (wx.pressureHpa !== undefined)
    s +=
      "b" +
      String(Math.round(wx.pressureHpa * 10))
        .padStart(5, "0")
        .slice(-5);
  if (wx.luminosityWm2 !== undefined) {
    const l = Math.round(wx.luminosityWm2);
    s += l >= 1000 ? `l${pad3(l - 1000)}` : `L${pad3(l)}`;
  }
  if (wx.snow24hMm !== undefined) s += `s${pad3(wx.snow24hMm / 25.4)}`;
  return s;
}

/** A weather report: positional `!DDMM.hhN/DDDMM.hhW_ddd/sss...` or positionless `_MMDDHHMMc...s...`. */
export function encodeWeather(r: WeatherReport): string {
  const wx = r.wx;
  const dir = wx.windDirDeg === undefined ? "..." : pad3(wx.windDirDeg);
  const spd = wx.windSpeedKmh === undefined ? "..." : pad3(wx.windSpeedKmh / 1.609344);
  const tail = wxFields(wx) + (r.comment ? text(r.comment, 20, "the weather comment") : "");
  if (r.lat !== undefined && r.lon !== undefined) {
    return header(r) + "!" + posFields(r.lat, r.lon, ["/", "_"]) + `${dir}/${spd}` + tail;
  }
  const d = new Date(r.at ?? Date.now());
  const two = (n: number) => String(n).padStart(2, "0");
  const stamp = two(d.getUTCMonth() + 1) + two(d.getUTCDate()) + two(d.getUTCHours()) + two(d.getUTCMinutes());
  return header(r) + "_" + stamp + `c${dir}s${spd}` + tail;
}

export interface ObjectReport extends Header {
  name: string;
  alive?: boolean;
  lat: number;
  lon: number;
  symbol?: string;
  comment?: string;
  /** unix ms; the object's DDHHMMz timestamp */
  at?: number;
}

/** An object: `;NAME_____*DDHHMMzDDMM.hhN/DDDMM.hhW$comment`. */
export function encodeObject(o: ObjectReport): string {
  if (o.name.length < 1 || o.name.length > 9 || /[\x00-\x1f|~]/.test(o.name)) bad("bad_name", "an object name is 1 to 9 printable characters");
  const d = new Date(o.at ?? Date.now());
  const two = (n: number) => String(n).padStart(2, "0");
  const stamp = two(d.getUTCDate()) + two(d.getUTCHours()) + two(d.getUTCMinutes()) + "z";
  return (
    header(o) +
    ";" +
    o.name.padEnd(9, " ") +
    (o.alive === false ? "_" : "*") +
    stamp +
    posFields(o.lat, o.lon, symbolOf(o.symbol, "/.")) +
    (o.comment ? text(o.comment, 43, "the comment") : "")
  );
}

export interface Message extends Header {
  addressee: string;
  text: string;
  /** 1-5 letters/digits; omit for a message that wants no ack */
  msgId?: string;
}

/** A message `:ADDRESSEE:text{id`. */
export function encodeMessage(m: Message): string {
  if (!ADDRESSEE.test(m.addressee)) bad("bad_addressee", `"${m.addressee}" is not an addressee (1-9 letters, digits, -)`);
  if (m.text.length === 0) bad("bad_text", "the message is empty");
  if (m.msgId !== undefined && !/^[A-Za-z0-9]{1,5}$/.test(m.msgId)) bad("bad_msg_id", "a message id is 1 to 5 letters or digits");
  return header(m) + ":" + m.addressee.toUpperCase().padEnd(9, " ") + ":" + text(m.text, 67, "the message") + (m.msgId ? "{" + m.msgId : "");
}

/** An ack (or, with reject, a rej) for message `msgId` from `addressee`. */
export function encodeAck(a: Header & { addressee: string; msgId: string; reject?: boolean }): string {
  if (!ADDRESSEE.test(a.addressee)) bad("bad_addressee", `"${a.addressee}" is not an addressee`);
  if (!/^[A-Za-z0-9]{1,5}$/.test(a.msgId)) bad("bad_msg_id", "a message id is 1 to 5 letters or digits");
  return header(a) + ":" + a.addressee.toUpperCase().padEnd(9, " ") + ":" + (a.reject ? "rej" : "ack") + a.msgId;
}

/** A status report `>text`. */
export function encodeStatus(s: Header & { text: string }): string {
  return header(s) + ">" + text(s.text, 62, "the status");
}
