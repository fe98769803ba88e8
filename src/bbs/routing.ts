/**
 * Where a message goes, from its hierarchical address and the forwarding
 * rules (FBB's forward.sys B/F/G lines in one shape: a rule names a partner,
 * a field and a pattern).
 *
 * Personal mail (P) and traffic (T) go to ONE next hop:
 *   - addressed to this BBS (first element of the route is our call, or no
 *     route and the White Pages know no other home): delivered here;
 *   - P without a route: the White Pages supply the addressee's home BBS;
 *   - else the most specific matching rule wins: a `to` rule (the addressee
 *     itself), then an `at` rule on the earliest element (N0BBS before #NCA
 *     before USA before NOAM), `*` last; ties by priority, then rule id;
 *   - no rule: held as unrouted until a rule appears.
 * Bulletins (B) flood: every partner with a matching rule gets one, except
 * the one it came from and any BBS already in its R: lines.
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { patternMatches, routeElements, type MessageType } from "./address.ts";
import { bbsIdentity } from "./identity.ts";
import { parseRouteLine } from "./text.ts";
import { WP_ENTRY, wpLookup, type WpEntry } from "./wp.ts";
import type { RuleRow as PartnerRule } from "./partners.ts";

/** Where a message is delivered. */
export const DELIVERY = t.Union([t.Literal("local"), t.Literal("transit"), t.Literal("unrouted")], {
  description: "local: delivered here; transit: queued for a partner; unrouted: held until a forwarding rule takes it",
});

/** One partner a message is routed to, and the rule that chose it. */
export const PARTNER_ROUTE = closed({
  partnerId: wholeNumber(),
  partner: t.String({ description: "the partner BBS's callsign" }),
  ruleId: wholeNumber({ description: "the forwarding rule that matched" }),
  field: t.Union([t.Literal("at"), t.Literal("to")], { description: "what the rule matched: the @ route or the addressee" }),
  pattern: t.String({ description: "the rule's pattern" }),
});
export type Route = Static<typeof PARTNER_ROUTE>;

/** Where a message goes, and why. */
export const ROUTE_DECISION_FIELDS = {
  delivery: DELIVERY,
  at: nullable(t.String(), "the route after White Pages completion"),
  partners: t.Array(PARTNER_ROUTE, { description: "the partners it is queued for: one for mail, every matching one for a bulletin" }),
  wp: nullable(WP_ENTRY, "the White Pages entry that supplied the route, when one was looked up"),
  reason: t.String({ description: "the decision in words" }),
};
export const ROUTE_DECISION = closed(ROUTE_DECISION_FIELDS);
export type RouteDecision = Static<typeof ROUTE_DECISION>;

export interface RoutableMessage {
  type: MessageType;
  to: string;
  at: string | null;
  route: string[];
  receivedFrom: string | null;
}

type RuleRow = Pick<PartnerRule, "id" | "partner_id" | "call" | "field" | "pattern" | "types" | "priority"> & { partner_types: string };

function activeRules(gw: Core, type: MessageType): RuleRow[] {
  return (
    gw.db
      .query(
        `SELECT r.id, r.partner_id, p.call, r.field, r.pattern, r.types, p.types AS partner_types, r.priority
         FROM bbs_rules r JOIN bbs_partners p ON p.id = r.partner_id WHERE p.enabled = 1`,
      )
      .all() as RuleRow[]
  ).filter((r) => r.types.includes(type) && r.partner_types.includes(type));
}

/** How specific a match is; lower is better; null when the rule does not match. */
function rank(r: RuleRow, to: string, elements: string[]): number | null {
  if (r.field === "to") return patternMatches(r.pattern, to) ? 0 : null;
  if (r.pattern === "*") return 100;
  const i = elements.findIndex((e) => patternMatches(r.pattern, e));
  return i < 0 ? null : 1 + i;
}

/** The BBS callsigns in a message's R: lines. */
function seenBbses(route: string[]): Set<string> {
  const s = new Set<string>();
  for (const l of route) {
    const ha = parseRouteLine(l).ha;
    if (ha) s.add(ha.split(".")[0]!);
  }
  return s;
}

const toRoute = (r: RuleRow): Route => ({ partnerId: r.partner_id, partner: r.call, ruleId: r.id, field: r.field, pattern: r.pattern });

export function resolveRoute(gw: Core, m: RoutableMessage): RouteDecision {
  const me = bbsIdentity(gw.config);
  let at = m.at;
  let wp: WpEntry | null = null;
  const seen = seenBbses(m.route);
  const excluded = (call: string) => call === m.receivedFrom || seen.has(call) || call === me?.call;

  if (m.type === "B") {
    if (!at) return { delivery: "local", at, partners: [], wp, reason: "a bulletin without a distribution area stays on this BBS" };
    if (!me) return { delivery: "local", at, partners: [], wp, reason: "this BBS has no callsign (BBS_HA), so it does not forward" };
    const elements = routeElements(at);
    const best = new Map<number, { r: RuleRow; k: number }>();
    for (const r of activeRules(gw, "B")) {
      const k = rank(r, m.to, elements);
      if (k === null || excluded(r.call)) continue;
      const cur = best.get(r.partner_id);
      if (!cur || k < cur.k || (k === cur.k && (r.priority < cur.r.priority || (r.priority === cur.r.priority && r.id < cur.r.id))))
        best.set(r.partner_id, { r, k });
    }
    const partners = [...best.values()].sort((a, b) => a.r.partner_id - b.r.partner_id).map((x) => toRoute(x.r));
    return {
      delivery: "local",
      at,
      partners,
      wp,
      reason: partners.length ? `flooded to ${partners.map((p) => p.partner).join(", ")}` : "no partner takes this bulletin's area or category",
    };
  }

  if (!at && m.type === "P") {
    wp = wpLookup(gw.db, m.to);
    if (wp && wp.homeBbs.split(".")[0] !== me?.call) at = wp.homeBbs;
  }
  if (!at) return { delivery: "local", at, partners: [], wp, reason: `${m.to} is served by this BBS` };
  if (!me) return { delivery: "unrouted", at, partners: [], wp, reason: "this BBS has no callsign (BBS_HA), so it does not forward" };
  if (routeElements(at)[0] === me.call) return { delivery: "local", at, partners: [], wp, reason: `addressed to this BBS (${me.call})` };
  const elements = routeElements(at);
  let best: { r: RuleRow; k: number } | null = null;
  for (const r of activeRules(gw, m.type)) {
    const k = rank(r, m.to, elements);
    if (k === null || excluded(r.call)) continue;
    if (!best || k < best.k || (k === best.k && (r.priority < best.r.priority || (r.priority === best.r.priority && r.id < best.r.id)))) best = { r, k };
  }
  if (!best) return { delivery: "unrouted", at, partners: [], wp, reason: `no forwarding rule matches ${m.to}@${at}; held until one does` };
  const how = best.r.field === "to" ? `addressee ${m.to}` : best.r.pattern === "*" ? "the default route" : `"${best.r.pattern}"`;
  return { delivery: "transit", at, partners: [toRoute(best.r)], wp, reason: `to ${best.r.call} by ${how}` };
}
