/**
 * Bookmark lists: a user's named lists of caches (any origin), private or
 * public. A public list is read by anyone with its link (/list/:id) and has
 * its own GPX; a private one is its owner's only (404 to anyone else, as if
 * it did not exist). Lists stay on this instance: never federated, in the
 * account's export, gone with the account.
 */
import type { Core } from "../core/core.ts";
import { badRequest, forbidden, notFound } from "../lib/errors.ts";
import { cacheDetail } from "./cache-lookup.ts";
import type { Cache } from "./caches.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON } from "./shapes.ts";
import { text, type Actor } from "./model.ts";

/** Lists per user, and caches per list. */
export const MAX_LISTS = 100;
export const MAX_LIST_CACHES = 1000;

/** A bookmark list as the API answers it. */
export const CACHE_LIST = closed({
  id: wholeNumber(),
  name: t.String(),
  public: t.Boolean({ description: "anyone with its link reads it" }),
  owner: nullable(t.String(), "the owner's callsign"),
  count: wholeNumber({ description: "caches on it" }),
  createdAt: wholeNumber({ description: "unix ms" }),
  updatedAt: wholeNumber({ description: "unix ms" }),
});
export type CacheList = Static<typeof CACHE_LIST>;
/** One list with its caches (GET /api/lists/:id). */
export const LIST_WITH_CACHES = closed({ ...CACHE_LIST.properties, caches: t.Array(CACHE_JSON) });
export const MY_LISTS = closed({ lists: t.Array(CACHE_LIST) });

interface ListRow {
  id: number;
  user_id: number;
  name: string;
  public: number;
  created_at: number;
  updated_at: number;
  owner: string | null;
  count: number;
}

const SELECT = `SELECT l.*, (SELECT call FROM callsigns c WHERE c.user_id = l.user_id AND c.active = 1) AS owner,
  (SELECT count(*) FROM cache_list_items i WHERE i.list_id = l.id) AS count FROM cache_lists l`;

const json = (r: ListRow): CacheList => ({
  id: r.id,
  name: r.name,
  public: r.public === 1,
  owner: r.owner,
  count: r.count,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A new list (its name required); an edit sends either field. */
export const LIST_BODY = closed({
  name: t.String({ maxLength: 100, description: "1-100 characters" }),
  public: t.Optional(t.Boolean({ description: "true: anyone with its link reads it (and its GPX); false (default): yours only" })),
});
export const LIST_PATCH = t.Partial(LIST_BODY);
export type ListBody = Static<typeof LIST_BODY>;
export type ListPatch = Static<typeof LIST_PATCH>;

/** A list the reader may see: public, or theirs. 404 otherwise (a private list is not told apart from none). */
function visible(gw: Core, id: number, reader: Actor | null): ListRow {
  const r = gw.db.query(`${SELECT} WHERE l.id = ?`).get(id) as ListRow | null;
  if (!r || (r.public !== 1 && r.user_id !== reader?.userId)) throw notFound(`list ${id}`);
  return r;
}

/** A list the actor owns: 404 when it is not there or private to someone else, 403 when it is someone else's public one. */
function owned(gw: Core, id: number, actor: Actor): ListRow {
  const r = visible(gw, id, actor);
  if (r.user_id !== actor.userId) throw forbidden("only the list's owner may change it", "not_owner");
  return r;
}

export function myLists(gw: Core, actor: Actor): { lists: CacheList[] } {
  return { lists: (gw.db.query(`${SELECT} WHERE l.user_id = ? ORDER BY l.name, l.id`).all(actor.userId) as ListRow[]).map(json) };
}

export function createList(gw: Core, actor: Actor, body: ListBody): CacheList {
  const name = text(body.name, "name", 1, 100);
  const pub = body.public ?? false;
  const n = (gw.db.query("SELECT count(*) AS n FROM cache_lists WHERE user_id = ?").get(actor.userId) as { n: number }).n;
  if (n >= MAX_LISTS) throw badRequest("too_many", `at most ${MAX_LISTS} lists per account`);
  const now = gw.clock.now();
  const id = Number(
    gw.db.query("INSERT INTO cache_lists (user_id, name, public, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(actor.userId, name, pub ? 1 : 0, now, now)
      .lastInsertRowid,
  );
  return json(visible(gw, id, actor));
}

export function updateList(gw: Core, actor: Actor, id: number, body: ListPatch): CacheList {
  const r = owned(gw, id, actor);
  const name = body.name === undefined ? r.name : text(body.name, "name", 1, 100);
  const pub = body.public ?? r.public === 1;
  gw.db.query("UPDATE cache_lists SET name = ?, public = ?, updated_at = ? WHERE id = ?").run(name, pub ? 1 : 0, gw.clock.now(), id);
  return json(visible(gw, id, actor));
}

export function deleteList(gw: Core, actor: Actor, id: number): { deleted: true } {
  owned(gw, id, actor);
  gw.db.query("DELETE FROM cache_lists WHERE id = ?").run(id);
  return { deleted: true };
}

/** Adds a cache the actor can see (its id or gid); adding it again changes nothing. */
export function addToList(gw: Core, actor: Actor, id: number, cache: string): CacheList {
  owned(gw, id, actor);
  const { gid } = cacheDetail(gw, cache, actor);
  const n = (gw.db.query("SELECT count(*) AS n FROM cache_list_items WHERE list_id = ?").get(id) as { n: number }).n;
  if (n >= MAX_LIST_CACHES) throw badRequest("too_many", `at most ${MAX_LIST_CACHES} caches in a list`);
  const now = gw.clock.now();
  gw.db.transaction(() => {
    gw.db.query("INSERT OR IGNORE INTO cache_list_items (list_id, cache_gid, added_at) VALUES (?, ?, ?)").run(id, gid, now);
    gw.db.query("UPDATE cache_lists SET updated_at = ? WHERE id = ?").run(now, id);
  })();
  return json(visible(gw, id, actor));
}

export function removeFromList(gw: Core, actor: Actor, id: number, cache: string): CacheList {
  owned(gw, id, actor);
  const gid = cache.includes(":") ? cache : cacheDetail(gw, cache, actor).gid;
  gw.db.query("DELETE FROM cache_list_items WHERE list_id = ? AND cache_gid = ?").run(id, gid);
  return json(visible(gw, id, actor));
}

/** A list with its caches, newest added first; caches no longer held here (or no longer visible) are left out. */
export function listWithCaches(gw: Core, id: number, reader: Actor | null): CacheList & { caches: Cache[] } {
  const r = visible(gw, id, reader);
  const gids = gw.db.query("SELECT cache_gid AS gid FROM cache_list_items WHERE list_id = ? ORDER BY added_at DESC, cache_gid").all(id) as Array<{
    gid: string;
  }>;
  const caches: Cache[] = [];
  for (const { gid } of gids) {
    try {
      const { contact: _contact, mine: _mine, ...c } = cacheDetail(gw, gid, reader);
      caches.push(c);
    } catch {
      // archived away, deleted or a peer dropped: not shown
    }
  }
  return { ...json(r), caches };
}

/** The user's lists with their caches' gids, for the account export. */
export function listsOf(gw: Core, userId: number): Array<CacheList & { caches: string[] }> {
  return (gw.db.query(`${SELECT} WHERE l.user_id = ? ORDER BY l.id`).all(userId) as ListRow[]).map((r) => ({
    ...json(r),
    caches: (gw.db.query("SELECT cache_gid AS gid FROM cache_list_items WHERE list_id = ? ORDER BY added_at").all(r.id) as Array<{ gid: string }>).map(
      (x) => x.gid,
    ),
  }));
}
