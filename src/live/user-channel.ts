/**
 * A signed-in user's own live channel (the topic `user:<id>` their /ws
 * sockets join) and web push: what the messaging screen and alerts tell a
 * user, as it happens.
 *
 *   {type:"aprs-message", conversation, message}  a message heard for one of the user's verified calls
 *   {type:"message-state", conversation, message} the user's sent message was sent, sent again, acked, rejected or ran out of attempts
 *   {type:"watch", call, ts, source}               a watched station was heard
 *   {type:"emergency", emergency}                  an emergency (to sysops and the station's watchers)
 *
 * A user with no live socket open (the app is closed) gets a web push
 * instead (src/notify/push.ts): for a message, a watched station, an emergency.
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { verifiedHolder } from "../accounts/users.ts";
import { sendPush, type PushMessage } from "../notify/push.ts";
import { emergencyReason, recordEmergency, sysopUsers, watchersOf, watchersToAlert, type Emergency } from "../messages/alerts.ts";
import { heardMessage, sentMessage } from "../messages/service.ts";
import { userTopic, type LiveRooms } from "./rooms.ts";

/** A sender's retries of one message are told once: the same sender, id and text heard within this. */
const RETOLD_MS = 30 * 60_000;

/** Follows messages, packets and the outbox for users; `rooms` says who has a socket open (Live, service.ts, calls it once). */
export function startUserChannel(gw: Core, rooms: LiveRooms): void {
  gw.events.on("aprsMessage", (m) => onMessage(gw, rooms, m));
  gw.events.on("aprsPacket", (p) => onPacket(gw, rooms, p));
  gw.events.on("outboxMessage", (m) => tellState(gw, rooms, m.userId, m.src, m.addressee, m.msgId));
}

/** The sender's screen shows the message's new state (sent, retrying, acked, failed) as it changes. */
function tellState(gw: Core, rooms: LiveRooms, userId: number, src: string, addressee: string, msgId: string): void {
  if (!rooms.userOnline(userId)) return;
  const message = sentMessage(gw, userId, src, addressee, msgId);
  if (message) gw.server?.publish(userTopic(userId), JSON.stringify({ type: "message-state", conversation: addressee.toUpperCase(), message }));
}

/** Live to the user's sockets; a push when none is open. */
function tell(gw: Core, rooms: LiveRooms, userId: number, live: Record<string, unknown>, push: PushMessage | null): void {
  if (rooms.userOnline(userId)) {
    gw.server?.publish(userTopic(userId), JSON.stringify(live));
    return;
  }
  if (!push) return;
  sendPush(gw, userId, push).catch((e) => gw.log.warn("push", "alert push failed", { error: String(e) }));
}

function onMessage(gw: Core, rooms: LiveRooms, m: GatewayEvents["aprsMessage"]): void {
  if (m.kind === "message") {
    const holder = verifiedHolder(gw.db, m.addressee);
    // not to the holder's own messages heard back
    if (holder !== null && verifiedHolder(gw.db, m.src) !== holder && !retold(gw, m)) {
      const message = heardMessage(m);
      tell(
        gw,
        rooms,
        holder,
        { type: "aprs-message", conversation: m.src, message },
        { title: `APRS message from ${m.src}`, body: m.text, url: `/messages/${encodeURIComponent(m.src)}` },
      );
    }
  }
  // an ack (ackNN, rejNN, or a reply-ack {MM}NN) of a message sent here: the outbox settles it when this event is done
  const ackOf = m.kind === "ack" || m.kind === "rej" ? m.msgId : m.kind === "message" ? m.replyAck : undefined;
  if (!ackOf) return;
  queueMicrotask(() => {
    const row = gw.db
      .query(
        "SELECT user_id AS userId FROM aprs_outbox WHERE kind = 'message' AND src = ? AND addressee = ? AND msg_id = ? AND user_id IS NOT NULL ORDER BY id DESC LIMIT 1",
      )
      .get(m.addressee.toUpperCase(), m.src.toUpperCase(), ackOf) as { userId: number } | null;
    if (row) tellState(gw, rooms, row.userId, m.addressee, m.src, ackOf);
  });
}

/** Whether this message was already heard (the sender's retry, the other feed's copy) and told. */
function retold(gw: Core, m: GatewayEvents["aprsMessage"]): boolean {
  const n = gw.db
    .query("SELECT COUNT(*) AS n FROM aprs_messages WHERE src = ? AND addressee = ? AND text = ? AND coalesce(msg_id, '') = ? AND ts > ? AND ts <= ?")
    .get(m.src, m.addressee, m.text, m.msgId ?? "", m.ts - RETOLD_MS, m.ts) as { n: number };
  return n.n > 1;
}

function onPacket(gw: Core, rooms: LiveRooms, e: GatewayEvents["aprsPacket"]): void {
  // our own transmissions heard back tell nobody anything new
  if (e.via === "echo") return;
  const p = e.packet;
  if (p && p.type !== "object" && p.type !== "item") {
    const reason = emergencyReason(p);
    if (reason) {
      const em = recordEmergency(gw, { call: e.src, ts: e.ts, lat: p.lat ?? null, lon: p.lon ?? null, reason, comment: p.comment ?? null });
      if (em) tellEmergency(gw, rooms, em);
    }
  }
  for (const userId of watchersToAlert(gw, e.src, e.ts)) {
    tell(
      gw,
      rooms,
      userId,
      { type: "watch", call: e.src, ts: e.ts, source: e.source },
      { title: `${e.src} heard`, body: `${e.src} was heard (${e.source === "rf" ? "on the air" : e.source})`, url: `/stations/${encodeURIComponent(e.src)}` },
    );
  }
}

function tellEmergency(gw: Core, rooms: LiveRooms, em: Emergency): void {
  gw.log.warn("alerts", `emergency from ${em.call}`, { reason: em.reason, lat: em.lat, lon: em.lon });
  const users = new Set([...sysopUsers(gw), ...watchersOf(gw, em.call)]);
  const where = em.lat !== null && em.lon !== null ? ` at ${em.lat.toFixed(4)}, ${em.lon.toFixed(4)}` : "";
  for (const userId of users)
    tell(
      gw,
      rooms,
      userId,
      { type: "emergency", emergency: em },
      { title: `EMERGENCY: ${em.call}`, body: `${em.call} sent an emergency${where}${em.comment ? `: ${em.comment}` : ""}`, url: "/map" },
    );
}
