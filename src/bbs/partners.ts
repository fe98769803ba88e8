/**
 * Forwarding partners (adjacent BBSes) and the rules that route mail to them.
 * Sysop-only; every write is validated whole before anything changes.
 *
 * A partner: callsign, protocol (fbb-b1: FBB with B1 compression when the
 * partner offers it; fbb-ascii: plain FBB), transport (tcp: we call
 * host:port over telnet, and it may call us on BBS_FBB_PORT; box: the ingest
 * box carries the session over its radio; ax25: a connected-mode circuit of
 * this instance's own radio, to its ax25Call through the digipeaters in
 * `via`), the minutes between our calls, UTC time-bands
 * in which we call, the message types it is offered, and whether we call
 * even with nothing to send (to pick up its mail).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { badRequest, conflict, notFound } from "../lib/errors.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { isCallsign, normalizeCall } from "../lib/callsign.ts";
import { checkPattern } from "./address.ts";

export const PROTOCOL = t.Union([t.Literal("fbb-b1"), t.Literal("fbb-ascii")], { description: "FBB compressed (B1) or ASCII forwarding" });
export type Protocol = Static<typeof PROTOCOL>;
export const TRANSPORT = t.Union([t.Literal("tcp"), t.Literal("box"), t.Literal("ax25")], {
  description: "how we reach it: tcp (host and port), box (the ingest box), ax25 (our radio port)",
});
export type TransportKind = Static<typeof TRANSPORT>;

/** A forwarding partner as the API shows it (its password never: only whether it has one). */
export const PARTNER = closed({
  id: wholeNumber(),
  call: t.String({ description: "the partner BBS's callsign" }),
  protocol: PROTOCOL,
  transport: TRANSPORT,
  host: nullable(t.String(), "tcp: where we call it"),
  port: nullable(wholeNumber(), "tcp: its port"),
  ax25Call: nullable(t.String(), "ax25: the call-SSID we connect to, and whose connections are this partner's"),
  via: t.Array(t.String(), { description: "ax25: digipeaters on the way, [] = direct" }),
  hasPassword: t.Boolean(),
  intervalMin: wholeNumber({ description: "minutes between our calls" }),
  timeBands: t.Array(t.String(), { description: 'UTC bands when we may call, like "22:00-06:00" ([] = always)' }),
  types: t.String({ description: 'the message types it is offered, e.g. "PBT"' }),
  poll: t.Boolean({ description: "we call even with nothing to send" }),
  enabled: t.Boolean(),
  createdAt: unixMs(),
  updatedAt: unixMs(),
  lastAttemptAt: nullable(unixMs(), "our last call, unix ms"),
  lastSuccessAt: nullable(unixMs(), "the last session that went through, unix ms"),
  lastError: nullable(t.String(), "why the last session failed"),
  pending: wholeNumber({ description: "messages waiting for it" }),
});
export type Partner = Static<typeof PARTNER>;

/** A `bbs_partners` row: the Partner's first fields as they are, the rest in column form. */
export interface PartnerRow extends Pick<Partner, "id" | "call" | "protocol" | "transport" | "host" | "port"> {
  ax25_call: string | null;
  via: string;
  password: string | null;
  interval_min: number;
  time_bands: string;
  types: string;
  poll: number;
  enabled: number;
  created_at: number;
  updated_at: number;
  last_attempt_at: number | null;
  last_success_at: number | null;
  last_error: string | null;
}

/** A forwarding rule: which partner takes which routes. */
export const RULE = closed({
  id: wholeNumber(),
  partnerId: wholeNumber(),
  partner: t.String({ description: "the partner's callsign" }),
  field: t.Union([t.Literal("at"), t.Literal("to")], { description: "at: matches the @ route; to: the addressee or category" }),
  pattern: t.String({ description: "what it matches, e.g. #TST, N0Q* or WW" }),
  types: t.String({ description: 'the message types it routes, e.g. "PBT"' }),
  priority: wholeNumber({ description: "lower wins" }),
  createdAt: unixMs(),
  updatedAt: unixMs(),
});
export type Rule = Static<typeof RULE>;

function toPartner(gw: Core, r: PartnerRow): Partner {
  const pending = (gw.db.query("SELECT count(*) AS n FROM bbs_queue WHERE partner_id = ? AND state = 'pending'").get(r.id) as { n: number }).n;
  return {
    id: r.id,
    call: r.call,
    protocol: r.protocol,
    transport: r.transport,
    host: r.host,
    port: r.port,
    ax25Call: r.transport === "ax25" ? ax25Address(r) : null,
    via: JSON.parse(r.via) as string[],
    hasPassword: !!r.password,
    intervalMin: r.interval_min,
    timeBands: JSON.parse(r.time_bands) as string[],
    types: r.types,
    poll: !!r.poll,
    enabled: !!r.enabled,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastAttemptAt: r.last_attempt_at,
    lastSuccessAt: r.last_success_at,
    lastError: r.last_error,
    pending,
  };
}

export function partnerRow(gw: Core, id: number): PartnerRow | null {
  return gw.db.query("SELECT * FROM bbs_partners WHERE id = ?").get(id) as PartnerRow | null;
}

export function partnerByCall(gw: Core, call: string): PartnerRow | null {
  return gw.db.query("SELECT * FROM bbs_partners WHERE call = ?").get(normalizeCall(call)) as PartnerRow | null;
}

/** Where an ax25 partner is on the air: its ax25Call, else its call. */
export function ax25Address(p: Pick<PartnerRow, "call" | "ax25_call">): string {
  return p.ax25_call ?? p.call;
}

/** The ax25 partner whose call-SSID on the air is `address` (exactly, SSID included), or null. */
export function partnerByAx25(gw: Core, address: string): PartnerRow | null {
  const a = normalizeCall(address);
  return gw.db.query("SELECT * FROM bbs_partners WHERE transport = 'ax25' AND coalesce(ax25_call, call) = ?").get(a) as PartnerRow | null;
}

export function listPartners(gw: Core): Partner[] {
  return (gw.db.query("SELECT * FROM bbs_partners ORDER BY call").all() as PartnerRow[]).map((r) => toPartner(gw, r));
}

export function getPartner(gw: Core, id: number): Partner {
  const r = partnerRow(gw, id);
  if (!r) throw notFound(`partner ${id}`);
  return toPartner(gw, r);
}

const invalid = (m: string) => badRequest("invalid", m);
const DIGI = /^[A-Z0-9]{1,6}(?:-(?:[0-9]|1[0-5]))?$/;

/** Another ax25 partner already answering on the same call-SSID. */
function checkAx25Unique(gw: Core, f: PartnerFields, id: number | null): void {
  if (f.transport !== "ax25") return;
  const other = partnerByAx25(gw, ax25Address(f));
  if (other && other.id !== id) throw conflict("partner_exists", `${ax25Address(f)} is already where partner ${other.call} is on the air`);
}

/** "tbp" -> "PBT" (the letters are checked by the body's schema, TYPES). */
function normalTypes(raw: string): string {
  const t = raw.toUpperCase();
  return ["P", "B", "T"].filter((c) => t.includes(c)).join("");
}

/** `HH:MM-HH:MM` (UTC), may wrap midnight. */
function checkTimeBand(raw: unknown): string {
  if (typeof raw !== "string") throw invalid("a time-band is text like 22:00-06:00");
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/.exec(raw.trim());
  if (!m || (m[3] === "24" && m[4] !== "00")) throw invalid(`"${raw}" is not a time-band (HH:MM-HH:MM, UTC)`);
  if (m[1] === m[3] && m[2] === m[4]) throw invalid(`"${raw}" is an empty time-band`);
  return raw.trim();
}

/** Whether `now` (unix ms) falls in one of the bands; no bands = always. */
export function inTimeBands(bands: string[], now: number): boolean {
  if (bands.length === 0) return true;
  const d = new Date(now);
  const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
  return bands.some((b) => {
    const [from, to] = b.split("-").map((t) => {
      const [h, m] = t.split(":").map(Number);
      return h! * 60 + m!;
    }) as [number, number];
    return from < to ? minute >= from && minute < to : minute >= from || minute < to;
  });
}

type PartnerFields = Omit<PartnerRow, "id" | "created_at" | "updated_at" | "last_attempt_at" | "last_success_at" | "last_error">;

/** A whole number in a JSON body, as a JSON number only (t.Integer would also take the string "5"). */

const TYPES = t.String({ pattern: "^[PBTpbt]{1,3}$", description: 'message types, a combination of P, B and T, e.g. "PBT"' });

/** A partner as the API sends it (POST /api/bbs/partners, and any of its fields to update one): the types and ranges; partnerFields checks the rest. */
export const PARTNER_BODY = closed(
  {
    call: t.Optional(t.String({ description: "the partner BBS's callsign, e.g. N0BBS (required to create)" })),
    protocol: t.Optional(t.Union([t.Literal("fbb-b1"), t.Literal("fbb-ascii")], { description: "FBB compressed (B1) or ASCII forwarding; default fbb-b1" })),
    transport: t.Optional(
      t.Union([t.Literal("tcp"), t.Literal("box"), t.Literal("ax25")], {
        description: "how we reach it: tcp (host and port), box (the ingest box), ax25 (our radio port); default tcp",
      }),
    ),
    host: t.Optional(nullable(t.String({ pattern: "^([A-Za-z0-9.:-]{1,253})?$" }), "tcp: host name or address (null or empty clears)")),
    port: t.Optional(nullable(wholeNumber({ minimum: 1, maximum: 65535 }), "tcp: port 1-65535")),
    ax25Call: t.Optional(nullable(t.String(), "ax25: the call-SSID the partner answers on the air, e.g. N0BBS-1")),
    via: t.Optional(nullable(t.Array(t.String(), { maxItems: 8 }), 'ax25: up to 8 digipeaters, e.g. ["RELAY", "WIDE2-1"] ([] = direct)')),
    password: t.Optional(nullable(t.String({ maxLength: 64, pattern: "^[^\\s\\x00-\\x1f]*$" }), "up to 64 characters without spaces (null or empty clears)")),
    intervalMin: t.Optional(wholeNumber({ minimum: 1, maximum: 1440, description: "minutes between forwarding calls, 1-1440 (default 60)" })),
    timeBands: t.Optional(t.Array(t.String(), { maxItems: 12, description: 'UTC bands when we may call, like "22:00-06:00" ([] = always)' })),
    types: t.Optional(TYPES),
    poll: t.Optional(t.Boolean({ description: "call even with nothing to send, to collect" })),
    enabled: t.Optional(t.Boolean()),
  },
  { description: "a forwarding partner; on update only the fields given change" },
);
export type PartnerInput = Static<typeof PARTNER_BODY>;

/** Validates a whole partner (merged over `base` for updates). */
function partnerFields(b: PartnerInput, base: PartnerFields | null): PartnerFields {
  const f: PartnerFields = base
    ? { ...base }
    : {
        call: "",
        protocol: "fbb-b1",
        transport: "tcp",
        host: null,
        port: null,
        ax25_call: null,
        via: "[]",
        password: null,
        interval_min: 60,
        time_bands: "[]",
        types: "PBT",
        poll: 0,
        enabled: 1,
      };
  if (b.call !== undefined || !base) {
    if (b.call === undefined || !isCallsign(b.call)) throw invalid("call must be the partner BBS's callsign, e.g. N0BBS");
    f.call = normalizeCall(b.call);
  }
  if (b.protocol !== undefined) f.protocol = b.protocol;
  if (b.transport !== undefined) f.transport = b.transport;
  if (b.host !== undefined) f.host = b.host || null;
  if (b.port !== undefined) f.port = b.port;
  if (b.ax25Call !== undefined) {
    if (!b.ax25Call) f.ax25_call = null;
    else if (!isCallsign(b.ax25Call)) throw invalid("ax25Call must be the call-SSID the partner answers on the air, e.g. N0BBS-1");
    else f.ax25_call = normalizeCall(b.ax25Call);
  }
  if (b.via !== undefined) {
    f.via = JSON.stringify(
      (b.via ?? []).map((d) => {
        if (!DIGI.test(d.trim().toUpperCase())) throw invalid(`via: "${d}" is not a digipeater (1-6 of A-Z 0-9, optional -SSID 1-15)`);
        return normalizeCall(d);
      }),
    );
  }
  if (b.password !== undefined) f.password = b.password || null;
  if (b.intervalMin !== undefined) f.interval_min = b.intervalMin;
  if (b.timeBands !== undefined) f.time_bands = JSON.stringify(b.timeBands.map(checkTimeBand));
  if (b.types !== undefined) f.types = normalTypes(b.types);
  if (b.poll !== undefined) f.poll = b.poll ? 1 : 0;
  if (b.enabled !== undefined) f.enabled = b.enabled ? 1 : 0;
  if (f.transport === "tcp" && (!f.host || !f.port)) throw invalid("a tcp partner needs host and port (where we call it)");
  if (f.transport !== "ax25") {
    if ((b.ax25Call !== undefined && b.ax25Call !== null && b.ax25Call !== "") || (Array.isArray(b.via) && b.via.length))
      throw invalid('ax25Call and via apply to ax25 partners only (transport "ax25")');
    f.ax25_call = null;
    f.via = "[]";
  }
  return f;
}

export function createPartner(gw: Core, input: PartnerInput): Partner {
  const f = partnerFields(input, null);
  if (partnerByCall(gw, f.call)) throw conflict("partner_exists", `${f.call} is already a partner`);
  checkAx25Unique(gw, f, null);
  const now = gw.clock.now();
  const id = Number(
    gw.db
      .query(
        `INSERT INTO bbs_partners (call, protocol, transport, host, port, ax25_call, via, password, interval_min, time_bands, types, poll, enabled, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(f.call, f.protocol, f.transport, f.host, f.port, f.ax25_call, f.via, f.password, f.interval_min, f.time_bands, f.types, f.poll, f.enabled, now, now)
      .lastInsertRowid,
  );
  return getPartner(gw, id);
}

export function updatePartner(gw: Core, id: number, input: PartnerInput): Partner {
  const cur = partnerRow(gw, id);
  if (!cur) throw notFound(`partner ${id}`);
  const f = partnerFields(input, cur);
  const other = partnerByCall(gw, f.call);
  if (other && other.id !== id) throw conflict("partner_exists", `${f.call} is already a partner`);
  checkAx25Unique(gw, f, id);
  gw.db
    .query(
      `UPDATE bbs_partners SET call = ?, protocol = ?, transport = ?, host = ?, port = ?, ax25_call = ?, via = ?, password = ?, interval_min = ?, time_bands = ?, types = ?, poll = ?, enabled = ?, updated_at = ? WHERE id = ?`,
    )
    .run(
      f.call,
      f.protocol,
      f.transport,
      f.host,
      f.port,
      f.ax25_call,
      f.via,
      f.password,
      f.interval_min,
      f.time_bands,
      f.types,
      f.poll,
      f.enabled,
      gw.clock.now(),
      id,
    );
  return getPartner(gw, id);
}

export function deletePartner(gw: Core, id: number): void {
  if (gw.db.query("DELETE FROM bbs_partners WHERE id = ?").run(id).changes === 0) throw notFound(`partner ${id}`);
}

export interface RuleRow {
  id: number;
  partner_id: number;
  call: string;
  field: "at" | "to";
  pattern: string;
  types: string;
  priority: number;
  created_at: number;
  updated_at: number;
}

const toRule = (r: RuleRow): Rule => ({
  id: r.id,
  partnerId: r.partner_id,
  partner: r.call,
  field: r.field,
  pattern: r.pattern,
  types: r.types,
  priority: r.priority,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const RULE_SELECT = "SELECT r.*, p.call FROM bbs_rules r JOIN bbs_partners p ON p.id = r.partner_id";

export function listRules(gw: Core): Rule[] {
  return (gw.db.query(`${RULE_SELECT} ORDER BY p.call, r.priority, r.id`).all() as RuleRow[]).map(toRule);
}

export function getRule(gw: Core, id: number): Rule {
  const r = gw.db.query(`${RULE_SELECT} WHERE r.id = ?`).get(id) as RuleRow | null;
  if (!r) throw notFound(`rule ${id}`);
  return toRule(r);
}

interface RuleFields {
  partner_id: number;
  field: "at" | "to";
  pattern: string;
  types: string;
  priority: number;
}

/** A rule as the API sends it (POST /api/bbs/forward, and any of its fields to update one): the types and ranges; ruleFields checks the rest. */
export const RULE_BODY = closed(
  {
    partner: t.Optional(t.String({ description: "the partner's callsign (or give partnerId)" })),
    partnerId: t.Optional(wholeNumber({ description: "the partner's id" })),
    field: t.Optional(t.Union([t.Literal("at"), t.Literal("to")], { description: "match the @ route (at, the default) or the addressee or category (to)" })),
    pattern: t.Optional(t.String({ description: "what to match, e.g. #TST, N0Q* or WW (required to create)" })),
    types: t.Optional(TYPES),
    priority: t.Optional(wholeNumber({ minimum: 0, maximum: 10000, description: "0-10000, lower wins (default 100)" })),
  },
  { description: "a forwarding rule; on update only the fields given change" },
);
export type RuleInput = Static<typeof RULE_BODY>;

function ruleFields(gw: Core, b: RuleInput, base: RuleFields | null): RuleFields {
  const f: RuleFields = base ? { ...base } : { partner_id: 0, field: "at", pattern: "", types: "PBT", priority: 100 };
  if (b.partnerId !== undefined) {
    if (!partnerRow(gw, b.partnerId)) throw invalid("partnerId names no partner");
    f.partner_id = b.partnerId;
  } else if (b.partner !== undefined) {
    const p = partnerByCall(gw, b.partner);
    if (!p) throw invalid("partner names no partner (give its callsign or partnerId)");
    f.partner_id = p.id;
  } else if (!base) throw invalid("a rule needs a partner (callsign) or partnerId");
  if (b.field !== undefined) f.field = b.field;
  if (b.pattern !== undefined || !base) {
    const p = checkPattern(b.pattern);
    if (!p.ok) throw invalid(p.message);
    f.pattern = p.value;
  }
  if (b.types !== undefined) f.types = normalTypes(b.types);
  if (b.priority !== undefined) f.priority = b.priority;
  return f;
}

export function createRule(gw: Core, input: RuleInput): Rule {
  const f = ruleFields(gw, input, null);
  const now = gw.clock.now();
  const id = Number(
    gw.db
      .query("INSERT INTO bbs_rules (partner_id, field, pattern, types, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(f.partner_id, f.field, f.pattern, f.types, f.priority, now, now).lastInsertRowid,
  );
  return getRule(gw, id);
}

export function updateRule(gw: Core, id: number, input: RuleInput): Rule {
  const cur = gw.db.query("SELECT partner_id, field, pattern, types, priority FROM bbs_rules WHERE id = ?").get(id) as RuleFields | null;
  if (!cur) throw notFound(`rule ${id}`);
  const f = ruleFields(gw, input, cur);
  gw.db
    .query("UPDATE bbs_rules SET partner_id = ?, field = ?, pattern = ?, types = ?, priority = ?, updated_at = ? WHERE id = ?")
    .run(f.partner_id, f.field, f.pattern, f.types, f.priority, gw.clock.now(), id);
  return getRule(gw, id);
}

export function deleteRule(gw: Core, id: number): void {
  if (gw.db.query("DELETE FROM bbs_rules WHERE id = ?").run(id).changes === 0) throw notFound(`rule ${id}`);
}
