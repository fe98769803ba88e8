/**
 * Whether this gateway's clock can be trusted to date what it signs and
 * transmits. A Raspberry Pi has no real-time clock: it boots in 1970, or at
 * its last shutdown, until NTP answers (and in the field NTP may never answer).
 * A record signed then would be refused or misordered by peers.
 *
 * The clock is not sane while it says a time
 *   - before CLOCK_FLOOR_MS (no real date for this software is that early),
 *   - behind the newest record, find or frame this gateway stored with its own
 *     clock (fed_feed, logs, packets heard here), beyond BEHIND_SLACK_MS, unless
 *     a majority of at least two recent peers' answers agree with it (NTP
 *     stepped back a clock that ran ahead),
 *   - or more than PEER_SKEW_MS off the time in a majority of at least two
 *     recent peers' answers (their HTTP Date headers, noted by fed/dial.ts).
 * Until it is sane, every signature this instance makes is refused at its one
 * signer (fed/feed.ts instanceSigner), beacons and weather are not transmitted,
 * the prune keeps everything, and the reason is logged once and shown on the
 * Setup page (GET /api/setup `clock`). The check runs at start, every minute
 * (the "clock-check" job), on GET /api/setup, and when a refused write retries.
 *
 * Peers' times are kept with a monotonic reference (performance.now()), so an
 * NTP step of our own clock does not age or skew what they said.
 */
import type { Core } from "../core/core.ts";
import { AppError } from "../lib/errors.ts";

/** 2025-01-01 UTC: a clock earlier than this is surely unset. */
const CLOCK_FLOOR_MS = Date.UTC(2025, 0, 1);
/** How far behind its newest stored time the clock may be (a small step back of NTP). */
const BEHIND_SLACK_MS = 5 * 60_000;
/** A peer's answer this far from our clock counts against it. */
const PEER_SKEW_MS = 10 * 60_000;
/** Peers' answers older than this (monotonic) no longer count. */
const PEER_SAMPLE_MS = 30 * 60_000;
/** The error code of a refused signature or write. */
export const CLOCK_REFUSED = "clock_not_set";

export type ClockReason = "before_floor" | "behind_stored" | "peers_disagree";

export interface ClockStatus {
  sane: boolean;
  reason: ClockReason | null;
  /** what the operator reads: why signing and transmitting are paused; null when sane */
  message: string | null;
  /** the clock when checked, unix ms */
  now: number;
  /** the newest time stored by this gateway's own clock, unix ms */
  newestStored: number | null;
  /** recent peers' answers, and how many were more than PEER_SKEW_MS off */
  peers: { answers: number; off: number };
}

interface PeerSample {
  /** the peer's Date, unix ms */
  peerMs: number;
  /** performance.now() when it arrived */
  mono: number;
}

export interface ClockWatch {
  status: ClockStatus | null;
  samples: Map<string, PeerSample>;
  resume: Array<() => void>;
}

declare module "../core/services.ts" {
  interface Services {
    /** the clock's last check, peers' Date samples, and what waits for a sane clock */
    clockWatch: ClockWatch;
  }
}

/** A new gateway's clock watch (src/hosts/services.ts). */
export const newClockWatch = (): ClockWatch => ({ status: null, samples: new Map(), resume: [] });

const watchOf = (gw: Core): ClockWatch => gw.services.clockWatch;

const PAUSED = "signing and transmitting paused until it is set (NTP)";
const fmt = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
function span(ms: number): string {
  const min = Math.round(Math.abs(ms) / 60_000);
  if (min < 120) return `${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

/** The newest time this gateway's own clock wrote: signed records, finds and logs, frames heard by its own TNC or APRS-IS feed (not a box's heardAt). */
function newestStored(gw: Core): number | null {
  const q = (sql: string) => (gw.db.query(sql).get() as { t: number | null } | null)?.t ?? null;
  const times = [
    q("SELECT max(created_at) AS t FROM (SELECT created_at FROM fed_feed ORDER BY seq DESC LIMIT 100)"),
    q("SELECT max(created_at) AS t FROM logs"),
    // heard by this gateway's own TNC or APRS-IS feed (a box's packets carry the box's clock)
    q("SELECT max(ts) AS t FROM (SELECT ts, via FROM packets ORDER BY ts DESC LIMIT 1000) WHERE via IN ('tnc', 'echo', 'aprsis')"),
  ].filter((t): t is number => typeof t === "number");
  return times.length ? Math.max(...times) : null;
}

function peerVerdict(w: ClockWatch, now: number): { answers: number; off: number; skew: number } {
  const mono = performance.now();
  const skews: number[] = [];
  for (const [peer, s] of w.samples) {
    if (mono - s.mono > PEER_SAMPLE_MS) {
      w.samples.delete(peer);
      continue;
    }
    // what the peer's clock says now, against ours
    skews.push(s.peerMs + (mono - s.mono) - now);
  }
  const off = skews.filter((d) => Math.abs(d) > PEER_SKEW_MS);
  off.sort((a, b) => a - b);
  return { answers: skews.length, off: off.length, skew: off[Math.floor(off.length / 2)] ?? 0 };
}

function evaluate(gw: Core, w: ClockWatch): ClockStatus {
  const now = gw.clock.now();
  const newest = newestStored(gw);
  const p = peerVerdict(w, now);
  const peers = { answers: p.answers, off: p.off };
  const paused = (reason: ClockReason, message: string): ClockStatus => ({ sane: false, reason, message, now, newestStored: newest, peers });
  if (now < CLOCK_FLOOR_MS)
    return paused("before_floor", `The clock is behind: it says ${fmt(now)}, before ${fmt(CLOCK_FLOOR_MS)}, so it was never set: ${PAUSED}`);
  // behind what it stored, unless the peers' answers vouch for it: then NTP stepped back a clock that ran ahead,
  // and what it stored meanwhile is dated ahead (signing waits for no one)
  const peersAgree = p.answers >= 2 && (p.answers - p.off) * 2 > p.answers;
  if (newest !== null && now < newest - BEHIND_SLACK_MS && !peersAgree)
    return paused(
      "behind_stored",
      `The clock is behind the newest record stored here by ${span(newest - now)} (it says ${fmt(now)}, the newest record is from ${fmt(newest)}): ${PAUSED}`,
    );
  if (p.answers >= 2 && p.off * 2 > p.answers)
    return paused(
      "peers_disagree",
      `The clock is ${p.skew > 0 ? "behind" : "ahead of"} the time in ${p.off} of ${p.answers} peers' answers by about ${span(p.skew)} (it says ${fmt(now)}): ${PAUSED}`,
    );
  return { sane: true, reason: null, message: null, now, newestStored: newest, peers };
}

/**
 * Checks the clock now; logs a change once (paused, with why; or resumed) and,
 * when it became sane, runs what waited for it (whenClockSane).
 */
export function checkClock(gw: Core): ClockStatus {
  const w = watchOf(gw);
  const before = w.status;
  const status = evaluate(gw, w);
  w.status = status;
  if (!status.sane && (before === null || before.sane || before.reason !== status.reason)) gw.log.warn("clock", status.message!);
  if (status.sane && before && !before.sane) {
    gw.log.info("clock", `the clock is set (${fmt(status.now)}): signing and transmitting resumed`);
    const waiting = w.resume.splice(0);
    // outside whatever write asked: each resumes in its own turn
    for (const fn of waiting)
      setTimeout(() => {
        try {
          fn();
        } catch (e) {
          gw.log.error("clock", "resuming after the clock was set failed", { error: String((e as Error)?.message ?? e) });
        }
      }, 0);
  }
  return status;
}

/** For the operator (GET /api/setup `clock`): checked now. */
export function clockSummary(gw: Core): { sane: boolean; message: string | null } {
  const s = checkClock(gw);
  return { sane: s.sane, message: s.message };
}

/** The last verdict (checked once if never yet). */
function clockStatus(gw: Core): ClockStatus {
  return watchOf(gw).status ?? checkClock(gw);
}

/** Why signing and transmitting are paused, or null when the clock is sane. */
export function clockPaused(gw: Core): string | null {
  return clockStatus(gw).message;
}

/**
 * The guard of every signature (fed/feed.ts instanceSigner) and of writes that
 * must be signed: a 503 while the clock is not sane. A paused clock is
 * checked again first, so the first retry after NTP sets it goes through.
 */
export function refuseUnlessClockSane(gw: Core): void {
  let s = clockStatus(gw);
  if (!s.sane) s = checkClock(gw);
  if (!s.sane) throw new AppError(503, CLOCK_REFUSED, s.message!);
}

/**
 * Runs `fn` once the clock is sane: now (returns false), or later, after the
 * check that finds it set (returns true).
 * @example if (whenClockSane(gw, () => initFederation(gw))) return; // deferred
 */
export function whenClockSane(gw: Core, fn: () => void): boolean {
  if (clockStatus(gw).sane) return false;
  watchOf(gw).resume.push(fn);
  return true;
}

/** Notes the time in a peer's answer (its HTTP Date header); the next check weighs it. */
export function notePeerDate(gw: Core, peer: string, date: string | null): void {
  if (!date) return;
  const peerMs = Date.parse(date);
  if (!Number.isFinite(peerMs)) return;
  const w = watchOf(gw);
  if (w.samples.size >= 1000 && !w.samples.has(peer)) return;
  w.samples.set(peer, { peerMs, mono: performance.now() });
}

/** At start: the first check (its warning, if any, is the log's one line about it). */
export function watchClock(gw: Core): void {
  checkClock(gw);
}
