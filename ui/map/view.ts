/**
 * Where the map opens (`/map?lat=&lon=&z=`, what a saved view's share link
 * `/v/:id` leads to), and a control that saves the current view to the account.
 */
import L from "leaflet";
import { api, ApiError } from "../api.ts";

export function initialView(search = location.search): { center: [number, number]; zoom: number } {
  const q = new URLSearchParams(search);
  const lat = Number(q.get("lat"));
  const lon = Number(q.get("lon"));
  const z = Number(q.get("z"));
  if (q.has("lat") && q.has("lon") && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
    return { center: [lat, lon], zoom: Number.isInteger(z) && z >= 0 && z <= 22 ? z : 10 };
  }
  return { center: [30, 0], zoom: 2 };
}

/** Where this browser last looked on the map (kept by the map page), or null. */
export const LAST_VIEW = "svc.map.lastView";
export function lastView(): { center: [number, number]; zoom: number } | null {
  try {
    const v = JSON.parse(localStorage.getItem(LAST_VIEW) ?? "null") as { lat: number; lon: number; z: number } | null;
    if (v && Math.abs(v.lat) <= 90 && Math.abs(v.lon) <= 180 && Number.isInteger(v.z) && v.z >= 0 && v.z <= 19) return { center: [v.lat, v.lon], zoom: v.z };
  } catch {
    // storage off or garbage: the default view
  }
  return null;
}

/** A "Save view" button on the map; signed-out visitors are sent to sign in. */
export function addSaveViewControl(map: L.Map): void {
  const control = new L.Control({ position: "topright" });
  control.onAdd = () => {
    const b = L.DomUtil.create("button", "map-save-view");
    b.type = "button";
    b.textContent = "Save view";
    L.DomEvent.disableClickPropagation(b);
    b.onclick = async () => {
      const name = prompt("Name this view", "My view");
      if (!name) return;
      const c = map.getCenter();
      try {
        const v = await api<{ id: string }>("/api/views", {
          method: "POST",
          json: { name, lat: c.lat, lon: L.Util.wrapNum(c.lng, [-180, 180], true), zoom: map.getZoom() },
        });
        b.textContent = "Saved";
        b.title = `${location.origin}/v/${v.id}`;
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) location.assign("/account");
        else alert((e as Error).message);
      }
    };
    return b;
  };
  control.addTo(map);
}
