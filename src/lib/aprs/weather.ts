/**
 * APRS weather fields (APRS 1.0.1 chapter 12 and the later additions):
 * gust g, temperature t (°F), rain r/p/P (1/100 in), humidity h (00 = 100 %),
 * pressure b (1/10 hPa), luminosity L/l (W/m²), snow s (in), raw rain #.
 * Wind comes first, in one of three forms: `ddd/sss` after an uncompressed
 * position (mph, per the spec), the compressed cs bytes (knots), or `cNNNsNNN`
 * in a positionless report (mph). Values of dots or spaces mean "unknown".
 */
import type { AprsPacket, Weather } from "./types.ts";
import { cleanText, digits, fail, INCH_MM, int, MPH_KMH, round } from "./util.ts";

/** Width of each field's value after its letter. */
const WIDTH: Record<string, number> = { c: 3, s: 3, g: 3, t: 3, r: 3, p: 3, P: 3, h: 2, b: 5, L: 3, l: 3, "#": 3 };

/** Reads `letter` + width chars at s[i]: number, null (unknown) or undefined (absent/invalid). */
function field(s: string, i: number, letter: string): number | null | undefined {
  if (s[i] !== letter) return undefined;
  const w = WIDTH[letter]!;
  if (s.length < i + 1 + w) return undefined;
  const v = s.slice(i + 1, i + 1 + w);
  if (/^[. ]+$/.test(v)) return null;
  if (digits(s, i + 1, w)) return int(s, i + 1, w);
  if (/^-?\d+(\.\d+)?$/.test(v) || /^\d*\.\d+$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Parses weather at s[i] into p.wx (left undefined when no weather field is
 * present). Returns the index after the last field; the rest is the comment.
 */
export function parseWeather(p: AprsPacket, s: string, i: number, wind: "slash" | "cs" | "c"): number {
  const wx: Weather = {};
  let any = false;
  if (wind === "slash") {
    if (s.length >= i + 7 && s.charCodeAt(i + 3) === 47) {
      const dOk = digits(s, i, 3),
        sOk = digits(s, i + 4, 3);
      const unknown = (k: number) => /^[. ]{3}$/.test(s.slice(k, k + 3));
      if ((dOk || unknown(i)) && (sOk || unknown(i + 4))) {
        if (dOk) wx.windDirDeg = int(s, i, 3);
        if (sOk) wx.windSpeedKmh = round(int(s, i + 4, 3) * MPH_KMH, 1);
        any = true;
        i += 7;
      }
    }
  } else if (wind === "cs") {
    if (p.course !== undefined) wx.windDirDeg = p.course;
    if (p.speedKmh !== undefined) wx.windSpeedKmh = p.speedKmh;
    any = true;
  } else {
    const c = field(s, i, "c");
    if (c !== undefined) {
      if (c !== null) wx.windDirDeg = c;
      i += 4;
      any = true;
    }
    const sp = field(s, i, "s");
    if (sp !== undefined) {
      if (sp !== null) wx.windSpeedKmh = round(sp * MPH_KMH, 1);
      i += 4;
      any = true;
    }
  }
  for (;;) {
    const letter = s[i];
    if (letter === undefined || !(letter in WIDTH) || letter === "c") break;
    const v = field(s, i, letter);
    if (v === undefined) break;
    i += 1 + WIDTH[letter]!;
    any = true;
    if (v === null) continue;
    switch (letter) {
      case "g":
        wx.windGustKmh = round(v * MPH_KMH, 1);
        break;
      case "t":
        wx.tempC = round(((v - 32) * 5) / 9, 1);
        break;
      case "r":
        wx.rain1hMm = round((v / 100) * INCH_MM, 1);
        break;
      case "p":
        wx.rain24hMm = round((v / 100) * INCH_MM, 1);
        break;
      case "P":
        wx.rainMidnightMm = round((v / 100) * INCH_MM, 1);
        break;
      case "h":
        wx.humidityPct = v === 0 ? 100 : v;
        break;
      case "b":
        wx.pressureHpa = round(v / 10, 1);
        break;
      case "L":
        wx.luminosityWm2 = v;
        break;
      case "l":
        wx.luminosityWm2 = v + 1000;
        break;
      case "s":
        wx.snow24hMm = round(v * INCH_MM, 1);
        break;
      case "#":
        break;
    }
  }
  if (any) p.wx = wx;
  return i;
}

/**
 * Peet Bros Ultimeter weather: `$ULTW` packets and `!!` data-logger lines, a
 * run of 4-digit hex fields (signed 16 bit; `----` unknown), as Dire Wolf and
 * Ham::APRS::FAP read them. Fields in order:
 *   $ULTW  peak wind (0.1 km/h), direction (0-255), outdoor temp (0.1 °F),
 *          long-term rain, barometer (0.1 hPa), delta, corr. LSW, corr. MSW,
 *          humidity (0.1 %), day of year, minute of day, rain today
 *          (0.01 in), 1-minute wind average (0.1 km/h)
 *   !!     wind (0.1 km/h), direction, outdoor temp, long-term rain,
 *          barometer, indoor temp, outdoor humidity, indoor humidity, day,
 *          minute, rain today, 1-minute wind average
 * The long-term rain total has no APRS field and is left out. Whatever
 * follows the fields is the comment.
 */
export function parseUltimeter(p: AprsPacket, s: string, form: "packet" | "logging"): void {
  let i = form === "packet" ? 5 : 2;
  const v: Array<number | null> = [];
  for (; v.length < 13; i += 4) {
    const f = s.slice(i, i + 4);
    if (f === "----") v.push(null);
    else if (/^[0-9A-Fa-f]{4}$/.test(f)) {
      const n = parseInt(f, 16);
      v.push(n < 0x8000 ? n : n - 0x10000);
    } else break;
  }
  const at = (k: number) => v[k] ?? null;
  const wx: Weather = {};
  const kmh = (x: number | null) => (x === null ? undefined : round(x / 10, 1));
  const tempC = (x: number | null) => (x === null ? undefined : round(((x / 10 - 32) * 5) / 9, 1));
  const humidity = (x: number | null) => (x === null || Math.round(x / 10) < 1 || Math.round(x / 10) > 100 ? undefined : Math.round(x / 10));
  const dir = at(1);
  if (dir !== null) wx.windDirDeg = Math.round(((dir & 0xff) * 360) / 256) % 360;
  const baro = at(4);
  if (baro !== null && baro >= 10) wx.pressureHpa = round(baro / 10, 1);
  let rainToday: number | null;
  if (form === "packet") {
    wx.windGustKmh = kmh(at(0));
    wx.tempC = tempC(at(2));
    wx.humidityPct = humidity(at(8));
    rainToday = at(11);
    wx.windSpeedKmh = kmh(at(12));
  } else {
    // The 1-minute average is the APRS wind speed; the instant reading stands in without it.
    wx.windSpeedKmh = kmh(at(11) ?? at(0));
    wx.tempC = tempC(at(2)) ?? tempC(at(5));
    wx.humidityPct = humidity(at(6)) ?? humidity(at(7));
    rainToday = at(10);
  }
  if (rainToday !== null && rainToday >= 0) wx.rainMidnightMm = round((rainToday / 100) * INCH_MM, 1);
  for (const k of Object.keys(wx) as Array<keyof Weather>) if (wx[k] === undefined) delete wx[k];
  if (Object.keys(wx).length === 0)
    fail("bad_weather", `a Peet Bros Ultimeter ${form === "packet" ? "$ULTW" : "!!"} report carries 4-digit hex fields; none was read`);
  p.type = "weather";
  p.wx = wx;
  const rest = cleanText(s.slice(i));
  if (rest !== undefined) p.comment = rest;
}
