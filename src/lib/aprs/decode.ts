/**
 * The APRS decoder: one TNC2 line (`SRC>DST,PATH:info`) in, one flat packet
 * or a typed error out. Pure, and it never throws: malformed input of any
 * kind gives `{ ok: false, error: { code, message } }`.
 *
 *   decode("N0CALL>APRS,WIDE2-1:!4903.50N/07201.75W-Test")
 *   // { ok: true, packet: { src: "N0CALL", type: "position", lat: 49.0583333, ... } }
 */
import type { AprsPacket, DecodeResult } from "./types.ts";
import { cleanText, DecodeFail, digits, fail } from "./util.ts";
import { parsePosition, parsePositionTail } from "./position.ts";
import { parseMicE } from "./mice.ts";
import { parseMessage } from "./message.ts";
import { parseTelemetryReport } from "./telemetry.ts";
import { parseUltimeter, parseWeather } from "./weather.ts";
import { locatorCentre } from "../maidenhead.ts";
import { parseNmea } from "./nmea.ts";
import { deviceFromTocall } from "./tocalls.ts";

/** APRS-IS lines are at most 512 bytes; anything much longer is not APRS. */
export const MAX_LINE = 1024;

const CALL = /^[A-Za-z0-9]{1,9}(?:-[A-Za-z0-9]{1,2})?$/;
const PATH_ELEM = /^[A-Za-z0-9]{1,9}(?:-[A-Za-z0-9]{1,2})?\*?$/;
const Q = /^qA[A-Za-z]$/;

export function decode(line: string): DecodeResult {
  try {
    return { ok: true, packet: decodeOrThrow(line, 0) };
  } catch (e) {
    if (e instanceof DecodeFail) return { ok: false, error: { code: e.code, message: e.message } };
    return { ok: false, error: { code: "bad_header", message: `the packet could not be decoded (${(e as Error)?.message ?? e})` } };
  }
}

function decodeOrThrow(raw: string, depth: number): AprsPacket {
  let line = raw;
  // Tolerate the line ending APRS-IS and files leave behind.
  while (line.length && (line.charCodeAt(line.length - 1) === 10 || line.charCodeAt(line.length - 1) === 13)) line = line.slice(0, -1);
  if (line.length === 0) fail("empty", "the line is empty");
  if (line.length > MAX_LINE) fail("too_long", `the line is ${line.length} characters; APRS lines are at most ${MAX_LINE}`);
  const gt = line.indexOf(">");
  const colon = line.indexOf(":");
  if (gt <= 0 || colon < 0 || colon < gt) fail("bad_header", "a TNC2 line is SOURCE>DESTINATION[,PATH...]:information");
  const src = line.slice(0, gt);
  if (!CALL.test(src)) fail("bad_source", `"${src}" is not a valid source callsign`);
  const header = line.slice(gt + 1, colon);
  const parts = header.split(",");
  const dst = parts[0]!;
  if (!CALL.test(dst)) fail("bad_destination", `"${dst}" is not a valid destination`);
  const path = parts.slice(1);
  if (path.length > 12) fail("bad_path", `the path has ${path.length} elements; at most 12 are allowed`);
  const p: AprsPacket = { src, dst, path, type: "position" };
  let digis: string[] | undefined;
  for (let k = 0; k < path.length; k++) {
    const e = path[k]!;
    if (!PATH_ELEM.test(e)) fail("bad_path", `path element "${e}" is not a callsign or alias`);
    if (Q.test(e)) {
      p.qConstruct = e;
      const next = path[k + 1];
      if (next) p.igate = next.replace(/\*$/, "");
      break;
    }
    if (e.endsWith("*")) (digis ??= []).push(e.slice(0, -1));
  }
  if (digis) p.digipeaters = digis;
  const info = line.slice(colon + 1);
  if (info.length === 0) fail("empty_info", "the packet has no information field");
  decodeInfo(p, info, depth);
  if (p.device === undefined && p.format !== "mic-e") {
    const dev = deviceFromTocall(dst);
    if (dev) p.device = dev;
  }
  return p;
}

function decodeInfo(p: AprsPacket, s: string, depth: number): void {
  const dti = s[0]!;
  switch (dti) {
    case "!":
    case "=": {
      if (s[1] === "!") return parseUltimeter(p, s, "logging");
      p.messaging = dti === "=";
      const i = parsePosition(p, s, 1);
      parsePositionTail(p, s, i);
      return;
    }
    case "/":
    case "@": {
      p.messaging = dti === "@";
      if (s.length < 8) fail("bad_position", "a timestamped position needs a 7-character timestamp");
      p.timestamp = timestamp(s, 1);
      const i = parsePosition(p, s, 8);
      parsePositionTail(p, s, i);
      return;
    }
    case ";":
      return parseObject(p, s);
    case ")":
      return parseItem(p, s);
    case "`":
    case "'":
      return parseMicE(p, s, 0);
    case ":":
      return parseMessage(p, s, 0);
    case "T":
      if (s[1] === "#") return parseTelemetryReport(p, s, 0);
      break;
    case "_":
      return parsePositionlessWeather(p, s);
    case ">":
      return parseStatus(p, s);
    case "$":
      if (s.startsWith("$ULTW")) return parseUltimeter(p, s, "packet");
      return parseNmea(p, s, 0);
    case "}":
      return parseThirdParty(p, s, depth);
    case "<":
      p.type = "capabilities";
      p.text = cleanText(s.slice(1)) ?? "";
      return;
    case "?":
      p.type = "query";
      p.text = cleanText(s.slice(1)) ?? "";
      return;
    case "{":
      p.type = "user-defined";
      p.text = s.slice(1);
      return;
  }
  // APRS 1.0.1: a position may start anywhere in the first 40 characters,
  // marked by '!' (beacon text from old TNCs).
  const bang = s.indexOf("!");
  if (bang > 0 && bang <= 40) {
    const c = s.charCodeAt(bang + 1);
    if ((c >= 48 && c <= 57) || c === 47 || c === 92) {
      const i = parsePosition(p, s, bang + 1);
      parsePositionTail(p, s, i);
      return;
    }
  }
  fail("unsupported_format", `data type "${printable(dti)}" is not an APRS format this decoder knows`);
}

function printable(c: string): string {
  const n = c.charCodeAt(0);
  return n >= 32 && n < 127 ? c : `0x${n.toString(16).padStart(2, "0")}`;
}

/** DDHHMMz, DDHHMM/ or HHMMSSh at s[i]. */
function timestamp(s: string, i: number): string {
  const t = s.slice(i, i + 7);
  const kind = t[6];
  if (!digits(s, i, 6) || (kind !== "z" && kind !== "/" && kind !== "h")) fail("bad_position", `"${t}" is not a timestamp (DDHHMMz, DDHHMM/ or HHMMSSh)`);
  return t;
}

function parseObject(p: AprsPacket, s: string): void {
  if (s.length < 18 + 13) fail("bad_object", "an object is ;NAME_____*DDHHMMz followed by a position");
  const name = s.slice(1, 10).trimEnd();
  const flag = s[10];
  if (name.length === 0) fail("bad_object", "the object has no name");
  if (flag !== "*" && flag !== "_") fail("bad_object", `object live/killed flag is "${flag}", not * or _`);
  p.type = "object";
  p.name = name;
  p.alive = flag === "*";
  try {
    p.timestamp = timestamp(s, 11);
    const i = parsePosition(p, s, 18);
    parsePositionTail(p, s, i);
  } catch (e) {
    if (e instanceof DecodeFail) fail("bad_object", `object ${name}: ${e.message}`);
    throw e;
  }
}

function parseItem(p: AprsPacket, s: string): void {
  let k = 1;
  while (k < s.length && k <= 10 && s[k] !== "!" && s[k] !== "_") k++;
  const name = s.slice(1, k);
  if (k > 10 || k >= s.length || name.length < 3) fail("bad_item", "an item is )NAME!position with a 3-9 character name, then ! (live) or _ (killed)");
  p.type = "item";
  p.name = name;
  p.alive = s[k] === "!";
  try {
    const i = parsePosition(p, s, k + 1);
    parsePositionTail(p, s, i);
  } catch (e) {
    if (e instanceof DecodeFail) fail("bad_item", `item ${name}: ${e.message}`);
    throw e;
  }
}

function parsePositionlessWeather(p: AprsPacket, s: string): void {
  if (s.length < 9 || !digits(s, 1, 8)) fail("bad_weather", "a positionless weather report starts with _MMDDHHMM");
  p.timestamp = s.slice(1, 9);
  const i = parseWeather(p, s, 9, "c");
  if (!p.wx) fail("bad_weather", "the weather report carries no weather fields");
  p.type = "weather";
  const rest = cleanText(s.slice(i));
  if (rest !== undefined) p.comment = rest;
}

function parseStatus(p: AprsPacket, s: string): void {
  p.type = "status";
  let text = s.slice(1);
  if (text.length >= 7 && digits(text, 0, 6) && text[6] === "z") {
    p.timestamp = text.slice(0, 7);
    text = text.slice(7);
  } else {
    const m = /^([A-Ra-r]{2}\d{2}(?:[A-Xa-x]{2})?)([/\\A-Z0-9])(.)(?: |$)/.exec(text);
    if (m) {
      // `>IO91SX/G text`: the station is somewhere in that locator; its centre
      // stands for the position (as Dire Wolf reports it).
      const c = locatorCentre(m[1]!)!;
      p.locator = m[1]!.slice(0, 4).toUpperCase() + m[1]!.slice(4).toLowerCase();
      p.lat = c.lat;
      p.lon = c.lon;
      p.symbol = m[2]! + m[3]!;
      text = text.slice(m[0].length);
    }
  }
  // A beam heading and power ^HP at the very end is not status text.
  text = text.replace(/\^[0-9A-Z][1-9A-K]$/, "");
  p.status = cleanText(text) ?? "";
  p.text = p.status;
}

function parseThirdParty(p: AprsPacket, s: string, depth: number): void {
  if (depth >= 1) fail("bad_third_party", "a third-party packet inside a third-party packet is not decoded");
  try {
    p.inner = decodeOrThrow(s.slice(1), depth + 1);
  } catch (e) {
    if (e instanceof DecodeFail) fail("bad_third_party", `the third-party packet inside is malformed: ${e.code}: ${e.message}`);
    throw e;
  }
  p.type = "third-party";
}
