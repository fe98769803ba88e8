/**
 * Logs as the live feeds show them: only logs on caches that are on the
 * public map (native caches active or disabled and listed; mirrored caches of
 * trusted peers, listed), so a live room never reveals where an unlisted or
 * draft cache is. Rooms, snapshots and spots read logs through here.
 */
import type { Core } from "../core/core.ts";
import { LOG_KINDS, type LogKind } from "../game/model.ts";

export interface LiveLog {
  logId: number;
  /** any log kind: find, dnf, note, and the maintenance and event kinds (needs-maintenance, will-attend, attended, ...) */
  kind: LogKind;
  call: string;
  /** when it was logged, unix ms */
  ts: number;
  cache: {
    /** native: the local id; mirrored: the gid (as `Cache.id`) */
    id: number | string;
    gid: string;
    name: string;
    type: string;
    lat: number;
    lon: number;
  };
}

interface Row {
  id: number;
  kind: LiveLog["kind"];
  call: string;
  ts: number;
  cache_id: number | null;
  cache_gid: string;
  name: string;
  type: string;
  lat: number;
  lon: number;
}

const SELECT = `SELECT l.id, l.kind, l.call, l.created_at AS ts, l.cache_id, l.cache_gid,
    coalesce(c.name, m.name) AS name, coalesce(c.type, m.type) AS type, coalesce(c.lat, m.lat) AS lat, coalesce(c.lon, m.lon) AS lon
  FROM logs l
  LEFT JOIN caches c ON c.id = l.cache_id
  LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid
  LEFT JOIN peers p ON p.instance = m.origin
  WHERE l.state = 'active' AND l.call IS NOT NULL
    AND ((c.id IS NOT NULL AND c.status IN ('active', 'disabled') AND c.unlisted = 0)
      OR (m.gid IS NOT NULL AND p.trust = 'trusted' AND m.unlisted = 0 AND m.status IN ('active', 'disabled')))`;

const toLive = (r: Row): LiveLog => ({
  logId: r.id,
  kind: r.kind,
  call: r.call,
  ts: r.ts,
  cache: { id: r.cache_id ?? r.cache_gid, gid: r.cache_gid, name: r.name, type: r.type, lat: r.lat, lon: r.lon },
});

/** One log as the live feeds show it; null when its cache is not on the public map. */
export function liveLog(gw: Core, logId: number): LiveLog | null {
  const r = gw.db.query(`${SELECT} AND l.id = ?`).get(logId) as Row | null;
  return r && toLive(r);
}

/** Logs since a time, newest first, optionally only finds and only inside `inside`. */
export function recentLogs(
  gw: Core,
  opts: { since: number; limit: number; kinds?: ReadonlyArray<LiveLog["kind"]>; inside?: (lat: number, lon: number) => boolean },
): LiveLog[] {
  const kinds = opts.kinds ?? LOG_KINDS;
  const out: LiveLog[] = [];
  // Logs are few next to positions: walk the newest and keep those inside.
  const stmt = gw.db.query(`${SELECT} AND l.created_at >= ? AND l.kind IN (SELECT value FROM json_each(?)) ORDER BY l.created_at DESC, l.id DESC LIMIT 5000`);
  for (const r of stmt.iterate(opts.since, JSON.stringify(kinds)) as IterableIterator<Row>) {
    if (opts.inside && !opts.inside(r.lat, r.lon)) continue;
    out.push(toLive(r));
    if (out.length >= opts.limit) break;
  }
  return out;
}
