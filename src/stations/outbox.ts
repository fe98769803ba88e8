/**
 * The APRS outbox: lines waiting to be transmitted, whoever transmits them
 * (the ingest box via GET /outbox, the local TNC, APRS-IS). A transmitter
 * leases due lines, sends them, and reports them sent. A message with an id
 * is retried with back-off until the addressee's ack (or rej) is heard by the
 * ingest pipeline, or it runs out of attempts.
 *
 *   queued --lease--> leased --reportSent--> sent --ack heard--> acked
 *                        |  (lease expires: due again)   \--retry due--> leased ... --> failed
 */
import { commandRoute } from "../radio-play/route.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { encodeAck, encodeMessage, EncodeError } from "../lib/aprs/index.ts";
import { badRequest } from "../lib/errors.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { getMeta, setMeta } from "../core/store/db.ts";

/** `raw`: a line a box command asked for as is (see src/radio-node/local-box.ts). */
export const OUTBOX_KINDS = ["message", "ack", "position", "status", "weather", "object", "raw"] as const;
export type OutboxKind = (typeof OUTBOX_KINDS)[number];

/** A line of the outbox as the API answers it. */
export const OUTBOX_ITEM = closed({
  id: wholeNumber(),
  kind: t.Union(OUTBOX_KINDS.map((k) => t.Literal(k))),
  src: t.String({ description: "the callsign it is sent as" }),
  addressee: nullable(t.String()),
  msgId: nullable(t.String()),
  line: t.String({ description: "the TNC2 line" }),
  state: t.String({ description: "queued, leased, sent, acked, failed" }),
  attempts: wholeNumber(),
  createdAt: unixMs(),
  sentAt: nullable(unixMs()),
  doneAt: nullable(unixMs(), "acked, failed, or sent with no ack to wait for"),
  error: nullable(t.String()),
});
export type OutboxItem = Static<typeof OUTBOX_ITEM>;
/** Lines leased to a transmitter, or a user's own lines (newest first). */
export const OUTBOX_ITEMS = closed({ items: t.Array(OUTBOX_ITEM) });
/** What a transmitter's report changed. */
export const OUTBOX_ACKED = closed({ updated: wholeNumber({ description: "items whose state changed" }) });

/** Attempts for a message that wants an ack, and the wait after each send. */
const MESSAGE_ATTEMPTS = 5;
export const RETRY_MS = [30_000, 60_000, 120_000, 240_000, 480_000];
export const LEASE_MS = 60_000;

const COLS = `id, kind, src, addressee, msg_id AS msgId, line, state, attempts, created_at AS createdAt, sent_at AS sentAt, done_at AS doneAt, error`;

export function enqueue(
  gw: Core,
  item: { kind: OutboxKind; src: string; line: string; addressee?: string | null; msgId?: string | null; userId?: number | null; maxAttempts?: number },
): OutboxItem {
  const now = gw.clock.now();
  const id = Number(
    gw.db
      .query("INSERT INTO aprs_outbox (kind, src, addressee, msg_id, line, max_attempts, next_at, user_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .run(
        item.kind,
        item.src.toUpperCase(),
        item.addressee?.toUpperCase() ?? null,
        item.msgId ?? null,
        item.line,
        item.maxAttempts ?? 1,
        now,
        item.userId ?? null,
        now,
      ).lastInsertRowid,
  );
  return getItem(gw, id)!;
}

export function getItem(gw: Core, id: number): OutboxItem | null {
  return gw.db.query(`SELECT ${COLS} FROM aprs_outbox WHERE id = ?`).get(id) as OutboxItem | null;
}

/** A fresh message id (1-5 digits), unique enough across the ack window. */
function nextMsgId(gw: Core): string {
  const n = (Number(getMeta(gw.db, "aprs:msgid") ?? "0") % 99999) + 1;
  setMeta(gw.db, "aprs:msgid", String(n));
  return String(n);
}

/**
 * Queues an APRS message that is retried until acked. Throws 400 for text APRS cannot carry.
 * `ack: false` (bulletins, ALL, groups: src/messages/) sends it once without a message id.
 */
export function enqueueMessage(
  gw: Core,
  m: { src: string; addressee: string; text: string; userId?: number | null; path?: string[]; ack?: boolean },
): OutboxItem {
  return gw.db.transaction(() => {
    const msgId = m.ack === false ? undefined : nextMsgId(gw);
    let line: string;
    try {
      line = encodeMessage({ src: m.src, addressee: m.addressee, text: m.text, msgId, path: m.path });
    } catch (e) {
      if (e instanceof EncodeError) throw badRequest(e.code, e.message);
      throw e;
    }
    return enqueue(gw, { kind: "message", src: m.src, addressee: m.addressee, msgId, line, userId: m.userId, maxAttempts: msgId ? MESSAGE_ATTEMPTS : 1 });
  })();
}

/**
 * Leases what is due: queued lines, lines whose lease ran out, and messages
 * whose retry time came. Messages out of attempts become `failed` instead.
 */
export function leaseDue(gw: Core, opts: { by: string; limit?: number; leaseMs?: number }): OutboxItem[] {
  const now = gw.clock.now();
  let failed: Told[] = [];
  const due = gw.db.transaction(() => {
    failed = gw.db
      .query(`UPDATE aprs_outbox SET state = 'failed', done_at = ?1, error = 'no ack after ' || attempts || ' attempts'
        WHERE state = 'sent' AND kind = 'message' AND msg_id IS NOT NULL AND next_at <= ?1 AND attempts >= max_attempts
        RETURNING user_id AS userId, src, addressee, msg_id AS msgId`)
      .all(now) as Told[];
    const rows = gw.db
      .query(`SELECT id FROM aprs_outbox WHERE
          (state = 'queued' AND next_at <= ?1)
          OR (state = 'leased' AND lease_until <= ?1)
          OR (state = 'sent' AND kind = 'message' AND msg_id IS NOT NULL AND next_at <= ?1 AND attempts < max_attempts)
        ORDER BY next_at, id LIMIT ?2`)
      .all(now, Math.min(Math.max(opts.limit ?? 20, 1), 200)) as Array<{ id: number }>;
    const lease = gw.db.query("UPDATE aprs_outbox SET state = 'leased', lease_until = ?, leased_by = ?, attempts = attempts + 1 WHERE id = ?");
    for (const r of rows) lease.run(now + (opts.leaseMs ?? LEASE_MS), opts.by, r.id);
    return rows.map((r) => getItem(gw, r.id)!);
  })();
  tellUsers(gw, failed);
  return due;
}

/** A user's message whose state changed with no ack: the messaging screen hears of it (events.ts outboxMessage). */
type Told = { userId: number | null; src: string; addressee: string; msgId: string | null };
function tellUsers(gw: Core, rows: Told[]): void {
  for (const r of rows)
    if (r.userId !== null && r.msgId !== null) gw.events.emit("outboxMessage", { userId: r.userId, src: r.src, addressee: r.addressee, msgId: r.msgId });
}

/**
 * The transmitter reports lines sent (or failed to send). A sent message with
 * an id waits for its ack; everything else is done.
 */
/** POST /outbox/ack: what the transmitter (the ingest box) sent of what it leased, and what failed. */
export const OUTBOX_ACK = closed({
  sent: t.Optional(t.Array(t.Number({ multipleOf: 1 }), { description: "outbox ids sent" })),
  failed: t.Optional(
    t.Array(closed({ id: t.Number({ multipleOf: 1 }), error: t.Optional(t.String({ description: "why" })) }), { description: "outbox ids not sent, and why" }),
  ),
});

export function reportSent(gw: Core, report: Static<typeof OUTBOX_ACK>): Static<typeof OUTBOX_ACKED> {
  const now = gw.clock.now();
  let updated = 0;
  const told: Told[] = [];
  gw.db.transaction(() => {
    for (const id of report.sent ?? []) {
      const row = gw.db.query("SELECT kind, msg_id AS msgId, attempts, state, user_id AS userId, src, addressee FROM aprs_outbox WHERE id = ?").get(id) as
        | (Told & { kind: string; attempts: number; state: string })
        | null;
      if (!row || row.state !== "leased") continue;
      const awaitsAck = row.kind === "message" && row.msgId !== null;
      const wait = RETRY_MS[Math.min(row.attempts - 1, RETRY_MS.length - 1)]!;
      updated += gw.db
        .query(
          "UPDATE aprs_outbox SET state = 'sent', sent_at = ?1, next_at = ?2, lease_until = NULL, done_at = CASE WHEN ?3 THEN NULL ELSE ?1 END WHERE id = ?4",
        )
        .run(now, now + wait, awaitsAck ? 1 : 0, id).changes;
      if (awaitsAck) told.push(row);
    }
    for (const f of report.failed ?? []) {
      const row = gw.db
        .query(
          "UPDATE aprs_outbox SET state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, next_at = ?1, lease_until = NULL, error = ?2, done_at = CASE WHEN attempts >= max_attempts THEN ?3 ELSE NULL END WHERE id = ?4 AND state = 'leased' RETURNING user_id AS userId, src, addressee, msg_id AS msgId, kind",
        )
        .get(now + RETRY_MS[0]!, (f.error ?? "transmit failed").slice(0, 200), now, f.id) as (Told & { kind: string }) | null;
      if (!row) continue;
      updated++;
      if (row.kind === "message") told.push(row);
    }
  })();
  tellUsers(gw, told);
  return { updated };
}

/**
 * Hands a leased line back untransmitted, due again at `until` (a
 * transmitter's rate limit held it back): the lease and its attempt are undone.
 */
export function deferLeased(gw: Core, id: number, until: number): boolean {
  return (
    gw.db
      .query(
        "UPDATE aprs_outbox SET state = CASE WHEN sent_at IS NULL THEN 'queued' ELSE 'sent' END, next_at = ?, lease_until = NULL, leased_by = NULL, attempts = max(attempts - 1, 0) WHERE id = ? AND state = 'leased'",
      )
      .run(until, id).changes > 0
  );
}

/**
 * Called by the ingest pipeline for every message heard: an ack or rej
 * settles our message; a message with an id addressed to this instance's own
 * APRS call gets an ack queued.
 */
export function onMessageHeard(gw: Core, m: GatewayEvents["aprsMessage"]): void {
  if ((m.kind === "ack" || m.kind === "rej") && m.msgId) {
    gw.db
      .query(
        `UPDATE aprs_outbox SET state = ?, done_at = ? WHERE kind = 'message' AND src = ? AND addressee = ? AND msg_id = ? AND state IN ('queued', 'leased', 'sent')`,
      )
      .run(m.kind === "ack" ? "acked" : "rejected", m.ts, m.addressee.toUpperCase(), m.src.toUpperCase(), m.msgId);
    return;
  }
  // APRS 1.1 reply-ack: a message `text{MM}AA` acks our message AA to its sender
  if (m.kind === "message" && m.replyAck) {
    gw.db
      .query(
        `UPDATE aprs_outbox SET state = 'acked', done_at = ? WHERE kind = 'message' AND src = ? AND addressee = ? AND msg_id = ? AND state IN ('queued', 'leased', 'sent')`,
      )
      .run(m.ts, m.addressee.toUpperCase(), m.src.toUpperCase(), m.replyAck);
  }
  const own = gw.config.fedAprsCall;
  // a command to the station's call is acked by the commands service (radio-play), once
  if (m.kind === "message" && m.msgId && own && m.addressee.toUpperCase() === own.toUpperCase() && !commandRoute(gw, m)) {
    try {
      enqueue(gw, { kind: "ack", src: own, addressee: m.src, msgId: m.msgId, line: encodeAck({ src: own, addressee: m.src, msgId: m.msgId }) });
    } catch (e) {
      if (!(e instanceof EncodeError)) throw e;
    }
  }
}

/**
 * Weather lines we queued, remembered for two hours: when our own report comes
 * back through APRS-IS or a digipeater, the ingest pipeline keeps the packet
 * but not a second reading (the push already stored the exact values).
 */
declare module "../core/services.ts" {
  interface Services {
    /** our own weather pushes sent lately, so their echo is not stored twice */
    ownWeather: Map<string, number>;
  }
}
const OWN_WEATHER_MS = 2 * 3_600_000;

const echoKey = (src: string, info: string) => src.toUpperCase() + "\u0000" + info;

export function rememberOwnWeather(gw: Core, line: string, now: number): void {
  const m = gw.services.ownWeather;
  if (m.size >= 10_000) for (const [k, t] of m) if (now - t > OWN_WEATHER_MS || m.size >= 10_000) m.delete(k);
  const colon = line.indexOf(":");
  m.set(echoKey(line.slice(0, line.indexOf(">")), line.slice(colon + 1)), now);
}

/** Whether a weather packet heard from `src` with this information field is one of ours coming back. */
export function isOwnWeatherEcho(gw: Core, src: string, info: string, now: number): boolean {
  const m = gw.services.ownWeather;
  if (m.size === 0) return false;
  const t = m.get(echoKey(src, info));
  return t !== undefined && now - t <= OWN_WEATHER_MS;
}

/** A user's own queued and recent lines. */
export function userOutbox(gw: Core, userId: number, limit = 50): OutboxItem[] {
  return gw.db.query(`SELECT ${COLS} FROM aprs_outbox WHERE user_id = ? ORDER BY id DESC LIMIT ?`).all(userId, limit) as OutboxItem[];
}
