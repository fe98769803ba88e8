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
import type { Gateway } from "../gateway.ts";
import { badRequest, conflict, notFound } from "../errors.ts";
import { isCallsign, normalizeCall } from "../callsign.ts";
import { checkPattern } from "./address.ts";

export type Protocol = "fbb-b1" | "fbb-ascii";
export type TransportKind = "tcp" | "box" | "ax25";

export interface Partner {
  id: number;
  call: string;
  protocol: Protocol;
  transport: TransportKind;
  host: string | null;
  port: number | null;
  /** ax25: the call-SSID we connect to, and whose connections are this partner's */
  ax25Call: string | null;
  /** ax25: digipeaters on the way, [] = direct */
  via: string[];
  hasPassword: boolean;
  intervalMin: number;
  timeBands: string[];
  types: string;
  poll: boolean;
  enabled: boolean;
  createdAt: number;
  updatedAt: number;
  lastAttemptAt: number | null;
  lastSuccessAt: number | null;
  lastError: string | null;
  /** messages waiting for it */
  pending: number;
}

export interface PartnerRow {
  id: number;
  call: string;
  protocol: Protocol;
  transport: TransportKind;
  host: string | null;
  port: number | null;
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

export interface Rule {
  id: number;
  partnerId: number;
  partner: string;
  field: "at" | "to";
  pattern: string;
  types: string;
  priority: number;
  createdAt: number;
  updatedAt: number;
}

function toPartner(gw: Gateway, r: PartnerRow): Partner {
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

export function partnerRow(gw: Gateway, id: number): PartnerRow | null {
  return gw.db.query("SELECT * FROM bbs_partners WHERE id = ?").get(id) as PartnerRow | null;
}

export function partnerByCall(gw: Gateway, call: string): PartnerRow | null {
  return gw.db.query("SELECT * FROM bbs_partners WHERE call = ?").get(normalizeCall(call)) as PartnerRow | null;
}

/** Where an ax25 partner is on the air: its ax25Call, else its call. */
export function ax25Address(p: Pick<PartnerRow, "call" | "ax25_call">): string {
  return p.ax25_call ?? p.call;
}

/** The ax25 partner whose call-SSID on the air is `address` (exactly, SSID included), or null. */
export function partnerByAx25(gw: Gateway, address: string): PartnerRow | null {
  const a = normalizeCall(address);
  return gw.db.query("SELECT * FROM bbs_partners WHERE transport = 'ax25' AND coalesce(ax25_call, call) = ?").get(a) as PartnerRow | null;
}

export function listPartners(gw: Gateway): Partner[] {
  return (gw.db.query("SELECT * FROM bbs_partners ORDER BY call").all() as PartnerRow[]).map((r) => toPartner(gw, r));
}

export function getPartner(gw: Gateway, id: number): Partner {
  const r = partnerRow(gw, id);
  if (!r) throw notFound(`partner ${id}`);
  return toPartner(gw, r);
}

const invalid = (m: string) => badRequest("invalid", m);
const DIGI = /^[A-Z0-9]{1,6}(?:-(?:[0-9]|1[0-5]))?$/;

/** Another ax25 partner already answering on the same call-SSID. */
function checkAx25Unique(gw: Gateway, f: PartnerFields, id: number | null): void {
  if (f.transport !== "ax25") return;
  const other = partnerByAx25(gw, ax25Address(f));
  if (other && other.id !== id) throw conflict("partner_exists", `${ax25Address(f)} is already where partner ${other.call} is on the air`);
}

function checkTypes(raw: unknown, what: string): string {
  if (typeof raw !== "string" || !/^[PBT]{1,3}$/i.test(raw)) throw invalid(`${what} must be a combination of P, B and T, e.g. "PBT"`);
  const t = raw.toUpperCase();
  return ["P", "B", "T"].filter((c) => t.includes(c)).join("");
}

/** `HH:MM-HH:MM` (UTC), may wrap midnight. */
export function checkTimeBand(raw: unknown): string {
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

/** Validates a whole partner (merged over `base` for updates). */
function partnerFields(input: unknown, base: PartnerFields | null): PartnerFields {
  if (!input || typeof input !== "object" || Array.isArray(input)) throw badRequest("bad_body", "expected a JSON object describing the partner");
  const b = input as Record<string, unknown>;
  const known = ["call", "protocol", "transport", "host", "port", "ax25Call", "via", "password", "intervalMin", "timeBands", "types", "poll", "enabled"];
  for (const k of Object.keys(b)) if (!known.includes(k)) throw invalid(`unknown field "${k}" (known: ${known.join(", ")})`);
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
    if (typeof b.call !== "string" || !isCallsign(b.call)) throw invalid("call must be the partner BBS's callsign, e.g. N0BBS");
    f.call = normalizeCall(b.call);
  }
  if (b.protocol !== undefined) {
    if (b.protocol !== "fbb-b1" && b.protocol !== "fbb-ascii") throw invalid('protocol must be "fbb-b1" or "fbb-ascii"');
    f.protocol = b.protocol;
  }
  if (b.transport !== undefined) {
    if (b.transport !== "tcp" && b.transport !== "box" && b.transport !== "ax25") throw invalid('transport must be "tcp", "box" or "ax25"');
    f.transport = b.transport;
  }
  if (b.host !== undefined) {
    if (b.host === null || b.host === "") f.host = null;
    else if (typeof b.host !== "string" || !/^[A-Za-z0-9.:-]{1,253}$/.test(b.host)) throw invalid("host must be a host name or address");
    else f.host = b.host;
  }
  if (b.port !== undefined) {
    if (b.port === null) f.port = null;
    else if (typeof b.port !== "number" || !Number.isInteger(b.port) || b.port < 1 || b.port > 65535) throw invalid("port must be 1-65535");
    else f.port = b.port;
  }
  if (b.ax25Call !== undefined) {
    if (b.ax25Call === null || b.ax25Call === "") f.ax25_call = null;
    else if (typeof b.ax25Call !== "string" || !isCallsign(b.ax25Call))
      throw invalid("ax25Call must be the call-SSID the partner answers on the air, e.g. N0BBS-1");
    else f.ax25_call = normalizeCall(b.ax25Call);
  }
  if (b.via !== undefined) {
    if (b.via === null) f.via = "[]";
    else if (!Array.isArray(b.via) || b.via.length > 8) throw invalid('via must be a list of up to 8 digipeaters, e.g. ["RELAY", "WIDE2-1"] ([] = direct)');
    else
      f.via = JSON.stringify(
        b.via.map((d) => {
          if (typeof d !== "string" || !DIGI.test(d.trim().toUpperCase()))
            throw invalid(`via: "${String(d)}" is not a digipeater (1-6 of A-Z 0-9, optional -SSID 1-15)`);
          return normalizeCall(d);
        }),
      );
  }
  if (b.password !== undefined) {
    if (b.password === null || b.password === "") f.password = null;
    else if (typeof b.password !== "string" || b.password.length > 64 || /[\s\x00-\x1f]/.test(b.password))
      throw invalid("password must be up to 64 characters without spaces");
    else f.password = b.password;
  }
  if (b.intervalMin !== undefined) {
    if (typeof b.intervalMin !== "number" || !Number.isInteger(b.intervalMin) || b.intervalMin < 1 || b.intervalMin > 1440)
      throw invalid("intervalMin must be 1-1440 minutes");
    f.interval_min = b.intervalMin;
  }
  if (b.timeBands !== undefined) {
    if (!Array.isArray(b.timeBands) || b.timeBands.length > 12) throw invalid('timeBands must be a list of up to 12 bands like "22:00-06:00" (UTC)');
    f.time_bands = JSON.stringify(b.timeBands.map(checkTimeBand));
  }
  if (b.types !== undefined) f.types = checkTypes(b.types, "types");
  if (b.poll !== undefined) {
    if (typeof b.poll !== "boolean") throw invalid("poll must be true or false");
    f.poll = b.poll ? 1 : 0;
  }
  if (b.enabled !== undefined) {
    if (typeof b.enabled !== "boolean") throw invalid("enabled must be true or false");
    f.enabled = b.enabled ? 1 : 0;
  }
  if (f.transport === "tcp" && (!f.host || !f.port)) throw invalid("a tcp partner needs host and port (where we call it)");
  if (f.transport !== "ax25") {
    if ((b.ax25Call !== undefined && b.ax25Call !== null && b.ax25Call !== "") || (Array.isArray(b.via) && b.via.length))
      throw invalid('ax25Call and via apply to ax25 partners only (transport "ax25")');
    f.ax25_call = null;
    f.via = "[]";
  }
  return f;
}

export function createPartner(gw: Gateway, input: unknown): Partner {
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

export function updatePartner(gw: Gateway, id: number, input: unknown): Partner {
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

export function deletePartner(gw: Gateway, id: number): void {
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

export function listRules(gw: Gateway): Rule[] {
  return (gw.db.query(`${RULE_SELECT} ORDER BY p.call, r.priority, r.id`).all() as RuleRow[]).map(toRule);
}

export function getRule(gw: Gateway, id: number): Rule {
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

function ruleFields(gw: Gateway, input: unknown, base: RuleFields | null): RuleFields {
  if (!input || typeof input !== "object" || Array.isArray(input)) throw badRequest("bad_body", "expected a JSON object describing the rule");
  const b = input as Record<string, unknown>;
  const known = ["partner", "partnerId", "field", "pattern", "types", "priority"];
  for (const k of Object.keys(b)) if (!known.includes(k)) throw invalid(`unknown field "${k}" (known: ${known.join(", ")})`);
  const f: RuleFields = base ? { ...base } : { partner_id: 0, field: "at", pattern: "", types: "PBT", priority: 100 };
  if (b.partnerId !== undefined) {
    if (typeof b.partnerId !== "number" || !partnerRow(gw, b.partnerId)) throw invalid("partnerId names no partner");
    f.partner_id = b.partnerId;
  } else if (b.partner !== undefined) {
    const p = typeof b.partner === "string" ? partnerByCall(gw, b.partner) : null;
    if (!p) throw invalid("partner names no partner (give its callsign or partnerId)");
    f.partner_id = p.id;
  } else if (!base) throw invalid("a rule needs a partner (callsign) or partnerId");
  if (b.field !== undefined) {
    if (b.field !== "at" && b.field !== "to") throw invalid('field must be "at" (the @ route) or "to" (the addressee or category)');
    f.field = b.field;
  }
  if (b.pattern !== undefined || !base) {
    const p = checkPattern(b.pattern);
    if (!p.ok) throw invalid(p.message);
    f.pattern = p.value;
  }
  if (b.types !== undefined) f.types = checkTypes(b.types, "types");
  if (b.priority !== undefined) {
    if (typeof b.priority !== "number" || !Number.isInteger(b.priority) || b.priority < 0 || b.priority > 10000)
      throw invalid("priority must be 0-10000 (lower wins)");
    f.priority = b.priority;
  }
  return f;
}

export function createRule(gw: Gateway, input: unknown): Rule {
  const f = ruleFields(gw, input, null);
  const now = gw.clock.now();
  const id = Number(
    gw.db
      .query("INSERT INTO bbs_rules (partner_id, field, pattern, types, priority, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(f.partner_id, f.field, f.pattern, f.types, f.priority, now, now).lastInsertRowid,
  );
  return getRule(gw, id);
}

export function updateRule(gw: Gateway, id: number, input: unknown): Rule {
  const cur = gw.db.query("SELECT partner_id, field, pattern, types, priority FROM bbs_rules WHERE id = ?").get(id) as RuleFields | null;
  if (!cur) throw notFound(`rule ${id}`);
  const f = ruleFields(gw, input, cur);
  gw.db
    .query("UPDATE bbs_rules SET partner_id = ?, field = ?, pattern = ?, types = ?, priority = ?, updated_at = ? WHERE id = ?")
    .run(f.partner_id, f.field, f.pattern, f.types, f.priority, gw.clock.now(), id);
  return getRule(gw, id);
}

export function deleteRule(gw: Gateway, id: number): void {
  if (gw.db.query("DELETE FROM bbs_rules WHERE id = ?").run(id).changes === 0) throw notFound(`rule ${id}`);
}
