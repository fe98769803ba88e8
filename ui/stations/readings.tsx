/**
 * What a packet says, in the words and units the station page uses: the
 * station page's current weather and the decode page both read from here, so
 * a field has one label everywhere (never `windSpeedKmh` or `qConstruct`).
 */
import type { ComponentChildren } from "preact";
import { StationSymbol } from "../components/station-symbol.tsx";
import { compass, formatDdm, formatQ, Q, type UnitPref } from "../components/units.ts";
import type { Weather } from "../../src/aprs/types.ts";
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

/** APRS-IS q constructs (the APRS-IS "q" algorithm): how the packet reached the internet. */
const Q_CONSTRUCTS: Record<string, string> = {
  qAC: "sent to APRS-IS by the station itself (verified login)",
  qAX: "sent to APRS-IS by the station itself (unverified login)",
  qAU: "sent to APRS-IS over UDP",
  qAo: "gated from RF by a receive-only IGate (bidirectional path)",
  qAO: "gated from RF by a receive-only IGate",
  qAS: "relayed by an APRS-IS server",
  qAr: "gated from RF (IGate given by the server)",
  qAR: "gated from RF by an IGate",
  qAZ: "not to be gated (server-only)",
  qAI: "traced through the servers",
};

const POSITION_FORMATS: Record<string, string> = { uncompressed: "plain text", compressed: "compressed", "mic-e": "Mic-E", nmea: "GPS NMEA sentence" };

/** A field the labels below do not know: its name in words ("someFieldName" → "Some field name"). */
const words = (k: string) =>
  (
    k.charAt(0).toUpperCase() +
    k
      .slice(1)
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .toLowerCase()
  ).replace(/_/g, " ");
const plain = (v: unknown): string =>
  Array.isArray(v)
    ? v.map(plain).join(", ")
    : v && typeof v === "object"
      ? Object.entries(v)
          .map(([k, x]) => `${words(k)} ${plain(x)}`)
          .join(" · ")
      : String(v);

/** Fields shown by the readings above or folded into another line. */
const FOLDED = new Set(["lat", "lon", "wx", "igate", "qConstruct", "telemetry"]);

/** Every field of a decoded packet (POST /api/decode), labelled and in units, the station page's way. */
export function packetReadings(d: Record<string, unknown>, pref: UnitPref): Reading[] {
  const out: Reading[] = [];
  const str = (k: string) => (typeof d[k] === "string" ? (d[k] as string) : undefined);
  const num = (k: string) => (typeof d[k] === "number" ? (d[k] as number) : undefined);
  const known: Record<string, (v: unknown) => Reading | null> = {
    src: (v) => ["From", String(v)],
    dst: (v) => ["Destination (tocall)", String(v)],
    path: (v) => ["Path", Array.isArray(v) && v.length ? v.join(", ") : "direct (no digipeaters)"],
    type: (v) => ["Packet type", String(v)],
    timestamp: (v) => ["Time stamp (as sent)", String(v)],
    format: (v) => ["Position format", POSITION_FORMATS[String(v)] ?? String(v)],
    messaging: (v) => ["Can receive messages", v ? "yes" : "no"],
    symbol: (v) => [
      "Symbol",
      <>
        <StationSymbol symbol={String(v)} /> <code>{String(v)}</code>
      </>,
    ],
    course: (v) => ["Course", `${v}° ${compass(Number(v))}`],
    speedKmh: (v) => ["Speed", formatQ(Number(v), Q.speed, pref)],
    altitudeM: (v) => ["Altitude", formatQ(Number(v), Q.altitude, pref)],
    comment: (v) => ["Comment", String(v)],
    micE: (v) => ["Mic-E status", String(v)],
    device: (v) => ["Radio or software", String(v)],
    text: (v) => ["Text", String(v)],
    msgId: (v) => ["Message number", String(v)],
  };
  for (const [k, v] of Object.entries(d)) {
    if (v === undefined || v === null) continue;
    if (k === "path") {
      out.push(known.path!(v)!);
      const q = str("qConstruct");
      if (q) out.push(["Received via", `${Q_CONSTRUCTS[q] ?? "APRS-IS"}${str("igate") ? ` ${str("igate")}` : ""} (${q})`]);
      continue;
    }
    if (k === "lat" && num("lon") !== undefined) {
      out.push(["Position", `${formatDdm(num("lat")!, num("lon")!)} (${num("lat")!.toFixed(5)}, ${num("lon")!.toFixed(5)})`]);
      continue;
    }
    if (k === "wx" && typeof v === "object") {
      out.push(...weatherReadings(v as Weather, pref));
      continue;
    }
    if (k === "telemetry" && typeof v === "object") {
      const tm = v as { seq?: number; analog?: number[]; bits?: string };
      if (tm.seq !== undefined) out.push(["Telemetry sequence", String(tm.seq)]);
      if (tm.analog) out.push(["Analog channels", tm.analog.map((x, i) => `A${i + 1} ${x}`).join(" · ")]);
      if (tm.bits) out.push(["Digital channels", tm.bits]);
      continue;
    }
    if (k === "addressee") {
      out.push(["Message to", String(v)]);
      if (str("text") !== undefined) out.push(["Message", str("text")!]);
      if (str("msgId") !== undefined) out.push(["Message number", str("msgId")!]);
      continue;
    }
    if (FOLDED.has(k) || ((k === "text" || k === "msgId") && d.addressee !== undefined)) continue;
    out.push(known[k]?.(v) ?? [words(k), plain(v)]);
  }
  return out;
}
