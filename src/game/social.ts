/**
 * What players add to a native cache: ratings 1-5 and favorites (finders
 * only: an active find of the account on the cache), and watches (any
 * signed-in account; stored by the accounts' watchlist, src/accounts/prefs.ts).
 */
import type { Core } from "../core/core.ts";
import { forbidden } from "../lib/errors.ts";
import { setWatch } from "../accounts/prefs.ts";
import { visibleRow } from "./cache-lookup.ts";
import type { Actor } from "./model.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON_FIELDS, type MY_CACHE_STATE } from "./shapes.ts";

/** What rating a cache answers: your stars and the cache's rating after it. */
export const RATED = closed({
  stars: nullable(wholeNumber({ minimum: 1, maximum: 5 }), "your rating; null: removed"),
  rating: CACHE_JSON_FIELDS.rating,
});
/** What marking a favorite answers: whether it is yours now, and the cache's count. */
export const FAVORITED = closed({ favorite: t.Boolean(), favorites: wholeNumber({ description: "the cache's favorites" }) });
/** What watching a cache answers. */
export const WATCHED = closed({ watch: t.Boolean() });

function requireFinder(gw: Core, cacheId: number, userId: number): void {
  const found = gw.db.query("SELECT 1 FROM logs WHERE cache_id = ? AND user_id = ? AND kind = 'find' AND state = 'active'").get(cacheId, userId);
  if (!found) throw forbidden("only finders of this cache may do this: log your find first", "not_a_finder");
}

const summary = (gw: Core, cacheId: number) =>
  gw.db
    .query("SELECT avg(stars) AS avg, count(*) AS n, (SELECT count(*) FROM favorites WHERE cache_id = ?1) AS favorites FROM ratings WHERE cache_id = ?1")
    .get(cacheId) as {
    avg: number | null;
    n: number;
    favorites: number;
  };

/** `{stars: 1-5}` sets the account's rating; `{stars: null}` removes it. */
export function rateCache(gw: Core, actor: Actor, id: number, body: { stars: number | null }): Static<typeof RATED> {
  visibleRow(gw, id, actor);
  const userId = actor.userId!;
  requireFinder(gw, id, userId);
  if (body.stars === null) gw.db.query("DELETE FROM ratings WHERE cache_id = ? AND user_id = ?").run(id, userId);
  else {
    gw.db
      .query(
        "INSERT INTO ratings (cache_id, user_id, stars, created_at) VALUES (?, ?, ?, ?) ON CONFLICT(cache_id, user_id) DO UPDATE SET stars = excluded.stars",
      )
      .run(id, userId, body.stars, gw.clock.now());
  }
  const s = summary(gw, id);
  return { stars: body.stars ?? null, rating: { average: s.avg === null ? null : Math.round(s.avg * 10) / 10, count: s.n } };
}

/** `{favorite: true|false}` (default true). */
export function favoriteCache(gw: Core, actor: Actor, id: number, body: { favorite?: boolean }): Static<typeof FAVORITED> {
  visibleRow(gw, id, actor);
  const userId = actor.userId!;
  const on = body.favorite ?? true;
  if (on) {
    requireFinder(gw, id, userId);
    gw.db.query("INSERT OR IGNORE INTO favorites (cache_id, user_id, created_at) VALUES (?, ?, ?)").run(id, userId, gw.clock.now());
  } else gw.db.query("DELETE FROM favorites WHERE cache_id = ? AND user_id = ?").run(id, userId);
  return { favorite: on, favorites: summary(gw, id).favorites };
}

/** `{watch: true|false}` (default true): alerts for new logs, by the account's notification settings. */
export function watchCache(gw: Core, actor: Actor, id: number, body: { watch?: boolean }): Static<typeof WATCHED> {
  visibleRow(gw, id, actor);
  const on = body.watch ?? true;
  return { watch: setWatch(gw, actor.userId!, id, on) };
}

/** The signed-in account's own relation to a cache, for the cache page. */
export function myCacheState(gw: Core, userId: number, cacheId: number): Static<typeof MY_CACHE_STATE> {
  const r = gw.db
    .query(
      `SELECT (SELECT stars FROM ratings WHERE cache_id = ?1 AND user_id = ?2) AS stars,
         EXISTS (SELECT 1 FROM favorites WHERE cache_id = ?1 AND user_id = ?2) AS favorite,
         EXISTS (SELECT 1 FROM watches WHERE cache_id = ?1 AND user_id = ?2) AS watch,
         EXISTS (SELECT 1 FROM logs WHERE cache_id = ?1 AND user_id = ?2 AND kind = 'find' AND state = 'active') AS found`,
    )
    .get(cacheId, userId) as { stars: number | null; favorite: number; watch: number; found: number };
  return { stars: r.stars, favorite: r.favorite === 1, watch: r.watch === 1, found: r.found === 1 };
}
