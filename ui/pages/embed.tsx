/**
 * /embed: the cache map alone, for other sites' iframes. `?bbox=minLon,minLat,maxLon,maxLat`
 * or `?lat=&lon=&zoom=` choose the view; links open this instance in a new tab.
 */
import { useEffect, useRef } from "preact/hooks";
import L from "leaflet";
import "leaflet/dist/leaflet.css";
import { clientConfig } from "../api.ts";
import { addBaseLayer } from "../map/basemap.ts";
import { cacheLayer } from "../game/layer.ts";

export function EmbedPage() {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const q = new URLSearchParams(location.search);
    const map = L.map(el.current!, { worldCopyJump: true });
    const b = (q.get("bbox") ?? "").split(",").map(Number);
    if (b.length === 4 && b.every(Number.isFinite))
      map.fitBounds([
        [b[1]!, b[0]!],
        [b[3]!, b[2]! < b[0]! ? b[2]! + 360 : b[2]!],
      ]);
    else map.setView([Number(q.get("lat") ?? 30) || 30, Number(q.get("lon") ?? 0) || 0], Number(q.get("zoom") ?? 2) || 2);
    clientConfig().then((cfg) => addBaseLayer(map, cfg.tileUrl, cfg.tileAttribution, () => {}));
    const stop = cacheLayer(map);
    const open = (e: MouseEvent) => {
      const a = (e.target as HTMLElement).closest("a");
      if (a && a.getAttribute("href")?.startsWith("/")) a.setAttribute("target", "_blank");
    };
    el.current!.addEventListener("click", open, true);
    return () => {
      stop();
      map.remove();
    };
  }, []);
  return <div ref={el} class="map embed" data-testid="embed-map" />;
}
