/**
 * A cache's logbook in two figures, for the top of its page: how many logs of
 * each kind (active ones, this instance's and those mirrored from the cache's
 * origin) and when it was last found. Read with the cache (cacheDetail), so
 * the page's first view has them too.
 */
import type { Core } from "../core/core.ts";
import type { LogSummary } from "./shapes.ts";

export type { LogSummary } from "./shapes.ts";

export function logSummary(gw: Core, gid: string): LogSummary {
  const rows = gw.db
    .query(
      `SELECT kind, sum(n) AS n, max(last) AS last FROM (
         SELECT kind, count(*) AS n, max(CASE WHEN kind = 'find' THEN found_at END) AS last FROM logs
          WHERE cache_gid = ?1 AND state = 'active' GROUP BY kind
         UNION ALL
         SELECT kind, count(*), max(CASE WHEN kind = 'find' THEN logged_at END) FROM mirror_finds
          WHERE cache_gid = ?1 AND (state IS NULL OR state <> 'withdrawn') GROUP BY kind
       ) GROUP BY kind ORDER BY kind`,
    )
    .all(gid) as Array<{ kind: string; n: number; last: number | null }>;
  return {
    logCounts: Object.fromEntries(rows.map((r) => [r.kind, r.n])),
    lastFoundAt: rows.find((r) => r.kind === "find")?.last ?? null,
  };
}
