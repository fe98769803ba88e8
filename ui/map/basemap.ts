/**
 * The map's base layers: the gateway's map archives (ui/map/archives.ts), the
 * configured online tile server over them while it answers, and a built-in
 * outline of the world's land (Natural Earth 1:110m via world-atlas) for when
 * even the archives cannot be listed.
 */
import L from "leaflet";
import { addArchiveLayers } from "./archives.ts";
import { feature } from "topojson-client";
import land from "world-atlas/land-110m.json";

let outline: L.GeoJSON | null = null;

/**
 * Rings cut at the antimeridian jump from +180 to -180; unwrapping makes each
 * ring continuous so Leaflet does not draw a line across the whole world.
 */
function unwrapRing(ring: number[][]): number[][] {
  let shift = 0;
  const out = ring.map((p, i) => {
    if (i > 0) {
      const d = p[0]! - ring[i - 1]![0]!;
      if (d > 180) shift -= 360;
      else if (d < -180) shift += 360;
    }
    return [p[0]! + shift, p[1]!];
  });
  // Bring the ring back so its middle lies within -180..180.
  const lons = out.map((p) => p[0]!);
  const mid = (Math.min(...lons) + Math.max(...lons)) / 2;
  const back = mid > 180 ? -360 : mid < -180 ? 360 : 0;
  return back ? out.map((p) => [p[0]! + back, p[1]!]) : out;
}

function landGeoJson() {
  const f = feature(land as any, (land as any).objects.land) as any;
  const geometries = f.type === "FeatureCollection" ? f.features.map((x: any) => x.geometry) : [f.geometry];
  const polys: number[][][][] = geometries.flatMap((g: any) => (g.type === "MultiPolygon" ? g.coordinates : [g.coordinates]));
  return { type: "MultiPolygon", coordinates: polys.map((poly) => poly.map(unwrapRing)) };
}

export function outlineLayer(): L.GeoJSON {
  outline ??= L.geoJSON(landGeoJson() as any, {
    style: { color: "#5b7083", weight: 1, fillColor: "#dfe7ec", fillOpacity: 1 },
    interactive: false,
  });
  return outline;
}

/** Consecutive failed tiles after which the online tile server counts as gone. */
const GIVE_UP_AFTER = 3;
/** How long the first tile may take before the tile server counts as unreachable. */
const PROBE_MS = 6000;

/**
 * Adds the base map: this gateway's map archives (the built-in world basemap
 * and the operator's PMTiles, which need no internet), and the online tile
 * server on top when one is configured and answers. The tile server is first
 * asked for one tile; only if that loads is the tile layer added, and it is
 * taken away again after a few failures in a row, so an unreachable server
 * is not asked for every tile of every pan. When the browser says it is back
 * online, one tile is tried again. `onOffline` hears "off" (no tile server),
 * "unreachable", or null when the tile server works.
 */
export function addBaseLayer(map: L.Map, tileUrl: string, attribution: string, onOffline: (reason: "off" | "unreachable" | null) => void): void {
  // The outline only when even the gateway's archives cannot be listed.
  addArchiveLayers(map).catch(() => outlineLayer().addTo(map).bringToBack());
  if (!tileUrl) {
    onOffline("off");
    return;
  }
  let tiles: L.TileLayer | null = null;
  let probing = false;
  const unreachable = () => {
    if (tiles) map.removeLayer(tiles);
    tiles = null;
    onOffline("unreachable");
  };
  const probe = () => {
    if (probing || tiles) return;
    probing = true;
    const c = map.getCenter();
    const z = Math.min(Math.max(Math.round(map.getZoom()), 0), 19);
    const p = map.project(c, z).divideBy(256).floor();
    const n = 2 ** z;
    const img = new Image();
    img.crossOrigin = "anonymous";
    const timer = setTimeout(() => settle(false), PROBE_MS);
    const settle = (ok: boolean) => {
      if (!probing) return;
      probing = false;
      clearTimeout(timer);
      img.onload = img.onerror = null;
      img.src = "";
      if (ok) addTiles();
      else unreachable();
    };
    img.onload = () => settle(true);
    img.onerror = () => settle(false);
    img.src = L.Util.template(tileUrl, { s: "a", z, x: ((p.x % n) + n) % n, y: Math.min(Math.max(p.y, 0), n - 1), r: "" });
  };
  const addTiles = () => {
    let failedInRow = 0;
    const layer = L.tileLayer(tileUrl, { attribution, maxZoom: 19, crossOrigin: true });
    layer.on("tileload", () => (failedInRow = 0));
    layer.on("tileerror", () => {
      if (++failedInRow >= GIVE_UP_AFTER && tiles === layer) unreachable();
    });
    tiles = layer.addTo(map);
    onOffline(null);
  };
  window.addEventListener("online", probe);
  map.on("unload", () => window.removeEventListener("online", probe));
  probe();
}
