/**
 * Our decoder against Direwolf's decode_aprs on the same corpus, field by
 * field. Where the two knowingly differ, the test says so in a comment:
 *  - positional weather `ddd/sss`: we read the speed as mph (APRS 1.0.1, ch. 12);
 *    decode_aprs reads knots, so wind speed is compared only for positionless
 *    (mph in both) and compressed (knots in both) reports;
 *  - a course of 000 (unknown) or above 360 is left out by us, printed by decode_aprs;
 *  - decode_aprs does not look inside third-party packets; we do (tested below).
 * decode_aprs rejects APRS-IS server names longer than 6 characters in the
 * path, so it is fed each line without its q construct (as its manual advises).
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { decode, applyTelemetry, mergeDefinitions, PACKET_TYPES, type AprsPacket, type TelemetryDefinitions } from "../../src/lib/aprs/index.ts";
import { runDecodeAprs, unescapeDw, type DwReport } from "./direwolf.ts";

const CORPUS = join(import.meta.dir, "corpus.txt");
const lines = readFileSync(CORPUS, "latin1")
  .split("\n")
  .filter((l) => l.length && !l.startsWith("#"));
const forDw = lines.map((l) => l.replace(/,qA[^:]*:/, ":"));
const reports = runDecodeAprs(forDw);

const KIND_TYPE: Record<string, string[]> = {
  Position: ["position"],
  "Position with time": ["position"],
  "Weather Report": ["weather"],
  "Positionless Weather Report": ["weather"],
  Object: ["object"],
  "Killed Object": ["object"],
  "Weather Report with Object": ["object"],
  Item: ["item"],
  "Killed Item": ["item"],
  "MIC-E": ["position"],
  "APRS Message": ["message", "bulletin", "announcement"],
  "ACK message": ["ack"],
  "REJ message": ["rej"],
  Telemetry: ["telemetry"],
  "Status Report": ["status"],
  "Raw GPS data": ["position"],
  "Third Party Header": ["third-party"],
};

const near = (a: number | undefined, b: number | undefined, tol: number) => a !== undefined && b !== undefined && Math.abs(a - b) <= tol;

/** Compares one packet with one report; returns the differences found. */
function differences(p: AprsPacket, dw: DwReport, defs: TelemetryDefinitions | null): string[] {
  const diffs: string[] = [];
  const want = (ok: boolean, what: string) => {
    if (!ok) diffs.push(what);
  };
  if (dw.kind.startsWith("Telemetry ")) {
    want(p.type === "telemetry-definitions", `type ${p.type} for ${dw.kind}`);
    return diffs;
  }
  want((KIND_TYPE[dw.kind] ?? []).includes(p.type), `type ${p.type} vs ${dw.kind}`);
  if (dw.kind === "MIC-E") want(p.format === "mic-e", "format should be mic-e");
  if (dw.kind === "Raw GPS data") want(p.format === "nmea", "format should be nmea");
  if (dw.kind.includes("Object") || dw.kind.includes("Item")) {
    want(p.name === dw.name, `name ${p.name} vs ${dw.name}`);
    want(p.alive === !dw.kind.startsWith("Killed"), `alive ${p.alive} vs ${dw.kind}`);
  }
  // decode_aprs prints minutes to 4 decimals: 0.00005' is 8.3e-7 degrees.
  if (dw.lat !== undefined) want(near(p.lat, dw.lat, 1e-6), `lat ${p.lat} vs ${dw.lat}`);
  if (dw.lon !== undefined) want(near(p.lon, dw.lon, 1e-6), `lon ${p.lon} vs ${dw.lon}`);
  if (dw.lat === undefined) want(p.lat === undefined, `lat ${p.lat} where decode_aprs has none`);
  if (dw.speedMph !== undefined) want(near((p.speedKmh ?? NaN) / 1.609344, dw.speedMph, 0.51), `speed ${p.speedKmh} km/h vs ${dw.speedMph} mph`);
  if (dw.course !== undefined) {
    if (dw.course === 0 || dw.course > 360) want(p.course === undefined || p.course === 0, `course ${p.course} vs ${dw.course}`);
    else want(p.course === dw.course, `course ${p.course} vs ${dw.course}`);
  }
  if (dw.altFt !== undefined) want(near((p.altitudeM ?? NaN) / 0.3048, dw.altFt, 0.6), `altitude ${p.altitudeM} m vs ${dw.altFt} ft`);
  else want(p.altitudeM === undefined, `altitude ${p.altitudeM} where decode_aprs has none`);
  if (dw.rangeMiles !== undefined) want(near((p.rangeKm ?? NaN) / 1.609344, dw.rangeMiles, 0.1), `range ${p.rangeKm} km vs ${dw.rangeMiles} mi`);
  if (dw.phg)
    want(
      p.phg?.powerW === dw.phg.powerW && p.phg?.heightFt === dw.phg.heightFt && p.phg?.gainDbi === dw.phg.gainDbi,
      `phg ${JSON.stringify(p.phg)} vs ${JSON.stringify(dw.phg)}`,
    );
  if (dw.kind === "MIC-E") {
    want(p.micE === dw.micE, `Mic-E message ${p.micE} vs ${dw.micE}`);
    if (dw.mfr === "Unknown manufacturer") want(p.device === undefined, `device ${p.device} vs unknown`);
    else want(p.device === dw.mfr, `device ${p.device} vs ${dw.mfr}`);
  }
  if (dw.weather) {
    const w = dw.weather;
    const x = p.wx ?? {};
    if (w.dir !== undefined) want(x.windDirDeg === w.dir, `wind dir ${x.windDirDeg} vs ${w.dir}`);
    if (dw.windMph !== undefined && (dw.kind === "Positionless Weather Report" || p.format === "compressed"))
      want(near((x.windSpeedKmh ?? NaN) / 1.609344, dw.windMph, 0.06), `wind ${x.windSpeedKmh} km/h vs ${dw.windMph} mph`);
    if (w.gustMph !== undefined) want(near((x.windGustKmh ?? NaN) / 1.609344, w.gustMph, 0.51), `gust ${x.windGustKmh} vs ${w.gustMph}`);
    if (w.tempF !== undefined) want(near(((x.tempC ?? NaN) * 9) / 5 + 32, w.tempF, 0.51), `temp ${x.tempC} C vs ${w.tempF} F`);
    for (const [k, mine] of [
      ["rain1hIn", x.rain1hMm],
      ["rain24hIn", x.rain24hMm],
      ["rainMidIn", x.rainMidnightMm],
    ] as const)
      if (w[k] !== undefined) want(near((mine ?? NaN) / 25.4, w[k], 0.006), `${k} ${mine} mm vs ${w[k]} in`);
    if (w.humidity !== undefined) want(x.humidityPct === w.humidity, `humidity ${x.humidityPct} vs ${w.humidity}`);
    if (w.inHg !== undefined) want(near((x.pressureHpa ?? NaN) * 0.0295299830714, w.inHg, 0.011), `pressure ${x.pressureHpa} hPa vs ${w.inHg} inHg`);
    if (w.lum !== undefined) want(x.luminosityWm2 === w.lum, `luminosity ${x.luminosityWm2} vs ${w.lum}`);
    if (w.snowIn !== undefined) want(near((x.snow24hMm ?? NaN) / 25.4, w.snowIn, 0.06), `snow ${x.snow24hMm} vs ${w.snowIn}`);
  }
  if (dw.telemetry) {
    want(p.telemetry?.seq === dw.telemetrySeq, `telemetry seq ${p.telemetry?.seq} vs ${dw.telemetrySeq}`);
    const mine = p.telemetry ? applyTelemetry(p.telemetry, defs).filter((c) => c.id.startsWith("A")) : [];
    dw.telemetry.forEach((t, k) => {
      const m = mine[k];
      want(!!m && near(m.value ?? NaN, t.value, 0.0006), `telemetry ${t.name} ${m?.value} vs ${t.value}`);
      if (defs?.parm) want(m?.name === t.name && m?.unit === t.unit, `telemetry label ${m?.name} ${m?.unit} vs ${t.name} ${t.unit}`);
    });
  } else want(p.telemetry === undefined, `telemetry ${JSON.stringify(p.telemetry)} where decode_aprs has none`);
  if (dw.msgNumber !== undefined || dw.addressee !== undefined) {
    want(p.addressee === dw.addressee, `addressee ${p.addressee} vs ${dw.addressee}`);
    want((p.msgId ?? undefined) === dw.msgNumber, `msgId ${p.msgId} vs ${dw.msgNumber}`);
  }
  // Comments: decode_aprs prints a message's whole text (id included).
  if (dw.kind === "APRS Message") want(dw.comment === p.text + (p.msgId ? "{" + p.msgId : ""), `text ${p.text} vs ${dw.comment}`);
  else if (dw.kind === "Status Report") want(p.status === dw.comment, `status ${p.status} vs ${dw.comment}`);
  else if (!dw.kind.includes("Weather") && dw.freqMhz === undefined)
    want((p.comment ?? undefined) === (dw.comment || undefined), `comment ${JSON.stringify(p.comment)} vs ${JSON.stringify(dw.comment)}`);
  return diffs;
}

describe("decoder vs Direwolf decode_aprs", () => {
  test(`the corpus (${lines.length} packets) decodes to the same fields`, () => {
    expect(reports.length).toBe(lines.length);
    const defs = new Map<string, TelemetryDefinitions>();
    const failures: string[] = [];
    lines.forEach((line, k) => {
      const r = decode(unescapeDw(line));
      if (!r.ok) {
        failures.push(`${line}\n    our decoder refused it: ${r.error.code} ${r.error.message}`);
        return;
      }
      const p = r.packet;
      if (p.telemetryDefinitions && p.addressee) defs.set(p.addressee, mergeDefinitions(defs.get(p.addressee) ?? null, p.telemetryDefinitions));
      const d = differences(p, reports[k]!, defs.get(p.src) ?? null);
      if (d.length) failures.push(`${line}\n    ${d.join("\n    ")}`);
    });
    expect(failures).toEqual([]);
  });

  test("every kind of packet in the corpus is covered", () => {
    const types = new Set<string>();
    const formats = new Set<string>();
    for (const l of lines) {
      const r = decode(unescapeDw(l));
      if (r.ok) {
        types.add(r.packet.type);
        if (r.packet.format) formats.add(r.packet.format);
      }
    }
    // every kind of packet but three the corpus has no example of
    for (const t of PACKET_TYPES.filter((k) => !["query", "capabilities", "user-defined"].includes(k))) expect(types).toContain(t);
    expect([...formats].sort()).toEqual(["compressed", "mic-e", "nmea", "uncompressed"]);
  });
});
