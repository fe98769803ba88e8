/**
 * BBS messages: stored once, whatever brought them (the web app, an FBB
 * partner, the ingest box), in one transaction that also routes them, queues
 * them for partners, files them in a thread and teaches the White Pages.
 * A BID is taken once: a second message with the same BID is refused, also
 * after the first was killed or pruned (bbs_bids remembers it).
 */
import { createHash } from "node:crypto";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { Core } from "../core/core.ts";
import { AppError, badRequest, conflict, notFound, unprocessable } from "../lib/errors.ts";
import { checkBid, formatAddress, parseAddress, SVCFED_CATEGORY, type MessageType } from "./address.ts";
import { bbsIdentity } from "./identity.ts";
import { DELIVERY, resolveRoute, type RouteDecision } from "./routing.ts";
import { receiveSvcfed } from "./svcfed.ts";
import { encodeText, hasControlChars, routeLine, threadSubject, transferText } from "./text.ts";
import { wpLearn } from "./wp.ts";
import type { Viewer } from "./access.ts";
import { canRead } from "./access.ts";
import { checkBody, type BulletinBody } from "../lib/fed/bodies.ts";
import { localGid, publishRecord, publishTombstone } from "../fed/feed.ts";

/** Where a message came from: written here, an FBB partner over TCP or the radio, or the ingest box. */
export const ORIGIN = t.Union([t.Literal("local"), t.Literal("fbb"), t.Literal("box")], {
  description: "local: written on this instance; fbb: forwarded by a partner BBS; box: handed in by the ingest box",
});
export type Origin = Static<typeof ORIGIN>;

export interface MessageInput {
  type: MessageType;
  /** null: this BBS makes one (local messages) */
  bid: string | null;
  from: string;
  to: string;
  at: string | null;
  subject: string;
  body: string;
  /** R: lines it arrived with, newest first */
  route: string[];
  origin: Origin;
  receivedFrom: string | null;
  replyTo?: number | null;
}

export type StoreOutcome =
  | { ok: true; id: number; bid: string; decision: RouteDecision }
  | { ok: false; code: "duplicate" | "invalid" | "too_large" | "refused"; message: string };

export interface Row {
  id: number;
  type: MessageType;
  bid: string;
  from_call: string;
  to_call: string;
  at_bbs: string | null;
  subject: string;
  body: string;
  route: string;
  size: number;
  origin: Origin;
  received_from: string | null;
  delivery: "local" | "transit" | "unrouted";
  thread_id: number | null;
  reply_to: number | null;
  created_at: number;
  read_at: number | null;
  killed_at: number | null;
}

/** A message's forwarding to one partner (bbs_queue). */
export const FORWARDING = closed({
  partner: t.String({ description: "the partner BBS's callsign" }),
  state: t.Union([t.Literal("pending"), t.Literal("sent"), t.Literal("rejected"), t.Literal("refused"), t.Literal("error")], {
    description: "pending: waiting to be offered (also after a deferral); else what the partner did with it",
  }),
  updatedAt: unixMs(),
});
export type Forwarding = Static<typeof FORWARDING>;

export const MESSAGE_TYPE = t.Union([t.Literal("P"), t.Literal("B"), t.Literal("T")], { description: "P personal mail, B bulletin, T NTS traffic" });

/** A message as the API shows it: in a list without `body`, `route` and `forwarding`; one message (or a thread) with them. */
export const MESSAGE = closed({
  id: wholeNumber(),
  type: MESSAGE_TYPE,
  bid: t.String({ description: "its BID, unique on the forwarding network" }),
  from: t.String({ description: "the sender's base callsign" }),
  to: t.String({ description: "the addressee's callsign, or a bulletin's category" }),
  at: nullable(t.String(), "the hierarchical route after @, e.g. N0BBS.#NCA.CA.USA.NOAM"),
  address: t.String({ description: "to and at as one address, e.g. N0ABC@N0BBS.#NCA.CA.USA.NOAM" }),
  subject: t.String(),
  size: wholeNumber({ description: "bytes as forwarded: R: lines and body" }),
  origin: ORIGIN,
  receivedFrom: nullable(t.String(), "the partner BBS it came from"),
  delivery: DELIVERY,
  threadId: wholeNumber({ description: "the id of its thread's first message" }),
  replyTo: nullable(wholeNumber(), "the id of the message it answers"),
  createdAt: unixMs(),
  read: t.Boolean({ description: "its addressee read it" }),
  readAt: nullable(unixMs()),
  body: t.Optional(t.String({ description: "the text (one message and threads only)" })),
  route: t.Optional(t.Array(t.String(), { description: "its R: lines, newest first (one message and threads only)" })),
  forwarding: t.Optional(t.Array(FORWARDING, { description: "its forwarding to each partner (one message only)" })),
});
export type Message = Static<typeof MESSAGE>;

/** A bulletin category this BBS holds (GET /api/bbs/categories). */
export const BULLETIN_CATEGORY = closed({
  category: t.String({ description: "e.g. ALL, WX" }),
  count: wholeNumber({ description: "bulletins held" }),
  latestAt: unixMs("the newest one's time, unix ms"),
});
export type BulletinCategory = Static<typeof BULLETIN_CATEGORY>;

const SUBJECT_MAX = 80;

function toMessage(r: Row, full: boolean): Message {
  const m: Message = {
    id: r.id,
    type: r.type,
    bid: r.bid,
    from: r.from_call,
    to: r.to_call,
    at: r.at_bbs,
    address: formatAddress(r.to_call, r.at_bbs),
    subject: r.subject,
    size: r.size,
    origin: r.origin,
    receivedFrom: r.received_from,
    delivery: r.delivery,
    threadId: r.thread_id ?? r.id,
    replyTo: r.reply_to,
    createdAt: r.created_at,
    read: r.read_at !== null,
    readAt: r.read_at,
  };
  if (full) {
    m.body = r.body;
    m.route = r.route ? r.route.split("\n") : [];
  }
  return m;
}

/**
 * How bbs_bids remembers the BID of a message erased with its account: a
 * hash, so the BID (often `<number>_<the sender's BBS call>`) no longer
 * names anyone, while the same message forwarded in again is still refused.
 */
export function erasedBid(bid: string): string {
  return `sha256:${createHash("sha256").update(bid).digest("hex").slice(0, 32)}`;
}

/** Whether a BID was ever stored or refused here (kept BBS_BID_TTL_DAYS). */
export function bidKnown(gw: Core, bid: string): boolean {
  return !!gw.db.query("SELECT 1 FROM bbs_bids WHERE bid IN (?1, ?2) UNION ALL SELECT 1 FROM bbs_messages WHERE bid = ?1 LIMIT 1").get(bid, erasedBid(bid));
}

function nextLocalBid(gw: Core): string {
  const call = bbsIdentity(gw.config)?.call ?? "LOCAL";
  for (;;) {
    const row = gw.db
      .query("INSERT INTO meta (key, value) VALUES ('bbs_seq', '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING value")
      .get() as { value: string };
    const n = Number(row.value);
    let bid = `${n}_${call}`;
    if (bid.length > 12) bid = `${n.toString(36).toUpperCase()}_${call}`.slice(0, 12);
    if (!bidKnown(gw, bid)) return bid;
  }
}

/** Control characters off the air become spaces; tabs and line ends stay. */
function sanitize(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, " ");
}

function findThread(gw: Core, m: { type: MessageType; from: string; to: string; subject: string }, now: number): number | null {
  const key = threadSubject(m.subject);
  if (key === "") return null;
  const since = now - 60 * 86_400_000;
  const rows = (
    m.type === "B"
      ? gw.db
          .query(
            "SELECT id, thread_id, subject FROM bbs_messages WHERE type = 'B' AND to_call = ? AND created_at > ? AND killed_at IS NULL ORDER BY id DESC LIMIT 200",
          )
          .all(m.to, since)
      : gw.db
          .query(
            "SELECT id, thread_id, subject FROM bbs_messages WHERE type = ?1 AND ((from_call = ?2 AND to_call = ?3) OR (from_call = ?3 AND to_call = ?2)) AND created_at > ?4 AND killed_at IS NULL ORDER BY id DESC LIMIT 200",
          )
          .all(m.type, m.from, m.to, since)
  ) as Array<{ id: number; thread_id: number | null; subject: string }>;
  const hit = rows.find((r) => threadSubject(r.subject) === key);
  return hit ? (hit.thread_id ?? hit.id) : null;
}

/**
 * The federation record (type 4) of a bulletin posted on this BBS, or why it
 * has none. Only bulletins written here (the web app, a user connected through
 * the ingest box) are this instance's to publish: one an FBB partner forwarded
 * was posted elsewhere and floods on by forwarding; SVCFED bulletins are
 * federation traffic themselves.
 */
function bulletinRecord(
  m: { type: MessageType; origin: Origin; bid: string; from: string; to: string; at: string | null; subject: string; body: string },
  now: number,
): BulletinBody | string {
  if (m.type !== "B" || m.to === SVCFED_CATEGORY) return "not a bulletin";
  if (m.origin === "fbb") return "forwarded from another BBS";
  const body: BulletinBody = { from: m.from, category: m.to, subject: m.subject, text: m.body, bid: m.bid, postedAt: Math.floor(now / 1000) };
  if (m.at && /^[A-Z0-9.#]{1,40}$/.test(m.at)) body.area = m.at;
  return checkBody("bulletin", body as never, "publish") ?? body;
}

/** Validates, dedupes, routes, queues and stores one message, all or nothing. */
export function storeMessage(gw: Core, input: MessageInput): StoreOutcome {
  const now = gw.clock.now();
  const local = input.origin === "local";
  let subject = input.subject.trim();
  let body = input.body.replace(/\r\n?/g, "\n");
  if (!local) {
    subject = sanitize(subject);
    body = sanitize(body);
  }
  if (subject.length === 0) return { ok: false, code: "invalid", message: "the subject is empty" };
  if (subject.length > SUBJECT_MAX) return { ok: false, code: "invalid", message: `the subject is longer than ${SUBJECT_MAX} characters` };
  if (hasControlChars(subject) || hasControlChars(body)) return { ok: false, code: "invalid", message: "subject and body may not contain control characters" };
  const addr = parseAddress(formatAddress(input.to, input.at), input.type);
  if (!addr.ok) return { ok: false, code: "invalid", message: addr.message };
  if (!/^[A-Z0-9]{1,6}$/.test(input.from)) return { ok: false, code: "invalid", message: `"${input.from}" is not a sender` };

  const me = bbsIdentity(gw.config);
  const max = gw.config.bbsMaxMessageBytes;

  const tx = gw.db.transaction((): StoreOutcome => {
    let bid: string;
    if (input.bid === null) bid = nextLocalBid(gw);
    else {
      const b = checkBid(input.bid);
      if (!b.ok) return { ok: false, code: "invalid", message: b.message };
      bid = b.value;
      if (bidKnown(gw, bid)) {
        // refresh the entry that matched (an erased message's is its hash: the plain BID is not written back)
        if (gw.db.query("UPDATE bbs_bids SET seen_at = ?1 WHERE bid IN (?2, ?3)").run(now, bid, erasedBid(bid)).changes === 0) {
          gw.db.query("INSERT INTO bbs_bids (bid, seen_at) VALUES (?, ?) ON CONFLICT(bid) DO UPDATE SET seen_at = excluded.seen_at").run(bid, now);
        }
        return { ok: false, code: "duplicate", message: `BID ${bid} is already known here` };
      }
    }
    const decision = resolveRoute(gw, { type: input.type, to: addr.value.to, at: addr.value.at, route: input.route, receivedFrom: input.receivedFrom });
    const thread = input.replyTo
      ? ((gw.db.query("SELECT coalesce(thread_id, id) AS t FROM bbs_messages WHERE id = ?").get(input.replyTo) as { t: number } | null)?.t ?? null)
      : findThread(gw, { type: input.type, from: input.from, to: addr.value.to, subject }, now);
    const id = Number(
      gw.db
        .query(
          `INSERT INTO bbs_messages (type, bid, from_call, to_call, at_bbs, subject, body, route, size, origin, received_from, delivery, thread_id, reply_to, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, '', 0, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          input.type,
          bid,
          input.from,
          addr.value.to,
          decision.at,
          subject,
          body,
          input.origin,
          input.receivedFrom,
          decision.delivery,
          thread,
          input.replyTo ?? null,
          now,
        ).lastInsertRowid,
    );
    const route = me ? [routeLine(now, me.ha, id, gw.config.instance, bid), ...input.route] : [...input.route];
    const size = encodeText(transferText(route, body)).length;
    if (size > max) throw new AppError(413, "too_large", `the message is ${size} bytes; this BBS takes at most ${max}`);
    gw.db.query("UPDATE bbs_messages SET route = ?, size = ?, thread_id = coalesce(thread_id, id) WHERE id = ?").run(route.join("\n"), size, id);
    gw.db.query("INSERT INTO bbs_bids (bid, seen_at) VALUES (?, ?) ON CONFLICT(bid) DO UPDATE SET seen_at = excluded.seen_at").run(bid, now);
    const q = gw.db.query("INSERT INTO bbs_queue (message_id, partner_id, state, queued_at, updated_at) VALUES (?, ?, 'pending', ?, ?)");
    for (const p of decision.partners) q.run(id, p.partnerId, now, now);
    wpLearn(gw.db, { type: input.type, from: input.from, to: addr.value.to, body, route: input.route }, now);
    // A bulletin posted here is also a federation record, in the same transaction.
    const record = bulletinRecord({ type: input.type, origin: input.origin, bid, from: input.from, to: addr.value.to, at: decision.at, subject, body }, now);
    if (typeof record !== "string") publishRecord(gw, "bulletin", id, record);
    else if (input.type === "B" && input.origin !== "fbb" && addr.value.to !== SVCFED_CATEGORY)
      gw.log.warn("bbs", `bulletin ${bid} is not federated: ${record}`);
    if (input.type === "B" && addr.value.to === SVCFED_CATEGORY && !local) {
      try {
        receiveSvcfed(gw, { bid, from: input.from, at: decision.at, subject, body, receivedFrom: input.receivedFrom });
      } catch (e) {
        if (e instanceof AppError) throw e;
        throw unprocessable("svcfed_rejected", `the SVCFED bulletin was not applied: ${(e as Error).message}`);
      }
    }
    return { ok: true, id, bid, decision };
  });

  let out: StoreOutcome;
  try {
    out = tx();
  } catch (e) {
    if (e instanceof AppError) return { ok: false, code: e.code === "too_large" ? "too_large" : "refused", message: e.message };
    throw e;
  }
  if (out.ok) {
    gw.events.emit("bbsMessage", {
      id: out.id,
      type: input.type,
      bid: out.bid,
      from: input.from,
      to: addr.value.to,
      at: out.decision.at,
      origin: input.origin,
      delivery: out.decision.delivery,
    });
    gw.log.info("bbs", `stored ${input.type} ${out.bid} ${input.from} -> ${formatAddress(addr.value.to, out.decision.at)} (${out.decision.reason})`);
  }
  return out;
}

/** A message as the web app or API writes it (its types checked at the route). */
export interface ComposeInput {
  type?: MessageType;
  to: string;
  subject: string;
  body: string;
  replyTo?: number | null;
}

/** A message written on this instance by `from` (a verified base callsign). */
export function composeMessage(gw: Core, from: string, viewer: Viewer, input: ComposeInput): Message {
  const type = input.type ?? "P";
  let replyTo: number | null = null;
  if (input.replyTo !== undefined && input.replyTo !== null) {
    const parent = gw.db.query("SELECT type, from_call, to_call FROM bbs_messages WHERE id = ? AND killed_at IS NULL").get(input.replyTo) as {
      type: string;
      from_call: string;
      to_call: string;
    } | null;
    if (!parent || !canRead(viewer, { type: parent.type, from: parent.from_call, to: parent.to_call })) throw notFound(`message ${input.replyTo}`);
    replyTo = input.replyTo;
  }
  const addr = parseAddress(input.to, type);
  if (!addr.ok) throw badRequest("bad_address", addr.message);
  if (type === "B" && addr.value.to === SVCFED_CATEGORY) {
    throw badRequest("reserved_category", `${SVCFED_CATEGORY} bulletins are machine traffic, posted by POST /federation/bbs/enqueue`);
  }
  const bytes = encodeText(input.body).length;
  if (bytes > gw.config.bbsMaxMessageBytes) {
    throw new AppError(413, "too_large", `the body is ${bytes} bytes; this BBS takes at most ${gw.config.bbsMaxMessageBytes}`);
  }
  const r = storeMessage(gw, {
    type,
    bid: null,
    from,
    to: addr.value.to,
    at: addr.value.at,
    subject: input.subject,
    body: input.body,
    route: [],
    origin: "local",
    receivedFrom: null,
    replyTo,
  });
  if (!r.ok) {
    if (r.code === "too_large") throw new AppError(413, "too_large", r.message);
    if (r.code === "duplicate") throw conflict("duplicate_bid", r.message);
    throw badRequest("invalid", r.message);
  }
  return getMessage(gw, r.id)!;
}

export function getMessage(gw: Core, id: number): Message | null {
  const r = gw.db.query("SELECT * FROM bbs_messages WHERE id = ? AND killed_at IS NULL").get(id) as Row | null;
  if (!r) return null;
  const m = toMessage(r, true);
  m.forwarding = gw.db
    .query(
      "SELECT p.call AS partner, q.state, q.updated_at AS updatedAt FROM bbs_queue q JOIN bbs_partners p ON p.id = q.partner_id WHERE q.message_id = ? ORDER BY p.call",
    )
    .all(id) as Forwarding[];
  return m;
}

/** The row fields access decisions need, also for killed messages (null when absent). */
export function messageHeader(gw: Core, id: number): { type: MessageType; from: string; to: string; killed: boolean } | null {
  const r = gw.db.query("SELECT type, from_call, to_call, killed_at FROM bbs_messages WHERE id = ?").get(id) as {
    type: MessageType;
    from_call: string;
    to_call: string;
    killed_at: number | null;
  } | null;
  return r ? { type: r.type, from: r.from_call, to: r.to_call, killed: r.killed_at !== null } : null;
}

export interface Page {
  limit: number;
  /** only ids below this (the next page) */
  before: number | null;
}

/** A page of a list (`limit` 1-200 and `before` a message id, checked at the route). */
export function pageOf(query: { limit?: number; before?: number }): Page {
  return { limit: query.limit ?? 50, before: query.before ?? null };
}

function list(gw: Core, where: string, params: Array<string | number>, page: Page): Message[] {
  const rows = gw.db
    .query(`SELECT * FROM bbs_messages WHERE killed_at IS NULL AND ${where} ${page.before ? "AND id < ?" : ""} ORDER BY id DESC LIMIT ?`)
    .all(...params, ...(page.before ? [page.before] : []), page.limit) as Row[];
  return rows.map((r) => toMessage(r, false));
}

/** Personal mail and traffic addressed to any of `calls`. */
export function listMailbox(gw: Core, calls: string[], page: Page, unreadOnly = false): Message[] {
  if (calls.length === 0) return [];
  return list(gw, `type IN ('P','T') AND to_call IN (${calls.map(() => "?").join(",")})${unreadOnly ? " AND read_at IS NULL" : ""}`, calls, page);
}

/** What `calls` sent, any type. */
export function listSent(gw: Core, calls: string[], page: Page): Message[] {
  if (calls.length === 0) return [];
  return list(gw, `from_call IN (${calls.map(() => "?").join(",")})`, calls, page);
}

/** NTS traffic for operators to relay or deliver. */
export function listTraffic(gw: Core, page: Page): Message[] {
  return list(gw, "type = 'T'", [], page);
}

/** Bulletins, newest first; SVCFED carrier traffic only when its category is asked for. */
export function listBulletins(gw: Core, category: string | null, since: number | null, page: Page): Message[] {
  const where = ["type = 'B'"];
  const params: Array<string | number> = [];
  if (category) {
    where.push("to_call = ?");
    params.push(category);
  } else {
    where.push("to_call <> ?");
    params.push(SVCFED_CATEGORY);
  }
  if (since !== null) {
    where.push("created_at >= ?");
    params.push(since);
  }
  return list(gw, where.join(" AND "), params, page);
}

export function bulletinCategories(gw: Core): BulletinCategory[] {
  return gw.db
    .query(
      "SELECT to_call AS category, count(*) AS count, max(created_at) AS latestAt FROM bbs_messages WHERE type = 'B' AND killed_at IS NULL AND to_call <> ? GROUP BY to_call ORDER BY to_call",
    )
    .all(SVCFED_CATEGORY) as BulletinCategory[];
}

/** Every message of a thread the viewer may read, oldest first. */
export function threadOf(gw: Core, id: number, viewer: Viewer): Message[] {
  const root = gw.db.query("SELECT coalesce(thread_id, id) AS t FROM bbs_messages WHERE id = ? AND killed_at IS NULL").get(id) as { t: number } | null;
  if (!root) throw notFound(`message ${id}`);
  const rows = gw.db.query("SELECT * FROM bbs_messages WHERE (thread_id = ?1 OR id = ?1) AND killed_at IS NULL ORDER BY id").all(root.t) as Row[];
  return rows.filter((r) => canRead(viewer, { type: r.type, from: r.from_call, to: r.to_call })).map((r) => toMessage(r, true));
}

/** Kills a message: its text is wiped at once, its BID stays known; a federated bulletin is tombstoned. */
export function killMessage(gw: Core, id: number, by: string): void {
  const now = gw.clock.now();
  gw.db.transaction(() => {
    const n = gw.db
      .query("UPDATE bbs_messages SET killed_at = ?, killed_by = ?, subject = '', body = '', route = '' WHERE id = ? AND killed_at IS NULL")
      .run(now, by, id).changes;
    if (n === 0) throw notFound(`message ${id}`);
    gw.db.query("DELETE FROM bbs_queue WHERE message_id = ? AND state = 'pending'").run(id);
    const gid = localGid(gw, "bulletin", id);
    if (gw.db.query("SELECT 1 FROM fed_feed WHERE gid = ?").get(gid)) publishTombstone(gw, gid);
  })();
}

export function markRead(gw: Core, id: number, read: boolean): void {
  gw.db.query("UPDATE bbs_messages SET read_at = ? WHERE id = ? AND killed_at IS NULL").run(read ? gw.clock.now() : null, id);
}

/** Re-routes held (unrouted) mail after the rules changed; returns how many found a route. */
export function rerouteHeld(gw: Core): number {
  const now = gw.clock.now();
  const held = gw.db.query("SELECT * FROM bbs_messages WHERE delivery = 'unrouted' AND killed_at IS NULL").all() as Row[];
  let moved = 0;
  for (const r of held) {
    const d = resolveRoute(gw, { type: r.type, to: r.to_call, at: r.at_bbs, route: r.route ? r.route.split("\n") : [], receivedFrom: r.received_from });
    if (d.delivery === "unrouted") continue;
    gw.db.transaction(() => {
      gw.db.query("UPDATE bbs_messages SET delivery = ?, at_bbs = ? WHERE id = ?").run(d.delivery, d.at, r.id);
      const q = gw.db.query("INSERT OR IGNORE INTO bbs_queue (message_id, partner_id, state, queued_at, updated_at) VALUES (?, ?, 'pending', ?, ?)");
      for (const p of d.partners) q.run(r.id, p.partnerId, now, now);
    })();
    moved++;
  }
  return moved;
}

/** For callers that must refuse rather than report: StoreOutcome -> AppError. */
export function outcomeError(o: Exclude<StoreOutcome, { ok: true }>): AppError {
  if (o.code === "duplicate") return conflict("duplicate_bid", o.message);
  if (o.code === "too_large") return new AppError(413, "too_large", o.message);
  return unprocessable(o.code, o.message);
}
