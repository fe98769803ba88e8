import { useEffect, useRef, useState } from "preact/hooks";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { clientConfig } from "../api.ts";
import { addBaseLayer } from "../map/basemap.ts";
import { stationLayer } from "../stations/layer.ts";
import { cacheLayer } from "../game/layer.ts";
import { crowdOf, type KindCount } from "../map/crowd.ts";
import { addSaveViewControl, initialView } from "../map/view.ts";
import { liveRooms, type LiveLog, type LiveState } from "../live/socket.ts";
import { addSaveAreaControl } from "../offline/save-area.tsx";

/** Live logs kept in the activity panel. */
const FEED = 8;
const VERB = { find: "found", dnf: "did not find", note: "wrote on" } as const;
const clean = (s: string) => s.replace(/[<>&"]/g, "");
const cacheHref = (l: LiveLog) => `/cache/${encodeURIComponent(String(l.cache.id))}`;
const n = (v: number) => v.toLocaleString("en");
const plural = (v: number, one: string) => `${n(v)} ${one}${v === 1 ? "" : "s"}`;

/** What the map shows of the view: everything, or how much is grouped (and so not drawn one by one). */
function ViewCount({ stations, caches }: { stations: KindCount | null; caches: KindCount | null }) {
  if (!stations || !caches) return null;
  const grouped = stations.shown < stations.total || caches.shown < caches.total;
  return (
    <div class={`map-count${grouped ? " grouped" : ""}`} data-testid="map-count" data-grouped={grouped ? "true" : "false"}>
      {grouped
        ? `Showing ${[
            stations.total ? `${n(stations.shown)} of ${plural(stations.total, "station")}` : "",
            caches.total ? `${n(caches.shown)} of ${plural(caches.total, "cache")}` : "",
          ].filter(Boolean).join(", ")} · zoom in or open a group for the rest`
        : `${plural(stations.total, "station")}, ${plural(caches.total, "cache")} in view`}
    </div>
  );
}

/** The view as a `bbox=` (west,south,east,north; west > east across the antimeridian). */
export function viewBbox(map: L.Map): string {
  const b = map.getBounds();
  const clampLat = (v: number) => Math.max(-90, Math.min(90, v));
  const wrap = (v: number) => L.Util.wrapNum(v, [-180, 180], true);
  const [west, east] = b.getEast() - b.getWest() >= 360 ? [-180, 180] : [wrap(b.getWest()), wrap(b.getEast())];
  return [west, clampLat(b.getSouth()), east, clampLat(b.getNorth())].map((v) => Number(v.toFixed(5))).join(",");
}

/** A link that downloads the GPX of the caches in view (GET /api/v1/caches.gpx?bbox=). */
function addGpxControl(map: L.Map): void {
  const control = new L.Control({ position: "topright" });
  control.onAdd = () => {
    const a = L.DomUtil.create("a", "button map-gpx") as HTMLAnchorElement;
    a.textContent = "GPX of this view";
    a.download = "caches.gpx";
    a.title = "Download the caches in view as GPX";
    const update = () => (a.href = `/api/v1/caches.gpx?bbox=${viewBbox(map)}`);
    update();
    map.on("moveend", update);
    L.DomEvent.disableClickPropagation(a);
    return a;
  };
  control.addTo(map);
}

export function MapPage() {
  const el = useRef<HTMLDivElement>(null);
  const [offline, setOffline] = useState<null | "off" | "unreachable">(null);
  const [live, setLive] = useState<LiveState>("connecting");
  const [feed, setFeed] = useState<LiveLog[]>([]);
  const [stationCount, setStationCount] = useState<KindCount | null>(null);
  const [cacheCount, setCacheCount] = useState<KindCount | null>(null);
  useEffect(() => {
    const start = initialView();
    const map = L.map(el.current!, { worldCopyJump: true, zoomControl: true, maxZoom: 19 }).setView(start.center, start.zoom);
    addSaveViewControl(map);
    addGpxControl(map);
    addSaveAreaControl(map);
    L.control.scale({ imperial: false }).addTo(map);
    let cancelled = false;
    clientConfig().then((cfg) => {
      if (!cancelled) addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, setOffline);
    });
    const same = (set: (f: (p: KindCount | null) => KindCount | null) => void, c: KindCount) => set((p) => (p && p.total === c.total && p.shown === c.shown ? p : c));
    crowdOf(map, (name, c) => same(name === "stations" ? setStationCount : setCacheCount, c));
    const stations = stationLayer(map, (call) => location.assign(`/station/${encodeURIComponent(call)}`));
    const stopCaches = cacheLayer(map);
    // New finds show as a pulse on the cache for a while, and in the activity panel.
    const finds = L.layerGroup().addTo(map);
    const shown = new Set<number>();
    const stopLive = liveRooms(map, {
      position: (p) => stations.upsert(p),
      log: (l, fresh) => {
        if (shown.has(l.logId)) return;
        shown.add(l.logId);
        setFeed((f) => [l, ...f].slice(0, FEED));
        if (!fresh || l.kind !== "find") return;
        const m = L.marker([l.cache.lat, l.cache.lon], {
          icon: L.divIcon({ className: "live-find", html: `<span>${clean(l.call)} found it</span>`, iconSize: [24, 24], iconAnchor: [12, 12] }),
          title: `${l.call} found ${l.cache.name}`,
          interactive: false,
        }).addTo(finds);
        setTimeout(() => m.remove(), 60_000);
      },
      state: (st) => {
        setLive(st);
        stations.setLive(st === "live");
      },
    });
    return () => {
      cancelled = true;
      stopLive();
      stations.stop();
      stopCaches();
      map.remove();
    };
  }, []);
  return (
    <section class="map-page">
      <div class="map-top">
        {offline && (
          <div class="banner" role="status">
            {offline === "off"
              ? "No tile server is configured: showing this gateway's own maps."
              : "Map tiles are offline: showing this gateway's own maps. Stations and caches still work."}
          </div>
        )}
        <ViewCount stations={stationCount} caches={cacheCount} />
      </div>
      <div ref={el} class="map" data-testid="map" data-live={live} />
      <aside class="live-panel" aria-live="polite" data-testid="live-feed">
        <div class={`live-state ${live}`}>{live === "live" ? "● Live" : live === "connecting" ? "○ Connecting" : "○ Not live at this zoom"}</div>
        {feed.length > 0 && (
          <ol>
            {feed.map((l) => (
              <li key={l.logId}>
                <b>{l.call}</b> {VERB[l.kind]} <a href={cacheHref(l)}>{l.cache.name}</a>{" "}
                <time dateTime={new Date(l.ts).toISOString()}>{new Date(l.ts).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}</time>
              </li>
            ))}
          </ol>
        )}
      </aside>
      <a class="button primary map-hide" href="/hide">Hide a cache</a>
    </section>
  );
}
