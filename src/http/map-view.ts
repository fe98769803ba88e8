/**
 * The map's first view, drawn by the server into the page itself: on a slow
 * link every request costs a round trip (two seconds on a slow 3G line), so a
 * map that needs the page, then the script, then the data answers, then the
 * tiles shows nothing for ten seconds. The page for `/map?lat=&lon=&z=` (and
 * `/`, the default view) carries an SVG of that view instead: the built-in
 * world basemap's land and borders, and the stations and caches grouped as the
 * app groups them (22 px apart, the same server clusters, a count per group).
 *
 * The server does not know the browser's window, so it draws a window of
 * WINDOW_W x WINDOW_H pixels around the view's centre, which the page centres
 * in its map box as Leaflet centres the view. A small inline script (its hash
 * is in the page's Content-Security-Policy) counts what lies inside the map
 * box and writes the view count; the app then takes the drawing over
 * (ui/map/server-view.ts) and replaces it with its own layers.
 */
import { createHash } from "node:crypto";
import { clipLine, clipRing, type Pt, type Rect } from "../tiles/clip.ts";
import type { PMTiles, RangeResponse, Source } from "pmtiles";
import type { Gateway } from "./gateway.ts";
import { stationsForMap, type Bbox } from "../stations/registry.ts";
import { cachesInBox } from "../game/cache-map.ts";
import { worldArchive } from "../tiles/archives.ts";
import { GEOM, readTile, type ReadLayer } from "../tiles/mvt-read.ts";
import { translator } from "../i18n/server.ts";

/** The drawn window, in CSS pixels: wider and taller than a laptop's map, and than a phone's. */
const WINDOW_W = 2048;
const WINDOW_H = 1280;
/** As ui/map/declutter.ts: points closer than this on screen are one group. */
const GROUP_PX = 22;
const ICON = 24;
/** The app's default view (ui/map/view.ts initialView). */
export const HOME = { lat: 30, lon: 0, z: 2 };
/** The built-in world basemap's deepest zoom (src/tiles/world-basemap.ts); deeper views draw its tiles larger. */
const BASEMAP_MAX_ZOOM = 6;
/** Colours of the app's basemap style (protomaps "light", the world basemap's sea). */
const SEA = "#80deea";
const EARTH = "#e2dfda";
const BORDER = "#adadad";

export interface View {
  lat: number;
  lon: number;
  z: number;
  /** no view in the address: the default one, which a browser's remembered view may replace */
  home: boolean;
}

/** The view a map address opens at, as the app reads it (ui/map/view.ts), or null for a page that is not the map. */
export function viewOf(url: URL): View | null {
  if (url.pathname !== "/" && url.pathname !== "/map") return null;
  const q = url.searchParams;
  const lat = Number(q.get("lat"));
  const lon = Number(q.get("lon"));
  const z = Number(q.get("z"));
  if (q.has("lat") && q.has("lon") && Number.isFinite(lat) && Number.isFinite(lon) && Math.abs(lat) <= 90 && Math.abs(lon) <= 180) {
    return { lat, lon, z: Number.isInteger(z) && z >= 0 && z <= 22 ? z : 10, home: false };
  }
  // a view in the address that is not one: the app opens the default view, and ignores a remembered one
  return { ...HOME, home: !q.has("lat") };
}

const MAX_LAT = 85.0511287798;
/** World pixels at zoom z (Leaflet's EPSG:3857, 256 px tiles). */
function project(lat: number, lon: number, z: number): [number, number] {
  const size = 256 * 2 ** z;
  const s = Math.sin((Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180);
  return [((lon + 180) / 360) * size, (0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * size];
}
function unprojectLat(y: number, z: number): number {
  const n = Math.PI - (2 * Math.PI * y) / (256 * 2 ** z);
  return (180 / Math.PI) * Math.atan(Math.sinh(n));
}
const near = (lon: number, ref: number) => lon + 360 * Math.round((ref - lon) / 360);
const wrapLon = (lon: number) => ((((lon + 180) % 360) + 360) % 360) - 180;
const bubble = (n: number) => (n < 10 ? 26 : n < 100 ? 32 : n < 1000 ? 38 : 44);

/** The drawn window: its top left in world pixels, and its box in degrees (west > east across the antimeridian). */
function windowOf(v: View): { left: number; top: number; bbox: Bbox; corners: [[number, number], [number, number]] } {
  const [cx, cy] = project(v.lat, v.lon, v.z);
  const left = cx - WINDOW_W / 2;
  const top = cy - WINDOW_H / 2;
  const degPerPx = 360 / (256 * 2 ** v.z);
  const west = v.lon - (WINDOW_W / 2) * degPerPx;
  const east = v.lon + (WINDOW_W / 2) * degPerPx;
  const north = unprojectLat(Math.max(0, top), v.z);
  const south = unprojectLat(Math.min(256 * 2 ** v.z, top + WINDOW_H), v.z);
  const bbox: Bbox = east - west >= 360 ? { west: -180, east: 180, south, north } : { west: wrapLon(west), east: wrapLon(east), south, north };
  return {
    left,
    top,
    bbox,
    corners: [
      [unprojectLat(top, v.z), west],
      [unprojectLat(top + WINDOW_H, v.z), east],
    ],
  };
}

// ---- what is drawn: stations and caches, grouped on screen ---------------------------

type Kind = "s" | "c";
interface Item {
  kind: Kind;
  x: number;
  y: number;
  count: number;
  single: boolean;
}
export interface Drawn {
  x: number;
  y: number;
  /** stations and caches here */
  s: number;
  c: number;
  single: boolean;
}

/** Groups items closer than GROUP_PX, heaviest first, as the app's groupByPixels and mergeOverlaps do. */
function group(items: Item[]): Drawn[] {
  const placed = [...items].sort((a, b) => b.count - a.count);
  const cells = new Map<string, number[]>();
  placed.forEach((p, i) => {
    const k = `${Math.floor(p.x / GROUP_PX)}:${Math.floor(p.y / GROUP_PX)}`;
    const l = cells.get(k);
    if (l) l.push(i);
    else cells.set(k, [i]);
  });
  const taken = new Uint8Array(placed.length);
  const out: Drawn[] = [];
  for (let i = 0; i < placed.length; i++) {
    if (taken[i]) continue;
    const seed = placed[i]!;
    taken[i] = 1;
    const d: Drawn = { x: seed.x, y: seed.y, s: 0, c: 0, single: false };
    d[seed.kind] += seed.count;
    let members = 1;
    const cx = Math.floor(seed.x / GROUP_PX);
    const cy = Math.floor(seed.y / GROUP_PX);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const j of cells.get(`${cx + dx}:${cy + dy}`) ?? []) {
          if (taken[j]) continue;
          const q = placed[j]!;
          if (seed.single && q.single && q.kind !== seed.kind) continue;
          if ((q.x - seed.x) ** 2 + (q.y - seed.y) ** 2 < GROUP_PX * GROUP_PX) {
            taken[j] = 1;
            d[q.kind] += q.count;
            members++;
          }
        }
      }
    }
    d.single = members === 1 && seed.single;
    out.push(d);
  }
  // bubbles are wider than the grouping distance: what a bigger group's bubble covers joins it
  const box = (d: Drawn): [number, number, number, number] => {
    const parts = [d.s, d.c].filter((n) => n > 0).map(bubble);
    const w = d.single ? ICON : parts.reduce((t, b) => t + b, 0) - 4 * Math.max(0, parts.length - 1);
    const h = d.single ? ICON : Math.max(...parts);
    return [d.x - w / 2 - 1, d.y - h / 2 - 1, d.x + w / 2 + 1, d.y + h / 2 + 1];
  };
  const hit = (a: number[], b: number[]) => a[0]! < b[2]! && b[0]! < a[2]! && a[1]! < b[3]! && b[1]! < a[3]!;
  const groups = out.filter((d) => !d.single).sort((a, b) => b.s + b.c - (a.s + a.c));
  const kept: Array<{ d: Drawn; box: number[] }> = [];
  const result: Drawn[] = [];
  for (const d of [...groups, ...out.filter((o) => o.single)]) {
    const b = box(d);
    const into = kept.find((k) => hit(k.box, b));
    if (into) {
      into.d.s += d.s;
      into.d.c += d.c;
      into.box = box(into.d);
    } else {
      if (!d.single) kept.push({ d, box: b });
      result.push(d);
    }
  }
  return result;
}

/** The stations and caches of the window as the map draws them: singles and groups, in window pixels. */
function pointsOf(gw: Gateway, v: View): Drawn[] {
  const w = windowOf(v);
  // about one server cell per icon, as the app asks for its view (ui/map/declutter.ts cellsFor)
  const cells = Math.round(Math.max(WINDOW_W, WINDOW_H) / GROUP_PX);
  const st = stationsForMap(gw, w.bbox, { cells });
  const ca = cachesInBox(gw, w.bbox, { singles: true, cells });
  const items: Item[] = [];
  const add = (kind: Kind, lat: number, lon: number, count: number, single: boolean) => {
    const [x, y] = project(lat, near(lon, v.lon), v.z);
    items.push({ kind, x: x - w.left, y: y - w.top, count, single });
  };
  for (const s of st.stations) add("s", s.lat, s.lon, 1, true);
  for (const k of st.clusters) add("s", k.lat, k.lon, k.count, false);
  for (const c of ca.caches) add("c", c.lat, c.lon, 1, true);
  for (const k of ca.clusters) add("c", k.lat, k.lon, k.count, false);
  return group(items);
}

// ---- the basemap: the built-in world archive's land and borders ------------------------

let world: { blob: Blob; archive: PMTiles } | null = null;
const tiles = new Map<string, Promise<Map<string, ReadLayer> | null>>();

async function worldTile(z: number, x: number, y: number): Promise<Map<string, ReadLayer> | null> {
  const { blob } = await worldArchive();
  if (world?.blob !== blob) {
    const source: Source = {
      getKey: () => "world",
      getBytes: async (offset: number, length: number): Promise<RangeResponse> => ({ data: await blob.slice(offset, offset + length).arrayBuffer() }),
    };
    // the PMTiles reader loads with the first tile drawn: it carries its own copy of fflate, whose
    // tables cost every start (see lib/deflate.ts)
    const { PMTiles } = await import("pmtiles");
    world = { blob, archive: new PMTiles(source) };
    tiles.clear();
  }
  const key = `${z}/${x}/${y}`;
  let t = tiles.get(key);
  if (!t) {
    const archive = world.archive;
    // (the reader unzips the archive's gzipped tiles)
    t = archive.getZxy(z, x, y).then((r) => (r ? readTile(new Uint8Array(r.data)) : null));
    tiles.set(key, t);
    // a small cache: a deep view draws one z6 tile, and the views people open are few
    if (tiles.size > 256) tiles.delete(tiles.keys().next().value!);
  }
  return t;
}

/** Path data with whole pixels: an absolute move, then relative steps. */
function pathData(parts: Pt[][], close: boolean): string {
  let d = "";
  for (const part of parts) {
    let px = 0;
    let py = 0;
    let seg = "";
    let n = 0;
    for (const [x, y] of part) {
      const rx = Math.round(x);
      const ry = Math.round(y);
      if (n === 0) seg += `M${rx} ${ry}`;
      else if (rx !== px || ry !== py) seg += `l${rx - px} ${ry - py}`;
      else continue;
      px = rx;
      py = ry;
      n++;
    }
    if (n > (close ? 2 : 1)) d += seg + (close ? "z" : "");
  }
  return d;
}

/** Land and border paths of the window, from the world basemap's tiles (drawn larger beyond its last zoom). */
async function basemapOf(v: View): Promise<{ land: string; borders: string }> {
  const dz = Math.min(v.z, BASEMAP_MAX_ZOOM);
  const n = 2 ** dz;
  const size = 256 * 2 ** (v.z - dz);
  const { left, top } = windowOf(v);
  const view: Rect = [-2, -2, WINDOW_W + 2, WINDOW_H + 2];
  const land: Pt[][] = [];
  const borders: Pt[][] = [];
  for (let i = Math.floor(left / size); i <= Math.floor((left + WINDOW_W) / size); i++) {
    for (let j = Math.max(0, Math.floor(top / size)); j <= Math.min(n - 1, Math.floor((top + WINDOW_H) / size)); j++) {
      const t = await worldTile(dz, ((i % n) + n) % n, j).catch(() => null);
      if (!t) continue;
      const ox = i * size - left;
      const oy = j * size - top;
      // each tile's shapes only within the tile itself (tiles overlap by a buffer) and the window
      const rect: Rect = [Math.max(view[0], ox), Math.max(view[1], oy), Math.min(view[2], ox + size), Math.min(view[3], oy + size)];
      if (rect[0] >= rect[2] || rect[1] >= rect[3]) continue;
      const place = (layer: ReadLayer | undefined, type: number, into: Pt[][], cut: (p: Pt[]) => Pt[][]) => {
        if (!layer) return;
        const k = size / layer.extent;
        for (const f of layer.features) {
          if (f.type !== type) continue;
          for (const part of f.parts) into.push(...cut(part.map(([x, y]) => [ox + x * k, oy + y * k] as Pt)));
        }
      };
      place(t.get("earth"), GEOM.polygon, land, (r) => {
        const c = clipRing(r, rect);
        return c.length > 2 ? [c] : [];
      });
      place(t.get("boundaries"), GEOM.line, borders, (l) => clipLine(l, rect));
    }
  }
  return { land: pathData(land, true), borders: pathData(borders, false) };
}

// ---- the page ---------------------------------------------------------------------------

const esc = (s: string) => s.replace(/[<>&"]/g, (ch) => `&#${ch.charCodeAt(0)};`);
const r1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The SVG of a view's points, in whole pixels: single stations and single
 * caches each as one path of dots (`M x y h0` per point, drawn twice, white
 * under colour; a tenth of the bytes of an element per point), groups as
 * bubbles (SYMBOLS) with their counts.
 */
function pointsSvg(points: Drawn[]): string {
  const groups: string[] = [];
  const dots = { s: "", c: "" };
  for (const p of points) {
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    if (p.single) {
      dots[p.s ? "s" : "c"] += `M${x} ${y}h0`;
      continue;
    }
    const parts = (["s", "c"] as const).filter((k) => p[k] > 0);
    const w = parts.reduce((t, k) => t + bubble(p[k]), 0) - 4 * (parts.length - 1);
    let at = -w / 2;
    const shapes = parts.map((k) => {
      const b = bubble(p[k]);
      const cx = Math.round(at + b / 2);
      at += b - 4;
      // x="0" is the default
      const x = cx ? ` x="${cx}"` : "";
      return `<use href="#${k}${b}"${x}/><text${x}>${p[k]}</text>`;
    });
    groups.push(`<svg x="${x}" y="${y}">${shapes.join("")}</svg>`);
  }
  const line = (id: string, cap: string, colour: string) =>
    `<use href="#${id}" stroke="#fff" stroke-width="20" stroke-linecap="${cap}"/><use href="#${id}" stroke="${colour}" stroke-width="16" stroke-linecap="${cap}"/>`;
  return (
    `<defs><path id="ps" d="${dots.s}"/><path id="pc" d="${dots.c}"/></defs>` +
    groups.join("") +
    line("ps", "round", "#1e5aa8") +
    line("pc", "square", "#0b6e4f")
  );
}

/** The group bubbles of each size (as the app's .station-cluster, .cache-cluster). */
const SYMBOLS = [26, 32, 38, 44]
  .map(
    (b) =>
      `<symbol id="s${b}" overflow="visible"><circle r="${b / 2 - 1}" fill="#1e5aa8" stroke="#fff" stroke-width="2"/></symbol>` +
      `<symbol id="c${b}" overflow="visible"><rect x="${1 - b / 2}" y="${1 - b / 2}" width="${b - 2}" height="${b - 2}" rx="7" fill="#0b6e4f" stroke="#fff" stroke-width="2"/></symbol>`,
  )
  .join("");

/** The map view for the page: header, basemap and points, in the app's own layout (classes of ui/styles.css). */
/**
 * The count's words in the visitor's language, for COUNT_SCRIPT (a static script, so they travel in the page):
 * each plural's one and other form with `%n` for the number, and the sentences with `%`-marks for their parts.
 */
function countWords(lang: string): string {
  const t = translator(lang);
  const forms = (key: string) => [t(key, { count: 1, n: "%n" }), t(key, { count: 2, n: "%n" })];
  return JSON.stringify({
    l: lang,
    s: forms("mapView.stations"),
    c: forms("mapView.caches"),
    of: t("mapView.shownOf", { shown: "%s", all: "%a" }),
    sh: t("mapView.showing", { parts: "%p" }),
    iv: t("mapView.inView", { stations: "%s", caches: "%c" }),
  });
}

export async function mapViewHtml(gw: Gateway, v: View, instance: string, lang = "en"): Promise<string> {
  const t = translator(lang);
  const w = windowOf(v);
  const [base, points] = [await basemapOf(v), pointsOf(gw, v)];
  // the part of the window within the world's latitudes: what a Leaflet overlay can place (ui/map/server-view.ts)
  const worldPx = 256 * 2 ** v.z;
  const y0 = Math.max(0, -w.top);
  const y1 = Math.min(WINDOW_H, worldPx - w.top);
  const [west, east] = [w.corners[0][1], w.corners[1][1]];
  const [n, s] = [unprojectLat(w.top + y0, v.z), unprojectLat(w.top + y1, v.z)];
  const size = `width="${WINDOW_W}" height="${WINDOW_H}" viewBox="0 0 ${WINDOW_W} ${WINDOW_H}"`;
  return (
    `<div id="ssr-view" data-lat="${v.lat}" data-lon="${v.lon}" data-z="${v.z}"${v.home ? ` data-home=""` : ""} data-bounds="${[s, west, n, east].map((x) => +x.toFixed(6)).join(",")}" data-w="${WINDOW_W}" data-h="${WINDOW_H}" data-crop="${r1(y0)},${r1(y1)}" data-words="${esc(countWords(lang))}">` +
    // the keyboard's first stop, as in the app (ui/app.tsx)
    `<a class="skip-link" href="#main">${esc(t("page.skip"))}</a>` +
    `<header class="topbar"><a class="brand" href="/" aria-label="${esc(t("page.home"))}"><span class="brand-mark" aria-hidden="true">◈</span><span class="brand-name">${esc(instance)}</span></a></header>` +
    // the app says at once that no tile server is configured (ui/pages/map.tsx): so does the page, above the count
    `<main id="main" tabindex="-1"><section class="map-page"><div class="map-top">${gw.config.tileUrl ? "" : `<div class="banner" role="status">${esc(t("mapView.noTiles"))}</div>`}</div><div class="map ssr-map">` +
    `<svg class="ssr-base" ${size} aria-hidden="true"><rect width="100%" height="100%" fill="${SEA}"/><path d="${base.land}" fill="${EARTH}"/><path d="${base.borders}" fill="none" stroke="${BORDER}" stroke-width="1"/></svg>` +
    `<svg class="ssr-points" ${size} role="img" aria-label="${esc(t("mapView.points"))}">` +
    `<defs>${SYMBOLS}</defs>` +
    `<g font-size="12" font-weight="600" fill="#fff" text-anchor="middle" dominant-baseline="central" font-family="system-ui,sans-serif">${pointsSvg(points)}</g></svg>` +
    `</div></section></main></div>`
  );
}

/**
 * Runs right after the drawing: counts what lies inside the map box (the
 * drawing is centred in it, as Leaflet centres the view; a single point is a
 * dot of the #ps or #pc path, a group's count the text after each of its
 * bubbles) and writes the view
 * count in the app's words (ui/pages/map.tsx ViewCount), in the visitor's
 * language: the words travel in the page (data-words: countWords). A map box bigger than
 * the drawing gets no count: part of its view is not drawn. A default view
 * (no view in the address) that the browser's remembered view will replace is
 * taken away. Static text: its hash is in the Content-Security-Policy.
 */
export const COUNT_SCRIPT = `(()=>{const v=document.getElementById("ssr-view");if(!v)return;try{if(v.dataset.home!==undefined&&localStorage.getItem("svc.map.lastView")){v.remove();return}}catch{}const m=v.querySelector(".ssr-map").getBoundingClientRect(),W=+v.dataset.w,H=+v.dataset.h;if(m.width>W||m.height>H||!m.width)return;const x0=(W-m.width)/2,y0=(H-m.height)/2,x1=x0+m.width,y1=y0+m.height,s=[0,0],c=[0,0];const i=(x,y)=>x>=x0&&x<=x1&&y>=y0&&y<=y1;for(const[k,t]of[["ps",s],["pc",c]])for(const m of v.querySelector("#"+k).getAttribute("d").matchAll(/M(-?\\d+) (-?\\d+)/g))if(i(+m[1],+m[2])){t[0]++;t[1]++}for(const e of v.querySelectorAll(".ssr-points g>svg"))if(i(+e.getAttribute("x"),+e.getAttribute("y")))for(const u of e.querySelectorAll("use"))(u.getAttribute("href")[1]==="s"?s:c)[0]+=+u.nextSibling.textContent;const w=JSON.parse(v.dataset.words),r=new Intl.PluralRules(w.l),n=x=>x.toLocaleString(w.l),p=(x,o)=>w[o][r.select(x)==="one"?0:1].replace("%n",n(x)),f=(t,o)=>t[0]?w.of.replace("%s",n(t[1])).replace("%a",p(t[0],o)):"",g=s[1]<s[0]||c[1]<c[0],d=document.createElement("div");d.className="map-count"+(g?" grouped":"");d.dataset.testid="map-count";d.dataset.grouped=g?"true":"false";d.dataset.stations=s.join(",");d.dataset.caches=c.join(",");d.textContent=g?w.sh.replace("%p",[f(s,"s"),f(c,"c")].filter(Boolean).join(", ")):w.iv.replace("%s",p(s[0],"s")).replace("%c",p(c[0],"c"));v.querySelector(".map-top").append(d)})()`;

/** The script's CSP source: 'sha256-…' of its text. */
export const COUNT_SCRIPT_HASH = `'sha256-${createHash("sha256").update(COUNT_SCRIPT).digest("base64")}'`;
