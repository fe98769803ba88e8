/**
 * The station layer on the map: every station in view, with its APRS symbol
 * (our own SVG drawings) and its call where the call has room. The server
 * counts a crowded view into clusters; stations close together on screen are
 * grouped too; a click on a group zooms in (or lists them where zooming
 * cannot separate them). Refreshed when the map moves and every 15 s, or
 * every 2 minutes while the live rooms move them (upsert); a click on a
 * station opens its popup and draws its track.
 */
import L from "leaflet";
import { api } from "../api.ts";
import { symbolSvg } from "../map/symbols.ts";
import { bubble, groupByPixels, labelBoard, markerSet, openGroup, type Group, type Item } from "../map/declutter.ts";
import { viewBbox } from "../game/layer.ts";
import type { MapStation, StationMap } from "../../src/stations/registry.ts";

/** A station as the map keeps it: from the map answer or a live position. */
interface Station { call: string; kind?: string; lat?: number; lon?: number; symbol?: string; course?: number; lastHeard?: number; alive?: boolean; ts?: number }

export interface StationCount {
  /** stations in view */
  total: number;
  /** drawn as their own marker (the rest are in groups) */
  shown: number;
}

export interface StationLayer {
  stop(): void;
  /** a live position: move (or add, or remove when killed) the station's marker */
  upsert(s: Station): void;
  /** while live, polling only resynchronises now and then */
  setLive(on: boolean): void;
}

const POLL_MS = 15_000;
const LIVE_POLL_MS = 120_000;
const clean = (s: string) => s.replace(/[<>&"]/g, "");
const attr = (s: string) => s.replace(/[<>&"]/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function stationIconHtml(s: { call: string; symbol?: string }): string {
  return `<span class="aprs-sym" data-symbol="${attr(s.symbol ?? "/-")}">${symbolSvg(s.symbol)}</span><span class="map-label aprs-call">${clean(s.call)}</span>`;
}

export function stationLayer(map: L.Map, open: (call: string) => void, opts: { onCount?: (c: StationCount) => void } = {}): StationLayer {
  const layer = L.layerGroup().addTo(map);
  const markers = markerSet(layer);
  const board = labelBoard(map);
  /** the latest answer: its stations by call (live positions merged in), or its clusters */
  let answer: { clustered: boolean; clusters: StationMap["clusters"]; stations: Map<string, Station> } = { clustered: false, clusters: [], stations: new Map() };
  /** when each station's position was heard: a late packet never moves a marker back */
  const heard = new Map<string, number>();
  let track: L.Polyline | null = null;
  let stopped = false;
  let seq = 0;
  let frame = 0;
  let labelled: Array<{ s: Station; lat: number; lon: number; key: string }> = [];
  let groups: Array<{ lat: number; lon: number; count: number }> = [];

  const showTrack = async (call: string, mk: L.Marker) => {
    const d = await api<{ track: Array<{ lat: number; lon: number }>; comment?: string }>(`/api/stations/${encodeURIComponent(call)}`);
    track?.remove();
    track = d.track.length > 1 ? L.polyline(d.track.map((p) => [p.lat, p.lon] as [number, number]), { color: "#c05621", weight: 3 }).addTo(map) : null;
    mk.bindPopup(`<b>${clean(call)}</b><br>${clean(d.comment ?? "")}<br><a href="/station/${encodeURIComponent(call)}">station page</a>`).openPopup();
    void open;
  };

  const listPopup = async (g: Group<Station>) => {
    let rows = g.members;
    let more = g.count - rows.length;
    if (g.partial) {
      const [w, s, e, n] = g.bbox;
      const wrap = (x: number) => ((((x + 180) % 360) + 360) % 360) - 180;
      const pad = 1e-5;
      const box = [wrap(w - pad), Math.max(-90, s - pad), wrap(e + pad), Math.min(90, n + pad)].map((v) => v.toFixed(6)).join(",");
      const r = await api<{ stations: Station[]; truncated: boolean }>(`/api/stations?bbox=${box}&limit=200`);
      rows = r.stations;
      more = Math.max(0, g.count - rows.length);
    }
    const items = rows
      .slice(0, 200)
      .map((s) => `<li><span class="aprs-sym">${symbolSvg(s.symbol, 16)}</span> <a href="/station/${encodeURIComponent(s.call)}">${clean(s.call)}</a></li>`)
      .join("");
    L.popup({ maxHeight: 260 })
      .setLatLng([g.lat, g.lon])
      .setContent(`<b>${g.count} stations here</b><ul class="group-list">${items}</ul>${more > 0 ? `<p class="muted">and ${more} more</p>` : ""}`)
      .openOn(map);
  };

  const render = () => {
    frame = 0;
    if (stopped) return;
    const items: Item<Station>[] = [
      ...answer.clusters.map((k) => ({ lat: k.lat, lon: k.lon, count: k.count, bbox: k.bbox })),
      ...[...answer.stations.values()].filter((s) => s.lat !== undefined && s.lon !== undefined).map((s) => ({ lat: s.lat!, lon: s.lon!, count: 1, one: s })),
    ];
    const out = groupByPixels(map, items);
    const wanted: Parameters<typeof markers.sync>[0] = [];
    labelled = [];
    groups = [];
    let shown = 0;
    for (const o of out) {
      if ("one" in o) {
        const s = o.one;
        const html = stationIconHtml(s);
        const key = "s:" + s.call;
        shown++;
        labelled.push({ s, lat: o.lat, lon: o.lon, key });
        wanted.push({
          key, lat: o.lat, lon: o.lon, html,
          make: () => {
            const mk = L.marker([o.lat, o.lon], { icon: L.divIcon({ className: "aprs-icon map-point", html, iconSize: [24, 24], iconAnchor: [12, 12] }), title: s.call, keyboard: true });
            mk.on("click", () => void showTrack(s.call, mk).catch(() => {}));
            return mk;
          },
        });
      } else {
        const g = o;
        const size = bubble(g.count);
        const html = `<span>${g.count}</span>`;
        groups.push({ lat: g.lat, lon: g.lon, count: g.count });
        wanted.push({
          key: `g:${g.lat.toFixed(5)}:${g.lon.toFixed(5)}:${g.count}`, lat: g.lat, lon: g.lon, html: html + size,
          make: () => {
            const mk = L.marker([g.lat, g.lon], {
              // station groups sit just left of their point, cache groups just right: both show where they share a place
              icon: L.divIcon({ className: "map-cluster station-cluster", html, iconSize: [size, size], iconAnchor: [size + 1, size / 2] }),
              title: `${g.count} stations: zoom in`,
              zIndexOffset: 500,
            });
            mk.on("click", () => openGroup(map, g, () => void listPopup(g).catch(() => {})));
            return mk;
          },
        });
      }
    }
    markers.sync(wanted);
    board.schedule();
    const total = items.reduce((t, k) => t + k.count, 0);
    opts.onCount?.({ total, shown });
  };
  const later = () => {
    if (!frame) frame = requestAnimationFrame(render);
  };

  board.add("stations", () => ({
    labels: labelled.map((l) => {
      const p = map.latLngToContainerPoint([l.lat, l.lon]);
      return { x: p.x, y: p.y, half: 12, text: l.s.call, prio: 1e15 + (l.s.lastHeard ?? l.s.ts ?? 0), el: markers.drawn.get(l.key)?.m.getElement() };
    }),
    boxes: groups.map((g) => {
      const p = map.latLngToContainerPoint([g.lat, g.lon]);
      return [p.x - bubble(g.count) / 2 - 1, p.y, bubble(g.count) / 2] as [number, number, number];
    }),
  }));

  const load = async () => {
    const mine = ++seq;
    const a = await api<StationMap>(`/api/stations?cluster=1&bbox=${viewBbox(map)}`);
    if (stopped || mine !== seq) return;
    const stations = new Map<string, Station>();
    for (const s of a.stations as MapStation[]) {
      // a live position newer than the answer wins
      const prev = answer.stations.get(s.call);
      stations.set(s.call, prev && (prev.ts ?? 0) > s.lastHeard ? prev : s);
    }
    answer = { clustered: a.clustered, clusters: a.clusters, stations };
    render();
  };
  const tick = () => void load().catch(() => {});
  map.on("moveend", tick);
  map.on("zoomend", later);
  tick();
  let timer = setInterval(tick, POLL_MS);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      map.off("moveend", tick);
      map.off("zoomend", later);
      cancelAnimationFrame(frame);
      board.remove("stations");
      layer.remove();
    },
    upsert(s) {
      if (stopped) return;
      if (s.ts !== undefined && (heard.get(s.call) ?? 0) > s.ts) return;
      if (s.ts !== undefined) heard.set(s.call, s.ts);
      // a crowded view shows counts: the next poll brings the change (a station drawn alone moves now)
      if (answer.clustered && !answer.stations.has(s.call)) return;
      if (s.alive === false) answer.stations.delete(s.call);
      else if (s.lat !== undefined && s.lon !== undefined) answer.stations.set(s.call, { ...answer.stations.get(s.call), ...s, lastHeard: s.ts ?? s.lastHeard });
      later();
    },
    setLive(on) {
      clearInterval(timer);
      timer = setInterval(tick, on ? LIVE_POLL_MS : POLL_MS);
    },
  };
}
