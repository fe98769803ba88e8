/**
 * The station layer on the map: stations in view with their APRS symbol,
 * refreshed when the map moves and every 15 s, or every 2 minutes while the
 * live rooms move them (upsert); a click opens the station page; the
 * selected moving station shows its track.
 */
import L from "leaflet";
import { api } from "../api.ts";

interface Station { call: string; lat?: number; lon?: number; symbol?: string; course?: number; comment?: string; lastHeard?: number; alive?: boolean; ts?: number }

export interface StationLayer {
  stop(): void;
  /** a live position: move (or add, or remove when killed) the station's marker */
  upsert(s: Station): void;
  /** while live, polling only resynchronises now and then */
  setLive(on: boolean): void;
}

const POLL_MS = 15_000;
const LIVE_POLL_MS = 120_000;

/** A few common symbols as glyphs; others show the symbol code itself. */
const GLYPH: Record<string, string> = { "/>": "🚗", "/k": "🛻", "/[": "🚶", "/-": "🏠", "/_": "🌦", "/#": "📡", "/&": "📶", "/O": "🎈", "/v": "🚐", "/j": "🚙", "/b": "🚲", "/Y": "⛵", "/'": "✈", "\\#": "📡", "/.": "✖" };

function icon(s: Station) {
  const sym = s.symbol ?? "/-";
  const glyph = GLYPH[sym] ?? GLYPH["/" + sym[1]] ?? sym[1];
  return L.divIcon({ className: "aprs-icon", html: `<span class="aprs-sym" title="${sym}">${glyph}</span><span class="aprs-call">${s.call.replace(/[<>&"]/g, "")}</span>`, iconSize: [24, 24], iconAnchor: [12, 12] });
}

export function stationLayer(map: L.Map, open: (call: string) => void): StationLayer {
  const layer = L.layerGroup().addTo(map);
  const markers = new Map<string, L.Marker>();
  /** when each marker's position was heard: a late packet never moves a marker back */
  const heard = new Map<string, number>();
  let track: L.Polyline | null = null;
  let stopped = false;
  const place = (s: Station) => {
    if (s.lat === undefined || s.lon === undefined) return;
    const m = markers.get(s.call);
    if (m) m.setLatLng([s.lat, s.lon]);
    else {
      const mk = L.marker([s.lat, s.lon], { icon: icon(s), title: s.call }).addTo(layer);
      mk.on("click", async () => {
        const d = await api<{ track: Array<{ lat: number; lon: number }> }>(`/api/stations/${encodeURIComponent(s.call)}`);
        track?.remove();
        track = d.track.length > 1 ? L.polyline(d.track.map((p) => [p.lat, p.lon] as [number, number]), { color: "#c05621", weight: 3 }).addTo(map) : null;
        mk.bindPopup(`<b>${s.call.replace(/[<>&"]/g, "")}</b><br>${(s.comment ?? "").replace(/[<>&"]/g, "")}<br><a href="/station/${encodeURIComponent(s.call)}">station page</a>`).openPopup();
        void open;
      });
      markers.set(s.call, mk);
    }
  };
  const load = async () => {
    const b = map.getBounds();
    const bbox = [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()].map((v, k) => Math.max(k % 2 ? -90 : -180, Math.min(k % 2 ? 90 : 180, v)).toFixed(4)).join(",");
    const { stations } = await api<{ stations: Station[] }>(`/api/stations?bbox=${bbox}&limit=1000`);
    if (stopped) return;
    const seen = new Set<string>();
    for (const s of stations) {
      if (s.lat === undefined || s.lon === undefined) continue;
      seen.add(s.call);
      place(s);
    }
    for (const [call, m] of markers) if (!seen.has(call)) (m.remove(), markers.delete(call));
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
      layer.remove();
    },
    upsert(s) {
      if (stopped) return;
      if (s.ts !== undefined && (heard.get(s.call) ?? 0) > s.ts) return;
      if (s.ts !== undefined) heard.set(s.call, s.ts);
      if (s.alive === false) {
        markers.get(s.call)?.remove();
        markers.delete(s.call);
        return;
      }
      place(s);
    },
    setLive(on) {
      clearInterval(timer);
      timer = setInterval(tick, on ? LIVE_POLL_MS : POLL_MS);
    },
  };
}
