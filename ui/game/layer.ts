/**
 * The cache layer on the map: caches in view, or the server's clusters when a
 * view holds too many; the map's crowd (ui/map/crowd.ts) groups what is close
 * together on screen, with the stations (a click on a group zooms to it).
 * Names show where they have room. Refreshed when the map moves and every
 * 30 s. Caches the signed-in user found show a tick.
 */
import type L from "leaflet";
import { api } from "../api.ts";
import { cacheSvg } from "../map/cache-symbols.ts";
import { crowdOf, type Kind } from "../map/crowd.ts";
import { cellsFor } from "../map/declutter.ts";
import { filterQuery, onCacheFilter } from "./filters.ts";
import type { MapAnswer, MapCache as ServerMapCache } from "../../src/game/caches.ts";
import { t } from "../i18n/i18n.ts";
import { sizeLabel, typeLabel } from "./labels.ts";
import { waypointsOnPopup } from "./waypoints-map.ts";

/** A cache on the map as the server sends it, with `found` for the signed-in finder. */
export type MapCache = ServerMapCache & { found?: boolean };
type Answer = Omit<MapAnswer, "caches"> & { caches: MapCache[] };

const clean = (s: string) => s.replace(/[<>&"]/g, "");

/** The view as `minLon,minLat,maxLon,maxLat`, wrapped into -180..180 (west > east across the antimeridian). */
export function viewBbox(map: L.Map): string {
  const b = map.getBounds();
  const wrap = (x: number) => ((((x + 180) % 360) + 360) % 360) - 180;
  let west = b.getWest();
  let east = b.getEast();
  if (east - west >= 360) {
    west = -180;
    east = 180;
  } else {
    west = wrap(west);
    east = wrap(east);
    if (east === -180) east = 180;
  }
  const south = Math.max(-90, b.getSouth());
  const north = Math.min(90, b.getNorth());
  return [west, south, east, north].map((v) => v.toFixed(5)).join(",");
}

export const cacheLink = (c: MapCache) => (c.station ? `/station/${encodeURIComponent(c.station)}` : `/cache/${encodeURIComponent(String(c.id))}`);

function cacheIconHtml(c: MapCache): string {
  return `<span class="cache-sym" data-type="${clean(c.type)}">${cacheSvg(c.type)}</span>${c.found ? `<span class="cache-found" title="${clean(t("cache.foundMark"))}"><svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true"><path d="M2.5 6.2 5 8.6 9.6 3.6" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg></span>` : ""}<span class="map-label cache-name">${clean(c.name)}</span>`;
}

/** A peer's cache: where it came from and how far that peer is trusted. */
const peerWords = (c: MapCache) =>
  `${t("cache.from")} ${c.origin} (${c.trust === "trusted" ? t("cache.peerTrusted") : c.trust === "unvetted" ? t("cache.peerUnvetted") : t("cache.peerOther", { trust: c.trust ?? "?" })})`;

const popupHtml = (c: MapCache) =>
  `<b>${clean(c.name)}</b> <span class="muted">${clean(c.code)}</span><br>${clean(typeLabel(c.type))} · ${clean(sizeLabel(c.size))} · D${c.difficulty}/T${c.terrain}<br>` +
  `${clean(t("cache.finds", { count: c.finds }))}${c.found ? ` · ${clean(t("cache.youFoundIt"))}` : ""}${c.mirror ? ` · ${clean(peerWords(c))}` : ""}<br><a href="${cacheLink(c)}">${clean(t("cache.open"))}</a>`;

export function cacheLayer(map: L.Map): () => void {
  const crowd = crowdOf(map);
  let stopped = false;
  let seq = 0;
  const kind: Kind<MapCache> = {
    name: "caches",
    cluster: "cache-cluster",
    order: 1,
    noun: ["cache", "caches"],
    key: (c) => c.gid,
    className: (c) => `cache-icon${c.status === "disabled" ? " disabled" : ""}${c.found ? " found" : ""}`,
    html: cacheIconHtml,
    title: (c) => c.name,
    label: (c) => ({ text: c.name, prio: c.updatedAt ?? 0 }),
    bind: (c, m) => {
      m.bindPopup(popupHtml(c));
      // its parking, stages... while the popup is open (a living cache has none)
      if (!c.station) waypointsOnPopup(map, m, String(c.id));
    },
    // from the keyboard: the cache's page
    open: (c) => location.assign(cacheLink(c)),
    async list(points) {
      const rows = points.slice(0, 200);
      return {
        html: rows.map((c) => `<li><span class="cache-sym">${cacheSvg(c.type, 16)}</span> <a href="${cacheLink(c)}">${clean(c.name)}</a></li>`).join(""),
        shown: rows.length,
      };
    },
  };
  const load = async () => {
    const mine = ++seq;
    const a = await api<Answer>(`/api/caches?singles=1&cells=${cellsFor(map)}&bbox=${viewBbox(map)}${filterQuery()}`);
    if (stopped || mine !== seq) return;
    crowd.set(kind, [
      ...a.clusters.map((k) => ({ lat: k.lat, lon: k.lon, count: k.count, bbox: k.bbox })),
      ...a.caches.map((c) => ({ lat: c.lat, lon: c.lon, count: 1, one: c })),
    ]);
  };
  const tick = () => void load().catch(() => {});
  map.on("moveend", tick);
  // the filter panel's filters (ui/game/filters.ts) apply on the server
  const unfilter = onCacheFilter(tick);
  tick();
  const timer = setInterval(tick, 30_000);
  return () => {
    stopped = true;
    unfilter();
    clearInterval(timer);
    map.off("moveend", tick);
    crowd.remove("caches");
  };
}
