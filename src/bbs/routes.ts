/**
 * The BBS over HTTP: mail, bulletins, threads, routing, White Pages (web
 * app and API), forwarding partners and rules (sysop), and the ingest box's
 * forwarding backend (x-ingest-secret). Handlers parse, check, call one
 * service function.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { badRequest, forbidden, notFound, unauthorized } from "../lib/errors.ts";
import { closed, wholeNumber, nullable } from "../lib/schema.ts";
import { parseAddress, type MessageType } from "./address.ts";
import { canKill, canRead, isAddressee, viewerOf, type Viewer } from "./access.ts";
import {
  bulletinCategories,
  composeMessage,
  getMessage,
  killMessage,
  listBulletins,
  listMailbox,
  listSent,
  listTraffic,
  markRead,
  messageHeader,
  pageOf,
  rerouteHeld,
  threadOf,
  type Message,
} from "./messages.ts";
import { resolveRoute } from "./routing.ts";
import { wpLookup, wpSearch } from "./wp.ts";
import {
  createPartner,
  createRule,
  deletePartner,
  deleteRule,
  getPartner,
  getRule,
  listPartners,
  listRules,
  PARTNER_BODY,
  RULE_BODY,
  updatePartner,
  updateRule,
} from "./partners.ts";
import { activeSessions, callPartner, recentSessions } from "./forwarding.ts";
import { boxKill, endBoxSession, inbound, killedSince, listBoxSessions, MAX_BATCH, pool, sentReport, sessionExchange } from "./box-forwarding.ts";
import { bbsIdentity } from "./identity.ts";
import { answers } from "../http/openapi.ts";
import { MESSAGE } from "./messages.ts";
import { PARTNER, RULE } from "./partners.ts";
import { SESSION_REPORT } from "./fbb/session.ts";
import { INBOUND_ANSWER, KILLED_SINCE, POOL, SENT_ANSWER, SESSION_EXCHANGE } from "./box-forwarding.ts";
import {
  BOX_KILL,
  BOX_SESSIONS,
  BULLETINS,
  CATEGORIES,
  DELETED,
  MAILBOX,
  MESSAGE_KILLED,
  PARTNER_DETAIL,
  PARTNERS,
  ROUTE_ANSWER,
  RULES,
  SENT_MAIL,
  THREAD,
  WP_ANSWER,
} from "./shapes.ts";

/** A message, rule or partner id in the path: anything else answers 404, as an unknown id does. */
const idParams = (what: string) => t.Object({ id: t.String({ description: `the ${what}'s id (a whole number; anything else is not found)` }) });

/** A page of a message list: `limit` newest first, below the id `before`. */
const PAGE = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, description: "messages per page, 1-200 (default 50)" })),
  before: t.Optional(t.Integer({ minimum: 1, description: "the next page: the `next` of the previous answer (a message id)" })),
};

/** A base callsign in a query, e.g. N0ABC (case and surrounding spaces do not matter). */
const baseCall = (description: string) => t.String({ pattern: "^\\s*[A-Za-z0-9]{1,6}\\s*$", description });

const CALL_SSID = "^[A-Za-z0-9]{1,6}(-\\d{1,2})?$";

function idParam(raw: string | undefined, what: string): number {
  const n = Number(raw);
  if (!raw || !/^\d{1,15}$/.test(raw) || n < 1) throw notFound(what);
  return n;
}

const upperCall = (raw: string) => raw.trim().toUpperCase();

/** The message if the viewer may read it: 404 when absent, 401/403 when not theirs. */
function readable(gw: Core, v: Viewer, id: number): Message {
  const h = messageHeader(gw, id);
  if (!h || h.killed) throw notFound(`message ${id}`);
  if (!canRead(v, h)) {
    if (!v.signedIn) throw unauthorized("sign in as the addressee to read personal mail");
    throw forbidden("this is personal mail for someone else (read by its addressee or sender with a verified callsign, or the sysop)", "not_your_mail");
  }
  return getMessage(gw, id)!;
}

const next = (list: Message[], limit: number) => (list.length === limit ? list[list.length - 1]!.id : null);

export function bbsRoutes(gw: Core, kit: RouteKit) {
  return (
    kit.app
      // ---- mail, bulletins, threads ----
      .post(
        "/api/bbs/messages",
        ({ body, caller, set }) => {
          const from = caller.user!.call!.split("-")[0]!;
          const m = composeMessage(gw, from, viewerOf(gw, caller), body);
          set.status = 201;
          return m;
        },
        {
          gate: "verified",
          body: closed({
            type: t.Optional(
              t.Union([t.Literal("P"), t.Literal("B"), t.Literal("T")], { description: "P personal mail (default), B bulletin, T NTS traffic" }),
            ),
            to: t.String({ description: "the address: N0ABC, N0ABC@N0BBS.#NCA.CA.USA.NOAM, or for a bulletin a category like ALL@WW" }),
            subject: t.String({ description: "the subject line" }),
            body: t.String({ description: "the text (at most BBS_MAX_MESSAGE_BYTES bytes)" }),
            replyTo: t.Optional(nullable(wholeNumber(), "the id of the message this answers (threads it)")),
          }),
          detail: {
            summary: "Write a message (mail, bulletin or NTS traffic) as the caller's verified callsign",
            tags: ["BBS"],
            responses: answers("the stored message", MESSAGE, 201),
          },
        },
      )
      .get(
        "/api/bbs/messages",
        ({ query: q, caller }) => {
          const v = viewerOf(gw, caller);
          const page = pageOf(q);
          if (q.type === "T") {
            if (!v.sysop && v.calls.size === 0) throw forbidden("NTS traffic is for operators with a verified callsign", "callsign_not_verified");
            const messages = listTraffic(gw, page);
            return { messages, next: next(messages, page.limit) };
          }
          let calls: string[];
          if (q.to !== undefined) {
            const to = upperCall(q.to);
            if (!v.sysop && !v.calls.has(to)) throw forbidden(`only ${to} (with a verified callsign) or the sysop may read ${to}'s mail`, "not_your_mail");
            calls = [to];
          } else calls = [...v.calls];
          const messages = listMailbox(gw, calls, page, q.unread === "1" || q.unread === "true");
          return { calls, messages, next: next(messages, page.limit) };
        },
        {
          gate: "session",
          query: t.Object({
            type: t.Optional(
              t.Literal("T", { description: "T: NTS traffic (verified operators); left out: personal mail (bulletins are at /api/bbs/bulletins)" }),
            ),
            to: t.Optional(baseCall("whose mailbox (a base callsign): the caller's own verified calls, or any for the sysop; default all of the caller's")),
            unread: t.Optional(t.String({ description: "1 or true: unread mail only" })),
            ...PAGE,
          }),
          detail: {
            summary: "List the caller's personal mail (or NTS traffic), newest first",
            description: "Paged: `next` is the `before` of the next page (null on the last).",
            tags: ["BBS"],
            responses: answers("a page of the mail (or traffic)", MAILBOX),
          },
        },
      )
      .get(
        "/api/bbs/messages/:id",
        ({ params, caller }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          const m = readable(gw, v, id);
          if (m.type !== "B" && !m.read && isAddressee(v, m)) {
            markRead(gw, id, true);
            return getMessage(gw, id);
          }
          return m;
        },
        {
          gate: "public",
          params: idParams("message"),
          detail: {
            summary: "Read one message (bulletins: anyone; personal mail: its addressee, sender or the sysop); marks the addressee's mail read",
            tags: ["BBS"],
            responses: answers("the message with its body, R: lines and forwarding", MESSAGE),
          },
        },
      )
      .post(
        "/api/bbs/messages/:id/read",
        ({ params, caller, body }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          const m = readable(gw, v, id);
          if (!isAddressee(v, m)) throw forbidden("only the addressee marks mail read or unread", "not_addressee");
          markRead(gw, id, body?.read ?? true);
          return getMessage(gw, id);
        },
        {
          gate: "session",
          params: idParams("message"),
          body: t.Optional(closed({ read: t.Optional(t.Boolean({ description: "true (default) marks it read, false unread" })) })),
          detail: { summary: "Mark a message read or unread (its addressee only)", tags: ["BBS"], responses: answers("the message as it is now", MESSAGE) },
        },
      )
      .delete(
        "/api/bbs/messages/:id",
        ({ params, caller }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          const h = messageHeader(gw, id);
          if (!h || h.killed) throw notFound(`message ${id}`);
          if (!canKill(v, h)) throw forbidden("only the sender, the addressee (personal mail) or the sysop may kill a message", "not_your_mail");
          killMessage(gw, id, [...v.calls].find((c) => c === h.from || c === h.to) ?? "SYSOP");
          return { killed: id };
        },
        {
          gate: "session",
          params: idParams("message"),
          detail: {
            summary: "Kill (delete) a message: its sender, its addressee (personal mail) or the sysop",
            tags: ["BBS"],
            responses: answers("the killed message's id", MESSAGE_KILLED),
          },
        },
      )
      .get(
        "/api/bbs/sent",
        ({ query: q, caller }) => {
          const v = viewerOf(gw, caller);
          const page = pageOf(q);
          let calls: string[];
          if (q.from !== undefined) {
            const from = upperCall(q.from);
            if (!v.sysop && !v.calls.has(from))
              throw forbidden(`only ${from} (with a verified callsign) or the sysop may list what ${from} sent`, "not_your_mail");
            calls = [from];
          } else calls = [...v.calls];
          const messages = listSent(gw, calls, page);
          return { calls, messages, next: next(messages, page.limit) };
        },
        {
          gate: "session",
          query: t.Object({
            from: t.Optional(baseCall("whose sent mail (a base callsign): the caller's own verified calls, or any for the sysop; default all of the caller's")),
            ...PAGE,
          }),
          detail: {
            summary: "List what the caller's callsigns sent, newest first",
            description: "Paged like GET /api/bbs/messages.",
            tags: ["BBS"],
            responses: answers("a page of the sent messages", SENT_MAIL),
          },
        },
      )
      .get(
        "/api/bbs/bulletins",
        ({ query: q }) => {
          const page = pageOf(q);
          const category = q.category?.trim() ? q.category.trim().toUpperCase() : null;
          const messages = listBulletins(gw, category, q.since ?? null, page);
          return { category, messages, next: next(messages, page.limit) };
        },
        {
          gate: "public",
          query: t.Object({
            category: t.Optional(
              t.String({ pattern: "^\\s*[A-Za-z0-9]{0,6}\\s*$", description: "one category, 1-6 letters or digits (e.g. ALL, WX); default every category" }),
            ),
            since: t.Optional(t.Numeric({ minimum: 0, description: "only bulletins received after this time (unix milliseconds)" })),
            ...PAGE,
          }),
          detail: {
            summary: "List bulletins, newest first, of one category or all",
            description: "Paged like GET /api/bbs/messages.",
            tags: ["BBS"],
            responses: answers("a page of the bulletins", BULLETINS),
          },
        },
      )
      .get("/api/bbs/categories", () => ({ categories: bulletinCategories(gw) }), {
        gate: "public",
        detail: { summary: "The bulletin categories this BBS holds, with their counts", tags: ["BBS"], responses: answers("the categories", CATEGORIES) },
      })
      .get(
        "/api/bbs/thread/:id",
        ({ params, caller }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          readable(gw, v, id);
          const messages = threadOf(gw, id, v);
          return { threadId: messages[0]?.threadId ?? id, messages };
        },
        {
          gate: "public",
          params: idParams("message"),
          detail: {
            summary: "The thread a message belongs to: the messages of it the caller may read, oldest first",
            tags: ["BBS"],
            responses: answers("the thread", THREAD),
          },
        },
      )
      // ---- routing and White Pages ----
      .get(
        "/api/bbs/route",
        ({ query: q }) => {
          const type = (q.type ?? "P").toUpperCase() as MessageType;
          const a = parseAddress(q.to, type);
          if (!a.ok) throw badRequest("bad_address", a.message);
          const d = resolveRoute(gw, { type, to: a.value.to, at: a.value.at, route: [], receivedFrom: null });
          return { bbs: bbsIdentity(gw.config), type, to: a.value.to, at: d.at, delivery: d.delivery, partners: d.partners, wp: d.wp, reason: d.reason };
        },
        {
          gate: "public",
          query: t.Object({
            to: t.Optional(t.String({ description: "the address to route, e.g. N0ABC@N0BBS.#NCA.CA.USA.NOAM (required)" })),
            type: t.Optional(t.String({ pattern: "^[PBTpbt]$", description: "P (default), B or T" })),
          }),
          detail: {
            summary: "Where a message to an address would go: delivered here, or forwarded to which partners, and why",
            tags: ["BBS"],
            responses: answers("the routing decision", ROUTE_ANSWER),
          },
        },
      )
      .get(
        "/api/bbs/wp",
        ({ query: q }) => {
          if (q.call !== undefined) {
            const e = wpLookup(gw.db, q.call.trim());
            if (!e) throw notFound(`White Pages entry for ${q.call.trim().toUpperCase()}`);
            return e;
          }
          return { entries: wpSearch(gw.db, q.q ?? "", q.limit ?? 50) };
        },
        {
          gate: "public",
          query: t.Object({
            call: t.Optional(t.String({ description: "one callsign: answers its entry (404 when none)" })),
            q: t.Optional(t.String({ maxLength: 40, description: "search text (callsign, name, home BBS); at most 40 characters" })),
            limit: t.Optional(t.Integer({ minimum: 1, maximum: 200, description: "entries, 1-200 (default 50)" })),
          }),
          detail: {
            summary: "White Pages: one callsign's home BBS, or a search of the entries",
            tags: ["BBS"],
            responses: answers("with call: its entry; else { entries }", WP_ANSWER),
          },
        },
      )
      // ---- forwarding rules and partners (sysop) ----
      .get("/api/bbs/forward", () => ({ rules: listRules(gw) }), {
        gate: "sysop",
        detail: { summary: "The forwarding rules (which partner takes which routes)", tags: ["BBS"], responses: answers("the rules", RULES) },
      })
      .post(
        "/api/bbs/forward",
        ({ body, set }) => {
          const r = createRule(gw, body);
          rerouteHeld(gw);
          set.status = 201;
          return r;
        },
        {
          gate: "sysop",
          body: RULE_BODY,
          detail: { summary: "Add a forwarding rule; held messages are routed again", tags: ["BBS"], responses: answers("the new rule", RULE, 201) },
        },
      )
      .get("/api/bbs/forward/:id", ({ params }) => getRule(gw, idParam(params.id, "rule")), {
        gate: "sysop",
        params: idParams("rule"),
        detail: { summary: "One forwarding rule", tags: ["BBS"], responses: answers("the rule", RULE) },
      })
      .post(
        "/api/bbs/forward/:id",
        ({ params, body }) => {
          const r = updateRule(gw, idParam(params.id, "rule"), body);
          rerouteHeld(gw);
          return r;
        },
        {
          gate: "sysop",
          params: idParams("rule"),
          body: RULE_BODY,
          detail: { summary: "Change a forwarding rule; held messages are routed again", tags: ["BBS"], responses: answers("the rule as it is now", RULE) },
        },
      )
      .delete(
        "/api/bbs/forward/:id",
        ({ params }) => {
          const id = idParam(params.id, "rule");
          deleteRule(gw, id);
          return { deleted: id };
        },
        {
          gate: "sysop",
          params: idParams("rule"),
          detail: { summary: "Delete a forwarding rule", tags: ["BBS"], responses: answers("the deleted rule's id", DELETED) },
        },
      )
      .get("/api/bbs/partners", () => ({ bbs: bbsIdentity(gw.config), partners: listPartners(gw), sessions: activeSessions(gw) }), {
        gate: "sysop",
        detail: {
          summary: "This BBS's identity, its forwarding partners and the forwarding sessions under way",
          tags: ["BBS"],
          responses: answers("the BBS, its partners and the sessions under way", PARTNERS),
        },
      })
      .post(
        "/api/bbs/partners",
        ({ body, set }) => {
          const p = createPartner(gw, body);
          set.status = 201;
          return p;
        },
        {
          gate: "sysop",
          body: PARTNER_BODY,
          detail: {
            summary: "Add a forwarding partner (another BBS we exchange messages with)",
            tags: ["BBS"],
            responses: answers("the new partner", PARTNER, 201),
          },
        },
      )
      .get(
        "/api/bbs/partners/:id",
        ({ params }) => {
          const id = idParam(params.id, "partner");
          return { ...getPartner(gw, id), sessions: recentSessions(gw, id) };
        },
        {
          gate: "sysop",
          params: idParams("partner"),
          detail: {
            summary: "One forwarding partner with its recent sessions",
            tags: ["BBS"],
            responses: answers("the partner and its recent sessions", PARTNER_DETAIL),
          },
        },
      )
      .post(
        "/api/bbs/partners/:id",
        ({ params, body }) => {
          const p = updatePartner(gw, idParam(params.id, "partner"), body);
          rerouteHeld(gw);
          return p;
        },
        {
          gate: "sysop",
          params: idParams("partner"),
          body: PARTNER_BODY,
          detail: {
            summary: "Change a forwarding partner; held messages are routed again",
            tags: ["BBS"],
            responses: answers("the partner as it is now", PARTNER),
          },
        },
      )
      .delete(
        "/api/bbs/partners/:id",
        ({ params }) => {
          const id = idParam(params.id, "partner");
          deletePartner(gw, id);
          return { deleted: id };
        },
        {
          gate: "sysop",
          params: idParams("partner"),
          detail: { summary: "Delete a forwarding partner and its rules", tags: ["BBS"], responses: answers("the deleted partner's id", DELETED) },
        },
      )
      .post(
        "/api/bbs/partners/:id/forward",
        async ({ params }) => {
          const id = idParam(params.id, "partner");
          getPartner(gw, id);
          return callPartner(gw, id);
        },
        {
          gate: "sysop",
          params: idParams("partner"),
          detail: {
            summary: "Call a forwarding partner now and exchange messages; answers the session's report",
            tags: ["BBS"],
            responses: answers("the session's report (ok false, with its error, when it could not be held)", SESSION_REPORT),
          },
        },
      )
      // ---- the ingest box's forwarding backend ----
      .get("/api/bbs/forward/pool", ({ query }) => pool(gw, query.partner, query.limit), {
        gate: "ingest",
        query: t.Object({
          partner: t.Optional(t.String({ description: "the partner BBS's callsign (required)" })),
          limit: t.Optional(t.Integer({ minimum: 1, maximum: MAX_BATCH, description: `messages, 1-${MAX_BATCH} (default 20)` })),
        }),
        detail: {
          summary: "What is queued for a partner the box forwards to, in the order FBB offers it",
          tags: ["BBS"],
          responses: answers("the partner and its queued messages", POOL),
        },
      })
      .post("/api/bbs/forward/inbound", ({ body }) => inbound(gw, body), {
        gate: "ingest",
        body: closed({
          partner: t.Optional(nullable(t.String(), "the partner BBS they came from (its callsign)")),
          messages: t.Array(t.Unknown(), {
            minItems: 1,
            maxItems: MAX_BATCH,
            description: "each { bid, type, from, to, subject, text }; one that is refused is answered in its result, not by failing the batch",
          }),
        }),
        detail: {
          summary: "Messages the box received from a partner over the air, stored here; one result per message",
          tags: ["BBS"],
          responses: answers("one result per message, in order", INBOUND_ANSWER),
        },
      })
      .post("/api/bbs/forward/sent", ({ body }) => sentReport(gw, body), {
        gate: "ingest",
        body: closed({
          partner: t.String({ description: "the partner BBS's callsign" }),
          results: t.Array(
            closed({
              bid: t.String({ description: "the message's BID" }),
              outcome: t.Union([t.Literal("sent"), t.Literal("rejected"), t.Literal("refused"), t.Literal("error"), t.Literal("deferred")], {
                description: "what the partner did with it",
              }),
            }),
            { minItems: 1, maxItems: MAX_BATCH },
          ),
        }),
        detail: {
          summary: "What happened to the messages the box offered a partner",
          tags: ["BBS"],
          responses: answers("per BID: recorded, or unknown (not queued for the partner)", SENT_ANSWER),
        },
      })
      .get("/api/bbs/forward/session", () => ({ sessions: listBoxSessions(gw), forwarding: activeSessions(gw) }), {
        gate: "ingest",
        detail: {
          summary: "The box's forwarding sessions open here, and the forwarding sessions under way",
          tags: ["BBS"],
          responses: answers("the sessions", BOX_SESSIONS),
        },
      })
      .post("/api/bbs/forward/session", ({ body }) => sessionExchange(gw, body), {
        gate: "ingest",
        body: closed({
          session: t.Optional(t.String({ description: "the session to continue; left out: start one with `partner`" })),
          partner: t.Optional(t.String({ description: "to start a session: the partner BBS's callsign" })),
          role: t.Optional(
            t.Union([t.Literal("answerer"), t.Literal("caller")], { description: "to start: answerer (default, the partner called the box) or caller" }),
          ),
          data: t.Optional(t.String({ pattern: "^[A-Za-z0-9+/]*={0,2}$", description: "base64 of the bytes received from the partner (at most 64 KiB)" })),
          close: t.Optional(t.Boolean({ description: "true: the circuit dropped" })),
        }),
        detail: {
          summary: "One exchange of an FBB session the box carries on air: the bytes heard in, the bytes to transmit out",
          tags: ["BBS"],
          responses: answers("the bytes to transmit, and whether the session ended", SESSION_EXCHANGE),
        },
      })
      .get("/api/bbs/forward/kill", ({ query }) => killedSince(gw, query.since ?? 0), {
        gate: "ingest",
        query: t.Object({
          since: t.Optional(t.Numeric({ minimum: 0, description: "kills after this time (unix milliseconds; default 0); answer's `next` is the next since" })),
        }),
        detail: {
          summary: "Messages killed here since a time, for the box to kill in its own store (500 a page)",
          tags: ["BBS"],
          responses: answers("the kills and the next since", KILLED_SINCE),
        },
      })
      .post(
        "/api/bbs/forward/kill",
        ({ body }) => {
          if (body.session !== undefined) {
            if (!endBoxSession(gw, body.session)) throw notFound(`session ${body.session}`);
            return { ended: body.session };
          }
          return boxKill(gw, body);
        },
        {
          gate: "ingest",
          body: closed({
            session: t.Optional(t.String({ description: "end this box session (then nothing else is read)" })),
            bids: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: MAX_BATCH, description: `BIDs of messages to kill, 1-${MAX_BATCH}` })),
            call: t.Optional(nullable(t.String({ pattern: CALL_SSID }), "who asks: only their own messages are killed")),
          }),
          detail: {
            summary: "Kill messages by BID on behalf of a caller on the air, or end a box session",
            tags: ["BBS"],
            responses: answers("{ ended } for a session, else one result per BID", BOX_KILL),
          },
        },
      )
  );
}
