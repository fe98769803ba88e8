/**
 * A maintenance need logged on another instance, about a cache hidden here:
 * a trusted peer's needs-maintenance or needs-archive find record naming one
 * of this instance's caches raises its flag (and publishes its record again),
 * unless the owner logged maintenance or enabled it after that log. Called by
 * the apply pipeline (src/fed/apply.ts) for each find record it stores,
 * inside its transaction.
 */
import type { Core } from "../core/core.ts";
import { findFromWire, type FindBody } from "../lib/fed/bodies.ts";
import { parseGid, type Payload } from "../lib/fed/record.ts";
import { cacheRow } from "./cache-lookup.ts";
import { setCacheState } from "./cache-writes.ts";
import { localGid } from "../fed/feed.ts";

export function remoteMaintenanceNeed(gw: Core, p: Payload): void {
  const f = findFromWire(p.body as unknown as FindBody);
  if ((f.kind !== "needs-maintenance" && f.kind !== "needs-archive") || f.state === "withdrawn") return;
  const g = parseGid(f.cache);
  if (!g || g.kind !== "cache" || g.origin !== gw.config.instance || !/^\d{1,15}$/.test(g.localId)) return;
  const trusted = gw.db.query("SELECT 1 FROM peers WHERE instance = ? AND trust = 'trusted'").get(p.origin);
  if (!trusted) return;
  const r = cacheRow(gw, Number(g.localId));
  if (!r || r.source !== null || r.needs_maintenance === 1 || (r.status !== "active" && r.status !== "disabled")) return;
  // an older report the owner has dealt with since stays closed (the wire's times are whole seconds: the same second counts as after)
  const cleared = gw.db
    .query("SELECT max(found_at) AS at FROM logs WHERE cache_gid = ? AND kind IN ('owner-maintenance', 'enable') AND state = 'active'")
    .get(localGid(gw, "cache", r.id)) as { at: number | null };
  if (cleared.at !== null && f.loggedAt < Math.floor(cleared.at / 1000) * 1000) return;
  setCacheState(gw, r.id, { needsMaintenance: true });
}
