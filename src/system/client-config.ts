/** GET /api/config: what the web app needs to know of this instance (also inlined in the map's page, http/ui.ts). */
import type { Core } from "../core/core.ts";
import { buildInfo } from "../lib/version.ts";
import type { ClientConfig } from "./shapes.ts";

export function clientConfig(gw: Core): ClientConfig {
  return {
    instance: gw.config.instance,
    version: buildInfo().version,
    tileUrl: gw.config.tileUrl,
    tileAttribution: gw.config.tileAttribution,
    spotsEnabled: gw.config.spotsEnabled,
    region: region(gw),
  };
}

/**
 * Where this instance plays, for a map with nothing better to start from (the
 * hide form's picker): the station's own beacon position, else the middle of
 * its active caches, else of the stations heard lately; null when it knows none.
 */
function region(gw: Core): { lat: number; lon: number; zoom: number; from: "station" | "caches" | "stations" } | null {
  const b = gw.config.stationBeacon;
  if (b) return { lat: b.lat, lon: b.lon, zoom: 11, from: "station" };
  const mid = (sql: string) => {
    const r = gw.db.query(sql).get() as { n: number; lat: number | null; lon: number | null };
    return r.n > 0 && r.lat !== null && r.lon !== null ? { lat: Math.round(r.lat * 1e5) / 1e5, lon: Math.round(r.lon * 1e5) / 1e5 } : null;
  };
  const caches = mid("SELECT count(*) AS n, avg(lat) AS lat, avg(lon) AS lon FROM caches WHERE status = 'active' AND source IS NULL");
  if (caches) return { ...caches, zoom: 10, from: "caches" };
  const stations = mid(
    "SELECT count(*) AS n, avg(lat) AS lat, avg(lon) AS lon FROM (SELECT lat, lon FROM stations WHERE lat IS NOT NULL ORDER BY last_heard DESC LIMIT 500)",
  );
  return stations ? { ...stations, zoom: 9, from: "stations" } : null;
}
