/**
 * Keeping a crowded map readable: points closer on screen than a marker's
 * width are drawn as one group (a count; a click zooms in, or lists them
 * where zooming cannot pull them apart), and labels are drawn only where
 * they collide with no other label and no other marker. Pure functions of
 * the map's projection; ui/map/crowd.ts draws what they decide.
 *
 * Not a clustering library (supercluster): it indexes every point in the
 * browser, so 10,000 stations and 10,000 caches would all cross the link
 * and be indexed on a phone's or a Pi's CPU, and again whenever stations
 * move. The server already counts a crowded view into cells of about one
 * icon (the stations by their map index, the caches by their R*Tree and
 * per-degree counts), so what is left here is grouping a few hundred
 * screen points: a grid hash and a greedy pass.
 */
import L from "leaflet";

/** Screen distance (px) under which points are grouped: closer, their 24 px icons would overlap (a little overlap is allowed). */
export const GROUP_PX = 22;

/**
 * Server cluster cells along the view's longer side: about one per 22 px
 * (an icon), so a server cluster holds points that would overlap anyway and
 * the grouping here decides what is drawn.
 */
export function cellsFor(map: L.Map): number {
  const s = map.getSize();
  return Math.max(8, Math.min(64, Math.round(Math.max(s.x, s.y) / 22)));
}

/** A point or a server-side cluster, in degrees, of one kind (stations, caches). */
export interface Item<T> {
  kind: string;
  lat: number;
  lon: number;
  count: number;
  /** the extent of a server cluster (west, south, east, north; east < west across the antimeridian) */
  bbox?: [number, number, number, number];
  /** a single point's own data; absent for a server cluster */
  one?: T;
}

export interface Single<T> {
  kind: string;
  one: T;
  lat: number;
  lon: number;
}

export interface Group<T> {
  lat: number;
  lon: number;
  count: number;
  /** how many of each kind */
  counts: Record<string, number>;
  /** west, south, east, north; east may pass 180 where the group spans the antimeridian */
  bbox: [number, number, number, number];
  /** the single points grouped here (server clusters carry none) */
  members: Array<Single<T>>;
  /** kinds whose count is partly server clusters, whose points the client does not have */
  partial: string[];
}

/** A longitude moved by whole turns to lie within 180° of `ref`, so it draws on the world copy in view. */
export const near = (lon: number, ref: number) => lon + 360 * Math.round((ref - lon) / 360);

/**
 * Groups items whose screen positions lie within `px` of a group's first
 * (heaviest) item; a group of one single point stays that point.
 */
export function groupByPixels<T>(map: L.Map, items: Item<T>[], px = GROUP_PX): Array<Single<T> | Group<T>> {
  const ref = map.getCenter().lng;
  const placed = items.map((it) => {
    const lon = near(it.lon, ref);
    const p = map.latLngToContainerPoint([it.lat, lon]);
    return { it, lon, x: p.x, y: p.y };
  });
  placed.sort((a, b) => b.it.count - a.it.count);
  const cells = new Map<string, number[]>();
  placed.forEach((p, i) => {
    const k = `${Math.floor(p.x / px)}:${Math.floor(p.y / px)}`;
    const list = cells.get(k);
    if (list) list.push(i);
    else cells.set(k, [i]);
  });
  const taken = new Uint8Array(placed.length);
  const out: Array<Single<T> | Group<T>> = [];
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
          // two single points of different kinds (a station at a cache) stay apart: both are drawn
          if (seed.it.one !== undefined && q.it.one !== undefined && q.it.kind !== seed.it.kind) continue;
          if ((q.x - seed.x) ** 2 + (q.y - seed.y) ** 2 < px * px) {
            taken[j] = 1;
            mine.push(q);
          }
        }
      }
    }
    if (mine.length === 1 && seed.it.one !== undefined) {
      out.push({ kind: seed.it.kind, one: seed.it.one, lat: seed.it.lat, lon: seed.lon });
      continue;
    }
    let w = Infinity,
      s = Infinity,
      e = -Infinity,
      n = -Infinity,
      count = 0;
    const counts: Record<string, number> = {};
    const members: Array<Single<T>> = [];
    const partial = new Set<string>();
    for (const m of mine) {
      const [bw, bs, be, bn] = m.it.bbox ?? [m.it.lon, m.it.lat, m.it.lon, m.it.lat];
      // on the world copy the item is drawn on
      const west = bw + (m.lon - m.it.lon);
      w = Math.min(w, west);
      e = Math.max(e, west + (be >= bw ? be - bw : be - bw + 360));
      s = Math.min(s, bs);
      n = Math.max(n, bn);
      count += m.it.count;
      counts[m.it.kind] = (counts[m.it.kind] ?? 0) + m.it.count;
      if (m.it.one !== undefined) members.push({ kind: m.it.kind, one: m.it.one, lat: m.it.lat, lon: m.lon });
      else partial.add(m.it.kind);
    }
    out.push({ lat: seed.it.lat, lon: seed.lon, count, counts, bbox: [w, s, e, n], members, partial: [...partial] });
  }
  return mergeOverlaps(map, out);
}

/** A group bubble's size: one part per kind, side by side, overlapping a little. */
export function groupSize(counts: Record<string, number>): { w: number; h: number } {
  const parts = Object.values(counts)
    .filter((n) => n > 0)
    .map(bubble);
  return { w: parts.reduce((t, b) => t + b, 0) - 4 * Math.max(0, parts.length - 1), h: Math.max(0, ...parts) };
}

/**
 * Bubbles are wider than the grouping distance: a group or point whose box
 * would overlap a bigger group's bubble joins that group instead.
 */
function mergeOverlaps<T>(map: L.Map, out: Array<Single<T> | Group<T>>): Array<Single<T> | Group<T>> {
  const at = (o: { lat: number; lon: number }) => map.latLngToContainerPoint([o.lat, o.lon]);
  const boxOf = (o: Single<T> | Group<T>): Box => {
    const p = at(o);
    const { w, h } = "one" in o ? { w: 24, h: 24 } : groupSize(o.counts);
    return [p.x - w / 2 - 1, p.y - h / 2 - 1, p.x + w / 2 + 1, p.y + h / 2 + 1];
  };
  const groups = out.filter((o): o is Group<T> => !("one" in o)).sort((a, b) => b.count - a.count);
  const singles = out.filter((o): o is Single<T> => "one" in o);
  const kept: Array<{ g: Group<T>; box: Box }> = [];
  const absorb = (g: Group<T>, o: Single<T> | Group<T>) => {
    const add =
      "one" in o ? { count: 1, counts: { [o.kind]: 1 }, bbox: [o.lon, o.lat, o.lon, o.lat] as Group<T>["bbox"], members: [o], partial: [] as string[] } : o;
    g.count += add.count;
    for (const [k, n] of Object.entries(add.counts)) g.counts[k] = (g.counts[k] ?? 0) + n;
    g.bbox = [Math.min(g.bbox[0], add.bbox[0]), Math.min(g.bbox[1], add.bbox[1]), Math.max(g.bbox[2], add.bbox[2]), Math.max(g.bbox[3], add.bbox[3])];
    g.members.push(...add.members);
    g.partial = [...new Set([...g.partial, ...add.partial])];
  };
  const result: Array<Single<T> | Group<T>> = [];
  for (const o of [...groups, ...singles]) {
    const box = boxOf(o);
    // a group a single overlaps takes it in; a single with a single of another kind stays (drawn side by side)
    const into = kept.find((k) => hit(k.box, box));
    if (into) {
      absorb(into.g, o);
      into.box = boxOf(into.g);
    } else if ("one" in o) result.push(o);
    else {
      kept.push({ g: o, box });
      result.push(o);
    }
  }
  return result;
}

/** Bubble size for a count of `n`. */
export const bubble = (n: number) => (n < 10 ? 26 : n < 100 ? 32 : n < 1000 ? 38 : 44);

/**
 * A click on a group: zoom so it spreads out, or, where zooming cannot pull
 * it apart (the map's last zoom, or every point on one spot), call `list`.
 */
export function openGroup(map: L.Map, g: Group<unknown>, list: () => void): void {
  const [w, s, e, n] = g.bbox;
  const z = map.getZoom();
  const max = Number.isFinite(map.getMaxZoom()) ? map.getMaxZoom() : 19;
  const onOneSpot = e - w < 1e-7 && n - s < 1e-7;
  if (z >= max || (onOneSpot && g.partial.length === 0)) return list();
  const bounds = L.latLngBounds([s, w], [n, e]);
  let target = onOneSpot ? max : Math.min(map.getBoundsZoom(bounds, false, L.point(60, 60)), max);
  if (target <= z) target = Math.min(z + 2, max);
  map.setView(bounds.getCenter(), target);
}

/** A box in container pixels: left, top, right, bottom. */
export type Box = [number, number, number, number];
const hit = (a: Box, b: Box) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];

export interface LabelSpot {
  /** the marker's icon box */
  icon: Box;
  /** label width and height in px */
  w: number;
  h: number;
  /** higher first */
  prio: number;
}

/** The gap between an icon and its label. */
export const LABEL_GAP = 3;

/**
 * Where each label goes: right of its icon, else left, else nowhere, so no
 * label overlaps another label or any marker but its own. Labels whose
 * icon lies outside `view` are not drawn.
 */
export function placeLabels(labels: LabelSpot[], obstacles: Box[], view: Box): Array<"right" | "left" | "none"> {
  const CELL = 64;
  const grid = new Map<number, Box[]>();
  const cellsOf = (b: Box) => {
    const out: number[] = [];
    for (let gx = Math.floor(b[0] / CELL); gx <= Math.floor(b[2] / CELL); gx++)
      for (let gy = Math.floor(b[1] / CELL); gy <= Math.floor(b[3] / CELL); gy++) out.push(gx * 100_003 + gy);
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
  for (const b of obstacles) put(b);
  for (const l of labels) put(l.icon);
  const order = labels.map((_, i) => i).sort((a, b) => labels[b]!.prio - labels[a]!.prio);
  const sides: Array<"right" | "left" | "none"> = labels.map(() => "none");
  for (const i of order) {
    const l = labels[i]!;
    if (!hit(l.icon, view)) continue;
    const cy = (l.icon[1] + l.icon[3]) / 2;
    const top = cy - l.h / 2;
    const right: Box = [l.icon[2] + LABEL_GAP, top, l.icon[2] + LABEL_GAP + l.w, top + l.h];
    const left: Box = [l.icon[0] - LABEL_GAP - l.w, top, l.icon[0] - LABEL_GAP, top + l.h];
    if (free(right, l.icon)) (sides[i] = "right"), put(right);
    else if (free(left, l.icon)) (sides[i] = "left"), put(left);
  }
  return sides;
}

const LABEL_FONT = "600 11px system-ui, sans-serif";
/** label height and horizontal padding, as .map-label in styles.css */
export const LABEL_H = 15;
const LABEL_PAD = 8;
let measure: CanvasRenderingContext2D | null = null;
const widths = new Map<string, number>();

/** A label's width in px, measured in the label's own font (no layout needed). */
export function labelWidth(t: string): number {
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
