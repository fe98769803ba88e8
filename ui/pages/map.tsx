import { useEffect, useRef, useState } from "preact/hooks";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { clientConfig } from "../api.ts";
import { addBaseLayer } from "../map/basemap.ts";
import { stationLayer } from "../stations/layer.ts";
import { cacheLayer } from "../game/layer.ts";
import { addSaveViewControl, initialView } from "../map/view.ts";

export function MapPage() {
  const el = useRef<HTMLDivElement>(null);
  const [offline, setOffline] = useState<null | "off" | "unreachable">(null);
  useEffect(() => {
    const start = initialView();
    const map = L.map(el.current!, { worldCopyJump: true, zoomControl: true }).setView(start.center, start.zoom);
    addSaveViewControl(map);
    L.control.scale({ imperial: false }).addTo(map);
    let cancelled = false;
    clientConfig().then((cfg) => {
      if (!cancelled) addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, setOffline);
    });
    const stopStations = stationLayer(map, (call) => location.assign(`/station/${encodeURIComponent(call)}`));
    const stopCaches = cacheLayer(map);
    return () => {
      cancelled = true;
      stopStations();
      stopCaches();
      map.remove();
    };
  }, []);
  return (
    <section class="map-page">
      {offline && (
        <div class="banner" role="status">
          {offline === "off"
            ? "No tile server is configured: showing the built-in outline map."
            : "Map tiles are offline: showing the built-in outline map. Stations and caches still work."}
        </div>
      )}
      <div ref={el} class="map" data-testid="map" />
      <a class="button primary map-hide" href="/hide">Hide a cache</a>
    </section>
  );
}
