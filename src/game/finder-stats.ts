/**
 * A finder's statistics (issue: "finder statistics"), from the active finds
 * logged here under a base callsign, on this instance's caches and on the
 * mirrored caches of its peers (docs/api.md "GET /api/profile/:call/stats"):
 *
 *   dt        the 81-cell difficulty/terrain grid: dt[d][t] finds, d and t
 *             indexes 0..8 for 1, 1.5, ... 5
 *   days      finds per calendar day, 366 cells (index 0 = 1 January, 59 =
 *             29 February, 365 = 31 December), by the UTC date of the find
 *   streaks   the longest run of consecutive UTC days with a find, and the
 *             current one (ending today or yesterday), each {days, from, to}
 *   milestones the 1st, 10th, 25th, 50th, 100th... find: when, and which cache
 *   byType    finds per cache type; rfProven: Tier A finds, and their share
 *
 * A find on a cache no longer held here (deleted, or its peer dropped) still
 * counts, in the totals and days, but has no D/T or type: it is in `unknown`.
 */
import type { Core } from "../core/core.ts";
import { baseCall } from "../lib/callsign.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

const DAY_MS = 86_400_000;
const MILESTONES = [1, 10, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000];

/** A run of consecutive days with finds. */
export const STREAK = closed({
  days: wholeNumber(),
  from: t.String({ description: "the first day, YYYY-MM-DD (UTC)" }),
  to: t.String({ description: "the last day, YYYY-MM-DD (UTC)" }),
});
export type Streak = Static<typeof STREAK>;

/** A finder's statistics (GET /api/profile/:call/stats). */
export const FINDER_STATS = closed({
  call: t.String({ description: "the base callsign: its SSIDs count as one finder" }),
  finds: wholeNumber(),
  rfProven: wholeNumber({ description: "finds proven on RF (Tier A)" }),
  rfProvenShare: nullable(t.Number({ minimum: 0, maximum: 1 }), "rfProven / finds, 0..1; null without finds"),
  dt: t.Array(t.Array(wholeNumber()), { description: "finds by difficulty (row) and terrain (column), 9 x 9 cells for 1, 1.5 ... 5" }),
  days: t.Array(wholeNumber(), { description: "finds per calendar day, 366 cells from 1 January (29 February has its own)" }),
  byType: t.Record(t.String(), wholeNumber(), { description: "finds per cache type" }),
  unknown: wholeNumber({ description: "finds whose cache is not held here (no D/T, no type)" }),
  streaks: closed({
    longest: nullable(STREAK),
    current: nullable(STREAK, "the run that ends today or yesterday; null: none"),
  }),
  milestones: t.Array(
    closed({ n: wholeNumber({ description: "the 1st, 10th, 25th... find" }), at: unixMs(), cache: closed({ gid: t.String(), name: nullable(t.String()) }) }),
  ),
  firstFindAt: nullable(unixMs()),
  lastFindAt: nullable(unixMs()),
});
export type FinderStats = Static<typeof FINDER_STATS>;

interface FindRow {
  at: number;
  tier: string;
  gid: string;
  name: string | null;
  type: string | null;
  d: number | null;
  t: number | null;
}

/** Index 0..365 of a UTC date in a leap year's calendar (so 29 February has its own cell). */
function dayCell(at: number): number {
  const d = new Date(at);
  return Math.round((Date.UTC(2000, d.getUTCMonth(), d.getUTCDate()) - Date.UTC(2000, 0, 1)) / DAY_MS);
}

const isoDay = (dayNumber: number) => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
const grade = (v: number | null) => (v === null ? null : Math.round((Math.min(5, Math.max(1, v)) - 1) * 2));

export function finderStats(gw: Core, rawCall: string): FinderStats {
  const call = baseCall(rawCall.toUpperCase());
  const rows = gw.db
    .query(
      `SELECT l.found_at AS at, l.tier, l.cache_gid AS gid,
              coalesce(c.name, m.name) AS name, coalesce(c.type, m.type) AS type,
              coalesce(c.difficulty, m.difficulty) AS d, coalesce(c.terrain, m.terrain) AS t
       FROM logs l
       LEFT JOIN caches c ON c.id = l.cache_id
       LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid
       WHERE l.base_call = ? AND l.kind = 'find' AND l.state = 'active'
       ORDER BY l.found_at, l.id`,
    )
    .all(call) as FindRow[];
  const dt = Array.from({ length: 9 }, () => new Array<number>(9).fill(0));
  const days = new Array<number>(366).fill(0);
  const byType: Record<string, number> = {};
  let unknown = 0;
  let rfProven = 0;
  const dayNumbers = new Set<number>();
  const milestones: FinderStats["milestones"] = [];
  rows.forEach((r, i) => {
    days[dayCell(r.at)]!++;
    dayNumbers.add(Math.floor(r.at / DAY_MS));
    if (r.tier === "a") rfProven++;
    const d = grade(r.d);
    const t = grade(r.t);
    if (d === null || t === null || r.type === null) unknown++;
    else {
      dt[d]![t]!++;
      byType[r.type] = (byType[r.type] ?? 0) + 1;
    }
    if (MILESTONES.includes(i + 1)) milestones.push({ n: i + 1, at: r.at, cache: { gid: r.gid, name: r.name } });
  });
  return {
    call,
    finds: rows.length,
    rfProven,
    rfProvenShare: rows.length ? rfProven / rows.length : null,
    dt,
    days,
    byType,
    unknown,
    streaks: streaks(
      [...dayNumbers].sort((a, b) => a - b),
      Math.floor(gw.clock.now() / DAY_MS),
    ),
    milestones,
    firstFindAt: rows[0]?.at ?? null,
    lastFindAt: rows[rows.length - 1]?.at ?? null,
  };
}

/** The longest run of consecutive days, and the run that ends today or yesterday (a streak is not broken before the day is over). */
function streaks(sorted: number[], today: number): FinderStats["streaks"] {
  let longest: Streak | null = null;
  let current: Streak | null = null;
  let start = 0;
  for (let i = 0; i < sorted.length; i++) {
    const endsRun = i === sorted.length - 1 || sorted[i + 1] !== sorted[i]! + 1;
    if (!endsRun) continue;
    const run: Streak = { days: i - start + 1, from: isoDay(sorted[start]!), to: isoDay(sorted[i]!) };
    if (!longest || run.days > longest.days) longest = run;
    if (i === sorted.length - 1 && sorted[i]! >= today - 1) current = run;
    start = i + 1;
  }
  return { longest, current };
}
