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
 * positions, station rows, weather and telemetry readings, messages), then
 * the events fire: `position` per stored position, `aprsMessage` per message,
 * ack, reject or bulletin heard.
 *
 *   ingestLines(gw, ["N0CALL-9>APRS,qAR,W1AW-10:!4237.14N/07120.83W>"], { source: "aprsis" })
 */
import type { Gateway } from "../gateway.ts";
import type { GatewayEvents } from "../events.ts";
import { decode, mergeDefinitions, type AprsPacket, type TelemetryDefinitions, type Weather } from "../aprs/index.ts";
import type { Statement } from "bun:sqlite";
import { isOwnWeatherEcho, onMessageHeard } from "./outbox.ts";

export type IngestSource = "rf" | "aprsis" | "ingest";

export interface IngestOptions {
  /** the feed: rf = this station's own radio (issue 8's TNC), aprsis, ingest (the box) */
  source: IngestSource;
  /** the IGate that heard these on RF (for source rf: this station's callsign) */
  igate?: string | null;
  /** when they were heard, unix ms (default: now) */
  heardAt?: number;
}

/** One line, optionally with its own time and IGate (JSON batches carry these). */
export interface IngestLine {
  line: string | Uint8Array;
  heardAt?: number;
  igate?: string | null;
}

export interface IngestReport {
  received: number;
  stored: number;
  duplicates: number;
  positions: number;
  /** lines that did not decode, by error code (they are still kept in the raw ring) */
  errors: Record<string, number>;
}

/** Heard-on-RF q constructs: the IGate after them heard the packet on the air. */
const RF_Q = new Set(["qAR", "qAr", "qAo", "qAO"]);
/** The same packet from the same hearer within this window is a duplicate. */
export const DUPE_WINDOW_MS = 30_000;

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
  stationPos: Statement;
  stationHeard: Statement;
  stationDefs: Statement;
  getDefs: Statement;
  reading: Statement;
  stationWx: Statement;
  message: Statement;
}

const prepared = new WeakMap<Gateway, Prepared>();
const dupes = new WeakMap<Gateway, Map<string, number>>();

function statements(gw: Gateway): Prepared {
  let p = prepared.get(gw);
  if (p) return p;
  const db = gw.db;
  p = {
    packet: db.prepare("INSERT INTO packets (ts, src, dst, path, raw, source, igate, type, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    position: db.prepare("INSERT INTO positions (call, ts, lat, lon, alt_m, course, speed_kmh, source, igate, packet_id, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
    stationPos: db.prepare(`INSERT INTO stations (call, kind, owner, alive, lat, lon, ambiguity, symbol, course, speed_kmh, alt_m, comment, device, messaging,
        first_heard, last_heard, last_position_at, packets, source, igate, path)
      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?15, ?15, 1, ?16, ?17, ?18)
      ON CONFLICT(call) DO UPDATE SET
        packets = packets + 1,
        last_heard = max(last_heard, excluded.last_heard),
        kind = excluded.kind, owner = excluded.owner,
        alive = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.alive ELSE alive END,
        lat = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.lat ELSE lat END,
        lon = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.lon ELSE lon END,
        ambiguity = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.ambiguity ELSE ambiguity END,
        course = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.course ELSE course END,
        speed_kmh = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.speed_kmh ELSE speed_kmh END,
        alt_m = CASE WHEN excluded.last_position_at >= coalesce(last_position_at, 0) THEN excluded.alt_m ELSE alt_m END,
        symbol = coalesce(excluded.symbol, symbol),
        comment = coalesce(excluded.comment, comment),
        device = coalesce(excluded.device, device),
        messaging = coalesce(excluded.messaging, messaging),
        last_position_at = max(coalesce(last_position_at, 0), excluded.last_position_at),
        source = excluded.source, igate = excluded.igate, path = excluded.path`),
    stationHeard: db.prepare(`INSERT INTO stations (call, first_heard, last_heard, packets, source, igate, path, status, device, symbol)
      VALUES (?1, ?2, ?2, 1, ?3, ?4, ?5, ?6, ?7, ?8)
      ON CONFLICT(call) DO UPDATE SET packets = packets + 1, last_heard = max(last_heard, excluded.last_heard),
        source = excluded.source, igate = excluded.igate, path = excluded.path,
        status = coalesce(excluded.status, status), device = coalesce(excluded.device, device), symbol = coalesce(symbol, excluded.symbol)`),
    stationDefs: db.prepare(`INSERT INTO stations (call, first_heard, last_heard, telemetry_defs) VALUES (?1, ?2, ?2, ?3)
      ON CONFLICT(call) DO UPDATE SET telemetry_defs = excluded.telemetry_defs`),
    getDefs: db.prepare("SELECT telemetry_defs AS defs FROM stations WHERE call = ?"),
    reading: db.prepare("INSERT INTO sensor_readings (call, ts, kind, data) VALUES (?, ?, ?, ?)"),
    stationWx: db.prepare(`INSERT INTO stations (call, first_heard, last_heard, wx, wx_at, source, igate, path) VALUES (?1, ?2, ?2, ?3, ?2, ?4, ?5, ?6)
      ON CONFLICT(call) DO UPDATE SET wx = CASE WHEN excluded.wx_at >= coalesce(wx_at, 0) THEN excluded.wx ELSE wx END, wx_at = max(coalesce(wx_at, 0), excluded.wx_at),
        last_heard = max(last_heard, excluded.last_heard)`),
    message: db.prepare("INSERT INTO aprs_messages (ts, src, addressee, kind, text, msg_id, source, igate) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
  };
  prepared.set(gw, p);
  return p;
}

/** Whether this exact packet from this hearer was stored within DUPE_WINDOW_MS; remembers it. */
function isDuplicate(gw: Gateway, key: string, ts: number): boolean {
  let seen = dupes.get(gw);
  if (!seen) dupes.set(gw, (seen = new Map()));
  const last = seen.get(key);
  if (last !== undefined && Math.abs(ts - last) < DUPE_WINDOW_MS) return true;
  if (seen.size > 100_000) {
    for (const [k, t] of seen) if (ts - t > DUPE_WINDOW_MS) seen.delete(k);
    if (seen.size > 100_000) seen.clear();
  }
  seen.set(key, ts);
  return false;
}

type PositionEvent = GatewayEvents["position"];
type MessageEvent = GatewayEvents["aprsMessage"];

const MESSAGE_KINDS = new Set(["message", "ack", "rej", "bulletin", "announcement"]);

/** Events collected inside a transaction, emitted once it has committed. */
export interface EventSink {
  positions: PositionEvent[];
  messages: MessageEvent[];
}

export const newSink = (): EventSink => ({ positions: [], messages: [] });

/** Emits what a committed write collected. */
export function flushEvents(gw: Gateway, sink: EventSink): void {
  for (const e of sink.positions) gw.events.emit("position", e);
  for (const e of sink.messages) {
    gw.events.emit("aprsMessage", e);
    onMessageHeard(gw, e);
  }
}

/** Decodes and stores a batch of TNC2 lines; see the file comment. Never throws for bad lines. */
export function ingestLines(gw: Gateway, lines: Array<string | Uint8Array | IngestLine>, opts: IngestOptions): IngestReport {
  const sink = newSink();
  const report = gw.db.transaction(() => ingestLinesTx(gw, lines, opts, sink))();
  flushEvents(gw, sink);
  return report;
}

/** ingestLines inside the caller's transaction; events go to `sink`. */
export function ingestLinesTx(gw: Gateway, lines: Array<string | Uint8Array | IngestLine>, opts: IngestOptions, sink: EventSink): IngestReport {
  const now = gw.clock.now();
  const report: IngestReport = { received: lines.length, stored: 0, duplicates: 0, positions: 0, errors: {} };
  const st = statements(gw);
  const defaultIgate = opts.source === "rf" ? (opts.igate ?? gw.config.radioCall ?? gw.config.fedAprsCall ?? null) : (opts.igate ?? null);
  const via = opts.source === "rf" ? "tnc" : opts.source;
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
    let igate = entry.igate !== undefined ? entry.igate : defaultIgate;
    if (!igate && p?.qConstruct && RF_Q.has(p.qConstruct) && p.igate) igate = p.igate;
    const source = igate || opts.source === "rf" ? "rf" : opts.source;
    const colon = line.indexOf(":");
    const gt = line.indexOf(">");
    const info = colon >= 0 ? line.slice(colon + 1) : line;
    const src = p?.src ?? (gt > 0 ? line.slice(0, Math.min(gt, 16)) : "?");
    if (isDuplicate(gw, `${src}\u0000${info}\u0000${source}\u0000${igate ?? ""}`, ts)) {
      report.duplicates++;
      continue;
    }
    const header = gt >= 0 && colon > gt ? line.slice(gt + 1, colon).split(",") : [];
    const path = header.slice(1).join(",");
    const stored = typeof raw === "string" ? line : raw;
    const packetId = Number(st.packet.run(ts, src, header[0] ?? null, path || null, stored, source, igate, r.ok ? r.packet.type : r.error.code, via).lastInsertRowid);
    report.stored++;
    if (!r.ok) {
      report.errors[r.error.code] = (report.errors[r.error.code] ?? 0) + 1;
      continue;
    }
    const inner = r.packet.type === "third-party" && r.packet.inner ? r.packet.inner : null;
    storePacket(gw, st, inner ?? r.packet, { ts, source, igate, via, packetId, path, info: inner ? null : info }, report, sink.positions, sink.messages);
  }
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
}

function storePacket(gw: Gateway, st: Prepared, p: AprsPacket, h: Heard, report: IngestReport, positions: PositionEvent[], messages: MessageEvent[]): void {
  const isObj = p.type === "object" || p.type === "item";
  const call = isObj ? p.name! : p.src;
  if (p.lat !== undefined && p.lon !== undefined) {
    const pos = st.position.run(call, h.ts, p.lat, p.lon, p.altitudeM ?? null, p.course ?? null, p.speedKmh ?? null, h.source, h.igate, h.packetId, h.via);
    st.stationPos.run(call, isObj ? p.type : "station", isObj ? p.src : null, p.alive === false ? 0 : 1, p.lat, p.lon, p.ambiguity ?? null, p.symbol ?? null, p.course ?? null, p.speedKmh ?? null, p.altitudeM ?? null,
      p.comment ?? null, p.device ?? null, p.messaging === undefined ? null : p.messaging ? 1 : 0, h.ts, h.source, h.igate, h.path || null);
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
    if (isObj) st.stationHeard.run(p.src, h.ts, h.source, h.igate, h.path || null, null, p.device ?? null, null);
  } else if (p.type !== "telemetry-definitions") {
    st.stationHeard.run(p.src, h.ts, h.source, h.igate, h.path || null, p.type === "status" ? (p.status ?? null) : null, p.device ?? null, p.symbol ?? null);
  }
  if (p.wx && Object.keys(p.wx).length && !(h.info !== null && isOwnWeatherEcho(gw, p.src, h.info, h.ts))) storeWx(st, call, h.ts, p.wx, h.source, h.igate, h.path || null);
  if (p.telemetry) st.reading.run(p.src, h.ts, "telemetry", JSON.stringify(p.telemetry));
  if (p.telemetryDefinitions && p.addressee) {
    const row = st.getDefs.get(p.addressee) as { defs: string | null } | null;
    const old = row?.defs ? (JSON.parse(row.defs) as TelemetryDefinitions) : null;
    st.stationDefs.run(p.addressee, h.ts, JSON.stringify(mergeDefinitions(old, p.telemetryDefinitions)));
    st.stationHeard.run(p.src, h.ts, h.source, h.igate, h.path || null, null, null, null);
  }
  if (MESSAGE_KINDS.has(p.type) && p.addressee) {
    const kind = p.type as MessageEvent["kind"];
    const text = p.text ?? "";
    st.message.run(h.ts, p.src, p.addressee, kind, text, p.msgId ?? null, h.source, h.igate);
    messages.push({ src: p.src, addressee: p.addressee, kind, text, msgId: p.msgId, ts: h.ts, source: h.source, igate: h.igate ?? undefined });
  }
}

/** A weather reading: a sensor reading, and the station's latest weather. */
function storeWx(st: Prepared, call: string, ts: number, wx: Weather, source: string, igate: string | null, path: string | null): void {
  const json = JSON.stringify(wx);
  st.reading.run(call, ts, "wx", json);
  st.stationWx.run(call, ts, json, source, igate, path);
}

/**
 * Weather measured rather than heard as a packet (a weather station's push,
 * source "wx"), stored inside the caller's transaction exactly like an APRS
 * weather report: GET /api/stations/:call/series shows both.
 */
export function storeWeatherTx(gw: Gateway, r: { call: string; ts: number; wx: Weather; source: string }): void {
  storeWx(statements(gw), r.call.toUpperCase(), r.ts, r.wx, r.source, null, null);
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
export function ingestPositionsTx(gw: Gateway, items: PositionReport[], via: string, sink: EventSink): number {
  const st = statements(gw);
  const now = gw.clock.now();
  for (const it of items) {
    const ts = it.ts ?? now;
    const source = it.igate ? "rf" : (it.source ?? "ingest");
    const call = it.call.toUpperCase();
    const pos = st.position.run(call, ts, it.lat, it.lon, it.altitudeM ?? null, it.course ?? null, it.speedKmh ?? null, source, it.igate ?? null, null, via);
    st.stationPos.run(call, "station", null, 1, it.lat, it.lon, null, it.symbol ?? null, it.course ?? null, it.speedKmh ?? null, it.altitudeM ?? null, it.comment ?? null, null, null, ts, source, it.igate ?? null, null);
    sink.positions.push({ call, lat: it.lat, lon: it.lon, ts, source, igate: it.igate ?? undefined, via, positionId: Number(pos.lastInsertRowid), kind: "station", symbol: it.symbol, course: it.course, speedKmh: it.speedKmh, altM: it.altitudeM, comment: it.comment });
  }
  return items.length;
}
