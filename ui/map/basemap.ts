/**
 * The map's base layers: the configured tile server, and a built-in outline
 * of the world's land (Natural Earth 1:110m via world-atlas) that needs no
 * network, shown when tiles are off or cannot be reached.
 */
import L from "leaflet";
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

/**
 * Adds the tile layer, or the outline when there is none. Calls `onOffline`
 * when tiles fail to load and none has loaded, and adds the outline then.
 */
export function addBaseLayer(
  map: L.Map,
  tileUrl: string,
  attribution: string,
  onOffline: (reason: "off" | "unreachable") => void,
): void {
  if (!tileUrl) {
    outlineLayer().addTo(map);
    onOffline("off");
    return;
  }
  let loaded = 0;
  let failed = 0;
  let reported = false;
  const tiles = L.tileLayer(tileUrl, { attribution, maxZoom: 19, crossOrigin: true });
  tiles.on("tileload", () => loaded++);
  tiles.on("tileerror", () => {
    failed++;
    if (!reported && loaded === 0 && failed >= 2) {
      reported = true;
      outlineLayer().addTo(map).bringToBack();
      onOffline("unreachable");
    }
  });
  tiles.addTo(map);
}
