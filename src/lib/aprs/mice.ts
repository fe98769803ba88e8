/**
 * Mic-E (APRS 1.0.1 chapter 10 and the later type codes): latitude, message
 * bits, N/S, longitude offset and W/E in the destination; longitude, speed,
 * course and symbol in the information field; then an optional device type,
 * base-91 altitude `xxx}` and old-style telemetry.
 */
import type { AprsPacket } from "./types.ts";
import { b91, fail, KNOT_KMH, r7, round } from "./util.ts";
import { parseComment } from "./position.ts";

const STD = ["Emergency", "Priority", "Special", "Committed", "Returning", "In Service", "En Route", "Off Duty"];
const CUSTOM = ["Emergency", "Custom-6", "Custom-5", "Custom-4", "Custom-3", "Custom-2", "Custom-1", "Custom-0"];

/** Device suffixes for the `` ` `` and `'` type codes: [prefix, suffix, name]. */
const SUFFIXES: Array<[string, string, string]> = [
  [">", "=", "Kenwood TH-D72"],
  [">", "^", "Kenwood TH-D74"],
  [">", "&", "Kenwood TH-D75"],
  ["]", "=", "Kenwood TM-D710"],
  ["`", "_ ", "Yaesu VX-8"],
  ["`", '_"', "Yaesu FTM-350"],
  ["`", "_#", "Yaesu VX-8G"],
  ["`", "_$", "Yaesu FT1D"],
  ["`", "_%", "Yaesu FTM-400DR"],
  ["`", "_)", "Yaesu FTM-100D"],
  ["`", "_(", "Yaesu FT2D"],
  ["`", "_0", "Yaesu FT3D"],
  ["`", "_1", "Yaesu FTM-300D"],
  ["`", "_3", "Yaesu FT5D"],
  ["`", "_5", "Yaesu FTM-500D"],
  ["`", " X", "AP510"],
  ["`", "(5", "Anytone D578UV"],
  ["'", "(8", "Anytone D878UV"],
  ["'", "|3", "Byonics TinyTrack3"],
  ["'", "|4", "Byonics TinyTrack4"],
  ["'", ":4", "SCS P4dragon DR-7400"],
  ["'", ":8", "SCS P4dragon DR-7800"],
];
const PREFIX_ONLY: Record<string, string> = { ">": "Kenwood TH-D7A", "]": "Kenwood TM-D700", " ": "Original Mic-E" };

/** A Mic-E destination digit: [digit or -1 for a blank, message bit (0/1), custom bit]. */
function destDigit(c: number): [number, number, number] | null {
  if (c >= 48 && c <= 57) return [c - 48, 0, 0];
  if (c >= 65 && c <= 74) return [c - 65, 0, 1]; // A-J custom
  if (c === 75) return [-1, 0, 1]; // K custom, blank
  if (c === 76) return [-1, 0, 0]; // L blank
  if (c >= 80 && c <= 89) return [c - 80, 1, 0]; // P-Y standard
  if (c === 90) return [-1, 1, 0]; // Z standard, blank
  return null;
}

export function parseMicE(p: AprsPacket, s: string, i: number): void {
  const dst = p.dst.split("-")[0]!;
  if (dst.length !== 6) fail("bad_mic_e", `a Mic-E destination has 6 characters; "${dst}" has ${dst.length}`);
  if (s.length < i + 9) fail("bad_mic_e", "a Mic-E information field needs at least 9 characters");
  const d: number[] = [];
  let std = 0;
  let cust = 0;
  let amb = 0;
  for (let k = 0; k < 6; k++) {
    const r = destDigit(dst.charCodeAt(k));
    if (!r) fail("bad_mic_e", `"${dst[k]}" is not a Mic-E destination character`);
    if (r![0] < 0 && k >= 2) amb++;
    d.push(Math.max(r![0], 0));
    if (k < 3) {
      std |= r![1] << (2 - k);
      cust |= r![2] << (2 - k);
    }
  }
  const latDeg = d[0]! * 10 + d[1]!;
  const latMin = d[2]! * 10 + d[3]! + (d[4]! * 10 + d[5]!) / 100;
  if (latDeg > 90 || latMin >= 60) fail("bad_mic_e", "Mic-E latitude is out of range");
  let lat = latDeg + latMin / 60;
  const c3 = dst.charCodeAt(3);
  if (!(c3 >= 80 && c3 <= 90)) lat = -lat; // 0-9, L: south
  const c4 = dst.charCodeAt(4);
  const offset = c4 >= 80 && c4 <= 90 ? 100 : 0;
  const c5 = dst.charCodeAt(5);
  const west = c5 >= 80 && c5 <= 90;

  const b0 = s.charCodeAt(i + 1),
    b1 = s.charCodeAt(i + 2),
    b2 = s.charCodeAt(i + 3);
  // Degrees 38-127, minutes 38-97, hundredths 28-127 (APRS 1.0.1 chapter 10).
  if (b0 < 38 || b0 > 127 || b1 < 38 || b1 > 97 || b2 < 28 || b2 > 127) fail("bad_mic_e", "Mic-E longitude bytes are out of range");
  let lonDeg = b0 - 28 + offset;
  if (lonDeg >= 180 && lonDeg <= 189) lonDeg -= 80;
  else if (lonDeg >= 190 && lonDeg <= 199) lonDeg -= 190;
  let lonMin = b1 - 28;
  if (lonMin >= 60) lonMin -= 60;
  const lonHun = b2 - 28;
  if (lonDeg > 180 || lonMin > 59 || lonHun > 99) fail("bad_mic_e", "Mic-E longitude is out of range");
  let lon = lonDeg + (lonMin + lonHun / 100) / 60;
  if (west) lon = -lon;

  const sp = s.charCodeAt(i + 4) - 28,
    dc = s.charCodeAt(i + 5) - 28,
    se = s.charCodeAt(i + 6) - 28;
  if (sp < 0 || dc < 0 || se < 0 || sp > 99 || dc > 99 || se > 99) fail("bad_mic_e", "Mic-E speed/course bytes are out of range");
  let speed = sp * 10 + Math.floor(dc / 10);
  if (speed >= 800) speed -= 800;
  let course = (dc % 10) * 100 + se;
  if (course >= 400) course -= 400;

  p.format = "mic-e";
  p.lat = r7(lat);
  p.lon = r7(lon);
  if (amb) p.ambiguity = amb;
  p.symbol = s[i + 8]! + s[i + 7]!;
  p.speedKmh = round(speed * KNOT_KMH, 1);
  if (course > 0 && course <= 360) p.course = course;
  p.micE = std && cust ? "Unknown" : cust ? CUSTOM[cust]! : STD[std]!;

  let rest = s.slice(i + 9).replace(/\r$/, "");
  // Old Mic-E telemetry: ` then 2 hex bytes, or ' then 5 hex bytes, and nothing else.
  const tm = /^([`'])((?:[0-9a-fA-F]{2}){2}|(?:[0-9a-fA-F]{2}){5})$/.exec(rest);
  if (tm && ((tm[1] === "`" && tm[2]!.length === 4) || (tm[1] === "'" && tm[2]!.length === 10))) {
    const analog: number[] = [];
    for (let k = 0; k < tm[2]!.length; k += 2) analog.push(parseInt(tm[2]!.slice(k, k + 2), 16));
    p.telemetry = { analog };
    return;
  }
  // Device type code and suffix.
  const first = rest[0];
  if (first !== undefined && (first === " " || first === ">" || first === "]" || first === "`" || first === "'")) {
    let found = false;
    for (const [pre, suf, name] of SUFFIXES) {
      if (first === pre && rest.length >= 1 + suf.length && rest.endsWith(suf)) {
        p.device = name;
        rest = rest.slice(1, rest.length - suf.length);
        found = true;
        break;
      }
    }
    if (!found) {
      if (PREFIX_ONLY[first]) p.device = PREFIX_ONLY[first];
      else if (first === "`") p.device = "Mic-Emsg";
      else if (first === "'") p.device = "McTrackr";
      rest = rest.slice(1);
    }
  }
  // Altitude: three base-91 digits then '}', metres above -10 km.
  if (rest.length >= 4 && rest.charCodeAt(3) === 125) {
    const a = b91(rest.charCodeAt(0)),
      b = b91(rest.charCodeAt(1)),
      c = b91(rest.charCodeAt(2));
    if (a >= 0 && b >= 0 && c >= 0) {
      p.altitudeM = round(a * 8281 + b * 91 + c - 10000, 1);
      rest = rest.slice(4);
    }
  }
  parseComment(p, rest);
}
