/**
 * A cache's waypoints on the big map: while a cache's popup is open, its
 * parking, stages and the rest (the final for its owner and finders) show as
 * small markers around it, gone when the popup closes.
 */
import L from "leaflet";
import { api } from "../api.ts";
import type { Waypoint } from "../../src/game/waypoints-store.ts";

export function waypointsOnPopup(map: L.Map, marker: L.Layer, cacheKey: string): void {
  let group: L.LayerGroup | null = null;
  marker.on("popupopen", async () => {
    const { waypoints } = await api<{ waypoints: Waypoint[] }>(`/api/caches/${encodeURIComponent(cacheKey)}/waypoints`).catch(() => ({ waypoints: [] }));
    group?.remove();
    group = L.layerGroup(
      waypoints.flatMap((w) =>
        w.lat === null || w.lon === null
          ? []
          : [
              L.circleMarker([w.lat, w.lon], {
                radius: 5,
                color: "#fff",
                weight: 1,
                fillColor: "#2b6cb0",
                fillOpacity: 1,
                className: "waypoint-marker",
              }).bindTooltip(w.name),
            ],
      ),
    ).addTo(map);
  });
  marker.on("popupclose", () => {
    group?.remove();
    group = null;
  });
}
