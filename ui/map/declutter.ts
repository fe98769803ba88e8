/**
 * Keeping a crowded map readable: points closer on screen than a marker's
 * width are drawn as one group (a count; a click zooms in, or lists them
 * where zooming cannot pull them apart), and labels are drawn only where
 * they collide with no other label and no other marker. Both the station
 * and the cache layer place their labels through one board per map, so a
 * station's call never covers a cache's name either.
 */
import L from "leaflet";

/** Screen distance (px) under which points are grouped. */
export const GROUP_PX = 40;

/** A point or a server-side cluster, in degrees. */
export interface Item<T> {
  lat: number;
  lon: number;
  count: number;
  /** the extent of a server cluster (west, south, east, north) */
  bbox?: [number, number, number, number];
  /** a single point's own data; absent for a server cluster */
  one?: T;
}

export interface Group<T> {
  lat: number;
  lon: number;
  count: number;
  /** west, south, east, north; east may exceed 180 where the group spans the antimeridian */
  bbox: [number, number, number, number];
  /** the single points grouped here (server clusters carry none) */
  members: T[];
  /** true: some of the count is server clusters, whose points the client does not have */
  partial: boolean;
}

/** A longitude moved by whole turns to lie within 180° of `ref`, so it draws on the world copy in view. */
export const near = (lon: number, ref: number) => lon + 360 * Math.round((ref - lon) / 360);

/**
 * Groups items whose screen positions lie within GROUP_PX of a group's first
 * (heaviest) item; a group of one single point stays that point.
 */
export function groupByPixels<T>(map: L.Map, items: Item<T>[], px = GROUP_PX): Array<{ one: T; lat: number; lon: number } | Group<T>> {
  const ref = map.getCenter().lng;
  const placed = items.map((it) => {
    const lon = near(it.lon, ref);
    const p = map.latLngToContainerPoint([it.lat, lon]);
    return { it, lon, x: p.x, y: p.y };
  });
  placed.sort((a, b) => b.it.count - a.it.count);
  const cells = new Map<string, number[]>();
  const key = (x: number, y: number) => `${Math.floor(x / px)}:${Math.floor(y / px)}`;
  placed.forEach((p, i) => {
    const k = key(p.x, p.y);
    const list = cells.get(k);
    if (list) list.push(i);
    else cells.set(k, [i]);
  });
  const taken = new Uint8Array(placed.length);
  const out: Array<{ one: T; lat: number; lon: number } | Group<T>> = [];
  for (let i = 0; i < placed.length; i++) {
    if (taken[i]) continue;
    const seed = placed[i]!;
    taken[i] = 1;
    const mine = [seed];
    const cx = Math.floor(seed.x / px);
    const cy = Math.floor(seed.y / px);
    for (let dx = -1; dx <= 1; dx++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (const j of cells.get(`${cx + dx}:${cy + dy}`) ?? []) {
          if (taken[j]) continue;
          const q = placed[j]!;
          if ((q.x - seed.x) ** 2 + (q.y - seed.y) ** 2 < px * px) {
            taken[j] = 1;
            mine.push(q);
          }
        }
      }
    }
    if (mine.length === 1 && seed.it.one !== undefined) {
      out.push({ one: seed.it.one, lat: seed.it.lat, lon: seed.lon });
      continue;
    }
    let w = Infinity, s = Infinity, e = -Infinity, n = -Infinity, count = 0;
    const members: T[] = [];
    let partial = false;
    for (const m of mine) {
      const [bw, bs, be, bn] = m.it.bbox ?? [m.it.lon, m.it.lat, m.it.lon, m.it.lat];
      // on the world copy the item is drawn on; a server extent may cross the antimeridian (east < west)
      const west = bw + (m.lon - m.it.lon);
      w = Math.min(w, west);
      e = Math.max(e, west + (be >= bw ? be - bw : be - bw + 360));
      s = Math.min(s, bs);
      n = Math.max(n, bn);
      count += m.it.count;
      if (m.it.one !== undefined) members.push(m.it.one);
      else partial = true;
    }
    out.push({ lat: seed.it.lat, lon: seed.lon, count, bbox: [w, s, e, n], members, partial });
  }
  return out;
}

/** Bubble size for a group of `n`. */
export const bubble = (n: number) => (n < 10 ? 28 : n < 100 ? 34 : n < 1000 ? 40 : 46);

/**
 * A click on a group: zoom so it spreads out, or, where zooming cannot pull
 * it apart (the map's last zoom, or every point on one spot), call `list`.
 */
export function openGroup<T>(map: L.Map, g: Group<T>, list: () => void): void {
  const [w, s, e, n] = g.bbox;
  const z = map.getZoom();
  const max = Number.isFinite(map.getMaxZoom()) ? map.getMaxZoom() : 19;
  const onOneSpot = e - w < 1e-7 && n - s < 1e-7;
  if (z >= max || (onOneSpot && !g.partial)) return list();
  const bounds = L.latLngBounds([s, w], [n, e]);
  let target = onOneSpot ? max : Math.min(map.getBoundsZoom(bounds, false, L.point(60, 60)), max);
  if (target <= z) target = Math.min(z + 2, max);
  map.setView(bounds.getCenter(), target);
}

export interface LabelSpot {
  /** the marker's centre in container pixels and its icon's half size */
  x: number;
  y: number;
  half: number;
  text: string;
  /** higher first */
  prio: number;
  el: HTMLElement | undefined;
}

export interface Board {
  /** a layer's label candidates and marker boxes, read on every pass */
  add(name: string, spots: () => { labels: LabelSpot[]; boxes: Array<[number, number, number]> }): void;
  remove(name: string): void;
  /** places the labels on the next frame */
  schedule(): void;
}

const LABEL_FONT = "600 11px system-ui, sans-serif";
/** label height and padding, as .map-label in styles.css */
const LABEL_H = 15;
const LABEL_PAD = 8;
/** the gap between an icon and its label */
const GAP = 3;
let measure: CanvasRenderingContext2D | null = null;
const widths = new Map<string, number>();
function textWidth(t: string): number {
  let w = widths.get(t);
  if (w === undefined) {
    measure ??= document.createElement("canvas").getContext("2d");
    if (measure) measure.font = LABEL_FONT;
    w = Math.ceil(measure ? measure.measureText(t).width : t.length * 7) + LABEL_PAD;
    if (widths.size > 20_000) widths.clear();
    widths.set(t, w);
  }
  return w;
}

type Box = [number, number, number, number];
const hit = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

const boards = new WeakMap<L.Map, Board>();

/** The map's label board (one per map, shared by its layers). */
export function labelBoard(map: L.Map): Board {
  const existing = boards.get(map);
  if (existing) return existing;
  const sources = new Map<string, () => { labels: LabelSpot[]; boxes: Array<[number, number, number]> }>();
  let frame = 0;
  const run = () => {
    frame = 0;
    const size = map.getSize();
    const labels: LabelSpot[] = [];
    const icons: Box[] = [];
    for (const src of sources.values()) {
      const r = src();
      labels.push(...r.labels);
      for (const [x, y, h] of r.boxes) icons.push([x - h, y - h, x + h, y + h]);
    }
    // A uniform grid over the container for the collision tests.
    const CELL = 64;
    const grid = new Map<number, Box[]>();
    const cellsOf = (b: Box) => {
      const out: number[] = [];
      for (let gx = Math.floor(b[0] / CELL); gx <= Math.floor(b[2] / CELL); gx++) for (let gy = Math.floor(b[1] / CELL); gy <= Math.floor(b[3] / CELL); gy++) out.push(gx * 100_003 + gy);
      return out;
    };
    const put = (b: Box) => {
      for (const k of cellsOf(b)) {
        const l = grid.get(k);
        if (l) l.push(b);
        else grid.set(k, [b]);
      }
    };
    const free = (b: Box, own: Box) => cellsOf(b).every((k) => (grid.get(k) ?? []).every((o) => o === own || !hit(b, o)));
    const ownBox = new Map<LabelSpot, Box>();
    for (const l of labels) {
      const b: Box = [l.x - l.half, l.y - l.half, l.x + l.half, l.y + l.half];
      ownBox.set(l, b);
    }
    for (const b of icons) put(b);
    for (const b of ownBox.values()) put(b);
    labels.sort((a, b) => b.prio - a.prio);
    for (const l of labels) {
      if (!l.el) continue;
      let side: "right" | "left" | "none" = "none";
      if (l.x >= -l.half && l.y >= -l.half && l.x <= size.x + l.half && l.y <= size.y + l.half) {
        const w = textWidth(l.text);
        const top = l.y - LABEL_H / 2;
        const right: Box = [l.x + l.half + GAP, top, l.x + l.half + GAP + w, top + LABEL_H];
        const left: Box = [l.x - l.half - GAP - w, top, l.x - l.half - GAP, top + LABEL_H];
        const own = ownBox.get(l)!;
        if (free(right, own)) (side = "right"), put(right);
        else if (free(left, own)) (side = "left"), put(left);
      }
      l.el.classList.toggle("label-right", side === "right");
      l.el.classList.toggle("label-left", side === "left");
    }
  };
  const board: Board = {
    add(name, spots) {
      sources.set(name, spots);
      board.schedule();
    },
    remove(name) {
      sources.delete(name);
      board.schedule();
    },
    schedule() {
      if (!frame) frame = requestAnimationFrame(run);
    },
  };
  map.on("zoomend", () => board.schedule());
  boards.set(map, board);
  return board;
}

/**
 * Keeps a layer's markers in step with what it should draw, by key: a marker
 * already drawn with the same icon is moved rather than made again.
 */
export function markerSet(layer: L.LayerGroup) {
  const drawn = new Map<string, { m: L.Marker; html: string }>();
  return {
    drawn,
    sync(wanted: Array<{ key: string; lat: number; lon: number; html: string; make: () => L.Marker }>) {
      const keep = new Set<string>();
      for (const w of wanted) {
        keep.add(w.key);
        const d = drawn.get(w.key);
        if (d && d.html === w.html) {
          const at = d.m.getLatLng();
          if (at.lat !== w.lat || at.lng !== w.lon) d.m.setLatLng([w.lat, w.lon]);
          continue;
        }
        d?.m.remove();
        const m = w.make().addTo(layer);
        drawn.set(w.key, { m, html: w.html });
      }
      for (const [k, d] of drawn) if (!keep.has(k)) (d.m.remove(), drawn.delete(k));
    },
  };
}
