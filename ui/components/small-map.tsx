/**
 * A small Leaflet map for a detail page: one point, and optionally a track
 * leading to it or small points around it (a cache's waypoints). Plain circle
 * markers (no marker images to break).
 */
import { useEffect, useRef } from "preact/hooks";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { clientConfig } from "../api.ts";
import { addBaseLayer } from "../map/basemap.ts";

export function SmallMap({
  lat,
  lon,
  track,
  points,
  label,
  zoom = 14,
}: {
  lat: number;
  lon: number;
  track?: Array<[number, number]>;
  /** small labelled markers, e.g. a cache's parking and stages */
  points?: ReadonlyArray<{ lat: number; lon: number; label: string }>;
  label: string;
  zoom?: number;
}) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // no animations: the page may redraw the map (new data) while one runs, and Leaflet then fails on the removed map's panes
    const map = L.map(el.current!, { scrollWheelZoom: false, zoomAnimation: false, fadeAnimation: false, markerZoomAnimation: false }).setView(
      [lat, lon],
      zoom,
    );
    let cancelled = false;
    clientConfig().then((cfg) => {
      if (!cancelled) addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, () => {});
    });
    if (track && track.length > 1) {
      const line = L.polyline(track, { color: "#c05621", weight: 3, opacity: 0.85 }).addTo(map);
      for (const p of track.slice(0, -1)) L.circleMarker(p, { radius: 3, color: "#c05621", weight: 1, fillOpacity: 0.8 }).addTo(map);
      map.fitBounds(line.getBounds().extend([lat, lon]), { padding: [24, 24], maxZoom: 16, animate: false });
    }
    for (const p of points ?? [])
      L.circleMarker([p.lat, p.lon], { radius: 5, color: "#fff", weight: 1, fillColor: "#2b6cb0", fillOpacity: 1, className: "waypoint-marker" })
        .bindTooltip(p.label)
        .addTo(map);
    L.circleMarker([lat, lon], { radius: 8, color: "#fff", weight: 2, fillColor: "#0b6e4f", fillOpacity: 1 }).bindTooltip(label).addTo(map);
    return () => {
      cancelled = true;
      map.remove();
    };
  }, [lat, lon, track?.length, label, JSON.stringify(points ?? [])]);
  return <div ref={el} class="page-map" data-testid="page-map" role="region" aria-label={`map of ${label}`} />;
}
