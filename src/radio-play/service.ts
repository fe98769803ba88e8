/**
 * Answers APRS messages sent to the station's call (docs/protocol.md "Radio
 * commands"): RADIO_CALL when heard on our own radio, answered on the air;
 * APRSIS_CALL or FED_APRS_CALL when they come over APRS-IS, answered there.
 *
 *   - every message with an id is acked (a reply-ack `{MM}AA` too: its id is
 *     MM), each retry of it again; a retry (same sender, id and text within
 *     SEEN_MS) is not answered a second time;
 *   - each sender (a callsign's every SSID together) gets RATE.commands
 *     commands per RATE.windowMs; past that one "slow down" answer, then acks
 *     only;
 *   - answers (commands.ts) go out as messages with our own ids, retried at
 *     RETRY_MS until the player's radio acks them (an ack, or the reply-ack
 *     of its next message; from another call settles nothing), at most
 *     RETRY_MS.length + 1 times;
 *   - lines wait in order while a path's budget is spent (senders.ts), and
 *     are dropped after QUEUE_MAX_MS; at most QUEUE_MAX wait.
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { encodeAck, encodeMessage, EncodeError } from "../lib/aprs/index.ts";
import { answerCommand, splitReply, type Asker } from "./commands.ts";
import { senderOf } from "./senders.ts";
import { commandRoute as route, type Path } from "./route.ts";
import { baseCall, isCallsign } from "../lib/callsign.ts";

const SEEN_MS = 30 * 60_000;
export const RATE = { commands: 10, windowMs: 10 * 60_000 } as const;
export const RETRY_MS = [30_000, 60_000] as const;
const QUEUE_MAX_MS = 10 * 60_000;
/** Lines waiting at most (a flood of senders, e.g. spoofed over APRS-IS, cannot grow memory): past it new ones are dropped. */
const QUEUE_MAX = 500;
const TICK_MS = 1000;
const MAX_REMEMBERED = 10_000;

interface Out {
  path: Path;
  line: string;
  /** the reply's id and addressee: retried until acked */
  reply?: { to: string; id: string; attempts: number };
  dueAt: number;
  queuedAt: number;
}

export interface PlayStats {
  commands: number;
  retries: number;
  limited: number;
  acks: number;
  replies: number;
  logged: number;
  dropped: number;
}

export interface RadioPlayState {
  seen: Map<string, number>;
  rate: Map<string, number[]>;
  warned: Map<string, number>;
  queue: Out[];
  /** replies sent and waiting for their ack, by `TO\0id` */
  waiting: Map<string, Out>;
  nextId: number;
  timer: ReturnType<typeof setInterval> | null;
  stats: PlayStats;
}

declare module "../core/services.ts" {
  interface Services {
    /** radio play: commands seen, rate limits, replies queued and waiting for their ack */
    radioPlay: RadioPlayState;
  }
}

/** A new gateway's radio play (src/hosts/services.ts). */
export const newRadioPlay = (): RadioPlayState => ({
  seen: new Map(),
  rate: new Map(),
  warned: new Map(),
  queue: [],
  waiting: new Map(),
  nextId: 0,
  timer: null,
  stats: { commands: 0, retries: 0, limited: 0, acks: 0, replies: 0, logged: 0, dropped: 0 },
});

const stateOf = (gw: Core): RadioPlayState => gw.services.radioPlay;

/** What the service did so far (tests, the bench). */
export function playStats(gw: Core): PlayStats {
  return { ...stateOf(gw).stats };
}

function prune(m: Map<string, number>, now: number, ms: number): void {
  if (m.size < MAX_REMEMBERED) return;
  for (const [k, t] of m) if (now - t > ms || m.size >= MAX_REMEMBERED) m.delete(k);
}

/** Whether `call` may send another command now (and counts it). */
function allowed(s: RadioPlayState, call: string, now: number): boolean {
  const times = (s.rate.get(call) ?? []).filter((t) => now - t >= 0 && now - t < RATE.windowMs);
  if (times.length >= RATE.commands) {
    s.rate.set(call, times);
    return false;
  }
  times.push(now);
  s.rate.set(call, times);
  if (s.rate.size > MAX_REMEMBERED) s.rate.delete(s.rate.keys().next().value!);
  return true;
}

/** Our own message ids: R + 4 base-36 digits, apart from the outbox's numeric ones. */
function newId(s: RadioPlayState): string {
  s.nextId = (s.nextId + 1) % 36 ** 4;
  return "R" + s.nextId.toString(36).toUpperCase().padStart(4, "0");
}

function pathOf(gw: Core, path: Path): string[] {
  return path === "rf" ? [...gw.config.radioPath] : ["TCPIP*"];
}

/** The `aprsMessage` listener. */
export function onMessage(gw: Core, m: GatewayEvents["aprsMessage"]): void {
  if (m.kind === "ack" && m.msgId) return settle(gw, m.src, m.addressee, m.msgId);
  if (m.kind !== "message") return;
  // APRS 1.1 reply-ack `{MM}AA`: the player's message also acks our answer AA
  if (m.replyAck) settle(gw, m.src, m.addressee, m.replyAck);
  const r = route(gw, m);
  if (!r) return;
  const s = stateOf(gw);
  const now = gw.clock.now();
  const from = m.src.toUpperCase();
  const header = { src: r.call, path: pathOf(gw, r.path) };
  if (m.msgId) {
    try {
      enqueue(gw, s, { path: r.path, line: encodeAck({ ...header, addressee: from, msgId: m.msgId }), dueAt: now, queuedAt: now }, true);
      s.stats.acks++;
    } catch (e) {
      if (!(e instanceof EncodeError)) throw e;
      return; // not a call we can address
    }
    const key = `${from}\u0000${m.msgId}\u0000${m.text}`;
    const at = s.seen.get(key);
    if (at !== undefined && now - at >= 0 && now - at < SEEN_MS) {
      s.stats.retries++;
      return;
    }
    prune(s.seen, now, SEEN_MS);
    s.seen.set(key, now);
  }
  s.stats.commands++;
  let parts: string[];
  // per licensee: another SSID of the same call shares the allowance
  const who = isCallsign(from) ? baseCall(from) : from;
  if (!allowed(s, who, now)) {
    s.stats.limited++;
    const warned = s.warned.get(who);
    if (warned !== undefined && now - warned >= 0 && now - warned < RATE.windowMs) return;
    prune(s.warned, now, RATE.windowMs);
    s.warned.set(who, now);
    parts = [`Too many commands: at most ${RATE.commands} in ${RATE.windowMs / 60_000} minutes. Wait a little.`];
  } else {
    const asker: Asker = { call: from, via: r.path === "rf" ? "radio" : "aprsis" };
    const a = answerCommand(gw, asker, m.text);
    if (a.logged) s.stats.logged++;
    parts = a.parts;
  }
  for (const text of splitReply(parts)) {
    const id = newId(s);
    let line: string;
    try {
      line = encodeMessage({ ...header, addressee: from, text, msgId: id });
    } catch (e) {
      if (!(e instanceof EncodeError)) throw e;
      continue;
    }
    enqueue(gw, s, { path: r.path, line, reply: { to: from, id, attempts: 0 }, dueAt: now, queuedAt: now }, false);
    s.stats.replies++;
  }
}

/** An ack heard (or a reply-ack): settles our reply `id`, when it comes from the station we sent it to. */
function settle(gw: Core, src: string, addressee: string, id: string): void {
  const s = stateOf(gw);
  if (!s.waiting.size) return;
  const key = `${src.toUpperCase()}\u0000${id}`;
  const out = s.waiting.get(key);
  if (!out) return;
  // the ack is addressed to the call the reply came from
  if (!out.line.startsWith(addressee.toUpperCase() + ">")) return;
  s.waiting.delete(key);
  s.queue = s.queue.filter((o) => o !== out);
}

function enqueue(gw: Core, s: RadioPlayState, out: Out, first: boolean): void {
  if (s.queue.length >= QUEUE_MAX) {
    s.stats.dropped++;
    return;
  }
  if (first) {
    // acks go before the answers waiting on the same path
    const i = s.queue.findIndex((o) => o.reply);
    s.queue.splice(i < 0 ? s.queue.length : i, 0, out);
  } else s.queue.push(out);
  flush(gw, s);
  if (s.queue.length && !s.timer) {
    s.timer = setInterval(() => flush(gw, s), TICK_MS);
    (s.timer as { unref?: () => void }).unref?.();
  }
}

/** Sends what is due, in order per path; a spent budget holds the rest of that path. */
function flush(gw: Core, s: RadioPlayState): void {
  const now = gw.clock.now();
  const held = new Set<Path>();
  const keep: Out[] = [];
  for (const out of s.queue) {
    if (out.dueAt > now || held.has(out.path)) {
      keep.push(out);
      continue;
    }
    if (now - out.queuedAt > QUEUE_MAX_MS) {
      s.stats.dropped++;
      if (out.reply) s.waiting.delete(`${out.reply.to}\u0000${out.reply.id}`);
      continue;
    }
    const send = senderOf(gw, out.path);
    const r = send ? send(out.line) : "rate-limited";
    if (r === "rate-limited") {
      held.add(out.path);
      keep.push(out);
      continue;
    }
    if (r === "refused" || !out.reply) {
      if (r === "refused") s.stats.dropped++;
      continue;
    }
    // a reply sent: wait for its ack, then send again
    const attempt = out.reply.attempts++;
    const key = `${out.reply.to}\u0000${out.reply.id}`;
    if (attempt < RETRY_MS.length) {
      out.dueAt = now + RETRY_MS[attempt]!;
      out.queuedAt = now;
      s.waiting.set(key, out);
      keep.push(out);
    } else s.waiting.delete(key);
  }
  s.queue = keep;
  if (!s.queue.length && s.timer) {
    clearInterval(s.timer);
    s.timer = null;
  }
}

/** Stops the retry timer (the gateway stops). */
export function stopRadioPlay(gw: Core): void {
  const s = stateOf(gw);
  if (s.timer) clearInterval(s.timer);
  s.timer = null;
}
