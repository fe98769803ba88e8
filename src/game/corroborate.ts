/**
 * Find trust tiers (docs/api.md "Find trust tiers"):
 *
 *   a  an RF sighting corroborates the find: a position of the finder's
 *      callsign (any SSID) heard on the air by an IGate that is not the
 *      finder's own station, within TIER_A.radiusM of the cache and within
 *      TIER_A.windowMs before or after the time of the find. Or a quorum of
 *      trusted peers heard one (cross-instance corroboration, src/fed/corroborate.ts).
 *      "On the air" means what reached us through a hearer we trust
 *      (SIGHTING_VIAS): our own radio (not our own transmission heard back
 *      through a digipeater: via "echo", src/radio-node/echoes.ts) and the
 *      operator's radio box with the ingest secret; never a device key's
 *      /ingest post, which names no IGate (src/stations/ingest.ts), and never
 *      a line that came over APRS-IS (via "aprsis": the upstream feed or a
 *      client of our own APRS-IS server), whatever its path or q construct
 *      says: anyone with a computed passcode can upload `qAR,<any IGate>`.
 *   b  logged by an account whose callsign is verified (APRS challenge), or
 *      signed by the callsign's device key
 *   c  a claim: an unverified callsign, or relayed by the ingest box
 *
 * A find below Tier A is promoted later when a matching RF position arrives
 * (the `position` event), and is handed to cross-instance corroboration once.
 * The corroborating position is pinned (positions.find_id) so the pruner keeps
 * it as long as the find; withdrawing or deleting the find unpins it.
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { baseCall } from "../lib/callsign.ts";
import { distanceM } from "./model.ts";
import { republishLog } from "./log-record.ts";

/** The feeds (positions.via) whose RF hearing counts as a sighting: our radio's TNC and the ingest box. */
const SIGHTING_VIAS = ["tnc", "ingest"] as const;
const SIGHTING_SQL = SIGHTING_VIAS.map((v) => `'${v}'`).join(", ");
const isSightingVia = (via: string | undefined) => (SIGHTING_VIAS as readonly (string | undefined)[]).includes(via);

export const TIER_A = {
  /** the sighting is at most this far from the cache */
  radiusM: 150,
  /** and at most this long before or after the time of the find */
  windowMs: 2 * 3_600_000,
} as const;

export interface Sighting {
  positionId: number;
  igate: string;
  distanceM: number;
  ts: number;
}

/** Metres to degrees of latitude, with a margin; longitude scaled by latitude. */
const degLat = (m: number) => (m / 111_000) * 1.05;
const degLon = (m: number, lat: number) => degLat(m) / Math.max(0.01, Math.cos((lat * Math.PI) / 180));

/**
 * The nearest RF sighting of `call`'s base call near a point around a time,
 * or null. Cross-instance corroboration widens the radius and window (its
 * query is grid-snapped and time-bucketed) and leaves out the asker's IGates.
 */
export function localSighting(
  gw: Core,
  call: string,
  lat: number,
  lon: number,
  at: number,
  opts: { radiusM?: number; windowMs?: number; excludeIgates?: readonly string[] } = {},
): Sighting | null {
  const base = baseCall(call);
  const radiusM = opts.radiusM ?? TIER_A.radiusM;
  const windowMs = opts.windowMs ?? TIER_A.windowMs;
  const excluded = new Set((opts.excludeIgates ?? []).map(baseCall));
  const dLat = degLat(radiusM);
  const dLon = degLon(radiusM, lat);
  const rows = gw.db
    .query(
      `SELECT id, lat, lon, ts, igate FROM positions
       WHERE (call = ?1 OR (call >= ?1 || '-' AND call < ?1 || '.')) AND ts BETWEEN ?2 AND ?3
         AND source = 'rf' AND igate IS NOT NULL AND via IN (${SIGHTING_SQL}) AND lat BETWEEN ?4 AND ?5 AND lon BETWEEN ?6 AND ?7`,
    )
    .all(base, at - windowMs, at + windowMs, lat - dLat, lat + dLat, lon - dLon, lon + dLon) as Array<{
    id: number;
    lat: number;
    lon: number;
    ts: number;
    igate: string;
  }>;
  let best: Sighting | null = null;
  for (const r of rows) {
    if (baseCall(r.igate) === base) continue; // the finder's own IGate is not an independent witness
    if (excluded.has(baseCall(r.igate))) continue;
    const d = distanceM(lat, lon, r.lat, r.lon);
    if (d <= radiusM && (!best || d < best.distanceM)) best = { positionId: r.id, igate: r.igate, distanceM: Math.round(d * 100) / 100, ts: r.ts };
  }
  return best;
}

/** Pins a position to a find: the pruner keeps it while the find lives. */
export function pinPosition(gw: Core, logId: number, positionId: number): void {
  gw.db.query("UPDATE positions SET find_id = ? WHERE id = ? AND find_id IS NULL").run(logId, positionId);
}

/**
 * Releases a find's corroborating position. If another live find is
 * corroborated by the same position, the pin passes to it.
 */
export function unpinPosition(gw: Core, logId: number): void {
  const row = gw.db.query("SELECT corr_position_id AS p FROM logs WHERE id = ?").get(logId) as { p: number | null } | null;
  gw.db.query("UPDATE positions SET find_id = NULL WHERE find_id = ?").run(logId);
  if (row?.p) {
    gw.db
      .query(
        "UPDATE positions SET find_id = (SELECT id FROM logs WHERE corr_position_id = ?1 AND id <> ?2 AND state = 'active' LIMIT 1) WHERE id = ?1 AND find_id IS NULL",
      )
      .run(row.p, logId);
  }
}

export interface Evidence {
  /** local: a position this instance stored; peers: a quorum of trusted instances agreed */
  source: "local" | "peers";
  positionId?: number;
  igate?: string | null;
  distanceM?: number | null;
}

/**
 * Promotes a find to Tier A and re-publishes it. Issue 7 calls this with
 * `{ source: "peers" }` when the corroboration quorum agrees. Idempotent.
 * Runs inside the caller's transaction if there is one.
 */
export function promoteToTierA(gw: Core, logId: number, e: Evidence): boolean {
  return gw.db.transaction(() => {
    const r = gw.db.query("SELECT tier, kind, state FROM logs WHERE id = ?").get(logId) as { tier: string; kind: string; state: string } | null;
    if (!r || r.kind !== "find" || r.state !== "active" || r.tier === "a") return false;
    gw.db
      .query("UPDATE logs SET tier = 'a', corr_position_id = ?, corr_igate = ?, corr_distance_m = ?, corr_at = ?, corr_source = ?, updated_at = ? WHERE id = ?")
      .run(e.positionId ?? null, e.igate ?? null, e.distanceM ?? null, gw.clock.now(), e.source, gw.clock.now(), logId);
    if (e.positionId) pinPosition(gw, logId, e.positionId);
    republishLog(gw, logId);
    return true;
  })();
}

/** A find that could not reach Tier A from this instance's own positions. */
/** A find below Tier A that peers may corroborate (the `findPending` event). */
export type PendingFind = GatewayEvents["findPending"];

/**
 * Whether a stored position is an RF sighting that may corroborate a find or
 * a trackable's move: heard on the air through a hearer we trust, by an IGate
 * that is not the station's own.
 */
export function isSighting(p: GatewayEvents["position"]): p is GatewayEvents["position"] & { igate: string; positionId: number } {
  if (p.source !== "rf" || !p.igate || !p.positionId || !isSightingVia(p.via) || (p.kind && p.kind !== "station")) return false;
  return baseCall(p.igate) !== baseCall(p.call);
}

/**
 * A stored position: if it is an RF sighting that corroborates a pending
 * find of the same base call near its cache within the window, promote it.
 */
export function onPosition(gw: Core, p: GatewayEvents["position"]): void {
  if (!isSighting(p)) return;
  const base = baseCall(p.call);
  const from = p.ts - TIER_A.windowMs;
  const to = p.ts + TIER_A.windowMs;
  // Nearly every sighting has no pending find: ask the partial index alone first
  // (about 1 µs); the join with the caches costs 20-30 µs even when it finds nothing.
  if (
    !gw.db
      .query("SELECT 1 FROM logs WHERE base_call = ? AND kind = 'find' AND tier <> 'a' AND state = 'active' AND found_at BETWEEN ? AND ? LIMIT 1")
      .get(base, from, to)
  )
    return;
  const pending = gw.db
    .query(
      `SELECT l.id, COALESCE(c.lat, m.lat) AS lat, COALESCE(c.lon, m.lon) AS lon FROM logs l
       LEFT JOIN caches c ON c.id = l.cache_id LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid
       WHERE l.base_call = ? AND l.kind = 'find' AND l.tier <> 'a' AND l.state = 'active' AND l.found_at BETWEEN ? AND ?`,
    )
    .all(base, from, to) as Array<{ id: number; lat: number | null; lon: number | null }>;
  for (const f of pending) {
    if (f.lat === null || f.lon === null) continue;
    const d = distanceM(f.lat, f.lon, p.lat, p.lon);
    if (d <= TIER_A.radiusM) promoteToTierA(gw, f.id, { source: "local", positionId: p.positionId, igate: p.igate, distanceM: Math.round(d * 100) / 100 });
  }
}
