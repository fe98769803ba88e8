/**
 * What the federation routes serve: CBOR sync pages of signed frames, the
 * unsigned JSON browse feeds (a transparency surface: nothing mirrors from
 * them), and the registry view. Route handlers parse the query and call these.
 */
import type { Core } from "../core/core.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { bodyToJson, fromSeconds } from "../lib/fed/bodies.ts";
import { descriptor } from "./descriptor.ts";
import { DEFAULT_PAGE_LIMIT, instanceSigner, MAX_PAGE_LIMIT, readFeed } from "./feed.ts";
import { encodePage } from "../lib/fed/page.ts";
import { listPeers, peerKeys } from "./peers.ts";
import { registryBinding, registrySource } from "./registry.ts";
import type { BrowseItem, BrowseKind, BrowsePage, RegistryView } from "./shapes.ts";
import { decodePayload, KIND_OF_TYPE, RECORD_TYPES, SYNC_KINDS, type SyncKind } from "../lib/fed/record.ts";

export interface Cursor {
  since: number;
  limit: number;
}

/** `since` and `limit` from a query string; a 400 for anything else than whole numbers in range. */
/** The cursor of a page request (`since` and `limit` are checked at the route, against `defaults.max`). */
export function cursorOf(query: { since?: number; limit?: number }, defaults: { limit: number; max: number }): Cursor {
  return { since: query.since ?? 0, limit: query.limit ?? defaults.limit };
}

export const SYNC_LIMITS = { limit: DEFAULT_PAGE_LIMIT, max: MAX_PAGE_LIMIT };
export const BROWSE_LIMITS = { limit: 100, max: 1000 };

function syncKind(type: string): SyncKind {
  if (!(SYNC_KINDS as readonly string[]).includes(type)) throw notFound(`sync feed "${type}" (feeds: ${SYNC_KINDS.join(", ")})`);
  return type as SyncKind;
}

/** One CBOR sync page of this instance's signed frames of a kind. An unsigned instance has no sync surface. */
export function syncPage(gw: Core, type: string, cursor: Cursor): Uint8Array {
  const kind = syncKind(type);
  if (!instanceSigner(gw))
    throw new AppError(404, "unsigned", "this instance has no signing key (FED_PRIVATE_KEY), so it serves no sync feeds and cannot be mirrored");
  const page = readFeed(gw, RECORD_TYPES[kind], cursor.since, cursor.limit);
  // Stop early rather than build a page a receiver would refuse: `next` is then
  // the last frame sent, and `more` says to come back.
  const frames: Uint8Array[] = [];
  let next = page.next;
  let more = page.more;
  let bytes = 0;
  let last = cursor.since;
  for (const r of page.rows) {
    if (r.frame) {
      if (frames.length > 0 && bytes + r.frame.length > SYNC_PAGE_BYTES) {
        next = last;
        more = true;
        break;
      }
      frames.push(r.frame);
      bytes += r.frame.length;
    }
    last = r.seq;
  }
  return encodePage({ frames, next, more, type: RECORD_TYPES[kind], instance: gw.config.instance });
}

/** The most frame bytes one sync page carries (receivers take pages up to MAX_PAGE_BYTES). */
const SYNC_PAGE_BYTES = 8 * 1024 * 1024;

/** The JSON browse feeds by URL name. */
export const BROWSE_FEEDS: Record<string, BrowseKind> = {
  caches: "cache",
  finds: "find",
  bulletins: "bulletin",
  keys: "key",
  tombstones: "tombstone",
  "account-moves": "account-move",
};

/** One page of a JSON browse feed: each record's gid, v, signing time (ms) and body in the domains' JSON terms. */
export function browseFeed(gw: Core, feed: string, cursor: Cursor): BrowsePage {
  const kind = BROWSE_FEEDS[feed];
  if (!kind) throw notFound(`feed "${feed}"`);
  const page = readFeed(gw, RECORD_TYPES[kind], cursor.since, cursor.limit);
  return {
    instance: gw.config.instance,
    items: page.rows.map((r) => {
      const p = decodePayload(r.payload);
      const body = bodyToJson(KIND_OF_TYPE[p.type]!, p.body);
      // the body's members are the kind's (BROWSE_ITEMS), as the library's bodyToJson writes them
      return { gid: p.gid, v: p.v, at: fromSeconds(p.at), signed: r.frame !== null, ...body } as BrowseItem;
    }),
    next: page.next,
    more: page.more,
  };
}

/**
 * The registry as this instance sees it: itself, then its peers that are not
 * blocked, each with the keys its records are accepted under. Paged by the
 * peer's row id; this instance's own entry comes first, on the first page.
 */
export function registryView(gw: Core, cursor: Cursor): RegistryView {
  const items: RegistryView["items"] = [];
  if (cursor.since === 0) {
    const d = descriptor(gw);
    items.push({
      instance: d.instance,
      self: true,
      trust: null,
      keys: d.keys.filter((k) => k.status === "active").map((k) => k.key),
      operator: d.operator,
      aprsCall: d.aprsCall,
      endpoints: d.endpoints.filter((e) => e.transport === "ampr"),
    });
  }
  const peers = listPeers(gw)
    .filter((p) => p.trust !== "blocked" && p.id > cursor.since)
    .sort((a, b) => a.id - b.id);
  const page = peers.slice(0, cursor.limit);
  for (const p of page) {
    items.push({
      instance: p.instance,
      self: false,
      trust: p.trust,
      keys: peerKeys(gw, p.instance)
        .filter((k) => k.status === "active")
        .map((k) => k.publicKey),
      verifiedVia: p.verifiedVia,
      endpoints: p.endpoints,
      registry: registryBinding(gw, p.instance),
    });
  }
  return {
    instance: gw.config.instance,
    registry: registrySource(gw),
    items,
    next: page.length ? page[page.length - 1]!.id : cursor.since,
    more: peers.length > page.length,
  };
}
