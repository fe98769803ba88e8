/**
 * The cache layer on the map: caches in view, or the server's clusters when a
 * view holds too many; caches close together on screen are grouped too (a
 * click on a group zooms to it). Names show where they have room. Refreshed
 * when the map moves and every 30 s. Caches the signed-in user found show a tick.
 */
import L from "leaflet";
import { api } from "../api.ts";
import { cacheSvg } from "../map/cache-symbols.ts";
import { bubble, groupByPixels, labelBoard, markerSet, openGroup, type Group, type Item } from "../map/declutter.ts";
import type { MapAnswer, MapCache as ServerMapCache } from "../../src/game/caches.ts";

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
  return `<span class="cache-sym" data-type="${clean(c.type)}">${cacheSvg(c.type)}</span>${c.found ? '<span class="cache-found" title="found"><svg viewBox="0 0 12 12" width="12" height="12" aria-hidden="true"><path d="M2.5 6.2 5 8.6 9.6 3.6" fill="none" stroke="#fff" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"/></svg></span>' : ""}<span class="map-label cache-name">${clean(c.name)}</span>`;
}

const popupHtml = (c: MapCache) =>
  `<b>${clean(c.name)}</b> <span class="muted">${clean(c.code)}</span><br>${clean(c.type)} · ${clean(c.size)} · D${c.difficulty}/T${c.terrain}<br>` +
  `${c.finds} ${c.finds === 1 ? "find" : "finds"}${c.found ? " · you found it" : ""}${c.mirror ? ` · from ${clean(c.origin)} (${clean(c.trust ?? "?")} peer)` : ""}<br><a href="${cacheLink(c)}">open</a>`;

export interface CacheCount {
  /** caches in view */
  total: number;
  /** drawn as their own marker (the rest are in groups) */
  shown: number;
}

export function cacheLayer(map: L.Map, opts: { onCount?: (c: CacheCount) => void } = {}): () => void {
  const layer = L.layerGroup().addTo(map);
  const markers = markerSet(layer);
  const board = labelBoard(map);
  let answer: Answer | null = null;
  let labelled: Array<{ c: MapCache; lat: number; lon: number; key: string }> = [];
  let groups: Array<{ lat: number; lon: number; count: number }> = [];
  let stopped = false;
  let seq = 0;

  const listPopup = (g: Group<MapCache>) => {
    const items = g.members.slice(0, 200).map((c) => `<li><span class="cache-sym">${cacheSvg(c.type, 16)}</span> <a href="${cacheLink(c)}">${clean(c.name)}</a></li>`).join("");
    L.popup({ maxHeight: 260 })
      .setLatLng([g.lat, g.lon])
      .setContent(`<b>${g.count} caches here</b><ul class="group-list">${items}</ul>${g.count > g.members.length ? `<p class="muted">and ${g.count - g.members.length} more: zoom in</p>` : ""}`)
      .openOn(map);
  };

  const render = () => {
    if (stopped || !answer) return;
    const a = answer;
    const items: Item<MapCache>[] = [
      ...a.clusters.map((k) => ({ lat: k.lat, lon: k.lon, count: k.count, bbox: k.bbox })),
      ...a.caches.map((c) => ({ lat: c.lat, lon: c.lon, count: 1, one: c })),
    ];
    const out = groupByPixels(map, items);
    const wanted: Parameters<typeof markers.sync>[0] = [];
    labelled = [];
    groups = [];
    let shown = 0;
    for (const o of out) {
      if ("one" in o) {
        const c = o.one;
        const html = cacheIconHtml(c);
        const key = "c:" + c.gid;
        shown++;
        labelled.push({ c, lat: o.lat, lon: o.lon, key });
        wanted.push({
          key, lat: o.lat, lon: o.lon, html,
          make: () =>
            L.marker([o.lat, o.lon], {
              icon: L.divIcon({ className: `cache-icon map-point${c.status === "disabled" ? " disabled" : ""}${c.found ? " found" : ""}`, html, iconSize: [24, 24], iconAnchor: [12, 12] }),
              title: c.name,
            }).bindPopup(popupHtml(c)),
        });
      } else {
        const g = o;
        const size = bubble(g.count);
        const html = `<span>${g.count}</span>`;
        groups.push({ lat: g.lat, lon: g.lon, count: g.count });
        wanted.push({
          key: `g:${g.lat.toFixed(5)}:${g.lon.toFixed(5)}:${g.count}`, lat: g.lat, lon: g.lon, html: html + size,
          make: () => {
            const m = L.marker([g.lat, g.lon], {
              icon: L.divIcon({ className: "map-cluster cache-cluster", html, iconSize: [size, size], iconAnchor: [-1, size / 2] }),
              title: `${g.count} caches: zoom in`,
              zIndexOffset: 400,
            });
            m.on("click", () => openGroup(map, g, () => listPopup(g)));
            return m;
          },
        });
      }
    }
    markers.sync(wanted);
    board.schedule();
    opts.onCount?.({ total: a.total, shown });
  };

  board.add("caches", () => ({
    labels: labelled.map((l) => {
      const p = map.latLngToContainerPoint([l.lat, l.lon]);
      return { x: p.x, y: p.y, half: 12, text: l.c.name, prio: l.c.updatedAt ?? 0, el: markers.drawn.get(l.key)?.m.getElement() };
    }),
    boxes: groups.map((g) => {
      const p = map.latLngToContainerPoint([g.lat, g.lon]);
      return [p.x + bubble(g.count) / 2 + 1, p.y, bubble(g.count) / 2] as [number, number, number];
    }),
  }));

  const load = async () => {
    const mine = ++seq;
    const a = await api<Answer>(`/api/caches?singles=1&bbox=${viewBbox(map)}`);
    if (stopped || mine !== seq) return;
    answer = a;
    render();
  };
  const tick = () => void load().catch(() => {});
  map.on("moveend", tick);
  map.on("zoomend", render);
  tick();
  const timer = setInterval(tick, 30_000);
  return () => {
    stopped = true;
    clearInterval(timer);
    map.off("moveend", tick);
    map.off("zoomend", render);
    board.remove("caches");
    layer.remove();
  };
}
