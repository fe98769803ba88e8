/**
 * Live activity spots (`GET /api/spots`), off unless SPOTS_ENABLED: who was
 * active lately, in the hams' own coarse terms. A spot names a callsign, a
 * time and a 6-character Maidenhead locator (about 5 by 2.5 km), never an
 * exact position: stations heard, and finds logged on caches on the public
 * map. Off, the route answers 404 `spots_disabled` (docs/api.md).
 */
import type { Core } from "../core/core.ts";
import { AppError, badRequest } from "../lib/errors.ts";
import { locator } from "../lib/maidenhead.ts";
import { recentLogs } from "./logs.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, unixMs, wholeNumber } from "../lib/schema.ts";

const SPOTS = {
  windowMs: 3_600_000,
  maxWindowMs: 24 * 3_600_000,
  limit: 100,
  maxLimit: 500,
} as const;

/** A spot: who was active lately, where to about 5 km, never an exact position. */
export const SPOT = closed({
  kind: t.Union([t.Literal("station"), t.Literal("find")]),
  call: t.String(),
  ts: unixMs("when the station was heard, or the find logged"),
  grid: t.String({ description: "6-character Maidenhead locator" }),
  source: t.Optional(t.String({ description: "stations: how it was heard (rf, aprsis, ingest, ...)" })),
  igate: t.Optional(t.String({ description: "stations: the IGate that heard it on RF" })),
  cache: t.Optional(
    closed({ id: t.Union([wholeNumber(), t.String()]), gid: t.String(), name: t.String(), type: t.String() }, { description: "finds: the cache" }),
  ),
});
export type Spot = Static<typeof SPOT>;
/** Recent spots, newest first, and the time they are counted from. */
export const SPOT_LIST = closed({ spots: t.Array(SPOT), since: unixMs("spots after this, unix ms") });

export function listSpots(gw: Core, q: { since?: number; limit?: number }): Static<typeof SPOT_LIST> {
  if (!gw.config.spotsEnabled) throw new AppError(404, "spots_disabled", "live activity spots are off on this instance (SPOTS_ENABLED)");
  const now = gw.clock.now();
  if (q.limit !== undefined && (q.limit < 1 || q.limit > SPOTS.maxLimit)) throw badRequest("invalid", `limit is 1 to ${SPOTS.maxLimit}`);
  const since = Math.max(q.since ?? now - SPOTS.windowMs, now - SPOTS.maxWindowMs);
  const limit = q.limit ?? SPOTS.limit;
  const stations = gw.db
    .query(
      `SELECT call, last_position_at AS ts, lat, lon, source, igate FROM stations INDEXED BY stations_last_heard
       WHERE last_heard >= ?1 AND last_position_at >= ?1 AND kind = 'station' AND lat IS NOT NULL ORDER BY last_heard DESC LIMIT ?2`,
    )
    .all(since, limit) as Array<{ call: string; ts: number; lat: number; lon: number; source: string | null; igate: string | null }>;
  const spots: Spot[] = stations.map((s) => {
    const spot: Spot = { kind: "station", call: s.call, ts: s.ts, grid: locator(s.lat, s.lon) };
    if (s.source) spot.source = s.source;
    if (s.igate) spot.igate = s.igate;
    return spot;
  });
  for (const l of recentLogs(gw, { since, limit, kinds: ["find"] })) {
    spots.push({
      kind: "find",
      call: l.call,
      ts: l.ts,
      grid: locator(l.cache.lat, l.cache.lon),
      cache: { id: l.cache.id, gid: l.cache.gid, name: l.cache.name, type: l.cache.type },
    });
  }
  spots.sort((a, b) => b.ts - a.ts);
  return { spots: spots.slice(0, limit), since };
}
