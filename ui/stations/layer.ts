/**
 * The station layer on the map: every station in view, with its APRS symbol
 * (our own SVG drawings) and its call where the call has room. The server
 * counts a crowded view into clusters; the map's crowd (ui/map/crowd.ts)
 * groups what is close together on screen, with the caches. Refreshed when
 * the map moves and every 15 s, or every 2 minutes while the live rooms move
 * them (upsert); a click on a station opens its popup and draws its track.
 */
import L from "leaflet";
import { api } from "../api.ts";
import { symbolSvg } from "../map/symbols.ts";
import { crowdOf, type Kind } from "../map/crowd.ts";
import { cellsFor } from "../map/declutter.ts";
import { viewBbox } from "../game/layer.ts";
import type { MapStation, StationMap } from "../../src/stations/registry.ts";
import type { LivePosition } from "../../src/live/rooms.ts";
import { t } from "../i18n/i18n.ts";

/** A station as the map keeps it: from the map answer (MapStation) or a live position (LivePosition), the server's shapes. */
type Station = Pick<MapStation, "call"> & Partial<MapStation> & Partial<Pick<LivePosition, "alive" | "ts">>;

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
const wrap = (x: number) => ((((x + 180) % 360) + 360) % 360) - 180;

export function stationLayer(map: L.Map, open: (call: string) => void): StationLayer {
  const crowd = crowdOf(map);
  /** the latest answer: its single stations by call (live positions merged in) and its clusters */
  let answer: { clustered: boolean; clusters: StationMap["clusters"]; stations: Map<string, Station> } = {
    clustered: false,
    clusters: [],
    stations: new Map(),
  };
  /** when each station's position was heard: a late packet never moves a marker back */
  const heard = new Map<string, number>();
  let track: L.Polyline | null = null;
  let stopped = false;
  let seq = 0;
  let queued = false;

  const showTrack = async (call: string, mk: L.Marker) => {
    const d = await api<{ track: Array<{ lat: number; lon: number }>; comment?: string }>(`/api/stations/${encodeURIComponent(call)}`);
    track?.remove();
    track =
      d.track.length > 1
        ? L.polyline(
            d.track.map((p) => [p.lat, p.lon] as [number, number]),
            { color: "#c05621", weight: 3 },
          ).addTo(map)
        : null;
    mk.bindPopup(
      `<b>${clean(call)}</b><br>${clean(d.comment ?? "")}<br><a href="/station/${encodeURIComponent(call)}">${t("map.stationPage")}</a>`,
    ).openPopup();
    void open;
  };

  const kind: Kind<Station> = {
    name: "stations",
    cluster: "station-cluster",
    order: 0,
    noun: ["station", "stations"],
    key: (s) => s.call,
    className: () => "aprs-icon",
    html: (s) =>
      `<span class="aprs-sym" data-symbol="${attr(s.symbol ?? "/-")}">${symbolSvg(s.symbol)}</span><span class="map-label aprs-call">${clean(s.call)}</span>`,
    title: (s) => s.call,
    // the most recently heard first
    label: (s) => ({ text: s.call, prio: 1e15 + (s.lastHeard ?? s.ts ?? 0) }),
    bind: (s, m) => void m.on("click", () => void showTrack(s.call, m).catch(() => {})),
    // from the keyboard: the station's page
    open: (s) => open(s.call),
    async list(points, partial) {
      let rows = points;
      if (partial) {
        const [w, s, e, n] = partial.bbox;
        const pad = 1e-5;
        const box = [wrap(w - pad), Math.max(-90, s - pad), wrap(e + pad), Math.min(90, n + pad)].map((v) => v.toFixed(6)).join(",");
        rows = (await api<{ stations: Station[] }>(`/api/stations?bbox=${box}&limit=200`)).stations;
      }
      rows = rows.slice(0, 200);
      return {
        html: rows
          .map((s) => `<li><span class="aprs-sym">${symbolSvg(s.symbol, 16)}</span> <a href="/station/${encodeURIComponent(s.call)}">${clean(s.call)}</a></li>`)
          .join(""),
        shown: rows.length,
      };
    },
  };

  const draw = () => {
    if (stopped) return;
    crowd.set(kind, [
      ...answer.clusters.map((k) => ({ lat: k.lat, lon: k.lon, count: k.count, bbox: k.bbox })),
      ...[...answer.stations.values()].filter((s) => s.lat !== undefined && s.lon !== undefined).map((s) => ({ lat: s.lat!, lon: s.lon!, count: 1, one: s })),
    ]);
  };

  const load = async () => {
    const mine = ++seq;
    const a = await api<StationMap>(`/api/stations?cluster=1&cells=${cellsFor(map)}&bbox=${viewBbox(map)}`);
    if (stopped || mine !== seq) return;
    const stations = new Map<string, Station>();
    for (const s of a.stations) {
      // a live position newer than the answer wins
      const prev = answer.stations.get(s.call);
      stations.set(s.call, prev && (prev.ts ?? 0) > s.lastHeard ? prev : s);
    }
    answer = { clustered: a.clustered, clusters: a.clusters, stations };
    draw();
  };
  const tick = () => void load().catch(() => {});
  map.on("moveend", tick);
  tick();
  let timer = setInterval(tick, POLL_MS);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      map.off("moveend", tick);
      crowd.remove("stations");
    },
    upsert(s) {
      if (stopped) return;
      if (s.ts !== undefined && (heard.get(s.call) ?? 0) > s.ts) return;
      if (s.ts !== undefined) heard.set(s.call, s.ts);
      const known = answer.stations.has(s.call);
      // a crowded view shows counts: the next poll brings the change (a station drawn alone moves now)
      if (answer.clustered && !known) return;
      if (s.alive === false) answer.stations.delete(s.call);
      else if (s.lat !== undefined && s.lon !== undefined) {
        // the live rooms reach past the view: a station new to the map counts only once it is in view
        if (!known && !map.getBounds().contains([s.lat, s.lon])) return;
        answer.stations.set(s.call, { ...answer.stations.get(s.call), ...s, lastHeard: s.ts ?? s.lastHeard });
      }
      // a snapshot brings thousands of positions at once: one redraw for them all
      if (!queued) {
        queued = true;
        queueMicrotask(() => {
          queued = false;
          draw();
        });
      }
    },
    setLive(on) {
      clearInterval(timer);
      timer = setInterval(tick, on ? LIVE_POLL_MS : POLL_MS);
    },
  };
}
