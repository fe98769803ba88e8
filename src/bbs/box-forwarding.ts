/**
 * The ingest box's side of forwarding (x-ingest-secret). The operator's box
 * owns the radio; it can carry forwarding two ways:
 *
 *  - store level: it fetches what is queued for a partner (`pool`), delivers
 *    it its own way, reports the outcome (`sent`), and hands in what it
 *    received (`inbound`) and kill requests (`kill`);
 *  - byte level: it relays a connected-mode circuit to us (`session`), and
 *    this instance speaks FBB over it exactly as over TCP.
 */
import { randomBytes } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { normalizeCall } from "../lib/callsign.ts";
import { checkBid, isMessageType, parseAddress } from "./address.ts";
import { MESSAGE_TYPE, storeMessage } from "./messages.ts";
import { partnerByCall, type PartnerRow } from "./partners.ts";
import { splitRouteLines } from "./text.ts";
import { partnerMailbox, runPartnerSession, SESSION_ROLE } from "./forwarding.ts";
import { MemoryLink } from "./fbb/link.ts";
import { SESSION_REPORT, type SentOutcome, type SessionReport } from "./fbb/session.ts";

/** The most messages, outcomes or BIDs one request of the box carries. */
export const MAX_BATCH = 100;

function knownPartner(gw: Core, call: unknown): PartnerRow {
  if (typeof call !== "string" || call.trim() === "") throw badRequest("invalid", "partner (the partner BBS's callsign) is required");
  const p = partnerByCall(gw, call);
  if (!p) throw notFound(`partner ${normalizeCall(call)}`);
  return p;
}

/** A message queued for a partner, as the box transmits it. */
export const POOL_MESSAGE = closed({
  bid: t.String(),
  type: MESSAGE_TYPE,
  from: t.String({ description: "the sender's base callsign" }),
  to: t.String({ description: "the addressee, or a bulletin's category" }),
  at: t.String({ description: "the @ field of the proposal (the partner's call when the message has no route)" }),
  subject: t.String(),
  text: t.String({ description: "R: lines, a blank line, the body: the text to transmit" }),
  size: wholeNumber({ description: "bytes of text (UTF-8)" }),
});
export type PoolMessage = Static<typeof POOL_MESSAGE>;

/** GET /api/bbs/forward/pool. */
export const POOL = closed({ partner: t.String({ description: "the partner BBS's callsign" }), messages: t.Array(POOL_MESSAGE) });
export type Pool = Static<typeof POOL>;

/** What is queued for a partner, in the order FBB offers it (mail before bulletins, oldest first). */
export function pool(gw: Core, partnerCall: string | undefined, limit = 20): Pool {
  const p = knownPartner(gw, partnerCall);
  const out = partnerMailbox(gw, p, "box").outgoing(new Set(), limit);
  return {
    partner: p.call,
    messages: out.map((m) => ({
      bid: m.bid,
      type: m.type,
      from: m.from,
      to: m.to,
      at: m.at,
      subject: m.subject,
      text: m.text,
      size: new TextEncoder().encode(m.text).length,
    })),
  };
}

const BID_OR_NULL = nullable(t.String(), "the message's BID (null when it gave none that is valid)");

/** What became of one message the box handed in. */
export const INBOUND_RESULT = t.Union([
  closed({ bid: BID_OR_NULL, result: t.Literal("stored"), id: wholeNumber({ description: "the stored message's id" }) }),
  closed({ bid: BID_OR_NULL, result: t.Union([t.Literal("duplicate"), t.Literal("refused")]), reason: t.String() }),
]);
export type InboundResult = Static<typeof INBOUND_RESULT>;

/** POST /api/bbs/forward/inbound: one result per message, in order. */
export const INBOUND_ANSWER = closed({ results: t.Array(INBOUND_RESULT) });

/**
 * Messages the box received (from a partner BBS over its radio, or typed by
 * an RF user). Each is stored whole or refused with a reason; one bad
 * message does not stop the others.
 */
/** `messages`: 1-MAX_BATCH, each checked here (a bad one is refused in its result, the rest stored). */
export function inbound(gw: Core, b: { partner?: string | null; messages: unknown[] }): Static<typeof INBOUND_ANSWER> {
  const partner = b.partner === undefined || b.partner === null ? null : knownPartner(gw, b.partner);
  const results: InboundResult[] = b.messages.map((raw): InboundResult => {
    const m = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
    const bidCheck = m.bid === undefined ? null : checkBid(m.bid);
    const bid = bidCheck?.ok ? bidCheck.value : null;
    const refuse = (reason: string): InboundResult => ({ bid, result: "refused", reason });
    if (!bidCheck) return refuse("bid is required");
    if (!bidCheck.ok) return refuse(bidCheck.message);
    const type = typeof m.type === "string" ? m.type.toUpperCase() : m.type;
    if (!isMessageType(type)) return refuse("type must be P, B or T");
    if (typeof m.from !== "string" || !/^[A-Za-z0-9]{1,6}(-\d{1,2})?$/.test(m.from)) return refuse("from must be the sender's callsign");
    const addr = parseAddress(m.to, type);
    if (!addr.ok) return refuse(addr.message);
    if (typeof m.subject !== "string") return refuse("subject is required");
    if (typeof m.text !== "string") return refuse("text (R: lines and body) is required");
    const { route, body: text } = splitRouteLines(m.text);
    const r = storeMessage(gw, {
      type,
      bid,
      from: m.from.toUpperCase().replace(/-\d+$/, ""),
      to: addr.value.to,
      at: addr.value.at,
      subject: m.subject,
      body: text,
      route,
      origin: "box",
      receivedFrom: partner?.call ?? null,
    });
    if (r.ok) return { bid: r.bid, result: "stored", id: r.id };
    return { bid, result: r.code === "duplicate" ? "duplicate" : "refused", reason: r.message };
  });
  return { results };
}

/** POST /api/bbs/forward/sent: per BID, recorded, or unknown (not queued for that partner). */
export const SENT_ANSWER = closed({
  results: t.Array(closed({ bid: t.String(), result: t.Union([t.Literal("recorded"), t.Literal("unknown")]) })),
});

/** The box reports what became of pool messages it offered a partner. */
/** `results`: 1-MAX_BATCH outcomes (checked at the route). */
export function sentReport(gw: Core, b: { partner: string; results: Array<{ bid: string; outcome: SentOutcome }> }): Static<typeof SENT_ANSWER> {
  const p = knownPartner(gw, b.partner);
  const checked = b.results.map((r) => {
    const bid = checkBid(r.bid);
    if (!bid.ok) throw badRequest("invalid", bid.message);
    return { bid: bid.value, outcome: r.outcome };
  });
  const mb = partnerMailbox(gw, p, "box");
  return {
    results: gw.db.transaction(() =>
      checked.map(({ bid, outcome }) => {
        const queued = gw.db.query("SELECT 1 FROM bbs_queue q JOIN bbs_messages m ON m.id = q.message_id WHERE q.partner_id = ? AND m.bid = ?").get(p.id, bid);
        if (!queued) return { bid, result: "unknown" as const };
        mb.sent(bid, outcome);
        return { bid, result: "recorded" as const };
      }),
    )(),
  };
}

/** POST /api/bbs/forward/kill with bids: per BID. */
export const BOX_KILL_ANSWER = closed({
  results: t.Array(
    closed({
      bid: t.String(),
      result: t.Union([t.Literal("killed"), t.Literal("not_found"), t.Literal("forbidden")], {
        description: "forbidden: not a message of the caller named in call",
      }),
    }),
  ),
});

/**
 * Kill requests relayed by the box: by an RF user (`call`: only their own
 * mail, sent or received) or by the operator (no `call`).
 */
export function boxKill(gw: Core, b: { bids?: string[]; call?: string | null }): Static<typeof BOX_KILL_ANSWER> {
  if (!b.bids) throw badRequest("invalid", `bids must be a list of 1-${MAX_BATCH} BIDs`);
  const call = b.call ? b.call.toUpperCase().replace(/-\d+$/, "") : null;
  const bids = b.bids.map((x) => {
    const c = checkBid(x);
    if (!c.ok) throw badRequest("invalid", c.message);
    return c.value;
  });
  const now = gw.clock.now();
  return {
    results: gw.db.transaction(() =>
      bids.map((bid) => {
        const m = gw.db.query("SELECT id, type, from_call, to_call FROM bbs_messages WHERE bid = ? AND killed_at IS NULL").get(bid) as {
          id: number;
          type: string;
          from_call: string;
          to_call: string;
        } | null;
        if (!m) return { bid, result: "not_found" as const };
        if (call && call !== m.from_call && !(m.type !== "B" && call === m.to_call)) return { bid, result: "forbidden" as const };
        gw.db.query("UPDATE bbs_messages SET killed_at = ?, killed_by = ?, subject = '', body = '', route = '' WHERE id = ?").run(now, call ?? "box", m.id);
        gw.db.query("DELETE FROM bbs_queue WHERE message_id = ? AND state = 'pending'").run(m.id);
        return { bid, result: "killed" as const };
      }),
    )(),
  };
}

/** GET /api/bbs/forward/kill. */
export const KILLED_SINCE = closed({
  killed: t.Array(closed({ bid: t.String(), at: unixMs("when it was killed, unix ms") }), { description: "oldest first, at most 500" }),
  next: t.Number({ description: "the since of the next page (unix ms)" }),
});

/** BIDs killed here since `since` (ms), so the box can drop its own copies. */
export function killedSince(gw: Core, since: number): Static<typeof KILLED_SINCE> {
  const rows = gw.db.query("SELECT bid, killed_at AS at FROM bbs_messages WHERE killed_at > ? ORDER BY killed_at LIMIT 500").all(since) as Array<{
    bid: string;
    at: number;
  }>;
  return { killed: rows, next: rows.length ? rows[rows.length - 1]!.at : since };
}

interface BoxSession {
  id: string;
  partner: string;
  role: "caller" | "answerer";
  link: MemoryLink;
  startedAt: number;
  lastSeen: number;
  report: SessionReport | null;
  done: Promise<SessionReport>;
}

declare module "../core/services.ts" {
  interface Services {
    /** the radio boxes' FBB sessions, by session id */
    boxSessions: Map<string, BoxSession>;
  }
}

const sessions = (gw: Core): Map<string, BoxSession> => gw.services.boxSessions;

/** A box session with no request for this long is hung up. */
const BOX_IDLE_MS = 5 * 60_000;
/** How long one request waits for the session to want more input. */
const BOX_WAIT_MS = 5_000;

function reap(gw: Core): void {
  const now = Date.now();
  for (const [id, s] of sessions(gw)) {
    if (s.report && now - s.lastSeen > 60_000) sessions(gw).delete(id);
    else if (now - s.lastSeen > BOX_IDLE_MS) s.link.end();
  }
}

/** Waits until the session wants input, has ended, or BOX_WAIT_MS passed. */
function settle(s: BoxSession): Promise<void> {
  return new Promise((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const check = () => {
      if (s.link.starving || s.link.closed) {
        clearTimeout(timer);
        s.link.onOutput = null;
        // Let synchronous follow-up writes land before answering.
        setTimeout(resolve, 10);
        return true;
      }
      return false;
    };
    if (check()) return;
    timer = setTimeout(() => {
      s.link.onOutput = null;
      resolve();
    }, BOX_WAIT_MS);
    s.link.onOutput = () => void check();
  });
}

/** POST /api/bbs/forward/session: one exchange of a relayed session. */
export const SESSION_EXCHANGE = closed({
  session: t.String({ description: "the session's id: give it with the next exchange" }),
  partner: t.String({ description: "the partner BBS's callsign" }),
  data: t.String({ description: "base64 of the bytes to transmit to the partner" }),
  closed: t.Boolean({ description: "the session ended: hang up after sending data" }),
  report: nullable(SESSION_REPORT, "the session's report once it ended"),
});
export type SessionExchange = Static<typeof SESSION_EXCHANGE>;

/**
 * One exchange on a relayed circuit. The first call (no `session`) opens it:
 * `partner` is the callsign on the other end, `role` "answerer" when the
 * partner called the box (default), "caller" when the box called it. Every
 * call may carry bytes received from the partner (`data`, base64) and
 * returns the bytes to transmit; `close: true` says the circuit dropped.
 */
export async function sessionExchange(
  gw: Core,
  b: { session?: string; partner?: string; role?: "answerer" | "caller"; data?: string; close?: boolean },
): Promise<SessionExchange> {
  reap(gw);
  let input = new Uint8Array(0);
  if (b.data !== undefined) {
    input = new Uint8Array(Buffer.from(b.data, "base64"));
    if (input.length > 64 * 1024) throw badRequest("invalid", "at most 64 KiB of data per exchange");
  }
  let s: BoxSession;
  if (b.session === undefined) {
    const p = knownPartner(gw, b.partner);
    const role = b.role ?? "answerer";
    const id = randomBytes(9).toString("base64url");
    const link = new MemoryLink(`box session ${id}`);
    const done = runPartnerSession(gw, p, link, role, { via: "box" });
    s = { id, partner: p.call, role, link, startedAt: Date.now(), lastSeen: Date.now(), report: null, done };
    void done.then((r) => (s.report = r));
    sessions(gw).set(id, s);
  } else {
    const found = sessions(gw).get(b.session);
    if (!found) throw notFound(`session ${String(b.session)}`);
    s = found;
  }
  s.lastSeen = Date.now();
  if (input.length) s.link.push(input);
  if (b.close === true) s.link.end();
  await settle(s);
  // node:timers, not Bun.sleep: the Node host serves this route too
  if (s.link.closed) await Promise.race([s.done, sleep(1000)]);
  return { session: s.id, partner: s.partner, data: Buffer.from(s.link.take()).toString("base64"), closed: s.link.closed, report: s.report };
}

/** A session the box relays, open here. */
export const BOX_SESSION = closed({
  session: t.String({ description: "its id" }),
  partner: t.String({ description: "the partner BBS's callsign" }),
  role: SESSION_ROLE,
  startedAt: unixMs(),
  lastSeen: unixMs("the box's last exchange, unix ms"),
  closed: t.Boolean(),
});
export type BoxSessionView = Static<typeof BOX_SESSION>;

export function listBoxSessions(gw: Core): BoxSessionView[] {
  reap(gw);
  return [...sessions(gw).values()].map((s) => ({
    session: s.id,
    partner: s.partner,
    role: s.role,
    startedAt: s.startedAt,
    lastSeen: s.lastSeen,
    closed: s.link.closed,
  }));
}

/** Hangs up a relayed session (the operator, or the box when the circuit is gone). */
export function endBoxSession(gw: Core, id: string): boolean {
  const s = sessions(gw).get(id);
  if (!s) return false;
  s.link.end();
  return true;
}
