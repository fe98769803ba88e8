/**
 * The BBS's answers over HTTP (src/bbs/routes.ts), defined once: the
 * envelopes the routes wrap around what the services build. The message,
 * partner, rule, White Pages and session shapes live beside the code that
 * builds them (messages.ts, partners.ts, wp.ts, forwarding.ts,
 * box-forwarding.ts, fbb/session.ts).
 */
import { t } from "elysia";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { BULLETIN_CATEGORY, MESSAGE, MESSAGE_TYPE } from "./messages.ts";
import { BBS_IDENTITY } from "./identity.ts";
import { ROUTE_DECISION_FIELDS } from "./routing.ts";
import { WP_ENTRY } from "./wp.ts";
import { PARTNER, RULE } from "./partners.ts";
import { SESSION_RECORD, SESSION_STATUS } from "./forwarding.ts";
import { BOX_KILL_ANSWER, BOX_SESSION } from "./box-forwarding.ts";

/** A page of a message list, newest first. */
const PAGE_FIELDS = {
  messages: t.Array(MESSAGE, { description: "without body, route and forwarding" }),
  next: nullable(wholeNumber(), "the `before` of the next page; null on the last"),
};

/** GET /api/bbs/messages: the caller's mail, or NTS traffic (type=T). */
export const MAILBOX = closed({
  calls: t.Optional(t.Array(t.String(), { description: "whose mailboxes (base callsigns); absent for NTS traffic" })),
  ...PAGE_FIELDS,
});

/** GET /api/bbs/sent. */
export const SENT_MAIL = closed({ calls: t.Array(t.String(), { description: "whose sent mail (base callsigns)" }), ...PAGE_FIELDS });

/** GET /api/bbs/bulletins. */
export const BULLETINS = closed({ category: nullable(t.String(), "the category asked for; null: every category"), ...PAGE_FIELDS });

/** GET /api/bbs/categories. */
export const CATEGORIES = closed({ categories: t.Array(BULLETIN_CATEGORY) });

/** GET /api/bbs/thread/{id}. */
export const THREAD = closed({
  threadId: wholeNumber({ description: "the id of the thread's first message" }),
  messages: t.Array(MESSAGE, { description: "the messages of it the caller may read, oldest first" }),
});

/** DELETE /api/bbs/messages/{id}. */
export const MESSAGE_KILLED = closed({ killed: wholeNumber({ description: "the killed message's id" }) });

/** DELETE of a forwarding rule or partner. */
export const DELETED = closed({ deleted: wholeNumber({ description: "the deleted id" }) });

/** GET /api/bbs/route: where a message to an address would go. */
export const ROUTE_ANSWER = closed({
  bbs: nullable(BBS_IDENTITY, "this BBS; null when it has no callsign (local mail only)"),
  type: MESSAGE_TYPE,
  to: t.String({ description: "the addressee, or a bulletin's category" }),
  ...ROUTE_DECISION_FIELDS,
});

/** GET /api/bbs/wp: one entry (call=), or a search. */
export const WP_ANSWER = t.Union([WP_ENTRY, closed({ entries: t.Array(WP_ENTRY) })], {
  description: "with call: its entry; else { entries }",
});

/** GET /api/bbs/forward. */
export const RULES = closed({ rules: t.Array(RULE) });

/** GET /api/bbs/partners. */
export const PARTNERS = closed({
  bbs: nullable(BBS_IDENTITY, "this BBS; null when it has no callsign"),
  partners: t.Array(PARTNER),
  sessions: t.Array(SESSION_STATUS, { description: "forwarding sessions under way" }),
});

/** GET /api/bbs/partners/{id}. */
export const PARTNER_DETAIL = closed({
  ...PARTNER.properties,
  sessions: t.Array(SESSION_RECORD, { description: "its last sessions since the start (up to 10), newest last" }),
});

/** GET /api/bbs/forward/session. */
export const BOX_SESSIONS = closed({
  sessions: t.Array(BOX_SESSION, { description: "the box's relayed sessions open here" }),
  forwarding: t.Array(SESSION_STATUS, { description: "every forwarding session under way" }),
});

/** POST /api/bbs/forward/kill: the session ended, or per BID. */
export const BOX_KILL = t.Union([closed({ ended: t.String({ description: "the session that was ended" }) }), BOX_KILL_ANSWER]);
