/**
 * A small Mapbox Vector Tile (MVT 2.1) encoder and the tiling it needs:
 * geometry in Web Mercator units (0..1 across the world), clipped to a tile
 * and quantized to the tile's 4096-unit grid. Enough for the built-in world
 * basemap (points, lines and polygons with string/number properties).
 */
import { clipLine, clipRing } from "./clip.ts";

export type Ring = Array<[number, number]>;
export type Geometry = { type: "point"; points: Array<[number, number]> } | { type: "line"; lines: Ring[] } | { type: "polygon"; rings: Ring[] };

export interface Feature {
  geometry: Geometry;
  properties: Record<string, string | number>;
}

const EXTENT = 4096;
const BUFFER = 64;

/** Longitude/latitude to Web Mercator units, x and y in 0..1 (y grows southwards). */
export function mercator(lon: number, lat: number): [number, number] {
  const l = Math.max(-85.0511287, Math.min(85.0511287, lat));
  const s = Math.sin((l * Math.PI) / 180);
  return [lon / 360 + 0.5, 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)];
}

// ---- protobuf writing -------------------------------------------------------

class Pbf {
  bytes: number[] = [];
  varint(n: number): void {
    while (n >= 0x80) {
      this.bytes.push((n % 0x80) | 0x80);
      n = Math.floor(n / 0x80);
    }
    this.bytes.push(n);
  }
  tag(field: number, wire: number): void {
    this.varint((field << 3) | wire);
  }
  raw(field: number, data: Uint8Array | number[]): void {
    this.tag(field, 2);
    this.varint(data.length);
    for (const b of data) this.bytes.push(b);
  }
  string(field: number, s: string): void {
    this.raw(field, new TextEncoder().encode(s));
  }
  packed(field: number, values: number[]): void {
    const p = new Pbf();
    for (const v of values) p.varint(v);
    this.raw(field, p.bytes);
  }
  double(field: number, x: number): void {
    this.tag(field, 1);
    const b = new Uint8Array(8);
    new DataView(b.buffer).setFloat64(0, x, true);
    for (const v of b) this.bytes.push(v);
  }
}

const zigzag = (n: number) => (n << 1) ^ (n >> 31);
const command = (id: number, count: number) => (id & 7) | (count << 3);

function ringArea(r: Ring): number {
  let a = 0;
  for (let i = 0, j = r.length - 1; i < r.length; j = i++) a += r[j]![0] * r[i]![1] - r[i]![0] * r[j]![1];
  return a / 2;
}

function encodeGeometry(g: Geometry): number[] {
  const out: number[] = [];
  let cx = 0;
  let cy = 0;
  const moveTo = (p: [number, number]) => {
    out.push(command(1, 1), zigzag(p[0] - cx), zigzag(p[1] - cy));
    [cx, cy] = p;
  };
  const lineTo = (pts: Array<[number, number]>) => {
    out.push(command(2, pts.length));
    for (const p of pts) {
      out.push(zigzag(p[0] - cx), zigzag(p[1] - cy));
      [cx, cy] = p;
    }
  };
  if (g.type === "point") {
    out.push(command(1, g.points.length));
    for (const p of g.points) {
      out.push(zigzag(p[0] - cx), zigzag(p[1] - cy));
      [cx, cy] = p;
    }
  } else if (g.type === "line") {
    for (const l of g.lines) {
      moveTo(l[0]!);
      lineTo(l.slice(1));
    }
  } else {
    for (const r of g.rings) {
      moveTo(r[0]!);
      lineTo(r.slice(1));
      out.push(command(7, 1));
    }
  }
  return out;
}

const GEOM_TYPE = { point: 1, line: 2, polygon: 3 } as const;

/** Encodes layers of features already in tile coordinates (0..EXTENT). */
export function encodeTile(layers: Record<string, Feature[]>): Uint8Array {
  const tile = new Pbf();
  for (const [name, features] of Object.entries(layers)) {
    if (features.length === 0) continue;
    const layer = new Pbf();
    layer.varint((15 << 3) | 0);
    layer.varint(2);
    layer.string(1, name);
    const keys: string[] = [];
    const values: Array<string | number> = [];
    const keyIndex = new Map<string, number>();
    const valueIndex = new Map<string, number>();
    for (const f of features) {
      const tags: number[] = [];
      for (const [k, v] of Object.entries(f.properties)) {
        let ki = keyIndex.get(k);
        if (ki === undefined) keyIndex.set(k, (ki = keys.push(k) - 1));
        const vk = typeof v + ":" + v;
        let vi = valueIndex.get(vk);
        if (vi === undefined) valueIndex.set(vk, (vi = values.push(v) - 1));
        tags.push(ki, vi);
      }
      const feat = new Pbf();
      if (tags.length) feat.packed(2, tags);
      feat.tag(3, 0);
      feat.varint(GEOM_TYPE[f.geometry.type]);
      feat.packed(4, encodeGeometry(f.geometry));
      layer.raw(2, feat.bytes);
    }
    for (const k of keys) layer.string(3, k);
    for (const v of values) {
      const val = new Pbf();
      if (typeof v === "string") val.string(1, v);
      else if (Number.isInteger(v) && v >= 0) {
        val.tag(5, 0);
        val.varint(v);
      } else val.double(3, v);
      layer.raw(4, val.bytes);
    }
    layer.tag(5, 0);
    layer.varint(EXTENT);
    tile.raw(3, layer.bytes);
  }
  return new Uint8Array(tile.bytes);
}

// ---- tiling ---------------------------------------------------------------

/** Douglas-Peucker simplification with squared tolerance `sq` (ring ends kept). */
export function simplify(pts: Ring, sq: number): Ring {
  if (pts.length <= 3) return pts;
  const keep = new Uint8Array(pts.length);
  keep[0] = keep[pts.length - 1] = 1;
  const stack: Array<[number, number]> = [[0, pts.length - 1]];
  while (stack.length) {
    const [a, b] = stack.pop()!;
    let max = 0;
    let idx = -1;
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const dx = bx - ax;
    const dy = by - ay;
    const len = dx * dx + dy * dy;
    for (let i = a + 1; i < b; i++) {
      const [px, py] = pts[i]!;
      let t = len ? ((px - ax) * dx + (py - ay) * dy) / len : 0;
      t = Math.max(0, Math.min(1, t));
      const ex = ax + t * dx - px;
      const ey = ay + t * dy - py;
      const d = ex * ex + ey * ey;
      if (d > max) {
        max = d;
        idx = i;
      }
    }
    if (max > sq && idx > 0) {
      keep[idx] = 1;
      stack.push([a, idx], [idx, b]);
    }
  }
  return pts.filter((_, i) => keep[i]);
}

function quantize(r: Ring, z: number, x: number, y: number, closed: boolean): Ring {
  const n = 2 ** z;
  const out: Ring = [];
  for (const [px, py] of r) {
    const q: [number, number] = [Math.round((px * n - x) * EXTENT), Math.round((py * n - y) * EXTENT)];
    const last = out.at(-1);
    if (!last || last[0] !== q[0] || last[1] !== q[1]) out.push(q);
  }
  if (closed && out.length > 1) {
    const f = out[0]!;
    const l = out.at(-1)!;
    if (f[0] === l[0] && f[1] === l[1]) out.pop();
  }
  return out;
}

/**
 * The part of a feature (in Mercator units) that falls in tile z/x/y, in
 * tile coordinates; null when nothing of it does. Exterior rings come out
 * with positive area, holes negative, as MVT wants.
 */
export function featureInTile(f: Feature, z: number, x: number, y: number): Feature | null {
  const n = 2 ** z;
  const b = BUFFER / EXTENT;
  const toTile = (r: Ring): Ring => r.map(([px, py]) => [px * n - x, py * n - y]);
  const back = (r: Ring): Ring => r.map(([px, py]) => [(px + x) / n, (py + y) / n]);
  const g = f.geometry;
  if (g.type === "point") {
    const pts = g.points.map((p) => quantize([p], z, x, y, false)[0]!).filter(([px, py]) => px >= 0 && px < EXTENT && py >= 0 && py < EXTENT);
    return pts.length ? { geometry: { type: "point", points: pts }, properties: f.properties } : null;
  }
  if (g.type === "line") {
    const lines = g.lines
      .flatMap((l) => clipLine(toTile(l), [-b, -b, 1 + b, 1 + b]))
      .map((l) => quantize(back(l), z, x, y, false))
      .filter((l) => l.length > 1);
    return lines.length ? { geometry: { type: "line", lines }, properties: f.properties } : null;
  }
  const rings: Ring[] = [];
  g.rings.forEach((r, i) => {
    const q = quantize(back(clipRing(toTile(r), [-b, -b, 1 + b, 1 + b])), z, x, y, true);
    if (q.length < 3) return;
    const area = ringArea(q);
    if (area === 0) return;
    const outer = i === 0;
    if ((outer && area < 0) || (!outer && area > 0)) q.reverse();
    if (!outer && rings.length === 0) return;
    rings.push(q);
  });
  return rings.length ? { geometry: { type: "polygon", rings }, properties: f.properties } : null;
}

/** The bounding box of a feature in Mercator units: [minX, minY, maxX, maxY]. */
export function bbox(g: Geometry): [number, number, number, number] {
  const pts = g.type === "point" ? g.points : g.type === "line" ? g.lines.flat() : g.rings.flat();
  let [a, b, c, d] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [x, y] of pts) {
    if (x < a) a = x;
    if (y < b) b = y;
    if (x > c) c = x;
    if (y > d) d = y;
  }
  return [a, b, c, d];
}
