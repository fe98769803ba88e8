/**
 * This station as a NET/ROM node (NODE_ALIAS, NODE_CALL): the NODES table it
 * learns from the broadcasts its ports hear, its own NODES broadcast, and the
 * routes its circuits take.
 *
 * Learning (the usual NET/ROM rules): a broadcast from neighbour N heard on
 * port P gives a route to N itself, quality NODES_PORT_QUALITY, and for each
 * of its entries a route to that node through N with quality
 * entry quality × NODES_PORT_QUALITY / 256 (rounded down). Entries whose
 * best neighbour is this node (split horizon), entries for this node, and
 * qualities below NODES_MIN_QUALITY are left out. Heard routes are refreshed
 * by each broadcast and age out 6 hours after the last (the pruner); routes
 * the sysop enters stay until removed.
 */
import type { Core } from "../core/core.ts";
import { badRequest, notFound } from "../lib/errors.ts";
import { isCallsign, normalizeCall } from "../lib/callsign.ts";
import { decodeNodes, formatAddress, nodesFrames, parseAddressLoose, type Ax25Address, type Ax25Frame, type NodesEntry } from "../../radio/index.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

/** Quality of a route to a neighbour heard directly on a radio port (0-255). */
const NODES_PORT_QUALITY = 192;
/** Routes below this quality are not kept (nor broadcast). */
const NODES_MIN_QUALITY = 50;

const ALIAS = /^[A-Z0-9#_-]{1,6}$/;

/** The node's callsign (NODE_CALL, default RADIO_CALL), or null when this station is no node. */
export function nodeCall(gw: Core): string | null {
  return gw.config.nodeAlias ? (gw.config.nodeCall ?? gw.config.radioCall) : null;
}

/** A NET/ROM route: to a node through a neighbour. */
export const NODE_ROUTE = closed({
  call: t.String({ description: "the node's callsign" }),
  alias: t.String({ description: "the node's alias (may be empty)" }),
  neighbour: t.String({ description: "the neighbour the route goes through" }),
  port: t.String({ description: "the radio port the neighbour is on (may be empty for a manual route)" }),
  quality: wholeNumber({ description: "0-255" }),
  source: t.Union([t.Literal("heard"), t.Literal("manual")], { description: "heard in a NODES broadcast, or set by the sysop" }),
  updatedAt: unixMs(),
});
export type NodeRoute = Static<typeof NODE_ROUTE>;

const COLS = "dest AS call, alias, neighbour, port, quality, source, updated_at AS updatedAt";

function upsert(gw: Core, r: Omit<NodeRoute, "updatedAt">) {
  gw.db
    .query(
      `INSERT INTO netrom_routes (dest, alias, neighbour, port, quality, source, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (dest, neighbour) DO UPDATE SET alias = excluded.alias, port = excluded.port, quality = excluded.quality, updated_at = excluded.updated_at
       WHERE source = 'heard' OR excluded.source = 'manual'`,
    )
    .run(r.call, r.alias, r.neighbour, r.port, r.quality, r.source, gw.clock.now());
}

/** A NODES broadcast heard on `port`: routes to its sender and through it. Returns how many routes it refreshed. */
export function noteNodes(gw: Core, port: string, f: Ax25Frame): number {
  const r = decodeNodes(f.info);
  if (!r.ok) return 0;
  const me = nodeCall(gw);
  const from = formatAddress(f.src);
  if (from === me) return 0;
  let n = 0;
  gw.db.transaction(() => {
    upsert(gw, { call: from, alias: r.value.alias, neighbour: from, port, quality: NODES_PORT_QUALITY, source: "heard" });
    n++;
    for (const e of r.value.entries) {
      const dest = formatAddress(e.dest);
      if (dest === me || dest === from || formatAddress(e.neighbour) === me) continue;
      const quality = Math.floor((e.quality * NODES_PORT_QUALITY) / 256);
      if (quality < NODES_MIN_QUALITY) {
        // the neighbour lost it: our route through it goes too
        gw.db.query("DELETE FROM netrom_routes WHERE dest = ? AND neighbour = ? AND source = 'heard'").run(dest, from);
        continue;
      }
      upsert(gw, { call: dest, alias: e.alias, neighbour: from, port, quality, source: "heard" });
      n++;
    }
  })();
  return n;
}

/** Every route, best first per node. */
export function listRoutes(gw: Core): NodeRoute[] {
  return gw.db.query(`SELECT ${COLS} FROM netrom_routes ORDER BY dest, quality DESC, neighbour`).all() as NodeRoute[];
}

/** The best route to each node: the NODES table. */
export function nodesTable(gw: Core): NodeRoute[] {
  const best = new Map<string, NodeRoute>();
  for (const r of listRoutes(gw)) if (!best.has(r.call)) best.set(r.call, r);
  return [...best.values()].sort((a, b) => a.alias.localeCompare(b.alias) || a.call.localeCompare(b.call));
}

/** The best route to a node callsign. */
export function bestRoute(gw: Core, dest: string): NodeRoute | null {
  return (
    (gw.db
      .query(`SELECT ${COLS} FROM netrom_routes WHERE dest = ? AND quality >= ? ORDER BY quality DESC, updated_at DESC LIMIT 1`)
      .get(dest, NODES_MIN_QUALITY) as NodeRoute | null) ?? null
  );
}

/** A node alias (or callsign) to the node's callsign, by the best route known; null when unknown. */
export function resolveNode(gw: Core, aliasOrCall: string): string | null {
  const t = aliasOrCall.trim().toUpperCase();
  const byAlias = gw.db.query("SELECT dest FROM netrom_routes WHERE alias = ? AND quality >= ? ORDER BY quality DESC LIMIT 1").get(t, NODES_MIN_QUALITY) as {
    dest: string;
  } | null;
  if (byAlias) return byAlias.dest;
  const a = parseAddressLoose(t);
  return a.ok && bestRoute(gw, formatAddress(a.value)) ? formatAddress(a.value) : null;
}

/**
 * The sysop's write (POST /api/node/nodes): `{call, alias?, neighbour, quality, port?}`
 * sets a manual route; `{call, neighbour, remove: true}` removes one (manual or heard).
 */
/** A route the sysop sets or removes (the types, the alias and the ranges are checked at the route). */
/** A route the sysop adds, changes or removes (POST /api/node/routes). */
export const NODE_ROUTE_BODY = closed({
  call: t.String({ description: "the node's callsign, e.g. N0NODE-7" }),
  neighbour: t.String({ description: "the neighbour the route goes through, e.g. N0NBR-7" }),
  alias: t.Optional(t.String({ pattern: "^([A-Za-z0-9#_-]{1,6})?$", description: "the node's alias, 1-6 of A-Z 0-9 # _ -" })),
  quality: t.Optional(wholeNumber({ minimum: 0, maximum: 255, description: "0-255 (required unless remove)" })),
  port: t.Optional(t.String({ maxLength: 200, description: "the radio port the neighbour is on" })),
  remove: t.Optional(t.Boolean({ description: "true: remove this route instead" })),
});
export type RouteEdit = Static<typeof NODE_ROUTE_BODY>;

/** POST /api/node/nodes: the route as it is now, or null once removed. */
export const NODE_ROUTE_EDITED = closed({ route: nullable(NODE_ROUTE, "null: removed") });

export function editRoute(gw: Core, b: RouteEdit): Static<typeof NODE_ROUTE_EDITED> {
  const call = axCall(b.call, "call");
  const neighbour = axCall(b.neighbour, "neighbour");
  if (b.remove === true) {
    const n = gw.db.query("DELETE FROM netrom_routes WHERE dest = ? AND neighbour = ?").run(call, neighbour).changes;
    if (!n) throw notFound(`route to ${call} via ${neighbour}`);
    return { route: null };
  }
  if (b.quality === undefined) bad("quality is 0-255");
  upsert(gw, { call, alias: (b.alias ?? "").toUpperCase(), neighbour, port: b.port ?? "", quality: b.quality, source: "manual" });
  return { route: (gw.db.query(`SELECT ${COLS} FROM netrom_routes WHERE dest = ? AND neighbour = ?`).get(call, neighbour) as NodeRoute) ?? null };
}

function bad(message: string): never {
  throw badRequest("invalid", message);
}

function axCall(v: string, name: string): string {
  const a = parseAddressLoose(v);
  if (!a.ok || !isCallsign(formatAddress(a.value))) bad(`${name} is a callsign such as N0CALL-7`);
  return normalizeCall(formatAddress(a.value));
}

/** Our NODES broadcast: the alias and the best route to every node we know of a usable quality. */
function ownBroadcast(gw: Core): { alias: string; entries: NodesEntry[] } {
  const addr = (s: string): Ax25Address => {
    const a = parseAddressLoose(s);
    if (!a.ok) throw a.error;
    return a.value;
  };
  const entries = nodesTable(gw)
    // aliases heard may hold characters we never emit: those nodes are left out
    .filter((r) => r.quality >= NODES_MIN_QUALITY && (r.alias === "" || ALIAS.test(r.alias)))
    .map((r) => ({ dest: addr(r.call), alias: r.alias, neighbour: addr(r.neighbour), quality: r.quality }));
  return { alias: gw.config.nodeAlias!, entries };
}

/** The UI frames of our NODES broadcast, from the node's call. */
export function broadcastFrames(gw: Core): Ax25Frame[] {
  const call = nodeCall(gw);
  if (!call) return [];
  const a = parseAddressLoose(call);
  if (!a.ok) return [];
  return nodesFrames(a.value, ownBroadcast(gw));
}
