/**
 * Reading Mapbox Vector Tiles (MVT 2.1), the other half of mvt.ts: each
 * layer's features as their geometry type and parts (rings or lines) in
 * tile units. Properties are not read: the server draws the basemap's
 * shapes (ui.ts's first map view), not its labels.
 */

export const GEOM = { point: 1, line: 2, polygon: 3 } as const;

export interface ReadFeature {
  type: number;
  /** lines, rings or points, in tile units (0..extent) */
  parts: Array<Array<[number, number]>>;
}

export interface ReadLayer {
  extent: number;
  features: ReadFeature[];
}

class Reader {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    readonly end = buf.length,
  ) {}
  varint(): number {
    let n = 0;
    let mul = 1;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new RangeError("truncated varint");
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 0x80;
    }
  }
  /** the next field: its number and wire type */
  tag(): [number, number] {
    const t = this.varint();
    return [Math.floor(t / 8), t & 7];
  }
  sub(): Reader {
    const len = this.varint();
    const r = new Reader(this.buf, this.pos + len);
    r.pos = this.pos;
    this.pos += len;
    return r;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) {
      const len = this.varint();
      this.pos += len;
    } else if (wire === 5) this.pos += 4;
    else throw new RangeError(`wire type ${wire}`);
  }
}

const zigzag = (n: number) => (n % 2 === 1 ? -(n + 1) / 2 : n / 2);

function geometry(r: Reader): ReadFeature["parts"] {
  const parts: ReadFeature["parts"] = [];
  let part: Array<[number, number]> | null = null;
  let x = 0;
  let y = 0;
  while (r.pos < r.end) {
    const cmd = r.varint();
    const id = cmd & 7;
    const count = Math.floor(cmd / 8);
    if (id === 7) {
      if (part?.[0]) part.push([part[0][0], part[0][1]]);
      continue;
    }
    for (let i = 0; i < count; i++) {
      x += zigzag(r.varint());
      y += zigzag(r.varint());
      if (id === 1) {
        part = [];
        parts.push(part);
      }
      part?.push([x, y]);
    }
  }
  return parts;
}

/** The layers of a tile (uncompressed bytes) by name. */
export function readTile(bytes: Uint8Array): Map<string, ReadLayer> {
  const layers = new Map<string, ReadLayer>();
  const tile = new Reader(bytes);
  while (tile.pos < tile.end) {
    const [field, wire] = tile.tag();
    if (field !== 3 || wire !== 2) {
      tile.skip(wire);
      continue;
    }
    const l = tile.sub();
    let name = "";
    let extent = 4096;
    const features: ReadFeature[] = [];
    while (l.pos < l.end) {
      const [lf, lw] = l.tag();
      if (lf === 1 && lw === 2) {
        const s = l.sub();
        name = new TextDecoder().decode(s.buf.subarray(s.pos, s.end));
      } else if (lf === 5 && lw === 0) extent = l.varint();
      else if (lf === 2 && lw === 2) {
        const f = l.sub();
        let type = 0;
        let parts: ReadFeature["parts"] = [];
        while (f.pos < f.end) {
          const [ff, fw] = f.tag();
          if (ff === 3 && fw === 0) type = f.varint();
          else if (ff === 4 && fw === 2) parts = geometry(f.sub());
          else f.skip(fw);
        }
        features.push({ type, parts });
      } else l.skip(lw);
    }
    layers.set(name, { extent, features });
  }
  return layers;
}
