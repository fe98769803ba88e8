/**
 * Positions: uncompressed (`4903.50N/07201.75W>`), compressed base-91
 * (`/5L!!<*e7>7P[`), the 7-byte data extensions (CSE/SPD, PHG, RNG, DFS) and
 * what a comment may carry (`/A=` altitude, `!DAO!`, `|base-91 telemetry|`).
 * Each function fills the packet it is handed and returns where it stopped.
 */
import type { AprsPacket } from "./types.ts";
import { b91, cleanText, digits, fail, FT_M, int, KNOT_KMH, r7, round } from "./util.ts";
import { parseWeather } from "./weather.ts";

const isSpace = (c: number) => c === 32;

/**
 * Uncompressed position at s[i]: 8-byte latitude, table, 9-byte longitude,
 * code. Blanked digits (position ambiguity) count as zero.
 */
function parseUncompressed(p: AprsPacket, s: string, i: number): number {
  if (s.length < i + 19) fail("bad_position", "the position is shorter than the 19 characters of DDMM.hhN/DDDMM.hhW$");
  // Latitude DDMM.hhN
  let amb = 0;
  const d0 = s.charCodeAt(i),
    d1 = s.charCodeAt(i + 1);
  const m0 = s.charCodeAt(i + 2),
    m1 = s.charCodeAt(i + 3);
  const h0 = s.charCodeAt(i + 5),
    h1 = s.charCodeAt(i + 6);
  if (d0 < 48 || d0 > 57 || d1 < 48 || d1 > 57) fail("bad_position", `latitude degrees "${s.slice(i, i + 2)}" are not digits`);
  if (s.charCodeAt(i + 4) !== 46) fail("bad_position", "latitude has no decimal point at DDMM.hh");
  // Ambiguity blanks digits from the right: h1, h0, m1, m0.
  const blank = [h1, h0, m1, m0].map(isSpace);
  for (const b of blank) {
    if (b) amb++;
    else break;
  }
  for (let k = amb; k < 4; k++) if (blank[k]) fail("bad_position", "latitude has a blank digit before a non-blank one");
  const dig = (c: number, what: string) => {
    if (c === 32) return 0;
    if (c < 48 || c > 57) fail("bad_position", `latitude ${what} is not a digit`);
    return c - 48;
  };
  const latDeg = (d0 - 48) * 10 + (d1 - 48);
  const latMin = dig(m0, "minutes") * 10 + dig(m1, "minutes") + (dig(h0, "hundredths") * 10 + dig(h1, "hundredths")) / 100;
  const ns = s.charCodeAt(i + 7);
  if (latDeg > 90 || latMin >= 60 || (latDeg === 90 && latMin > 0)) fail("bad_position", `latitude ${s.slice(i, i + 8)} is out of range`);
  let lat = latDeg + latMin / 60;
  if (ns === 83 || ns === 115)
    lat = -lat; // S s
  else if (ns !== 78 && ns !== 110) fail("bad_position", "latitude does not end in N or S");
  const table = s[i + 8]!;
  // Longitude DDDMM.hhW; its blanks follow the latitude's ambiguity.
  const j = i + 9;
  if (!digits(s, j, 3)) fail("bad_position", `longitude degrees "${s.slice(j, j + 3)}" are not digits`);
  if (s.charCodeAt(j + 5) !== 46) fail("bad_position", "longitude has no decimal point at DDDMM.hh");
  const lonDig = (k: number) => {
    const c = s.charCodeAt(j + k);
    if (c === 32) return 0;
    if (c < 48 || c > 57) fail("bad_position", "longitude minutes are not digits");
    return c - 48;
  };
  const lonDeg = int(s, j, 3);
  const lonMin = lonDig(3) * 10 + lonDig(4) + (lonDig(6) * 10 + lonDig(7)) / 100;
  if (lonDeg > 180 || lonMin >= 60 || (lonDeg === 180 && lonMin > 0)) fail("bad_position", `longitude ${s.slice(j, j + 9)} is out of range`);
  let lon = lonDeg + lonMin / 60;
  const ew = s.charCodeAt(j + 8);
  if (ew === 87 || ew === 119)
    lon = -lon; // W w
  else if (ew !== 69 && ew !== 101) fail("bad_position", "longitude does not end in E or W");
  const tc = table.charCodeAt(0);
  if (tc < 33 || tc > 126) fail("bad_position", "the symbol table is not a printable character");
  p.format = "uncompressed";
  p.lat = r7(lat);
  p.lon = r7(lon);
  if (amb > 0) p.ambiguity = amb;
  p.symbol = table + s[i + 18];
  return i + 19;
}

/** Compressed position at s[i]: table, YYYY, XXXX, code, c, s, T (13 bytes). */
function parseCompressed(p: AprsPacket, s: string, i: number): number {
  if (s.length < i + 13) fail("bad_compressed", "a compressed position needs 13 characters");
  let t = s[i]!;
  const tc = t.charCodeAt(0);
  if (tc >= 97 && tc <= 106)
    t = String.fromCharCode(tc - 49); // a-j: overlay 0-9
  else if (!(t === "/" || t === "\\" || (tc >= 65 && tc <= 90))) fail("bad_compressed", `"${t}" is not a compressed symbol table (/, \\, A-Z, a-j)`);
  let y = 0;
  let x = 0;
  for (let k = 1; k <= 4; k++) {
    const a = b91(s.charCodeAt(i + k));
    const b = b91(s.charCodeAt(i + 4 + k));
    if (a < 0 || b < 0) fail("bad_compressed", "compressed latitude/longitude holds a character outside base 91 ('!'..'{')");
    y = y * 91 + a;
    x = x * 91 + b;
  }
  const lat = 90 - y / 380926;
  const lon = -180 + x / 190463;
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) fail("bad_compressed", "compressed position is out of range");
  p.format = "compressed";
  p.lat = r7(lat);
  p.lon = r7(lon);
  p.symbol = t + s[i + 9];
  const c = s.charCodeAt(i + 10);
  const sp = s.charCodeAt(i + 11);
  const T = s.charCodeAt(i + 12);
  if (c !== 32) {
    const cv = b91(c),
      sv = b91(sp),
      Tv = b91(T);
    if (cv < 0 || sv < 0) fail("bad_compressed", "compressed course/speed holds a character outside base 91");
    if (Tv >= 0 && (Tv & 0x18) === 0x10) {
      p.altitudeM = round(1.002 ** (cv * 91 + sv) * FT_M, 1);
    } else if (c === 123) {
      p.rangeKm = round(2 * 1.08 ** sv * 1.609344, 1);
    } else {
      p.course = cv * 4;
      p.speedKmh = round((1.08 ** sv - 1) * KNOT_KMH, 1);
    }
  }
  return i + 13;
}

/** A position at s[i] in whichever form it is (a digit starts the uncompressed form). */
export function parsePosition(p: AprsPacket, s: string, i: number): number {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57 ? parseUncompressed(p, s, i) : parseCompressed(p, s, i);
}

const DIR_DEG = [0, 45, 90, 135, 180, 225, 270, 315, 360];

/**
 * What follows a position: weather for the `_` symbol, otherwise the data
 * extension (uncompressed only) and the comment with its embedded extras.
 */
export function parsePositionTail(p: AprsPacket, s: string, i: number): void {
  if (p.symbol && p.symbol.charCodeAt(1) === 95 /* _ */) {
    const windFromCs = p.format === "compressed" && p.course !== undefined;
    const rest = parseWeather(p, s, i, windFromCs ? "cs" : "slash");
    if (p.wx) {
      if (windFromCs) {
        delete p.course;
        delete p.speedKmh;
      }
      p.type = p.type === "position" ? "weather" : p.type;
      parseComment(p, s.slice(rest));
      return;
    }
  }
  if (p.format === "uncompressed") i = parseDataExtension(p, s, i);
  parseComment(p, s.slice(i));
}

/** The optional 7-byte data extension after an uncompressed position. */
function parseDataExtension(p: AprsPacket, s: string, i: number): number {
  if (s.length < i + 7) return i;
  if (s.charCodeAt(i + 3) === 47 /* / */) {
    const cse = s.slice(i, i + 3);
    const spd = s.slice(i + 4, i + 7);
    const cOk = digits(s, i, 3);
    const sOk = digits(s, i + 4, 3);
    const blankish = (v: string) => v === "..." || v === "   ";
    if ((cOk || blankish(cse)) && (sOk || blankish(spd))) {
      if (cOk) {
        const course = int(s, i, 3);
        if (course > 0 && course <= 360) p.course = course;
      }
      if (sOk) p.speedKmh = round(int(s, i + 4, 3) * KNOT_KMH, 1);
      i += 7;
      // DF report: /BRG/NRQ
      if (s.length >= i + 8 && s.charCodeAt(i) === 47 && s.charCodeAt(i + 4) === 47 && digits(s, i + 1, 3) && digits(s, i + 5, 3)) i += 8;
      return i;
    }
    // Area object descriptor Tyy/Cxx
    if (s[i] === "T" && s[i + 4] === "C") return i + 7;
    return i;
  }
  const head = s.slice(i, i + 3);
  if (head === "PHG" && digits(s, i + 3, 4)) {
    const pw = s.charCodeAt(i + 3) - 48;
    const h = s.charCodeAt(i + 4) - 48;
    p.phg = { powerW: pw * pw, heightFt: 10 * 2 ** h, gainDbi: s.charCodeAt(i + 5) - 48, directivityDeg: DIR_DEG[s.charCodeAt(i + 6) - 48] ?? 0 };
    return i + 7;
  }
  if (head === "RNG" && digits(s, i + 3, 4)) {
    p.rangeKm = round(int(s, i + 3, 4) * 1.609344, 1);
    return i + 7;
  }
  if (head === "DFS" && digits(s, i + 3, 4)) {
    const h = s.charCodeAt(i + 4) - 48;
    p.dfs = {
      strength: s.charCodeAt(i + 3) - 48,
      heightFt: 10 * 2 ** h,
      gainDbi: s.charCodeAt(i + 5) - 48,
      directivityDeg: DIR_DEG[s.charCodeAt(i + 6) - 48] ?? 0,
    };
    return i + 7;
  }
  return i;
}

/**
 * A comment, with `/A=` altitude, `!DAO!` and `|base-91 telemetry|` taken out
 * and applied. What is left becomes `comment`.
 */
export function parseComment(p: AprsPacket, c: string): void {
  if (c.length === 0) return;
  // Altitude /A=aaaaaa in feet (a leading minus is seen in the wild).
  const a = c.indexOf("/A=");
  if (a >= 0 && c.length >= a + 9) {
    const neg = c.charCodeAt(a + 3) === 45;
    if (neg ? digits(c, a + 4, 5) : digits(c, a + 3, 6)) {
      const ft = neg ? -int(c, a + 4, 5) : int(c, a + 3, 6);
      p.altitudeM = round(ft * FT_M, 1);
      c = c.slice(0, a) + c.slice(a + 9);
    }
  }
  // Base-91 telemetry |ss11..|: 2 to 7 pairs.
  const t0 = c.indexOf("|");
  if (t0 >= 0) {
    const t1 = c.indexOf("|", t0 + 1);
    const n = t1 - t0 - 1;
    if (t1 > 0 && n >= 4 && n <= 14 && n % 2 === 0) {
      const vals: number[] = [];
      let ok = true;
      for (let k = t0 + 1; k < t1; k += 2) {
        const hi = b91(c.charCodeAt(k)),
          lo = b91(c.charCodeAt(k + 1));
        if (hi < 0 || lo < 0) {
          ok = false;
          break;
        }
        vals.push(hi * 91 + lo);
      }
      if (ok) {
        const seq = vals.shift()!;
        const tel: AprsPacket["telemetry"] = { seq, analog: vals.slice(0, 5) };
        if (vals.length === 6) {
          let bits = "";
          for (let b = 0; b < 8; b++) bits += (vals[5]! >> b) & 1 ? "1" : "0";
          tel.bits = bits;
        }
        p.telemetry = tel;
        c = c.slice(0, t0) + c.slice(t1 + 1);
      }
    }
  }
  // !DAO!: one more digit of latitude/longitude minutes (upper case, human
  // digits) or almost two (lower case, base 91).
  const d = findDao(c);
  if (d >= 0 && p.lat !== undefined && p.lon !== undefined && p.format !== "compressed") {
    const kind = c.charCodeAt(d + 1);
    const la = c.charCodeAt(d + 2),
      lo = c.charCodeAt(d + 3);
    let dLat = 0;
    let dLon = 0;
    if (kind >= 65 && kind <= 90) {
      if (la >= 48 && la <= 57) dLat = (la - 48) / 60000;
      if (lo >= 48 && lo <= 57) dLon = (lo - 48) / 60000;
    } else {
      if (b91(la) >= 0) dLat = ((b91(la) / 91) * 0.01) / 60;
      if (b91(lo) >= 0) dLon = ((b91(lo) / 91) * 0.01) / 60;
    }
    p.lat = r7(p.lat + Math.sign(p.lat || 1) * dLat);
    p.lon = r7(p.lon + Math.sign(p.lon || 1) * dLon);
    p.dao = c.slice(d + 1, d + 4);
    c = c.slice(0, d) + c.slice(d + 5);
  }
  const text = cleanText(c);
  if (text !== undefined) p.comment = text;
}

/** Index of a `!DAO!` in c, or -1. */
function findDao(c: string): number {
  let k = c.indexOf("!");
  while (k >= 0 && k + 4 < c.length) {
    if (c.charCodeAt(k + 4) === 33) {
      const d = c.charCodeAt(k + 1);
      const x = c.charCodeAt(k + 2),
        y = c.charCodeAt(k + 3);
      if (d >= 65 && d <= 90 && (x === 32 || (x >= 48 && x <= 57)) && (y === 32 || (y >= 48 && y <= 57))) return k;
      if (d >= 97 && d <= 122 && (x === 32 || b91(x) >= 0) && (y === 32 || b91(y) >= 0)) return k;
    }
    k = c.indexOf("!", k + 1);
  }
  return -1;
}
