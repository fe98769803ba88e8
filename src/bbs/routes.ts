/**
 * The BBS over HTTP: mail, bulletins, threads, routing, White Pages (web
 * app and API), forwarding partners and rules (sysop), and the ingest box's
 * forwarding backend (x-ingest-secret). Handlers parse, check, call one
 * service function.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin } from "../http/gates.ts";
import { badRequest, forbidden, notFound, unauthorized } from "../errors.ts";
import { isMessageType, parseAddress } from "./address.ts";
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
import { createPartner, createRule, deletePartner, deleteRule, getPartner, getRule, listPartners, listRules, updatePartner, updateRule } from "./partners.ts";
import { activeSessions, callPartner, recentSessions } from "./forwarding.ts";
import { boxKill, endBoxSession, inbound, killedSince, listBoxSessions, pool, sentReport, sessionExchange } from "./box.ts";
import { bbsIdentity } from "./identity.ts";

type Query = Record<string, string | undefined>;

function idParam(raw: string | undefined, what: string): number {
  const n = Number(raw);
  if (!raw || !/^\d{1,15}$/.test(raw) || n < 1) throw notFound(what);
  return n;
}

function upperCall(raw: string, what: string): string {
  const c = raw.trim().toUpperCase();
  if (!/^[A-Z0-9]{1,6}$/.test(c)) throw badRequest("invalid", `${what} must be a base callsign like N0ABC`);
  return c;
}

/** The message if the viewer may read it: 404 when absent, 401/403 when not theirs. */
function readable(gw: Gateway, v: Viewer, id: number): Message {
  const h = messageHeader(gw, id);
  if (!h || h.killed) throw notFound(`message ${id}`);
  if (!canRead(v, h)) {
    if (!v.signedIn) throw unauthorized("sign in as the addressee to read personal mail");
    throw forbidden("this is personal mail for someone else (read by its addressee or sender with a verified callsign, or the sysop)", "not_your_mail");
  }
  return getMessage(gw, id)!;
}

const next = (list: Message[], limit: number) => (list.length === limit ? list[list.length - 1]!.id : null);

export function bbsRoutes(gw: Gateway) {
  return (
    new Elysia({ name: "bbs" })
      .use(gatesPlugin(gw))
      // ---- mail, bulletins, threads ----
      .post(
        "/api/bbs/messages",
        ({ body, caller, set }) => {
          const u = caller.user!;
          if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array) {
            throw badRequest("bad_body", "expected a JSON object { type, to, subject, body, replyTo? }");
          }
          const from = u.call!.split("-")[0]!;
          const m = composeMessage(gw, from, viewerOf(gw, caller), body as Record<string, unknown>);
          set.status = 201;
          return m;
        },
        { gate: "verified" },
      )
      .get(
        "/api/bbs/messages",
        ({ query, caller }) => {
          const q = query as Query;
          const v = viewerOf(gw, caller);
          const page = pageOf(q);
          if (q.type !== undefined && q.type !== "T") throw badRequest("invalid", "type may only be T here (bulletins are at /api/bbs/bulletins)");
          if (q.type === "T") {
            if (!v.sysop && v.calls.size === 0) throw forbidden("NTS traffic is for operators with a verified callsign", "callsign_not_verified");
            const messages = listTraffic(gw, page);
            return { messages, next: next(messages, page.limit) };
          }
          let calls: string[];
          if (q.to !== undefined) {
            const to = upperCall(q.to, "to");
            if (!v.sysop && !v.calls.has(to)) throw forbidden(`only ${to} (with a verified callsign) or the sysop may read ${to}'s mail`, "not_your_mail");
            calls = [to];
          } else calls = [...v.calls];
          const messages = listMailbox(gw, calls, page, q.unread === "1" || q.unread === "true");
          return { calls, messages, next: next(messages, page.limit) };
        },
        { gate: "session" },
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
        { gate: "public" },
      )
      .post(
        "/api/bbs/messages/:id/read",
        ({ params, caller, body }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          const m = readable(gw, v, id);
          if (!isAddressee(v, m)) throw forbidden("only the addressee marks mail read or unread", "not_addressee");
          const read = body && typeof body === "object" && "read" in body ? (body as { read: unknown }).read : true;
          if (typeof read !== "boolean") throw badRequest("invalid", "read must be true or false");
          markRead(gw, id, read);
          return getMessage(gw, id);
        },
        { gate: "session" },
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
        { gate: "session" },
      )
      .get(
        "/api/bbs/sent",
        ({ query, caller }) => {
          const q = query as Query;
          const v = viewerOf(gw, caller);
          const page = pageOf(q);
          let calls: string[];
          if (q.from !== undefined) {
            const from = upperCall(q.from, "from");
            if (!v.sysop && !v.calls.has(from))
              throw forbidden(`only ${from} (with a verified callsign) or the sysop may list what ${from} sent`, "not_your_mail");
            calls = [from];
          } else calls = [...v.calls];
          const messages = listSent(gw, calls, page);
          return { calls, messages, next: next(messages, page.limit) };
        },
        { gate: "session" },
      )
      .get(
        "/api/bbs/bulletins",
        ({ query }) => {
          const q = query as Query;
          const page = pageOf(q);
          let category: string | null = null;
          if (q.category !== undefined && q.category !== "") {
            category = q.category.trim().toUpperCase();
            if (!/^[A-Z0-9]{1,6}$/.test(category)) throw badRequest("invalid", "category must be 1-6 letters or digits");
          }
          let since: number | null = null;
          if (q.since !== undefined) {
            since = Number(q.since);
            if (!Number.isFinite(since) || since < 0) throw badRequest("invalid", "since must be unix milliseconds");
          }
          const messages = listBulletins(gw, category, since, page);
          return { category, messages, next: next(messages, page.limit) };
        },
        { gate: "public" },
      )
      .get("/api/bbs/categories", () => ({ categories: bulletinCategories(gw) }), { gate: "public" })
      .get(
        "/api/bbs/thread/:id",
        ({ params, caller }) => {
          const v = viewerOf(gw, caller);
          const id = idParam(params.id, "message");
          readable(gw, v, id);
          const messages = threadOf(gw, id, v);
          return { threadId: messages[0]?.threadId ?? id, messages };
        },
        { gate: "public" },
      )
      // ---- routing and White Pages ----
      .get(
        "/api/bbs/route",
        ({ query }) => {
          const q = query as Query;
          const type = (q.type ?? "P").toUpperCase();
          if (!isMessageType(type)) throw badRequest("invalid", "type must be P, B or T");
          const a = parseAddress(q.to, type);
          if (!a.ok) throw badRequest("bad_address", a.message);
          const d = resolveRoute(gw, { type, to: a.value.to, at: a.value.at, route: [], receivedFrom: null });
          return { bbs: bbsIdentity(gw.config), type, to: a.value.to, at: d.at, delivery: d.delivery, partners: d.partners, wp: d.wp, reason: d.reason };
        },
        { gate: "public" },
      )
      .get(
        "/api/bbs/wp",
        ({ query }) => {
          const q = query as Query;
          const limit = q.limit === undefined ? 50 : Number(q.limit);
          if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw badRequest("invalid", "limit must be 1-200");
          if (q.call !== undefined) {
            const e = wpLookup(gw.db, q.call.trim());
            if (!e) throw notFound(`White Pages entry for ${q.call.trim().toUpperCase()}`);
            return e;
          }
          const qq = q.q ?? "";
          if (qq.length > 40) throw badRequest("invalid", "q is at most 40 characters");
          return { entries: wpSearch(gw.db, qq, limit) };
        },
        { gate: "public" },
      )
      // ---- forwarding rules and partners (sysop) ----
      .get("/api/bbs/forward", () => ({ rules: listRules(gw) }), { gate: "sysop" })
      .post(
        "/api/bbs/forward",
        ({ body, set }) => {
          const r = createRule(gw, body);
          rerouteHeld(gw);
          set.status = 201;
          return r;
        },
        { gate: "sysop" },
      )
      .get("/api/bbs/forward/:id", ({ params }) => getRule(gw, idParam(params.id, "rule")), { gate: "sysop" })
      .post(
        "/api/bbs/forward/:id",
        ({ params, body }) => {
          const r = updateRule(gw, idParam(params.id, "rule"), body);
          rerouteHeld(gw);
          return r;
        },
        { gate: "sysop" },
      )
      .delete(
        "/api/bbs/forward/:id",
        ({ params }) => {
          const id = idParam(params.id, "rule");
          deleteRule(gw, id);
          return { deleted: id };
        },
        { gate: "sysop" },
      )
      .get("/api/bbs/partners", () => ({ bbs: bbsIdentity(gw.config), partners: listPartners(gw), sessions: activeSessions(gw) }), { gate: "sysop" })
      .post(
        "/api/bbs/partners",
        ({ body, set }) => {
          const p = createPartner(gw, body);
          set.status = 201;
          return p;
        },
        { gate: "sysop" },
      )
      .get(
        "/api/bbs/partners/:id",
        ({ params }) => {
          const id = idParam(params.id, "partner");
          return { ...getPartner(gw, id), sessions: recentSessions(gw, id) };
        },
        { gate: "sysop" },
      )
      .post(
        "/api/bbs/partners/:id",
        ({ params, body }) => {
          const p = updatePartner(gw, idParam(params.id, "partner"), body);
          rerouteHeld(gw);
          return p;
        },
        { gate: "sysop" },
      )
      .delete(
        "/api/bbs/partners/:id",
        ({ params }) => {
          const id = idParam(params.id, "partner");
          deletePartner(gw, id);
          return { deleted: id };
        },
        { gate: "sysop" },
      )
      .post(
        "/api/bbs/partners/:id/forward",
        async ({ params }) => {
          const id = idParam(params.id, "partner");
          getPartner(gw, id);
          return callPartner(gw, id);
        },
        { gate: "sysop" },
      )
      // ---- the ingest box's forwarding backend ----
      .get("/api/bbs/forward/pool", ({ query }) => pool(gw, (query as Query).partner, (query as Query).limit), { gate: "ingest" })
      .post("/api/bbs/forward/inbound", ({ body }) => inbound(gw, body), { gate: "ingest" })
      .post("/api/bbs/forward/sent", ({ body }) => sentReport(gw, body), { gate: "ingest" })
      .get("/api/bbs/forward/session", () => ({ sessions: listBoxSessions(gw), forwarding: activeSessions(gw) }), { gate: "ingest" })
      .post("/api/bbs/forward/session", ({ body }) => sessionExchange(gw, body), { gate: "ingest" })
      .get("/api/bbs/forward/kill", ({ query }) => killedSince(gw, (query as Query).since), { gate: "ingest" })
      .post(
        "/api/bbs/forward/kill",
        ({ body }) => {
          if (body && typeof body === "object" && "session" in body) {
            const s = (body as { session: unknown }).session;
            if (!endBoxSession(gw, s)) throw notFound(`session ${String(s)}`);
            return { ended: s };
          }
          return boxKill(gw, body);
        },
        { gate: "ingest" },
      )
  );
}
