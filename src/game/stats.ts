/**
 * Read-only views over the game: the leaderboard, the activity feed
 * and the top corroborating IGates. Only active, listed caches and active
 * logs count; withdrawn finds never do.
 */
import type { Core } from "../core/core.ts";
import { cacheJson, type CacheRow } from "./caches.ts";
import { logJson } from "./logs.ts";
import type { LogRow } from "./log-record.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";
import { CACHE_JSON, LOG_JSON } from "./shapes.ts";

const clampLimit = (v: number | undefined, def: number, max: number) => Math.min(Math.max(1, v ?? def), max);

/** Top finders and hiders (GET /api/leaderboard). */
export const LEADERBOARD = closed({
  since: nullable(unixMs(), "counted from, unix ms; null: all time"),
  finders: t.Array(
    closed({ call: t.String({ description: "a base callsign" }), finds: wholeNumber(), tierA: wholeNumber({ description: "finds proven on RF" }) }),
  ),
  hiders: t.Array(
    closed({
      call: t.String({ description: "a base callsign" }),
      caches: wholeNumber(),
      finds: wholeNumber({ description: "finds of their caches" }),
      favorites: wholeNumber({ description: "favorites of their caches" }),
    }),
  ),
});
export type Leaderboard = Static<typeof LEADERBOARD>;

/** Top finders (by finds, then Tier A) and hiders (by caches), optionally since a time. */
export function leaderboard(gw: Core, opts: { since?: number; limit?: number } = {}): Leaderboard {
  const n = clampLimit(opts.limit, 20, 100);
  const since = opts.since ?? 0;
  const finders = gw.db
    .query(
      `SELECT base_call AS call, count(*) AS finds, sum(tier = 'a') AS tierA FROM logs
       WHERE kind = 'find' AND state = 'active' AND base_call IS NOT NULL AND found_at >= ?
       GROUP BY base_call ORDER BY finds DESC, tierA DESC, call LIMIT ?`,
    )
    .all(since, n) as Leaderboard["finders"];
  const hiders = gw.db
    .query(
      `SELECT CASE WHEN instr(c.owner_call, '-') > 0 THEN substr(c.owner_call, 1, instr(c.owner_call, '-') - 1) ELSE c.owner_call END AS call,
         count(*) AS caches,
         sum((SELECT count(*) FROM logs l WHERE l.cache_id = c.id AND l.kind = 'find' AND l.state = 'active')) AS finds,
         sum((SELECT count(*) FROM favorites f WHERE f.cache_id = c.id)) AS favorites
       FROM caches c WHERE c.status IN ('active', 'disabled') AND c.unlisted = 0 AND c.source IS NULL AND c.owner_call IS NOT NULL AND c.placed_at >= ?
       GROUP BY 1 ORDER BY caches DESC, finds DESC, call LIMIT ?`,
    )
    .all(since, n) as Leaderboard["hiders"];
  return { since: opts.since ?? null, finders, hiders };
}

/** One item of the activity feed: a log, or a newly hidden cache. */
export const ACTIVITY_ITEM = t.Union([
  closed({
    type: t.Literal("log"),
    ...LOG_JSON.properties,
    cacheName: t.String({ description: "the cache's name (its gid when it is not known here)" }),
    cacheId: t.Union([wholeNumber(), t.String()], { description: "native: the local id; mirrored: the gid" }),
  }),
  closed({ type: t.Literal("cache"), at: unixMs("hidden at, unix ms"), cache: CACHE_JSON }),
]);
export type ActivityItem = Static<typeof ACTIVITY_ITEM>;
/** Recent finds, hides and notes, newest first (GET /api/activity). */
export const ACTIVITY = closed({ items: t.Array(ACTIVITY_ITEM) });

/** The IGates and digipeaters that heard the most RF finds (GET /api/corroborators). */
export const CORROBORATORS = closed({
  igates: t.Array(
    closed({
      call: t.String({ description: "the IGate" }),
      finds: wholeNumber({ description: "Tier A finds it corroborated" }),
      finders: wholeNumber({ description: "distinct finders" }),
      lastAt: unixMs("its latest, unix ms"),
    }),
  ),
});

/** Recent logs and newly hidden caches, newest first. */
export function activity(gw: Core, opts: { since?: number; limit?: number; call?: string } = {}): Static<typeof ACTIVITY> {
  const n = clampLimit(opts.limit, 50, 200);
  const since = opts.since ?? 0;
  const callSql = opts.call ? " AND l.base_call = ?" : "";
  const callArgs = opts.call ? [opts.call] : [];
  const logs = gw.db
    .query(
      `SELECT l.*, COALESCE(c.name, m.name) AS cache_name FROM logs l
       LEFT JOIN caches c ON c.id = l.cache_id LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid
       WHERE l.state = 'active' AND l.created_at >= ? AND (c.id IS NULL OR (c.unlisted = 0 AND c.status <> 'draft'))${callSql}
       ORDER BY l.created_at DESC, l.id DESC LIMIT ?`,
    )
    .all(since, ...callArgs, n) as Array<LogRow & { cache_name: string | null }>;
  const ownerSql = opts.call ? " AND (owner_call = ? OR owner_call LIKE ? || '-%')" : "";
  const caches = gw.db
    .query(
      `SELECT * FROM caches WHERE status IN ('active', 'disabled') AND unlisted = 0 AND created_at >= ?${ownerSql} ORDER BY created_at DESC, id DESC LIMIT ?`,
    )
    .all(since, ...(opts.call ? [opts.call, opts.call] : []), n) as CacheRow[];
  const items: ActivityItem[] = [
    ...logs.map((r) => ({ type: "log" as const, ...logJson(gw, r), cacheName: r.cache_name ?? r.cache_gid, cacheId: r.cache_id ?? r.cache_gid })),
    ...caches.map((r) => ({ type: "cache" as const, at: r.created_at, cache: cacheJson(gw, r) })),
  ];
  const at = (i: ActivityItem) => (i.type === "log" ? i.createdAt : i.at);
  return { items: items.sort((a, b) => at(b) - at(a)).slice(0, n) };
}

/** IGates whose RF sightings corroborated the most finds here (Tier A, local). */
export function corroborators(gw: Core, opts: { since?: number; limit?: number } = {}): Static<typeof CORROBORATORS> {
  const n = clampLimit(opts.limit, 20, 100);
  const igates = gw.db
    .query(
      `SELECT corr_igate AS call, count(*) AS finds, count(DISTINCT base_call) AS finders, max(corr_at) AS lastAt FROM logs
       WHERE corr_igate IS NOT NULL AND tier = 'a' AND state = 'active' AND corr_at >= ? GROUP BY corr_igate ORDER BY finds DESC, call LIMIT ?`,
    )
    .all(opts.since ?? 0, n) as Static<typeof CORROBORATORS>["igates"];
  return { igates };
}

/** The pages of listed caches for the sitemap (the sitemap protocol allows 50,000 URLs a file). */
export function sitemapCaches(gw: Core, limit = 45_000): Array<{ path: string; lastmod: string }> {
  return (
    gw.db.query("SELECT id, updated_at AS at FROM caches WHERE status IN ('active', 'disabled') AND unlisted = 0 ORDER BY id LIMIT ?").all(limit) as Array<{
      id: number;
      at: number;
    }>
  ).map((r) => ({
    path: `/cache/${r.id}`,
    lastmod: new Date(r.at).toISOString().slice(0, 10),
  }));
}
