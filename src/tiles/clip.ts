/**
 * Cutting geometry to a rectangle: rings (land) with Sutherland-Hodgman,
 * lines (borders, coasts) with Liang-Barsky per segment. Used to cut vector
 * tiles and the map page's drawing of its view.
 */
export type Pt = [number, number];
/** [x0, y0, x1, y1], x0 <= x1 and y0 <= y1 */
export type Rect = [number, number, number, number];

/** A ring cut to the rectangle (empty when nothing of it is inside). */
export function clipRing(ring: Pt[], [x0, y0, x1, y1]: Rect): Pt[] {
  let out = ring;
  const edges: Array<[(p: Pt) => boolean, (a: Pt, b: Pt) => Pt]> = [
    [(p) => p[0] >= x0, (a, b) => [x0, a[1] + ((b[1] - a[1]) * (x0 - a[0])) / (b[0] - a[0])]],
    [(p) => p[0] <= x1, (a, b) => [x1, a[1] + ((b[1] - a[1]) * (x1 - a[0])) / (b[0] - a[0])]],
    [(p) => p[1] >= y0, (a, b) => [a[0] + ((b[0] - a[0]) * (y0 - a[1])) / (b[1] - a[1]), y0]],
    [(p) => p[1] <= y1, (a, b) => [a[0] + ((b[0] - a[0]) * (y1 - a[1])) / (b[1] - a[1]), y1]],
  ];
  for (const [inside, cut] of edges) {
    const input = out;
    out = [];
    for (let i = 0; i < input.length; i++) {
      const a = input[(i + input.length - 1) % input.length]!;
      const b = input[i]!;
      if (inside(b)) {
        if (!inside(a)) out.push(cut(a, b));
        out.push(b);
      } else if (inside(a)) out.push(cut(a, b));
    }
    if (out.length === 0) break;
  }
  return out;
}

/** A line cut to the rectangle: the pieces inside it. */
export function clipLine(line: Pt[], [x0, y0, x1, y1]: Rect): Pt[][] {
  const pieces: Pt[][] = [];
  let cur: Pt[] = [];
  for (let i = 1; i < line.length; i++) {
    const [ax, ay] = line[i - 1]!;
    const [bx, by] = line[i]!;
    const dx = bx - ax;
    const dy = by - ay;
    let t0 = 0;
    let t1 = 1;
    let ok = true;
    for (const [p, q] of [
      [-dx, ax - x0],
      [dx, x1 - ax],
      [-dy, ay - y0],
      [dy, y1 - ay],
    ] as Array<[number, number]>) {
      if (p === 0) {
        if (q < 0) ok = false;
      } else {
        const r = q / p;
        if (p < 0) t0 = Math.max(t0, r);
        else t1 = Math.min(t1, r);
      }
    }
    if (!ok || t0 > t1) {
      if (cur.length > 1) pieces.push(cur);
      cur = [];
      continue;
    }
    const a: Pt = [ax + t0 * dx, ay + t0 * dy];
    const b: Pt = [ax + t1 * dx, ay + t1 * dy];
    if (cur.length === 0 || t0 > 0) {
      if (cur.length > 1) pieces.push(cur);
      cur = [a];
    }
    cur.push(b);
    if (t1 < 1) {
      pieces.push(cur);
      cur = [];
    }
  }
  if (cur.length > 1) pieces.push(cur);
  return pieces;
}
