/**
 * What the radio ports hear, kept for operators: the MHeard list (each
 * station heard per port: first and last time, frames, the digipeater path
 * of its last frame) and per-minute samples of each port's counters. Both
 * tables are pruned by the one pruner (MHEARD_TTL_DAYS, PORT_COUNTERS_TTL_DAYS).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { PortCounters } from "./running-radio.ts";
import { formatAddress, type Ax25Frame, type PortStatus } from "../../radio/index.ts";

/** A frame's digipeater path as monitors write it: `WIDE1*,WIDE2-1`. */
function pathText(f: Ax25Frame): string | null {
  if (!f.path.length) return null;
  const last = f.path.findLastIndex((d) => d.repeated);
  return f.path.map((d, i) => formatAddress(d) + (i === last ? "*" : "")).join(",");
}

/** Notes a frame heard on `port`. */
export function noteHeard(gw: Core, port: string, f: Ax25Frame, at: number): void {
  gw.db
    .query(
      `INSERT INTO mheard (port, call, first_ts, last_ts, frames, via) VALUES (?1, ?2, ?3, ?3, 1, ?4)
       ON CONFLICT(port, call) DO UPDATE SET last_ts = max(last_ts, excluded.last_ts), frames = frames + 1, via = excluded.via`,
    )
    .run(port, formatAddress(f.src), at, pathText(f));
}

/** A station heard on a radio port (the MHeard list). */
export const MHEARD_ROW = closed({
  port: t.String({ description: "the radio port's id" }),
  call: t.String({ description: "the station's call-SSID" }),
  firstAt: unixMs("first heard, unix ms"),
  lastAt: unixMs("last heard, unix ms"),
  frames: wholeNumber({ description: "frames heard" }),
  via: nullable(t.String(), "the digipeater path of its last frame, e.g. WIDE1*,WIDE2-1"),
  station: t.Boolean({ description: "the station registry holds this call (it sent APRS we ingested): its station page exists" }),
});
export type MheardRow = Static<typeof MHEARD_ROW>;

/** The MHeard list, most recent first. */
export function mheard(gw: Core, opts: { port?: string; limit?: number } = {}): MheardRow[] {
  const limit = Math.min(Math.max(opts.limit ?? 200, 1), 1000);
  const where = opts.port ? "WHERE m.port = ?1" : "WHERE ?1 IS NULL";
  const rows = gw.db
    .query(
      `SELECT m.port, m.call, m.first_ts AS firstAt, m.last_ts AS lastAt, m.frames, m.via, EXISTS (SELECT 1 FROM stations s WHERE s.call = m.call) AS station
       FROM mheard m ${where} ORDER BY m.last_ts DESC, m.call LIMIT ?2`,
    )
    .all(opts.port ?? null, limit) as Array<Omit<MheardRow, "station"> & { station: number }>;
  return rows.map((r) => ({ ...r, station: r.station === 1 }));
}

/**
 * Writes one port_counters row per port: what each counter grew by since the
 * previous sample, kept in `last` (the running radio's; the first sample
 * after a start counts from zero).
 */
export function sampleCounters(gw: Core, ports: PortStatus[], last: Map<string, PortCounters>): number {
  const now = gw.clock.now();
  const ins = gw.db.query("INSERT INTO port_counters (port, ts, rx_frames, tx_frames, rx_bytes, tx_bytes, errors) VALUES (?, ?, ?, ?, ?, ?, ?)");
  gw.db.transaction(() => {
    for (const p of ports) {
      const prev: PortCounters = last.get(p.id) ?? { framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, errors: 0 };
      // a counter that went down means the port object was replaced: count from zero
      const d = (k: keyof PortCounters) => (p[k] >= prev[k] ? p[k] - prev[k] : p[k]);
      ins.run(p.id, now, d("framesIn"), d("framesOut"), d("bytesIn"), d("bytesOut"), d("errors"));
      last.set(p.id, { framesIn: p.framesIn, framesOut: p.framesOut, bytesIn: p.bytesIn, bytesOut: p.bytesOut, errors: p.errors });
    }
  })();
  return ports.length;
}

/** What a port's counters grew by in one sample (a minute). */
export const COUNTER_SAMPLE = closed({
  ts: unixMs("the sample's time, unix ms"),
  rxFrames: wholeNumber(),
  txFrames: wholeNumber(),
  rxBytes: wholeNumber(),
  txBytes: wholeNumber(),
  errors: wholeNumber(),
});
export type CounterSample = Static<typeof COUNTER_SAMPLE>;

/** A port's counter samples since `since`, oldest first. */
export function counterSamples(gw: Core, port: string, since = 0, limit = 1440): CounterSample[] {
  return gw.db
    .query(
      `SELECT ts, rx_frames AS rxFrames, tx_frames AS txFrames, rx_bytes AS rxBytes, tx_bytes AS txBytes, errors FROM port_counters
       WHERE port = ? AND ts > ? ORDER BY ts LIMIT ?`,
    )
    .all(port, since, Math.min(Math.max(limit, 1), 10_000)) as CounterSample[];
}
