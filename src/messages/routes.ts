/**
 * The messaging screen and alerts over HTTP (docs/api.md "Messages"):
 * conversations, one conversation, sending (verified callsign), the watch
 * list, and the emergencies the map's banner shows.
 */
import { t } from "elysia";
import { closed } from "../lib/schema.ts";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { CONVERSATION_THREAD, CONVERSATIONS, conversationWith, listConversations, MESSAGE_SENT, sendMessage } from "./service.ts";
import { EMERGENCIES, recentEmergencies, setWatchList, WATCH_LIST, watchList } from "./alerts.ts";
import { answers } from "../http/openapi.ts";

const TAGS = ["Messages"];

export function messagesRoutes(gw: Core, kit: RouteKit) {
  return kit.app
    .get("/api/messages/conversations", ({ caller }) => ({ conversations: listConversations(gw, caller.user!.id) }), {
      gate: "session",
      detail: {
        summary: "Your APRS conversations, newest first: per station, and groups and bulletins",
        description: "Each with its last message; a message you sent carries its state: queued, sent, retrying, acked or failed.",
        tags: TAGS,
        responses: answers("your conversations", CONVERSATIONS),
      },
    })
    .get("/api/messages/with/:call", ({ caller, params }) => conversationWith(gw, caller.user!.id, decodeURIComponent(params.call)), {
      gate: "session",
      params: t.Object({ call: t.String({ description: "the other station, or the group or bulletin addressee" }) }),
      detail: { summary: "One conversation, oldest message first", tags: TAGS, responses: answers("the conversation", CONVERSATION_THREAD) },
    })
    .post("/api/messages", ({ caller, body }) => ({ message: sendMessage(gw, caller.user!, body) }), {
      gate: "verified",
      body: closed({
        to: t.String({ minLength: 1, maxLength: 9, description: "a callsign, a group of APRS_GROUPS, ALL, or a bulletin BLN0-BLNZ" }),
        text: t.String({ minLength: 1, maxLength: 67, description: "up to 67 printable ASCII characters, without | ~ {" }),
      }),
      detail: {
        summary: "Send an APRS message as your verified callsign",
        description: "To a station: with a message id, retried until acked (at most 5 sends). To a group or bulletin: once, without an id.",
        tags: TAGS,
        responses: answers("the message as queued", MESSAGE_SENT),
      },
    })
    .get("/api/alerts/watch", ({ caller }) => ({ calls: watchList(gw, caller.user!.id) }), {
      gate: "session",
      detail: { summary: "Your watch list: callsigns you are told about when heard", tags: TAGS, responses: answers("your watch list", WATCH_LIST) },
    })
    .put("/api/alerts/watch", ({ caller, body }) => ({ calls: setWatchList(gw, caller.user!.id, body.calls) }), {
      gate: "session",
      body: closed({ calls: t.Array(t.String({ maxLength: 9 }), { maxItems: 200 }) }),
      detail: {
        summary: "Replace your watch list (a call without SSID watches every SSID)",
        tags: TAGS,
        responses: answers("the watch list as saved", WATCH_LIST),
      },
    })
    .get("/api/alerts/emergencies", () => ({ emergencies: recentEmergencies(gw) }), {
      gate: "public",
      detail: {
        summary: "Emergency positions heard in the last 24 hours (Mic-E Emergency, the \\! symbol), one per station",
        tags: TAGS,
        responses: answers("the emergencies", EMERGENCIES),
      },
    });
}
