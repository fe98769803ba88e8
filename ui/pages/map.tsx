import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import L from "leaflet";
import { When } from "../time.tsx";
import "leaflet/dist/leaflet.css";
import { clientConfig } from "../api.ts";
import { addBaseLayer } from "../map/basemap.ts";
import { stationLayer } from "../stations/layer.ts";
import { cacheLayer } from "../game/layer.ts";
import { addNearControl } from "../game/near-panel.tsx";
import { crowdOf, type KindCount } from "../map/crowd.ts";
import { addSaveViewControl, initialView, LAST_VIEW, lastView } from "../map/view.ts";
import { liveRooms, type LiveLog, type LiveState } from "../live/socket.ts";
import { addSaveAreaControl } from "../offline/save-area.tsx";
import { useOfflineState } from "../offline/status.ts";
import { addServerView, claimServerView } from "../map/server-view.ts";
import { EmergencyBanner } from "../messages/emergency-banner.tsx";
import { fmtNumber, t } from "../i18n/i18n.ts";

/** Live logs kept in the activity panel. */
const FEED = 8;
/** What a live log says its writer did, by kind (a kind this app does not know reads as a note). */
const VERB = {
  find: "map.found",
  dnf: "map.dnf",
  note: "map.note",
  "needs-maintenance": "map.needs-maintenance",
  "needs-archive": "map.needs-archive",
  "owner-maintenance": "map.owner-maintenance",
  "temp-disable": "map.temp-disable",
  enable: "map.enable",
  archive: "map.archive",
  "reviewer-note": "map.reviewer-note",
  "will-attend": "map.will-attend",
  attended: "map.attended",
} as const;
const verbOf = (kind: string) => VERB[kind as keyof typeof VERB] ?? VERB.note;
const clean = (s: string) => s.replace(/[<>&"]/g, "");
const cacheHref = (l: LiveLog) => `/cache/${encodeURIComponent(String(l.cache.id))}`;
const n = (v: number) => fmtNumber(v);
const plural = (v: number, key: "map.stations" | "map.caches") => t(key, { count: v, n: n(v) });

/** What the map shows of the view: everything, or how much is grouped (and so not drawn one by one). */
function ViewCount({ stations, caches }: { stations: KindCount | null; caches: KindCount | null }) {
  if (!stations || !caches) return null;
  const grouped = stations.shown < stations.total || caches.shown < caches.total;
  return (
    <div class={`map-count${grouped ? " grouped" : ""}`} data-testid="map-count" data-grouped={grouped ? "true" : "false"}>
      {grouped
        ? t("map.showing", {
            parts: [
              stations.total ? t("map.shownOf", { shown: n(stations.shown), all: plural(stations.total, "map.stations") }) : "",
              caches.total ? t("map.shownOf", { shown: n(caches.shown), all: plural(caches.total, "map.caches") }) : "",
            ]
              .filter(Boolean)
              .join(", "),
          })
        : t("map.inView", { stations: plural(stations.total, "map.stations"), caches: plural(caches.total, "map.caches") })}
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

/**
 * On a phone the map's tools (Save view, GPX, Save area for offline) fold
 * behind this one button (styles.css shows it, and folds them, below
 * 600 px), so they do not cover the map or its notices.
 */
function addToolsToggle(map: L.Map): void {
  const control = new L.Control({ position: "topright" });
  control.onAdd = () => {
    const b = L.DomUtil.create("button", "map-tools-toggle") as HTMLButtonElement;
    b.type = "button";
    b.textContent = "⋯";
    b.setAttribute("aria-label", t("map.tools"));
    b.setAttribute("aria-expanded", "false");
    L.DomEvent.disableClickPropagation(b);
    b.onclick = () => b.setAttribute("aria-expanded", String(map.getContainer().classList.toggle("tools-open")));
    return b;
  };
  control.addTo(map);
}

/** A link that downloads the GPX of the caches in view (GET /api/v1/caches.gpx?bbox=). */
function addGpxControl(map: L.Map): void {
  const control = new L.Control({ position: "topright" });
  control.onAdd = () => {
    const a = L.DomUtil.create("a", "button map-gpx") as HTMLAnchorElement;
    a.textContent = t("map.gpx");
    a.download = "caches.gpx";
    a.title = t("map.gpxTitle");
    const update = () => (a.href = `/api/v1/caches.gpx?bbox=${viewBbox(map)}`);
    update();
    map.on("moveend", update);
    L.DomEvent.disableClickPropagation(a);
    return a;
  };
  control.addTo(map);
}
/** Where the home map was last looked at, kept in this browser. */
const PANEL = "svc.map.livePanel";
const TILES_NOTED = "svc.map.tilesNoted";
const narrow = () => typeof matchMedia === "function" && matchMedia("(max-width: 600px)").matches;

export function MapPage() {
  const el = useRef<HTMLDivElement>(null);
  // A link with a view (?lat=&lon=&z=) wins; else where this browser last looked; else the world.
  const [start] = useState(() => (new URLSearchParams(location.search).has("lat") ? initialView() : (lastView() ?? initialView())));
  // The page's own drawing of this view, if it came with one: shown (and counted) until the layers have drawn.
  const [server] = useState(() => claimServerView(start.center, start.zoom));
  const [offline, setOffline] = useState<null | "off" | "unreachable">(null);
  // no network at all: the chip says so, rather than "not live"
  const net = useOfflineState();
  // The tiles banner, once dismissed, stays away for this browser session.
  const [tilesNoted, setTilesNoted] = useState(() => {
    try {
      return sessionStorage.getItem(TILES_NOTED) === "1";
    } catch {
      return false;
    }
  });
  const noteTiles = () => {
    setTilesNoted(true);
    try {
      sessionStorage.setItem(TILES_NOTED, "1");
    } catch {}
  };
  const [live, setLive] = useState<LiveState>("connecting");
  const [feed, setFeed] = useState<LiveLog[]>([]);
  const [stationCount, setStationCount] = useState<KindCount | null>(server?.counts?.stations ?? null);
  const [cacheCount, setCacheCount] = useState<KindCount | null>(server?.counts?.caches ?? null);
  // On a phone the panel starts folded; the choice is remembered.
  const [folded, setFolded] = useState(() => {
    const saved = typeof localStorage !== "undefined" ? localStorage.getItem(PANEL) : null;
    return saved ? saved === "folded" : narrow();
  });
  const fold = (f: boolean) => {
    setFolded(f);
    try {
      localStorage.setItem(PANEL, f ? "folded" : "open");
    } catch {
      // not remembered
    }
  };
  // before the first paint: the drawing stays where the page showed it
  useLayoutEffect(() => {
    if (server) el.current!.append(server.base, server.points);
  }, []);
  useEffect(() => {
    const map = L.map(el.current!, { worldCopyJump: true, zoomControl: true, maxZoom: 19 }).setView(start.center, start.zoom);
    let dropServer = server ? addServerView(map, server) : null;
    map.on("moveend", () => {
      const c = map.getCenter().wrap();
      try {
        localStorage.setItem(LAST_VIEW, JSON.stringify({ lat: +c.lat.toFixed(5), lon: +c.lng.toFixed(5), z: map.getZoom() }));
      } catch {
        // storage off: the map opens at the default next time
      }
    });
    // on a phone the attribution is the maps' sources only (Leaflet's own credit is optional)
    if (narrow()) map.attributionControl.setPrefix(false);
    addToolsToggle(map);
    addSaveViewControl(map);
    addGpxControl(map);
    addSaveAreaControl(map);
    addNearControl(map);
    L.control.scale({ imperial: false }).addTo(map);
    let cancelled = false;
    clientConfig().then((cfg) => {
      if (!cancelled) addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, setOffline);
    });
    const same = (set: (f: (p: KindCount | null) => KindCount | null) => void, c: KindCount) =>
      set((p) => (p && p.total === c.total && p.shown === c.shown ? p : c));
    const counted = new Set<string>();
    crowdOf(map, (name, c) => {
      same(name === "stations" ? setStationCount : setCacheCount, c);
      // both layers answered: the server's points go once the markers are made
      counted.add(name);
      if (dropServer && counted.size === 2) {
        const drop = dropServer;
        dropServer = null;
        const drawn = () => {
          if (cancelled) return;
          if (map.getContainer().dataset.drawing === "0") drop();
          else requestAnimationFrame(drawn);
        };
        requestAnimationFrame(drawn);
      }
    });
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
        <EmergencyBanner />
        {offline && !tilesNoted && (
          <div class="banner tiles-banner" role="status" data-testid="tiles-banner">
            <span class="long">{offline === "off" ? t("map.noTiles") : t("map.tilesOffline")}</span>
            <span class="short">{offline === "off" ? t("map.noTilesShort") : t("map.tilesOfflineShort")}</span>
            <button type="button" class="banner-close" aria-label={t("map.dismiss")} onClick={noteTiles}>
              ×
            </button>
          </div>
        )}
        <ViewCount stations={stationCount} caches={cacheCount} />
      </div>
      <div ref={el} class="map" data-testid="map" data-live={live} />
      <aside class={`live-panel${folded ? " folded" : ""}`} aria-live="polite" data-testid="live-feed">
        <div class="live-head">
          <span class={`live-state ${net.online ? live : "offline"}`} data-testid="live-state">
            {!net.online ? (
              t("map.offline")
            ) : live === "live" ? (
              t("map.live")
            ) : live === "connecting" ? (
              t("map.connecting")
            ) : (
              <>
                {t("map.notLive")}
                <span class="long">{t("map.atThisZoom")}</span>
              </>
            )}
          </span>
          <button
            type="button"
            class="live-fold"
            aria-expanded={!folded}
            aria-label={folded ? t("map.showLive") : t("map.hideLive")}
            onClick={() => fold(!folded)}
          >
            {folded ? "▸" : "▾"}
          </button>
        </div>
        {!folded && feed.length > 0 && (
          <ol>
            {feed.map((l) => (
              <li key={l.logId}>
                <b>{l.call}</b> {t(verbOf(l.kind))} <a href={cacheHref(l)}>{l.cache.name}</a> <When at={l.ts} />
              </li>
            ))}
          </ol>
        )}
      </aside>
      <a class="button primary map-hide" href="/hide">
        {t("map.hideCache")}
      </a>
    </section>
  );
}
