/**
 * The one ingest pipeline. Everything heard reaches the registry through
 * ingestLines(): the ingest box (/ingest), our APRS-IS client, and the local
 * TNC's receive path (RF heard by this station as an IGate). Each packet keeps
 * who heard it and when:
 *
 *   source "rf" + igate   heard on the air by that IGate (a q construct qAR/qAr/qAo/qAO
 *                         names it for APRS-IS lines; the TNC path names itself)
 *   source "aprsis"/"ingest"   from that feed, no RF IGate known
 *
 * A batch is decoded first, then written in one transaction (raw ring,
 * positions, weather and telemetry readings, messages; each station's row
 * once per batch, see station-batch.ts), then
 * the events fire: `position` per stored position, `aprsMessage` per message,
 * ack, reject or bulletin heard.
 *
 *   ingestLines(gw, ["N0CALL-9>APRS,qAR,W1AW-10:!4237.14N/07120.83W>"], { source: "aprsis" })
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents, HeardProof } from "../core/events.ts";
import { decode, mergeDefinitions, type AprsPacket, type TelemetryDefinitions, type Weather } from "../lib/aprs/index.ts";
import type { Database, Statement } from "../core/store/sqlite.ts";
import { isOwnWeatherEcho, onMessageHeard } from "./outbox.ts";
import { StationBatch, type HeardBy } from "./station-batch.ts";
import { isEchoLine } from "../radio-node/echoes.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, wholeNumber } from "../lib/schema.ts";
import { RecentHashes } from "../lib/recent-keys.ts";
import { hash53 } from "../lib/hash53.ts";

export type IngestSource = "rf" | "aprsis" | "ingest";

export interface IngestOptions {
  /** the feed: rf = this station's own radio (its TNC), aprsis, ingest (the box) */
  source: IngestSource;
  /** the IGate that heard these on RF (for source rf: this station's callsign) */
  igate?: string | null;
  /** when they were heard, unix ms (default: now) */
  heardAt?: number;
  /** /ingest only: the lines came under a user's device key, not the ingest box's secret */
  device?: boolean;
  /** a hub client that handed these in (carried by the aprsPacket event) */
  origin?: string;
  /** source rf: our own transmission heard back through a digipeater (src/radio-node/echoes.ts): stored with via "echo", proof "relayed" */
  echo?: boolean;
}

/** One line, optionally with its own time and IGate (JSON batches carry these). */
export interface IngestLine {
  line: string | Uint8Array;
  heardAt?: number;
  igate?: string | null;
}

/** What a batch of lines did. */
export const INGEST_REPORT = closed({
  received: wholeNumber({ description: "lines received" }),
  stored: wholeNumber({ description: "lines stored (not duplicates)" }),
  duplicates: wholeNumber({ description: "the same packet from the same hearer within 30 s" }),
  positions: wholeNumber({ description: "positions stored" }),
  errors: t.Record(t.String(), wholeNumber(), { description: "lines that did not decode, by error code (they are still kept in the raw ring)" }),
});
export type IngestReport = Static<typeof INGEST_REPORT>;

/** Heard-on-RF q constructs: the IGate after them heard the packet on the air. */
const RF_Q = new Set(["qAR", "qAr", "qAo", "qAO"]);
/** The same packet from the same hearer within this window is a duplicate. */
const DUPE_WINDOW_MS = 30_000;
/** Lines remembered per generation of the duplicate table at most (a flood of new lines turns it early). */
const DUPE_MAX = 100_000;
/** The duplicate table a gateway starts with. */
export const newIngestDupes = () => new RecentHashes(DUPE_MAX, DUPE_WINDOW_MS);

const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin1 = new TextDecoder("latin1");

function lineText(l: string | Uint8Array): { text: string; raw: string | Uint8Array } {
  if (typeof l === "string") return { text: l, raw: l };
  try {
    const t = utf8.decode(l);
    return { text: t, raw: t };
  } catch {
    return { text: latin1.decode(l), raw: l };
  }
}

interface Prepared {
  packet: Statement;
  position: Statement;
  reading: Statement;
  message: Statement;
}

// compiled once per database connection
const prepared = new WeakMap<Database, Prepared>();

declare module "../core/services.ts" {
  interface Services {
    /** lines stored lately, by a hash of source, text and hearer: a duplicate heard again within the window is dropped */
    ingestDupes: RecentHashes;
  }
}

function statements(gw: Core): Prepared {
  let p = prepared.get(gw.db);
  if (p) return p;
  const db = gw.db;
  p = {
    packet: db.prepare("INSERT INTO packets (ts, src, dst, path, raw, source, igate, type, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    position: db.prepare(
      "INSERT INTO positions (call, ts, lat, lon, alt_m, course, speed_kmh, source, igate, packet_id, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    reading: db.prepare("INSERT INTO sensor_readings (call, ts, kind, data) VALUES (?, ?, ?, ?)"),
    message: db.prepare("INSERT INTO aprs_messages (ts, src, addressee, kind, text, msg_id, source, igate, proof) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
  };
  prepared.set(gw.db, p);
  return p;
}

/** Whether this exact packet from this hearer was stored within DUPE_WINDOW_MS; remembers it. */
function isDuplicate(gw: Core, line: string, ts: number, now: number): boolean {
  const seen = gw.services.ingestDupes;
  // the line's 53-bit hash, not the line: tens of thousands of lines a window at APRS-IS rates
  const key = hash53(line);
  const last = seen.get(key);
  if (last !== undefined && Math.abs(ts - last) < DUPE_WINDOW_MS) return true;
  // the generations turn on the clock: lines may carry when they were heard, in any order
  seen.set(key, ts, now);
  return false;
}

type PositionEvent = GatewayEvents["position"];
type MessageEvent = GatewayEvents["aprsMessage"];
type PacketEvent = GatewayEvents["aprsPacket"];

const MESSAGE_KINDS = new Set(["message", "ack", "rej", "bulletin", "announcement"]);

/** Events collected inside a transaction, emitted once it has committed. */
export interface EventSink {
  positions: PositionEvent[];
  messages: MessageEvent[];
  /** every stored packet (optional: sinks of direct position reports have none) */
  packets?: PacketEvent[];
}

export const newSink = (): EventSink => ({ positions: [], messages: [], packets: [] });

/** Emits what a committed write collected. */
export function flushEvents(gw: Core, sink: EventSink): void {
  for (const e of sink.packets ?? []) gw.events.emit("aprsPacket", e);
  for (const e of sink.positions) gw.events.emit("position", e);
  for (const e of sink.messages) {
    gw.events.emit("aprsMessage", e);
    onMessageHeard(gw, e);
  }
}

/** Decodes and stores a batch of TNC2 lines; see the file comment. Never throws for bad lines. */
export function ingestLines(gw: Core, lines: Array<string | Uint8Array | IngestLine>, opts: IngestOptions): IngestReport {
  const sink = newSink();
  const report = gw.db.transaction(() => ingestLinesTx(gw, lines, opts, sink))();
  flushEvents(gw, sink);
  return report;
}

/** ingestLines inside the caller's transaction; events go to `sink`. */
export function ingestLinesTx(gw: Core, lines: Array<string | Uint8Array | IngestLine>, opts: IngestOptions, sink: EventSink): IngestReport {
  const now = gw.clock.now();
  const report: IngestReport = { received: lines.length, stored: 0, duplicates: 0, positions: 0, errors: {} };
  const st = statements(gw);
  const defaultIgate = opts.source === "rf" ? (opts.igate ?? gw.config.radioCall ?? gw.config.fedAprsCall ?? null) : (opts.igate ?? null);
  const via = opts.source === "rf" ? (opts.echo ? "echo" : "tnc") : opts.source;
  const stations = new StationBatch(gw.db);
  for (const item of lines) {
    const entry: IngestLine = typeof item === "string" || item instanceof Uint8Array ? { line: item } : item;
    const { text, raw } = lineText(entry.line);
    const line = text.replace(/[\r\n]+$/, "");
    if (line.length === 0 || line.startsWith("#")) {
      report.received--;
      continue;
    }
    const ts = entry.heardAt ?? opts.heardAt ?? now;
    const r = decode(line);
    const p = r.ok ? r.packet : null;
    // Who heard it: the feed's IGate, an RF q construct's IGate, or nobody on RF.
    // A device key's lines name no IGate: only this station's radio and the operator's box hear for us.
    let igate = opts.device ? null : entry.igate !== undefined ? entry.igate : defaultIgate;
    if (!igate && !opts.device && p?.qConstruct && RF_Q.has(p.qConstruct) && p.igate) igate = p.igate;
    const source = igate || opts.source === "rf" ? "rf" : opts.source;
    const colon = line.indexOf(":");
    const gt = line.indexOf(">");
    const info = colon >= 0 ? line.slice(colon + 1) : line;
    const src = p?.src ?? (gt > 0 ? line.slice(0, Math.min(gt, 16)) : "?");
    if (isDuplicate(gw, `${src}\u0000${info}\u0000${source}\u0000${igate ?? ""}`, ts, now)) {
      report.duplicates++;
      continue;
    }
    // The header after ">": the destination, then the path (found by position, not split and joined again).
    let dst: string | null = null;
    let path = "";
    if (gt >= 0 && colon > gt) {
      const comma = line.indexOf(",", gt + 1);
      if (comma >= 0 && comma < colon) {
        dst = line.slice(gt + 1, comma);
        path = line.slice(comma + 1, colon);
      } else dst = line.slice(gt + 1, colon);
    }
    // the operator's box heard a line it transmitted for us (our outbox): an echo, as on our own radio
    const echo = !!opts.echo || (opts.source === "ingest" && !opts.device && dst !== null && isEchoLine(gw, src, dst, info, ts));
    const lineVia = echo ? "echo" : via;
    const stored = typeof raw === "string" ? line : raw;
    const packetId = Number(st.packet.run(ts, src, dst, path || null, stored, source, igate, r.ok ? r.packet.type : r.error.code, lineVia).lastInsertRowid);
    report.stored++;
    sink.packets?.push({ line, src, dst, path, info, ts, source, igate, via: lineVia, packet: p, origin: opts.origin });
    if (!r.ok) {
      report.errors[r.error.code] = (report.errors[r.error.code] ?? 0) + 1;
      continue;
    }
    const inner = r.packet.type === "third-party" && r.packet.inner ? r.packet.inner : null;
    const proof = inner || echo ? "relayed" : proofOf(opts, r.packet.qConstruct, path);
    storePacket(
      gw,
      st,
      stations,
      inner ?? r.packet,
      { ts, source, igate, via: lineVia, packetId, path, info: inner ? null : info, proof },
      report,
      sink.positions,
      sink.messages,
    );
  }
  stations.flush();
  return report;
}

interface Heard {
  ts: number;
  source: string;
  igate: string | null;
  via: string;
  packetId: number;
  path: string;
  /** the information field as heard (null for a third-party packet's inner packet) */
  info: string | null;
  proof: HeardProof;
}

/** An APRS-IS path: a q construct, or TCPIP/TCPXX as the first hop after the destination. */
const INTERNET_PATH = /(^|,)(TCPIP|TCPXX)\*?(,|$)/;

/** How a packet (not a third-party wrapper's inner one) reached us; see HeardProof. */
function proofOf(opts: IngestOptions, qConstruct: string | undefined, path: string): HeardProof {
  if (opts.source === "rf") return "radio";
  if (opts.source === "ingest") {
    if (opts.device) return "device";
    if (!qConstruct && !/(^|,)q[A-Za-z]{2}(,|$)/.test(path) && !INTERNET_PATH.test(path)) return "box";
  }
  return "internet";
}

function storePacket(
  gw: Core,
  st: Prepared,
  stations: StationBatch,
  p: AprsPacket,
  h: Heard,
  report: IngestReport,
  positions: PositionEvent[],
  messages: MessageEvent[],
): void {
  const isObj = p.type === "object" || p.type === "item";
  const call = isObj ? p.name! : p.src;
  const by: HeardBy = { source: h.source, igate: h.igate, path: h.path || null };
  if (p.lat !== undefined && p.lon !== undefined) {
    const pos = st.position.run(call, h.ts, p.lat, p.lon, p.altitudeM ?? null, p.course ?? null, p.speedKmh ?? null, h.source, h.igate, h.packetId, h.via);
    stations.position(
      call,
      h.ts,
      {
        kind: isObj ? p.type : "station",
        owner: isObj ? p.src : null,
        alive: p.alive === false ? 0 : 1,
        lat: p.lat,
        lon: p.lon,
        ambiguity: p.ambiguity ?? null,
        symbol: p.symbol ?? null,
        course: p.course ?? null,
        speedKmh: p.speedKmh ?? null,
        altM: p.altitudeM ?? null,
        comment: p.comment ?? null,
        device: p.device ?? null,
        messaging: p.messaging === undefined ? null : p.messaging ? 1 : 0,
      },
      by,
    );
    report.positions++;
    positions.push({
      call,
      lat: p.lat,
      lon: p.lon,
      ts: h.ts,
      source: h.source,
      igate: h.igate ?? undefined,
      via: h.via,
      positionId: Number(pos.lastInsertRowid),
      kind: isObj ? (p.type as "object" | "item") : "station",
      alive: p.alive,
      symbol: p.symbol,
      course: p.course,
      speedKmh: p.speedKmh,
      altM: p.altitudeM,
      comment: p.comment,
    });
    if (isObj) stations.heard(p.src, h.ts, by, null, p.device ?? null, null);
  } else if (p.type !== "telemetry-definitions") {
    stations.heard(p.src, h.ts, by, p.type === "status" ? (p.status ?? null) : null, p.device ?? null, p.symbol ?? null);
  }
  if (p.wx && Object.keys(p.wx).length && !(h.info !== null && isOwnWeatherEcho(gw, p.src, h.info, h.ts))) storeWx(st, stations, call, h.ts, p.wx, by);
  if (p.telemetry) st.reading.run(p.src, h.ts, "telemetry", JSON.stringify(p.telemetry));
  if (p.telemetryDefinitions && p.addressee) {
    const defs = stations.definitions(p.addressee);
    const old = defs ? (JSON.parse(defs) as TelemetryDefinitions) : null;
    stations.setDefinitions(p.addressee, h.ts, JSON.stringify(mergeDefinitions(old, p.telemetryDefinitions)));
    stations.heard(p.src, h.ts, by, null, null, null);
  }
  if (MESSAGE_KINDS.has(p.type) && p.addressee) {
    const kind = p.type as MessageEvent["kind"];
    const text = p.text ?? "";
    st.message.run(h.ts, p.src, p.addressee, kind, text, p.msgId ?? null, h.source, h.igate, h.proof);
    messages.push({
      src: p.src,
      addressee: p.addressee,
      kind,
      text,
      msgId: p.msgId,
      replyAck: p.replyAck,
      ts: h.ts,
      source: h.source,
      igate: h.igate ?? undefined,
      proof: h.proof,
    });
  }
}

/** A weather reading: a sensor reading, and the station's latest weather. */
function storeWx(st: Prepared, stations: StationBatch, call: string, ts: number, wx: Weather, by: HeardBy): void {
  const json = JSON.stringify(wx);
  st.reading.run(call, ts, "wx", json);
  stations.wx(call, ts, json, by);
}

/**
 * Weather measured rather than heard as a packet (a weather station's push,
 * source "wx"), stored inside the caller's transaction exactly like an APRS
 * weather report: GET /api/stations/:call/series shows both.
 */
export function storeWeatherTx(gw: Core, r: { call: string; ts: number; wx: Weather; source: string }): void {
  const stations = new StationBatch(gw.db);
  storeWx(statements(gw), stations, r.call.toUpperCase(), r.ts, r.wx, { source: r.source, igate: null, path: null });
  stations.flush();
}

/** A position reported directly (JSON batches, browsers), not as a packet. */
export interface PositionReport {
  call: string;
  lat: number;
  lon: number;
  ts?: number;
  altitudeM?: number;
  course?: number;
  speedKmh?: number;
  symbol?: string;
  comment?: string;
  /** rf (then igate names who heard it), ingest, browser; wx: a weather station's fixed position */
  source?: "rf" | "ingest" | "browser" | "wx";
  igate?: string | null;
}

/** Stores direct position reports inside the caller's transaction. */
export function ingestPositionsTx(gw: Core, items: PositionReport[], via: string, sink: EventSink): number {
  const st = statements(gw);
  const now = gw.clock.now();
  const stations = new StationBatch(gw.db);
  for (const it of items) {
    const ts = it.ts ?? now;
    const source = it.igate ? "rf" : (it.source ?? "ingest");
    const call = it.call.toUpperCase();
    const pos = st.position.run(call, ts, it.lat, it.lon, it.altitudeM ?? null, it.course ?? null, it.speedKmh ?? null, source, it.igate ?? null, null, via);
    stations.position(
      call,
      ts,
      {
        kind: "station",
        owner: null,
        alive: 1,
        lat: it.lat,
        lon: it.lon,
        ambiguity: null,
        symbol: it.symbol ?? null,
        course: it.course ?? null,
        speedKmh: it.speedKmh ?? null,
        altM: it.altitudeM ?? null,
        comment: it.comment ?? null,
        device: null,
        messaging: null,
      },
      { source, igate: it.igate ?? null, path: null },
    );
    sink.positions.push({
      call,
      lat: it.lat,
      lon: it.lon,
      ts,
      source,
      igate: it.igate ?? undefined,
      via,
      positionId: Number(pos.lastInsertRowid),
      kind: "station",
      symbol: it.symbol,
      course: it.course,
      speedKmh: it.speedKmh,
      altM: it.altitudeM,
      comment: it.comment,
    });
  }
  stations.flush();
  return items.length;
}
