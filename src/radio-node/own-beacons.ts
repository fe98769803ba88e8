/**
 * The station's own beacons, as aprx and Direwolf send them, from RADIO_CALL
 * over RADIO_PATH (with STATION_BEACON set):
 *
 *   position   `!DDMM.hhN/DDDMM.hhW&comment`, every STATION_BEACON_MINUTES
 *   status     `>svc-gateway 0.1.0`, the software and version, as often
 *   telemetry  `T#seq,RxPkts,IGateRx,IGateDropRx,TxPkts,DigiRpt,bits` every
 *              STATION_TELEMETRY_MINUTES: what each counter grew by since the
 *              last report; B1 iGate on, B2 digipeater on. Its PARM./UNIT./
 *              EQNS./BITS. messages, addressed to RADIO_CALL itself, go with
 *              the first report and every DEFINITIONS_MS after.
 *
 * Nothing goes out while RADIO_CALL is not verified here, nor while the clock
 * is not set (system/clock-sanity.ts: the schedule and the telemetry's
 * per-interval counts go by it, as the SVCB1 beacon and weather reports wait
 * for it); every frame takes a token of RADIO_TX_PER_MINUTE, and what finds
 * the bucket empty is due again at the next tick. What goes out is stored as
 * heard from RADIO_CALL with via "echo" (our own transmission, never proof of
 * anything): the station's page shows its position, status and telemetry
 * series, and the same frame heard back through a digipeater within the
 * ingest's 30 s duplicate window is not stored again.
 */
import type { Core } from "../core/core.ts";
import { encodeMessage, encodePosition, encodeStatus, TOCALL } from "../lib/aprs/index.ts";
import { ingestLines } from "../stations/ingest.ts";
import { registerPort } from "../stations/ports.ts";
import { igateStatus } from "../stations/igate.ts";
import { clockPaused } from "../system/clock-sanity.ts";
import { buildInfo } from "../lib/version.ts";
import { parseTnc2 } from "../../radio/index.ts";
import type { GatewayRadio, StationCounts } from "./running-radio.ts";
import { isVerifiedCall } from "./tx.ts";

/** How often the telemetry definitions are repeated (aprx: every few hours). */
const DEFINITIONS_MS = 2 * 3_600_000;

/** The telemetry channels, in order: A1-A5, then the bits B1, B2. */
const TELEMETRY_PARM = ["RxPkts", "IGateRx", "IGateDropRx", "TxPkts", "DigiRpt", "IGate", "Digi"] as const;

/** The station's counters now: the radio ports', the iGate's (igate.ts) and the digipeater's (digipeater.ts); a role that is off counts 0. */
function stationCounts(gw: Core, gr: GatewayRadio): StationCounts {
  let heard = 0;
  let sent = 0;
  for (const p of gr.radio.status()) {
    heard += p.framesIn;
    sent += p.framesOut;
  }
  const ig = igateStatus(gw);
  const notGated = Object.values(ig.dropped).reduce((n: number, k) => n + (k ?? 0), 0);
  const digi = gr.digipeater;
  return { heard, gated: ig.gated, notGated, sent, repeated: digi?.counts().repeated ?? 0, igate: gw.config.igate, digipeater: digi !== null };
}

/** The own beacons in GET /api/ports (`beacons`): what is set, whether it may go out now, and when each last went. */
export type OwnBeaconsStatus = {
  name: "beacons";
  kind: "beacons";
  /** up: STATION_BEACON set and going out; down: set, but RADIO_CALL not verified or the clock not set; off: not set */
  state: "up" | "down" | "off";
  call: string | null;
  /** why nothing goes out now, when set */
  paused: string | null;
  beacon: { lat: number; lon: number; symbol: string; comment: string } | null;
  beaconMinutes: number;
  telemetryMinutes: number;
  positionAt: number | null;
  statusAt: number | null;
  telemetryAt: number | null;
  definitionsAt: number | null;
  /** frames sent (position, status, telemetry, definitions) */
  tx: number;
};

/** Lists the own beacons in GET /api/ports while the radio runs; returns what removes the entry. */
export function registerOwnBeacons(gw: Core, gr: GatewayRadio): () => void {
  return registerPort(gw, "beacons", (): OwnBeaconsStatus => {
    const c = gw.config;
    const s = gr.beacons;
    const paused = !c.stationBeacon || !c.radioCall ? null : !isVerifiedCall(gw, c.radioCall) ? `${c.radioCall} is not verified` : clockPaused(gw);
    return {
      name: "beacons",
      kind: "beacons",
      state: !c.stationBeacon ? "off" : paused ? "down" : "up",
      call: c.radioCall,
      paused,
      beacon: c.stationBeacon,
      beaconMinutes: c.stationBeaconMinutes,
      telemetryMinutes: c.stationTelemetryMinutes,
      positionAt: s.positionAt,
      statusAt: s.statusAt,
      telemetryAt: s.telemetryAt,
      definitionsAt: s.definitionsAt,
      tx: s.sent,
    };
  });
}

// a clock stepped back past `last` (NTP) makes it due, as radio.ts does
const due = (last: number | null, ms: number, now: number) => last === null || now < last || now - last >= ms;

/** The status text: the software and its version. */
export function statusText(): string {
  const b = buildInfo();
  return `${b.name} ${b.version}${b.commit ? ` ${b.commit.slice(0, 7)}` : ""}`;
}

/** The four telemetry definition messages' texts for a report every `minutes`. */
function definitionTexts(minutes: number): string[] {
  const unit = `pkt/${minutes}m`;
  return [
    `PARM.${TELEMETRY_PARM.join(",")}`,
    `UNIT.${[unit, unit, unit, unit, unit, "on", "on"].join(",")}`,
    `EQNS.${Array(5).fill("0,1,0").join(",")}`,
    `BITS.11111111,${buildInfo().name} station`,
  ];
}

/** One telemetry report's information field: what each counter grew by since `last`. */
function telemetryInfo(seq: number, now: StationCounts, last: StationCounts | null): string {
  // a counter that went down (a port reopened as a new object) counts from zero
  const d = (k: "heard" | "gated" | "notGated" | "sent" | "repeated") => (last && now[k] >= last[k] ? now[k] - last[k] : now[k]);
  const bits = `${now.igate ? 1 : 0}${now.digipeater ? 1 : 0}000000`;
  return `T#${String(seq % 1000).padStart(3, "0")},${d("heard")},${d("gated")},${d("notGated")},${d("sent")},${d("repeated")},${bits}`;
}

/** Puts one TNC2 line (source RADIO_CALL) on the air through the transmitter; stores it when it went. */
function send(gw: Core, gr: GatewayRadio, line: string): boolean {
  const f = parseTnc2(line);
  if (!f.ok) throw new Error(`own beacon is not a TNC2 line: ${f.error.message}`);
  if (gr.tx.sendFrame(f.value) !== "sent") return false;
  gr.beacons.sent++;
  const now = gw.clock.now();
  ingestLines(gw, [line], { source: "rf", heardAt: now, echo: true });
  return true;
}

/**
 * The per-minute part of the radio tick: sends whatever of the station's own
 * beacons is due. Returns what went out (TNC2 lines), or why nothing could.
 */
export function ownBeaconsTick(gw: Core, gr: GatewayRadio): Record<string, unknown> | undefined {
  const c = gw.config;
  const beacon = c.stationBeacon;
  if (!beacon || !c.radioCall) return undefined;
  if (!isVerifiedCall(gw, c.radioCall)) return { skipped: `${c.radioCall} is not a verified callsign on this instance` };
  const paused = clockPaused(gw);
  if (paused) return { skipped: paused };
  const s = gr.beacons;
  const now = gw.clock.now();
  const hdr = { src: c.radioCall, path: [...c.radioPath] };
  const out: Record<string, unknown> = {};
  const every = c.stationBeaconMinutes * 60_000;
  if (due(s.positionAt, every, now)) {
    const line = encodePosition({ ...hdr, lat: beacon.lat, lon: beacon.lon, symbol: beacon.symbol, comment: beacon.comment || undefined });
    if (send(gw, gr, line)) {
      s.positionAt = now;
      out.position = line;
    }
  }
  if (due(s.statusAt, every, now)) {
    const line = encodeStatus({ ...hdr, text: statusText() });
    if (send(gw, gr, line)) {
      s.statusAt = now;
      out.status = line;
    }
  }
  const minutes = c.stationTelemetryMinutes;
  if (minutes > 0 && due(s.telemetryAt, minutes * 60_000, now)) {
    const counts = stationCounts(gw, gr);
    const line = `${c.radioCall}>${TOCALL}${hdr.path.length ? "," + hdr.path.join(",") : ""}:${telemetryInfo(s.seq, counts, s.last)}`;
    if (send(gw, gr, line)) {
      s.telemetryAt = now;
      s.seq = (s.seq + 1) % 1000;
      s.last = counts;
      out.telemetry = line;
    }
  }
  // the definitions: all four together, once the bucket has room for them
  if (minutes > 0 && s.telemetryAt !== null && due(s.definitionsAt, DEFINITIONS_MS, now) && gr.tx.bucket.available(now) >= 4) {
    const lines = definitionTexts(minutes).map((text) => encodeMessage({ ...hdr, addressee: c.radioCall!, text }));
    const sent = lines.filter((l) => send(gw, gr, l));
    if (sent.length) out.definitions = sent;
    if (sent.length === lines.length) s.definitionsAt = now;
  }
  return out;
}
