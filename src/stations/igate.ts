/**
 * The station's iGate (docs/operating.md "iGate"): the rules of
 * igate-rules.ts with the state they need.
 *
 *   RF to APRS-IS (IGATE=on)   every APRS frame our radio hears (radio.ts
 *       calls heardOnRf) goes up on the APRS-IS login (aprsis.ts attaches the
 *       uplink once the server answers `verified`) with `qAR,<APRSIS_CALL>`,
 *       unless a rule drops it; the same source, destination and information
 *       goes up once in DEDUP_MS. `?IGATE?` is answered on RF with
 *       `<IGATE,MSG_CNT=n,LOC_CNT=n`, `?APRS?` with the STATION_BEACON
 *       position (none set: not answered), each at most once in ANSWER_MIN_MS.
 *   APRS-IS to RF (IGATE_TX=on)   each line the uplink receives (aprsis.ts
 *       calls fromAprsIs): a message to a station heard directly here (at
 *       most one digipeater hop) in LOCAL_MS, not heard on APRS-IS since, from
 *       a sender not heard here, goes on the air as a third-party frame from
 *       RADIO_CALL via RADIO_PATH; the sender's next position follows it, once
 *       per LOCAL_MS; IGATE_TX_FILTER adds what it matches. Through the
 *       radio's one transmitter: RADIO_CALL verified, RADIO_TX_PER_MINUTE.
 *
 * Counters and the last RECENT_MAX gated lines show in GET /api/ports under
 * the `aprs-is` port's `igate` (docs/api.md).
 */
import type { Core } from "../core/core.ts";
import type { Transmitter } from "../radio-node/tx.ts";
import { encodePosition, TOCALL } from "../lib/aprs/encode.ts";
import { decode } from "../lib/aprs/index.ts";
import { matchFilter, parseFilter, type Filter } from "../hub/filter.ts";
import { splitLine, type Header } from "../hub/qconstruct.ts";
import { parseAddressLoose, uiFrame } from "../../radio/index.ts";
import { RecentKeys } from "../lib/recent-keys.ts";
import { isToRf, rfToIs, splitIsLine, usedHops, type IsDropReason, type RfDropReason } from "./igate-rules.ts";

/** The same frame goes up (or on the air) once in this window. */
const DEDUP_MS = 30_000;
/** A station heard this recently is local; a sender's courtesy position goes once in it. */
const LOCAL_MS = 30 * 60_000;
/** A general query is answered at most once in this window. */
const ANSWER_MIN_MS = 5 * 60_000;
/** Gated lines kept for the Radio page. */
export const RECENT_MAX = 50;
/** Calls and keys remembered per generation of a table (two generations: the older goes whole). */
const TABLE_MAX = 10_000;

export interface GatedLine {
  at: number;
  dir: "rf-to-is" | "is-to-rf";
  line: string;
}

/** What the iGate counts, kept in its state and shown in its status. */
export interface IgateCounts {
  /** APRS frames heard on RF, gated up, and not gated by reason */
  heard: number;
  gated: number;
  dropped: Partial<Record<RfDropReason, number>>;
  /** general queries answered on RF */
  answered: number;
  /** lines received from APRS-IS, sent on RF by kind, not sent by reason */
  fromIs: number;
  toRf: { message: number; position: number; filter: number };
  notToRf: Partial<Record<IsDropReason, number>>;
  /** the last gated lines, newest first */
  recent: GatedLine[];
}

export interface IgateStatus extends IgateCounts {
  /** IGATE: RF to APRS-IS */
  rfToIs: boolean;
  /** IGATE_TX: APRS-IS to RF */
  isToRf: boolean;
  /** a verified APRS-IS login takes the gated lines now */
  uplink: boolean;
  /** stations heard directly (at most one hop) in the last 30 minutes */
  localStations: number;
}

export interface IgateState extends IgateCounts {
  upDedup: RecentKeys;
  downDedup: RecentKeys;
  /** call -> last heard on our radio at most one hop away; at all; on APRS-IS (not gated from RF) */
  direct: RecentKeys;
  onRf: RecentKeys;
  onIs: RecentKeys;
  /** sender -> when a message of theirs went on the air (their next position is owed) */
  owed: RecentKeys;
  /** sender -> when their courtesy position went on the air */
  positionAt: RecentKeys;
  /** when each general query was last answered */
  answeredAt: { APRS: number | null; IGATE: number | null };
  uplink: ((line: Uint8Array) => boolean) | null;
  filter: Filter | null | undefined;
}

declare module "../core/services.ts" {
  interface Services {
    /** the iGate's counters, what it heard lately and its uplink */
    igate: IgateState;
  }
}

/** A new gateway's iGate (src/hosts/services.ts). */
export const newIgate = (): IgateState => ({
  heard: 0,
  gated: 0,
  dropped: {},
  answered: 0,
  fromIs: 0,
  toRf: { message: 0, position: 0, filter: 0 },
  notToRf: {},
  recent: [],
  upDedup: new RecentKeys(TABLE_MAX, DEDUP_MS),
  downDedup: new RecentKeys(TABLE_MAX, DEDUP_MS),
  direct: new RecentKeys(TABLE_MAX),
  onRf: new RecentKeys(TABLE_MAX),
  onIs: new RecentKeys(TABLE_MAX),
  owed: new RecentKeys(TABLE_MAX),
  positionAt: new RecentKeys(TABLE_MAX),
  answeredAt: { APRS: null, IGATE: null },
  uplink: null,
  filter: undefined,
});

const stateOf = (gw: Core): IgateState => gw.services.igate;

const latin1 = new TextDecoder("latin1");
/** APRS-IS lines are bytes: latin1 keeps each one as it was heard. */
const bytesOf = (s: string): Uint8Array => Buffer.from(s, "latin1");

const note = (m: RecentKeys, k: string, at: number) => m.set(k, at);

const within = (m: RecentKeys, k: string, now: number, ms: number) => {
  const at = m.get(k);
  return at !== undefined && now - at >= 0 && now - at < ms;
};

function remember(s: IgateState, dir: GatedLine["dir"], line: string, at: number): void {
  s.recent.unshift({ at, dir, line });
  if (s.recent.length > RECENT_MAX) s.recent.length = RECENT_MAX;
}

/** The APRS-IS login's way to send a line (null when it is down or unverified); aprsis.ts sets it. */
export function setUplink(gw: Core, send: ((line: Uint8Array) => boolean) | null): void {
  stateOf(gw).uplink = send;
}

/** The iGate's counters, for GET /api/ports. */
export function igateStatus(gw: Core): IgateStatus {
  const s = stateOf(gw);
  const now = gw.clock.now();
  const local = s.direct.countWithin(now, LOCAL_MS);
  return {
    rfToIs: gw.config.igate,
    isToRf: gw.config.igateTx,
    uplink: s.uplink !== null,
    heard: s.heard,
    gated: s.gated,
    dropped: { ...s.dropped },
    answered: s.answered,
    fromIs: s.fromIs,
    toRf: { ...s.toRf },
    notToRf: { ...s.notToRf },
    localStations: local,
    recent: s.recent.slice(),
  };
}

/**
 * An APRS frame our radio heard, as its TNC2 line (formatTnc2); `echo`: our
 * own transmission heard back. `tx`: the radio's transmitter, to answer a query.
 */
export function heardOnRf(gw: Core, line: Uint8Array, echo: boolean, tx: Transmitter | null): void {
  if (!gw.config.igate && !gw.config.igateTx) return;
  const s = stateOf(gw);
  const now = gw.clock.now();
  const h = splitLine(latin1.decode(line));
  if (h && !echo) {
    const call = h.src.toUpperCase();
    note(s.onRf, call, now);
    if (usedHops(h.path) <= 1) note(s.direct, call, now);
  }
  if (!gw.config.igate) return;
  s.heard++;
  const drop = (why: RfDropReason) => void (s.dropped[why] = (s.dropped[why] ?? 0) + 1);
  const igate = gw.config.aprsIsCall ?? gw.config.fedAprsCall;
  if (!h) return drop("malformed");
  // no APRS-IS login to name: queries are still answered, nothing goes up
  const d = rfToIs(h, { igate: igate ?? "", echo });
  if ("drop" in d) {
    if (d.query) answerQuery(gw, s, d.query, tx, now);
    return drop(d.drop);
  }
  const key = `${d.header.src.toUpperCase()}>${d.header.dst.toUpperCase()}:${d.header.info}`;
  if (within(s.upDedup, key, now, DEDUP_MS)) return drop("duplicate");
  if (!igate || !s.uplink || !s.uplink(bytesOf(`${d.gate}\r\n`))) return drop("uplink-down");
  note(s.upDedup, key, now);
  s.gated++;
  remember(s, "rf-to-is", d.gate, now);
}

/**
 * A general query heard (APRS 1.01 ch. 15), answered on RF once in
 * ANSWER_MIN_MS each, within the transmit budget: `?IGATE?` with our
 * capabilities, `?APRS?` with the station's position (STATION_BEACON; with
 * none set there is nothing to answer).
 */
function answerQuery(gw: Core, s: IgateState, kind: "APRS" | "IGATE", tx: Transmitter | null, now: number): void {
  const last = s.answeredAt[kind];
  if (!tx || (last !== null && now - last >= 0 && now - last < ANSWER_MIN_MS)) return;
  let info: string;
  if (kind === "IGATE") info = `<IGATE,MSG_CNT=${s.toRf.message},LOC_CNT=${s.direct.countWithin(now, LOCAL_MS)}`;
  else {
    const b = gw.config.stationBeacon;
    if (!b || !gw.config.radioCall) return;
    const line = encodePosition({ src: gw.config.radioCall, lat: b.lat, lon: b.lon, symbol: b.symbol, comment: b.comment || undefined });
    info = line.slice(line.indexOf(":") + 1);
  }
  const frame = ownFrame(gw, info);
  if (frame && tx.sendFrame(frame) === "sent") {
    s.answeredAt[kind] = now;
    s.answered++;
  }
}

/** A UI frame from RADIO_CALL to our tocall via RADIO_PATH, or null without RADIO_CALL. */
function ownFrame(gw: Core, info: string) {
  const src = gw.config.radioCall ? parseAddressLoose(gw.config.radioCall) : null;
  const dest = parseAddressLoose(TOCALL);
  if (!src?.ok || !dest.ok) return null;
  const path = gw.config.radioPath.map((v) => parseAddressLoose(v)).flatMap((r) => (r.ok ? [{ ...r.value, repeated: false }] : []));
  return uiFrame({ src: src.value, dest: dest.value, path, info: bytesOf(info) });
}

const RF_Q = /^q(AR|Ar|Ao|AO)$/;

/** A line the APRS-IS uplink received; `tx`: the radio's transmitter (null: no radio). */
export function fromAprsIs(gw: Core, bytes: Uint8Array, tx: Transmitter | null): void {
  if (!gw.config.igateTx) return;
  const s = stateOf(gw);
  const now = gw.clock.now();
  const text = latin1.decode(bytes);
  s.fromIs++;
  const drop = (why: IsDropReason) => void (s.notToRf[why] = (s.notToRf[why] ?? 0) + 1);
  const h = splitIsLine(text);
  if (!h) return drop("malformed");
  // heard on APRS-IS: a line that was not gated from RF by some iGate
  if (!h.path.some((w) => RF_Q.test(w))) note(s.onIs, h.src.toUpperCase(), now);
  const radioCall = gw.config.radioCall;
  if (!radioCall || !tx) return drop("no-radio");
  const d = isToRf(text, radioCall, {
    addresseeLocal: (call) => within(s.direct, call, now, LOCAL_MS),
    addresseeOnIs: (call) => (s.onIs.get(call) ?? 0) > (s.direct.get(call) ?? 0),
    senderLocal: (call) => within(s.onRf, call.toUpperCase(), now, LOCAL_MS),
    positionOwed: (call) => within(s.owed, call, now, LOCAL_MS),
    filter: (hh) => passesFilter(gw, s, hh),
  });
  if ("drop" in d) return drop(d.drop);
  const key = `${d.header.src.toUpperCase()}>${d.header.dst.toUpperCase()}:${d.header.info.trimEnd()}`;
  if (within(s.downDedup, key, now, DEDUP_MS)) return drop("duplicate");
  const frame = ownFrame(gw, d.tx);
  if (!frame) return drop("no-radio");
  const r = tx.sendFrame(frame);
  if (r !== "sent") return drop(r);
  note(s.downDedup, key, now);
  s.toRf[d.kind]++;
  const sender = d.header.src.toUpperCase();
  if (d.kind === "message" && !within(s.positionAt, sender, now, LOCAL_MS)) note(s.owed, sender, now);
  if (d.kind === "position") {
    s.owed.delete(sender);
    note(s.positionAt, sender, now);
  }
  remember(s, "is-to-rf", d.tx, now);
}

/** IGATE_TX_FILTER (aprsc syntax, src/hub/filter.ts); positions it refers to come from the station registry. */
function passesFilter(gw: Core, s: IgateState, h: Header): boolean {
  if (s.filter === undefined) s.filter = gw.config.igateTxFilter ? parseFilter(gw.config.igateTxFilter, gw.config.radioCall ?? "") : null;
  const f = s.filter;
  if (!f) return false;
  for (const call of f.refs) {
    const p = gw.db.query("SELECT lat, lon FROM stations WHERE call = ? AND lat IS NOT NULL").get(call) as { lat: number; lon: number } | null;
    if (p) f.positions.set(call, p);
  }
  const r = decode(`${h.src}>${[h.dst, ...h.path].join(",")}:${h.info}`);
  return matchFilter(f, { src: h.src, dst: h.dst, path: h.path, packet: r.ok ? r.packet : null });
}
