/**
 * The header search: stations by callsign prefix, caches by the words of their
 * name, code, owner or description (a word prefix, through the full-text
 * index caches_text; with the map's filters), BBS messages by subject, and peers
 * by instance name. Each section answers only what its own pages would show
 * the caller: bulletins to everyone and personal mail to its sender and
 * addressee; peers that /federation/registry already lists publicly (blocked
 * ones to the sysop only).
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../core/core.ts";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON } from "../game/shapes.ts";
import { MESSAGE_TYPE } from "../bbs/messages.ts";
import { TRUST_TIER } from "../fed/shapes.ts";
import { badRequest } from "../lib/errors.ts";
import { cachesJson, type CacheRow } from "../game/caches.ts";
import { filterSql, parseFilters } from "../game/cache-filters.ts";
import { SVCFED_CATEGORY } from "../bbs/address.ts";
import type { Viewer } from "../bbs/access.ts";
import { getPeer } from "../fed/peers.ts";

/** Caches per answer at most (`limit`), and the default. */
export const SEARCH_MAX = 500;
export const SEARCH_DEFAULT = 50;
/** Stations, messages and peers per answer at most. */
export const SEARCH_SECTION_MAX = 20;

/** A station whose callsign starts with q. */
export const SEARCH_STATION = closed({
  call: t.String(),
  kind: t.String({ description: "station, object or item" }),
  symbol: nullable(t.String(), "APRS symbol: table and code"),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  lastHeard: unixMs(),
});
export type SearchStation = Static<typeof SEARCH_STATION>;

/** A BBS message whose subject holds q. */
export const SEARCH_MESSAGE = closed({
  id: wholeNumber({ description: "its id at /api/bbs/messages/{id}" }),
  type: MESSAGE_TYPE,
  from: t.String(),
  to: t.String(),
  subject: t.String(),
  createdAt: unixMs(),
});
export type SearchMessage = Static<typeof SEARCH_MESSAGE>;

/** A peer whose instance name holds q. */
export const SEARCH_PEER = closed({
  instance: t.String(),
  trust: TRUST_TIER,
  url: nullable(t.String(), "its web address (an https endpoint, as /federation/registry lists it)"),
});
export type SearchPeer = Static<typeof SEARCH_PEER>;

/** GET /api/search. */
export const SEARCH_ANSWER = closed({
  caches: t.Array(CACHE_JSON, { description: "caches by name, code, owner or description, with the filters" }),
  stations: t.Array(SEARCH_STATION, { description: "with q: stations by callsign prefix, most recently heard first" }),
  messages: t.Array(SEARCH_MESSAGE, { description: "with q: bulletins and the caller's own mail by subject, newest first" }),
  peers: t.Array(SEARCH_PEER, { description: "with q: peers by instance name" }),
});
export type SearchAnswer = Static<typeof SEARCH_ANSWER>;

const escapeLike = (s: string) => s.replace(/[%_\\]/g, (ch) => "\\" + ch);

export function search(gw: Core, query: Record<string, string | undefined>, viewer: Viewer, limit?: number): SearchAnswer {
  if (query.q !== undefined && /[\u0000-\u001f\u007f]/.test(query.q)) throw badRequest("invalid", "q may not hold control characters");
  if (limit !== undefined && (limit < 1 || limit > SEARCH_MAX)) throw badRequest("invalid", `limit is 1 to ${SEARCH_MAX}`);
  const f = parseFilters(query);
  if (!f.q && Object.keys(f).length === 0) throw badRequest("invalid", "q (or a filter) is required");
  const n = limit ?? SEARCH_DEFAULT;
  const section = Math.min(n, SEARCH_SECTION_MAX);
  const rows = searchCaches(gw, f, n);
  // Only q searches the other sections; the filters are the caches'.
  const q = f.q ?? "";
  // a range over the callsign index (every callsign character sorts below "~")
  const stations =
    q && /^[a-z0-9-]{1,12}$/.test(q)
      ? (gw.db
          .query(
            "SELECT call, kind, symbol, lat, lon, last_heard AS lastHeard FROM stations WHERE call >= ? AND call < ? AND alive = 1 ORDER BY last_heard DESC LIMIT ?",
          )
          .all(q.toUpperCase(), q.toUpperCase() + "~", section) as SearchStation[])
      : [];
  const messages = q ? searchMessages(gw, q, viewer, section) : [];
  const peers = q
    ? (
        gw.db
          .query(
            `SELECT instance, trust FROM peers WHERE instance LIKE ? ESCAPE '\\'${viewer.sysop ? "" : " AND trust <> 'blocked'"} ORDER BY instance LIMIT ?`,
          )
          .all("%" + escapeLike(q) + "%", section) as Array<Omit<SearchPeer, "url">>
      ).map((p) => ({ ...p, url: peerWebUrl(gw, p.instance) }))
    : [];
  return { caches: cachesJson(gw, rows), stations, messages, peers };
}

/**
 * The words of `q` as the index holds them (unicode61: letters and digits,
 * lower case), each matched as a word prefix: "waterfall se" finds
 * "Waterfall Search", "n0ali-7" the owner N0ALI-7.
 */
function matchQuery(q: string): string | null {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((w) => `"${w}"*`).join(" ") : null;
}

/**
 * Listed caches matching the filters. With words, through the word index
 * (caches_text), newest cache first: the index hands its matches over in
 * that order, so a word found in most caches costs the rows answered, not a
 * sort of every match. Filters alone: the newest change first.
 */
function searchCaches(gw: Core, f: ReturnType<typeof parseFilters>, n: number): CacheRow[] {
  const { q, ...filters } = f;
  const flt = filterSql(filters);
  const listed = "c.status IN ('active', 'disabled') AND c.unlisted = 0";
  if (q === undefined) {
    return gw.db.query(`SELECT c.* FROM caches c WHERE ${listed}${flt.sql} ORDER BY c.updated_at DESC LIMIT ?`).all(...flt.args, n) as CacheRow[];
  }
  const match = matchQuery(q);
  if (!match) return [];
  return gw.db
    .query(`SELECT c.* FROM caches_text t JOIN caches c ON c.id = t.rowid WHERE caches_text MATCH ? AND ${listed}${flt.sql} ORDER BY t.rowid DESC LIMIT ?`)
    .all(match, ...flt.args, n) as CacheRow[];
}

function peerWebUrl(gw: Core, instance: string): string | null {
  const p = getPeer(gw, instance);
  if (!p) return null;
  return p.endpoints.find((e) => e.transport === "https")?.address ?? (p.url?.startsWith("https://") ? p.url : null);
}

/** Bulletins (not the federation carrier's), and the viewer's own mail and traffic, whose subject holds `q`. */
function searchMessages(gw: Core, q: string, viewer: Viewer, limit: number): SearchMessage[] {
  const calls = [...viewer.calls];
  const own = calls.length
    ? ` OR (type IN ('P', 'T') AND (to_call IN (${calls.map(() => "?").join(",")}) OR from_call IN (${calls.map(() => "?").join(",")})))`
    : "";
  return gw.db
    .query(
      `SELECT id, type, from_call AS "from", to_call AS "to", subject, created_at AS createdAt FROM bbs_messages
       WHERE killed_at IS NULL AND subject LIKE ? ESCAPE '\\' AND ((type = 'B' AND to_call <> ?)${own})
       ORDER BY id DESC LIMIT ?`,
    )
    .all("%" + escapeLike(q) + "%", SVCFED_CATEGORY, ...calls, ...calls, limit) as SearchMessage[];
}
