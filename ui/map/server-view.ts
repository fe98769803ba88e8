/**
 * The server's drawing of the map's first view (src/http/map-view.ts): the
 * page arrives with the view's basemap, stations and caches drawn, long
 * before this script on a slow link. The app takes it out of the page before
 * its first render (takeServerView) and the map page keeps showing it, as
 * Leaflet overlays that move with the map, until its own layers have drawn:
 * the points go when the app's markers are drawn, the basemap stays under the
 * tiles.
 */
import L from "leaflet";
import type { KindCount } from "./crowd.ts";

export interface ServerView {
  lat: number;
  lon: number;
  z: number;
  base: SVGSVGElement;
  points: SVGSVGElement;
  /** the drawing's extent within the world's latitudes, and its rows of pixels there */
  bounds: L.LatLngBounds;
  crop: [number, number];
  /** the counts the page showed for the map box (null: the box was larger than the drawing) */
  counts: { stations: KindCount; caches: KindCount } | null;
}

let taken: ServerView | null = null;

const pair = (s: string | undefined): KindCount | null => {
  const [total, shown] = (s ?? "").split(",").map(Number);
  return Number.isFinite(total) && Number.isFinite(shown) ? { total: total!, shown: shown! } : null;
};

/** Takes the server's drawing out of the page (the app's own frame replaces it); called once, before the first render. */
export function takeServerView(): void {
  const el = document.getElementById("ssr-view");
  if (!el) return;
  el.remove();
  const base = el.querySelector<SVGSVGElement>("svg.ssr-base");
  const points = el.querySelector<SVGSVGElement>("svg.ssr-points");
  const b = (el.dataset.bounds ?? "").split(",").map(Number);
  const crop = (el.dataset.crop ?? "").split(",").map(Number);
  if (!base || !points || b.length !== 4 || b.some((x) => !Number.isFinite(x)) || crop.length !== 2) return;
  const count = el.querySelector<HTMLElement>("[data-testid=map-count]");
  const stations = pair(count?.dataset.stations);
  const caches = pair(count?.dataset.caches);
  taken = {
    lat: Number(el.dataset.lat),
    lon: Number(el.dataset.lon),
    z: Number(el.dataset.z),
    base,
    points,
    bounds: L.latLngBounds([b[0]!, b[1]!], [b[2]!, b[3]!]),
    crop: [crop[0]!, crop[1]!],
    counts: stations && caches ? { stations, caches } : null,
  };
}

/** The drawing, once, if it is of this view (the map page opening at the view the page was drawn for). */
export function claimServerView(center: [number, number], zoom: number): ServerView | null {
  const v = taken;
  taken = null;
  if (!v || Math.abs(v.lat - center[0]) > 1e-9 || Math.abs(v.lon - center[1]) > 1e-9 || v.z !== zoom) return null;
  return v;
}

/**
 * The drawing as overlays on the map: the basemap under the tiles, the points
 * over everything but the app's markers. Returns a function that takes the
 * points away (when the app's own markers are drawn).
 */
export function addServerView(map: L.Map, v: ServerView): () => void {
  const panes: Array<[string, string, SVGSVGElement]> = [
    ["serverBase", "150", v.base],
    ["serverPoints", "550", v.points],
  ];
  const layers: L.SVGOverlay[] = [];
  for (const [name, z, svg] of panes) {
    map.createPane(name).style.zIndex = z;
    // only the rows within the world's latitudes: what the bounds cover
    const w = Number(svg.getAttribute("width"));
    svg.setAttribute("viewBox", `0 ${v.crop[0]} ${w} ${v.crop[1] - v.crop[0]}`);
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("height", String(v.crop[1] - v.crop[0]));
    layers.push(L.svgOverlay(svg, v.bounds, { pane: name, interactive: false }).addTo(map));
  }
  return () => layers[1]?.remove();
}
