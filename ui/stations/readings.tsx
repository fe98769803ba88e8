/**
 * What a packet says, in the words and units the station page uses: the
 * station page's current weather and the decode page both read from here, so
 * a field has one label everywhere (never `windSpeedKmh` or `qConstruct`).
 */
import type { ComponentChildren } from "preact";
import { StationSymbol } from "../components/station-symbol.tsx";
import { compass, formatDdm, formatQ, Q, type UnitPref } from "../components/units.ts";
import { PACKET_TYPES, type Weather } from "../../src/lib/aprs/types.ts";
import { t } from "../i18n/i18n.ts";

export type Reading = [label: string, value: ComponentChildren];

/** The weather readings, in the station page's order and units. */
export function weatherReadings(wx: Weather, pref: UnitPref): Reading[] {
  const items: Reading[] = [];
  if (wx.tempC !== undefined) items.push([t("wx.temperature"), formatQ(wx.tempC, Q.temp, pref)]);
  if (wx.humidityPct !== undefined) items.push([t("wx.humidity"), `${wx.humidityPct} %`]);
  if (wx.pressureHpa !== undefined) items.push([t("wx.pressure"), formatQ(wx.pressureHpa, Q.pressure, pref)]);
  if (wx.windSpeedKmh !== undefined)
    items.push([
      t("wx.wind"),
      `${formatQ(wx.windSpeedKmh, Q.speed, pref)}${wx.windDirDeg !== undefined ? ` ${t("wx.from", { dir: compass(wx.windDirDeg), deg: wx.windDirDeg })}` : ""}`,
    ]);
  else if (wx.windDirDeg !== undefined) items.push([t("wx.wind"), t("wx.from", { dir: compass(wx.windDirDeg), deg: wx.windDirDeg })]);
  if (wx.windGustKmh !== undefined) items.push([t("wx.gusts"), formatQ(wx.windGustKmh, Q.speed, pref)]);
  if (wx.rain1hMm !== undefined) items.push([t("wx.rain1h"), formatQ(wx.rain1hMm, Q.rain, pref)]);
  if (wx.rain24hMm !== undefined) items.push([t("wx.rain24h"), formatQ(wx.rain24hMm, Q.rain, pref)]);
  if (wx.rainMidnightMm !== undefined) items.push([t("wx.rainMidnight"), formatQ(wx.rainMidnightMm, Q.rain, pref)]);
  if (wx.luminosityWm2 !== undefined) items.push([t("wx.luminosity"), `${wx.luminosityWm2} W/m²`]);
  if (wx.snow24hMm !== undefined) items.push([t("wx.snow24h"), formatQ(wx.snow24hMm, Q.rain, pref)]);
  return items;
}

/** APRS-IS q constructs (the APRS-IS "q" algorithm) that have words: how the packet reached the internet (ui/i18n `packetField.q`). */
const Q_CONSTRUCTS = new Set(["qAC", "qAX", "qAU", "qAo", "qAO", "qAS", "qAr", "qAR", "qAZ", "qAI"]);

/** How a position was written (ui/i18n `packetField.formats`). */
const POSITION_FORMATS = new Set(["uncompressed", "compressed", "mic-e", "nmea"]);

/** The packet types (ui/i18n `packetField.types`). */
const PACKET_TYPE_NAMES = new Set<string>(PACKET_TYPES);

/** A field name in English words ("someFieldName" → "Some field name"): the last resort for a field the labels do not know. */
const englishWords = (k: string) =>
  (
    k.charAt(0).toUpperCase() +
    k
      .slice(1)
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase()
  ).replace(/_/g, " ");
/** A field the labels below do not know: its name in the reader's words (ui/i18n `packetField.field`), else in English words. */
const words = (k: string) => (/^[A-Za-z0-9]+$/.test(k) ? t(`packetField.field.${k}`, { defaultValue: englishWords(k) }) : englishWords(k));
const plain = (v: unknown): string =>
  Array.isArray(v)
    ? v.map(plain).join(", ")
    : v && typeof v === "object"
      ? Object.entries(v)
          .map(([k, x]) => `${words(k)} ${plain(x)}`)
          .join(" · ")
      : typeof v === "boolean"
        ? t(v ? "packetField.true" : "packetField.false")
        : String(v);

/** Fields shown by the readings above or folded into another line. */
const FOLDED = new Set(["lat", "lon", "wx", "igate", "qConstruct", "telemetry"]);

/** Every field of a decoded packet (POST /api/decode), labelled and in units, the station page's way. */
export function packetReadings(d: Record<string, unknown>, pref: UnitPref): Reading[] {
  const out: Reading[] = [];
  const str = (k: string) => (typeof d[k] === "string" ? (d[k] as string) : undefined);
  const num = (k: string) => (typeof d[k] === "number" ? (d[k] as number) : undefined);
  const known: Record<string, (v: unknown) => Reading | null> = {
    src: (v) => [t("packetField.from"), String(v)],
    dst: (v) => [t("packetField.dst"), String(v)],
    path: (v) => [t("packetField.path"), Array.isArray(v) && v.length ? v.join(", ") : t("packetField.direct")],
    type: (v) => [t("packetField.type"), PACKET_TYPE_NAMES.has(String(v)) ? t(`packetField.types.${v}`) : String(v)],
    timestamp: (v) => [t("packetField.timestamp"), String(v)],
    format: (v) => [t("packetField.format"), POSITION_FORMATS.has(String(v)) ? t(`packetField.formats.${v}`) : String(v)],
    messaging: (v) => [t("packetField.messaging"), t(v ? "packetField.yes" : "packetField.no")],
    symbol: (v) => [
      t("packetField.symbol"),
      <>
        <StationSymbol symbol={String(v)} /> <code>{String(v)}</code>
      </>,
    ],
    course: (v) => [t("packetField.course"), `${v}° ${compass(Number(v))}`],
    speedKmh: (v) => [t("packetField.speed"), formatQ(Number(v), Q.speed, pref)],
    altitudeM: (v) => [t("packetField.altitude"), formatQ(Number(v), Q.altitude, pref)],
    comment: (v) => [t("packetField.comment"), String(v)],
    micE: (v) => [t("packetField.micE"), String(v)],
    device: (v) => [t("packetField.device"), String(v)],
    text: (v) => [t("packetField.text"), String(v)],
    msgId: (v) => [t("packetField.msgId"), String(v)],
  };
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined || v === null) continue;
    if (k === "path") {
      out.push(known.path!(v)!);
      const q = str("qConstruct");
      if (q)
        out.push([
          t("packetField.receivedVia"),
          `${Q_CONSTRUCTS.has(q) ? t(`packetField.q.${q}`) : "APRS-IS"}${str("igate") ? ` ${str("igate")}` : ""} (${q})`,
        ]);
      continue;
    }
    if (k === "lat" && num("lon") !== undefined) {
      out.push([t("packetField.position"), `${formatDdm(num("lat")!, num("lon")!)} (${num("lat")!.toFixed(5)}, ${num("lon")!.toFixed(5)})`]);
      continue;
    }
    if (k === "wx" && typeof v === "object") {
      out.push(...weatherReadings(v as Weather, pref));
      continue;
    }
    if (k === "telemetry" && typeof v === "object") {
      const tm = v as { seq?: number; analog?: number[]; bits?: string };
      if (tm.seq !== undefined) out.push([t("packetField.telemetrySeq"), String(tm.seq)]);
      if (tm.analog) out.push([t("packetField.analog"), tm.analog.map((x, i) => `A${i + 1} ${x}`).join(" · ")]);
      if (tm.bits) out.push([t("packetField.digital"), tm.bits]);
      continue;
    }
    if (k === "addressee") {
      out.push([t("packetField.addressee"), String(v)]);
      if (str("text") !== undefined) out.push([t("packetField.message"), str("text")!]);
      if (str("msgId") !== undefined) out.push([t("packetField.msgId"), str("msgId")!]);
      continue;
    }
    if (FOLDED.has(k) || ((k === "text" || k === "msgId") && d.addressee !== undefined)) continue;
    out.push(known[k]?.(v) ?? [words(k), plain(v)]);
  }
  return out;
}
