/**
 * The cache layer on the map: caches in view, or the server's clusters when a
 * view holds too many (a click on a cluster zooms to it). Refreshed when the
 * map moves and every 30 s. Caches the signed-in user found show a tick.
 */
import L from "leaflet";
import { api } from "../api.ts";
import type { MapAnswer, MapCache as ServerMapCache } from "../../src/game/caches.ts";

/** A cache on the map as the server sends it, with `found` for the signed-in finder. */
export type MapCache = ServerMapCache & { found?: boolean };
type Answer = Omit<MapAnswer, "caches"> & { caches: MapCache[] };

const GLYPH: Record<string, string> = { traditional: "📦", multi: "🧭", mystery: "❓", letterbox: "✉", virtual: "👻", event: "🎪", audio: "🎧", earth: "🌍", webcam: "📷", living: "📡", other: "◆" };
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

function cacheIcon(c: MapCache) {
  return L.divIcon({
    className: `cache-icon${c.status === "disabled" ? " disabled" : ""}${c.found ? " found" : ""}`,
    html: `<span class="cache-sym">${GLYPH[c.type] ?? "◆"}</span>${c.found ? '<span class="cache-found" title="found">✓</span>' : ""}<span class="cache-name">${clean(c.name)}</span>`,
    iconSize: [26, 26],
    iconAnchor: [13, 13],
  });
}

export function cacheLayer(map: L.Map, opts: { onCount?: (a: Answer) => void } = {}): () => void {
  const layer = L.layerGroup().addTo(map);
  let stopped = false;
  let seq = 0;
  const load = async () => {
    const mine = ++seq;
    const a = await api<Answer>(`/api/caches?bbox=${viewBbox(map)}`);
    if (stopped || mine !== seq) return;
    layer.clearLayers();
    for (const k of a.clusters) {
      const size = k.count < 10 ? 30 : k.count < 100 ? 36 : k.count < 1000 ? 44 : 52;
      const m = L.marker([k.lat, k.lon], {
        icon: L.divIcon({ className: "cache-cluster", html: `<span>${k.count}</span>`, iconSize: [size, size], iconAnchor: [size / 2, size / 2] }),
        title: `${k.count} caches`,
      }).addTo(layer);
      m.on("click", () => {
        const [w, s, e, n] = k.bbox;
        if (w === e && s === n) map.setView([s, w], Math.min(map.getZoom() + 3, 18));
        else map.fitBounds([[s, w], [n, e]], { padding: [30, 30] });
      });
    }
    for (const c of a.caches) {
      const m = L.marker([c.lat, c.lon], { icon: cacheIcon(c), title: c.name }).addTo(layer);
      m.bindPopup(
        `<b>${clean(c.name)}</b> <span class="muted">${clean(c.code)}</span><br>${clean(c.type)} · ${clean(c.size)} · D${c.difficulty}/T${c.terrain}<br>` +
          `${c.finds} ${c.finds === 1 ? "find" : "finds"}${c.found ? " · you found it" : ""}${c.mirror ? ` · from ${clean(c.origin)} (${clean(c.trust ?? "?")} peer)` : ""}<br><a href="${cacheLink(c)}">open</a>`,
      );
    }
    opts.onCount?.(a);
  };
  const tick = () => void load().catch(() => {});
  map.on("moveend", tick);
  tick();
  const timer = setInterval(tick, 30_000);
  return () => {
    stopped = true;
    clearInterval(timer);
    map.off("moveend", tick);
    layer.remove();
  };
}
