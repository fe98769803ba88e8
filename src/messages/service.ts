/**
 * The messaging screen's server side: a user's APRS conversations, built from
 * what the user sent (the outbox, src/stations/outbox.ts, which keeps each
 * message's state and retries it) and what was heard for the user's verified
 * calls (aprs_messages). Bulletins, announcements (`BLN…`), `ALL` and the
 * groups of APRS_GROUPS are conversations of their own, sent without an ack.
 *
 *   state  queued    waiting for its first send (or for a transmitter)
 *          sent      sent once; waiting for the ack (or done: no ack asked)
 *          retrying  sent again: no ack yet (30, 60, 120, 240, 480 s between sends)
 *          acked     the addressee's `ackNN`, or a reply `{MM}NN`, was heard
 *          failed    `rejNN` heard, or no ack after 5 sends
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import type { SignedInUser } from "../accounts/caller.ts";
import { baseCall } from "../lib/callsign.ts";
import { badRequest, forbidden } from "../lib/errors.ts";
import { enqueueMessage, type OutboxItem } from "../stations/outbox.ts";

export const MESSAGE_STATE = t.Union([t.Literal("queued"), t.Literal("sent"), t.Literal("retrying"), t.Literal("acked"), t.Literal("failed")], {
  description: "a sent message's state: queued, sent, retrying (no ack yet), acked, or failed (rejected, or no ack after 5 sends)",
});
export type MessageState = Static<typeof MESSAGE_STATE>;
export const CONVERSATION_KIND = t.Union([t.Literal("station"), t.Literal("group"), t.Literal("bulletin")], {
  description: "station: one other station; group: ALL or a group of APRS_GROUPS; bulletin: BLNx, NWS-...",
});
export type ConversationKind = Static<typeof CONVERSATION_KIND>;

/** One message of a conversation, sent here or heard. */
export const CONVERSATION_MESSAGE = closed({
  id: t.String({ description: '"o<outbox id>" for a message sent here, "h<heard id>" for one heard' }),
  direction: t.Union([t.Literal("out"), t.Literal("in")]),
  from: t.String(),
  to: t.String(),
  text: t.String(),
  ts: unixMs(),
  msgId: nullable(t.String(), "its APRS message id; null when sent without one"),
  state: t.Optional(MESSAGE_STATE),
  attempts: t.Optional(wholeNumber({ description: "sent messages: sends so far" })),
  error: t.Optional(nullable(t.String(), "sent messages: why it failed")),
});
export type ConversationMessage = Static<typeof CONVERSATION_MESSAGE>;

/** A conversation in the list, with its newest message. */
export const CONVERSATION = closed({
  call: t.String({ description: "the other station, or the group or bulletin addressee" }),
  kind: CONVERSATION_KIND,
  last: CONVERSATION_MESSAGE,
  count: wholeNumber({ description: "its messages" }),
});
export type Conversation = Static<typeof CONVERSATION>;

/** GET /api/messages/conversations. */
export const CONVERSATIONS = closed({ conversations: t.Array(CONVERSATION, { description: "the one with the newest message first" }) });

/** GET /api/messages/with/{call}. */
export const CONVERSATION_THREAD = closed({
  call: t.String({ description: "the other station, or the group or bulletin addressee (upper case)" }),
  kind: CONVERSATION_KIND,
  messages: t.Array(CONVERSATION_MESSAGE, { description: "oldest first" }),
});

/** POST /api/messages. */
export const MESSAGE_SENT = closed({ message: CONVERSATION_MESSAGE });

/** How long heard group and bulletin traffic stays in the list. */
const GROUP_WINDOW_MS = 48 * 3_600_000;
const LIMIT = 200;

/** Whether messages to `addressee` are for many (no ack): bulletins, announcements, NWS, ALL, APRS_GROUPS. */
function conversationKind(gw: Core, addressee: string): ConversationKind {
  const a = addressee.toUpperCase();
  if (/^BLN[0-9A-Z]/.test(a) || a.startsWith("NWS-") || a.startsWith("NWS_")) return "bulletin";
  if (a === "ALL" || gw.config.aprsGroups.includes(a)) return "group";
  return "station";
}

/** The state the screen shows for an outbox row. */
export function stateOf(item: Pick<OutboxItem, "state" | "attempts">): MessageState {
  if (item.state === "acked") return "acked";
  if (item.state === "failed" || item.state === "rejected") return "failed";
  if (item.attempts === 0 || (item.attempts === 1 && item.state !== "sent")) return "queued";
  return item.attempts > 1 ? "retrying" : "sent";
}

/** The text of a message line `SRC>DST::ADDRESSEE:text{id`. */
function lineText(line: string, msgId: string | null): string {
  const i = line.indexOf("::");
  const text = i < 0 ? line : line.slice(i + 12);
  return msgId && text.endsWith(`{${msgId}`) ? text.slice(0, -msgId.length - 1) : text;
}

const fromOutbox = (r: OutboxItem): ConversationMessage => ({
  id: `o${r.id}`,
  direction: "out",
  from: r.src,
  to: r.addressee ?? "",
  text: lineText(r.line, r.msgId),
  ts: r.createdAt,
  msgId: r.msgId,
  state: stateOf(r),
  attempts: r.attempts,
  error: r.error,
});

interface HeardRow {
  id: number;
  ts: number;
  src: string;
  addressee: string;
  text: string;
  msgId: string | null;
}

const fromHeard = (r: HeardRow): ConversationMessage => ({
  id: `h${r.id}`,
  direction: "in",
  from: r.src,
  to: r.addressee,
  text: r.text,
  ts: r.ts,
  msgId: r.msgId,
});

/** The base calls this account verified: messages to any SSID of them are the user's. */
function verifiedBases(gw: Core, userId: number): string[] {
  const rows = gw.db.query("SELECT call FROM callsigns WHERE user_id = ? AND verified_at IS NOT NULL").all(userId) as Array<{ call: string }>;
  return [...new Set(rows.map((r) => baseCall(r.call)))];
}

const OUT_COLS = `id, kind, src, addressee, msg_id AS msgId, line, state, attempts, created_at AS createdAt, sent_at AS sentAt, done_at AS doneAt, error`;

function sentBy(gw: Core, userId: number, addressee?: string): OutboxItem[] {
  return gw.db
    .query(`SELECT ${OUT_COLS} FROM aprs_outbox WHERE user_id = ?1 AND kind = 'message' AND (?2 IS NULL OR addressee = ?2) ORDER BY id DESC LIMIT ${LIMIT}`)
    .all(userId, addressee ?? null) as OutboxItem[];
}

/** Messages heard for the user's calls (not from them), one row per message: a sender's retries are one. */
function heardFor(gw: Core, bases: string[], from?: string): HeardRow[] {
  if (bases.length === 0) return [];
  const mine = bases.map(() => "(addressee = ? OR addressee LIKE ? || '-%')").join(" OR ");
  const notMine = bases.map(() => "NOT (src = ? OR src LIKE ? || '-%')").join(" AND ");
  const args = bases.flatMap((b) => [b, b]);
  const rows = gw.db
    .query(
      `SELECT id, ts, src, addressee, text, msg_id AS msgId FROM aprs_messages
        WHERE kind = 'message' AND (${mine}) AND ${notMine} AND (? IS NULL OR src = ?) ORDER BY ts DESC, id DESC LIMIT ${LIMIT * 3}`,
    )
    .all(...args, ...args, from ?? null, from ?? null) as HeardRow[];
  return dedupe(rows);
}

/** Group and bulletin traffic heard lately (not sent by the user). */
function heardGroups(gw: Core, bases: string[], addressee?: string): HeardRow[] {
  const groups = ["ALL", ...gw.config.aprsGroups];
  const notMine = bases.map(() => "NOT (src = ? OR src LIKE ? || '-%')").join(" AND ") || "1";
  const rows = gw.db
    .query(
      `SELECT id, ts, src, addressee, text, msg_id AS msgId FROM aprs_messages
        WHERE ts >= ? AND (kind IN ('bulletin', 'announcement') OR (kind = 'message' AND addressee IN (${groups.map(() => "?").join(",")})))
          AND ${notMine} AND (? IS NULL OR addressee = ?) ORDER BY ts DESC, id DESC LIMIT ${LIMIT * 3}`,
    )
    .all(gw.clock.now() - GROUP_WINDOW_MS, ...groups, ...bases.flatMap((b) => [b, b]), addressee ?? null, addressee ?? null) as HeardRow[];
  return dedupe(rows);
}

/** A message heard several times (retries, RF and APRS-IS) is shown once: same sender, addressee, id and text. */
function dedupe(rows: HeardRow[]): HeardRow[] {
  const seen = new Map<string, number>();
  const out: HeardRow[] = [];
  // oldest first, so the first hearing is the one kept
  for (const r of [...rows].reverse()) {
    const key = `${r.src}\u0000${r.addressee}\u0000${r.msgId ?? ""}\u0000${r.text}`;
    const at = seen.get(key);
    if (at !== undefined && r.ts - at < 30 * 60_000) continue;
    seen.set(key, r.ts);
    out.push(r);
  }
  return out.reverse().slice(0, LIMIT);
}

/** The user's conversations, the one with the newest message first. */
export function listConversations(gw: Core, userId: number): Conversation[] {
  const bases = verifiedBases(gw, userId);
  const byCall = new Map<string, Conversation>();
  const add = (call: string, m: ConversationMessage) => {
    const c = byCall.get(call);
    if (!c) byCall.set(call, { call, kind: conversationKind(gw, call), last: m, count: 1 });
    else {
      c.count++;
      if (m.ts > c.last.ts) c.last = m;
    }
  };
  for (const r of sentBy(gw, userId)) add(r.addressee ?? "", fromOutbox(r));
  for (const r of heardFor(gw, bases)) add(r.src, fromHeard(r));
  for (const r of heardGroups(gw, bases)) add(r.addressee, fromHeard(r));
  return [...byCall.values()].sort((a, b) => b.last.ts - a.last.ts);
}

/** One conversation, oldest message first. */
export function conversationWith(gw: Core, userId: number, rawCall: string): Static<typeof CONVERSATION_THREAD> {
  const call = rawCall.trim().toUpperCase();
  if (!/^[A-Z0-9-]{1,9}$/.test(call)) throw badRequest("bad_call", `"${rawCall}" is not an APRS addressee (1-9 of A-Z 0-9 -)`);
  const kind = conversationKind(gw, call);
  const bases = verifiedBases(gw, userId);
  const messages = sentBy(gw, userId, call).map(fromOutbox);
  const heard = kind === "station" ? heardFor(gw, bases, call) : heardGroups(gw, bases, call);
  messages.push(...heard.map(fromHeard));
  messages.sort((a, b) => a.ts - b.ts || a.id.localeCompare(b.id));
  return { call, kind, messages };
}

/**
 * Sends a message as the user's active call (which must be verified: spec
 * rule 4) through the outbox, and so through the radio or the APRS-IS
 * uplink; groups and bulletins go once without a message id.
 */
export function sendMessage(gw: Core, user: SignedInUser, body: { to: string; text: string }): ConversationMessage {
  if (!user.call || !user.verified) throw forbidden("verify your callsign before you send on the air", "callsign_not_verified");
  const to = body.to.trim().toUpperCase();
  const kind = conversationKind(gw, to);
  const item = enqueueMessage(gw, { src: user.call, addressee: to, text: body.text, userId: user.id, ack: kind === "station" });
  return fromOutbox(item);
}

/** One of the user's sent messages as the screen shows it (after its ack, for the live channel). */
export function sentMessage(gw: Core, userId: number, src: string, addressee: string, msgId: string): ConversationMessage | null {
  const r = gw.db
    .query(`SELECT ${OUT_COLS} FROM aprs_outbox WHERE user_id = ? AND kind = 'message' AND src = ? AND addressee = ? AND msg_id = ? ORDER BY id DESC LIMIT 1`)
    .get(userId, src.toUpperCase(), addressee.toUpperCase(), msgId) as OutboxItem | null;
  return r && fromOutbox(r);
}

/** A heard message as the screen shows it. */
export const heardMessage = (m: { id?: number; ts: number; src: string; addressee: string; text: string; msgId?: string }): ConversationMessage =>
  fromHeard({ id: m.id ?? 0, ts: m.ts, src: m.src, addressee: m.addressee, text: m.text, msgId: m.msgId ?? null });
