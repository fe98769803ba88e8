/**
 * The bytes of the gateway's map archives (/tiles/<name>.pmtiles) that a saved
 * area needs to draw offline: each archive's header and root directory (the
 * first 16 KiB, as the map's PMTiles reader asks for them), the leaf
 * directories the area's tiles sit in, and the tiles of the area from the
 * archive's lowest zoom to the view's zoom + EXTRA_ZOOMS (at most the
 * archive's deepest), MAX_AREA_TILES tiles at most. A small archive (the
 * built-in world basemap) is kept whole instead.
 *
 * The archives are read with the same PMTiles reader the map draws with
 * (the `pmtiles` package): a Source that keeps what it read gives the header
 * and the directories, and its directory lookup gives each tile's bytes.
 *
 * Stored in IndexedDB (ui/offline/db.ts "ranges"), not Cache Storage: the
 * service worker has to find "the saved bytes holding bytes a..b" for a range
 * the map asks, which is one cursor step on a [url, start] key and cannot be
 * asked of Cache Storage (it matches whole URLs only); and which saved areas
 * need a range lives in the same record, so deleting an area frees exactly
 * the bytes no other area needs.
 */
import { FetchSource, findTile, PMTiles, zxyToTileId, type Header, type RangeResponse, type Source } from "pmtiles";
import type { ArchiveInfo } from "../map/archives.ts";
import { get, put, SAVE_HEADER, shareRange, type SavedRange } from "./db.ts";
import { EXTRA_ZOOMS } from "./tiles.ts";

/** At most this many tiles of the gateway's archives in one saved area (all archives together). */
export const MAX_AREA_TILES = 3000;
/** Archives no bigger than this are kept whole (the built-in world basemap is about 1.2 MB). */
export const WHOLE_BYTES = 2_000_000;
/** Contiguous tile ranges are fetched and kept together up to this size. */
const CHUNK_BYTES = 1_000_000;

export interface Box {
  west: number;
  south: number;
  east: number;
  north: number;
}

interface Span {
  start: number;
  end: number;
}

export interface ArchivePlan {
  name: string;
  /** /tiles/<name>.pmtiles */
  path: string;
  size: number;
  etag: string | null;
  whole: boolean;
  /** header and directories, already read while planning (kept as they are) */
  read: Array<Span & { data: ArrayBuffer }>;
  /** tile bytes still to fetch, contiguous tiles merged */
  fetch: Span[];
  /** tiles of the area found in the archive (0 for a whole archive) */
  tiles: number;
  /** tile positions of the area looked up (what the tile cap counts) */
  asked: number;
  minZoom: number;
  maxZoom: number;
  /** the tile cap stopped this archive short of the zoom asked for */
  capped: boolean;
  /** bytes this archive adds to the area */
  bytes: number;
}

/** A Source that keeps what it read: the header with the root directory, then the leaf directories. */
class Keeping implements Source {
  read: Array<Span & { data: ArrayBuffer }> = [];
  etag: string | null = null;
  private inner: FetchSource;
  constructor(url: string) {
    this.inner = new FetchSource(url, new Headers({ [SAVE_HEADER]: "1" }));
  }
  getKey() {
    return this.inner.getKey();
  }
  async getBytes(offset: number, length: number, signal?: AbortSignal, etag?: string): Promise<RangeResponse> {
    const r = await this.inner.getBytes(offset, length, signal, etag);
    this.read.push({ start: offset, end: offset + r.data.byteLength - 1, data: r.data });
    this.etag ??= r.etag ?? null;
    return r;
  }
}

const lon2x = (lon: number, n: number) => Math.floor(((lon + 180) / 360) * n);
const lat2y = (lat: number, n: number) => {
  const r = (Math.max(-85.0511, Math.min(85.0511, lat)) * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * n);
};

/** The tile x/y ranges of `box` at zoom z. */
function tileRange(box: Box, z: number): { x0: number; x1: number; y0: number; y1: number } {
  const n = 2 ** z;
  return {
    x0: Math.max(0, lon2x(box.west, n)),
    x1: Math.min(n - 1, lon2x(box.east, n)),
    y0: Math.max(0, lat2y(box.north, n)),
    y1: Math.min(n - 1, lat2y(box.south, n)),
  };
}

/** The part of `box` inside the archive's bounds, or null. */
function within(box: Box, b: ArchiveInfo["bounds"]): Box | null {
  const out = { west: Math.max(box.west, b[0]), south: Math.max(box.south, b[1]), east: Math.min(box.east, b[2]), north: Math.min(box.north, b[3]) };
  return out.west <= out.east && out.south <= out.north ? out : null;
}

/** The view's `minLon,minLat,maxLon,maxLat` box as one or two boxes (two across the antimeridian). */
export function boxesOf(bbox: string): Box[] {
  const [w, s, e, n] = bbox.split(",").map(Number) as [number, number, number, number];
  return w <= e
    ? [{ west: w, south: s, east: e, north: n }]
    : [
        { west: w, south: s, east: 180, north: n },
        { west: -180, south: s, east: e, north: n },
      ];
}

/** Where tile `id` lies in the archive: its bytes, or null when the archive has no such tile. */
async function locate(p: PMTiles, h: Header, id: number): Promise<Span | null> {
  let offset = h.rootDirectoryOffset;
  let length = h.rootDirectoryLength;
  for (let depth = 0; depth <= 3; depth++) {
    const entry = findTile(await p.cache.getDirectory(p.source, offset, length, h), id);
    if (!entry) return null;
    if (entry.runLength > 0) return { start: h.tileDataOffset + entry.offset, end: h.tileDataOffset + entry.offset + entry.length - 1 };
    offset = h.leafDirectoryOffset + entry.offset;
    length = entry.length;
  }
  return null;
}

/** Sorted, distinct spans with touching or overlapping ones merged (up to CHUNK_BYTES). */
function merge(spans: Span[]): Span[] {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const out: Span[] = [];
  for (const s of sorted) {
    const last = out.at(-1);
    if (last && s.start <= last.end + 1 && Math.max(last.end, s.end) - last.start < CHUNK_BYTES) last.end = Math.max(last.end, s.end);
    else if (last && s.end <= last.end) continue;
    else out.push({ ...s });
  }
  return out;
}

/**
 * What archive `a` adds to an area of `boxes` seen at zoom `viewZoom`; `budget`
 * is how many tiles the area may still take. null when the archive has nothing
 * there.
 */
export async function planArchive(a: ArchiveInfo, boxes: Box[], viewZoom: number, budget: number): Promise<ArchivePlan | null> {
  const parts = boxes.map((b) => within(b, a.bounds)).filter((b): b is Box => b !== null);
  if (parts.length === 0) return null;
  const top = Math.min(a.maxZoom, Math.max(a.minZoom, Math.floor(viewZoom) + EXTRA_ZOOMS));
  if (a.bytes <= WHOLE_BYTES) {
    return {
      name: a.name,
      path: a.url,
      size: a.bytes,
      etag: null,
      whole: true,
      read: [],
      fetch: [{ start: 0, end: a.bytes - 1 }],
      tiles: 0,
      asked: 0,
      minZoom: a.minZoom,
      maxZoom: a.maxZoom,
      capped: false,
      bytes: a.bytes,
    };
  }
  const source = new Keeping(a.url);
  const p = new PMTiles(source);
  const h = await p.getHeader();
  const tiles: Span[] = [];
  let count = 0;
  let reached = h.minZoom - 1;
  let capped = false;
  for (let z = h.minZoom; z <= top; z++) {
    const ranges = parts.map((b) => tileRange(b, z));
    const n = ranges.reduce((s, r) => s + (r.x1 - r.x0 + 1) * (r.y1 - r.y0 + 1), 0);
    if (count + n > budget) {
      capped = true;
      break;
    }
    for (const r of ranges)
      for (let x = r.x0; x <= r.x1; x++)
        for (let y = r.y0; y <= r.y1; y++) {
          const at = await locate(p, h, zxyToTileId(z, x, y));
          if (at) tiles.push(at);
        }
    count += n;
    reached = z;
  }
  // not even the archive's first zoom fits under the cap: nothing of it is kept, and the panel says so
  const read = reached < h.minZoom ? [] : source.read;
  const fetch = merge(tiles);
  const bytes = read.reduce((s, r) => s + r.data.byteLength, 0) + fetch.reduce((s, r) => s + r.end - r.start + 1, 0);
  return {
    name: a.name,
    path: a.url,
    size: a.bytes,
    etag: source.etag,
    whole: false,
    read,
    fetch,
    tiles: tiles.length,
    asked: count,
    minZoom: h.minZoom,
    maxZoom: reached,
    capped,
    bytes,
  };
}

/** How many steps storing the plan takes (one per range to fetch, one for the directories). */
export const stepsOf = (p: ArchivePlan) => p.fetch.length + (p.read.length ? 1 : 0);

/** Keeps bytes start.. of the archive for area `id` (with the areas already sharing a record that starts there). */
async function keep(p: ArchivePlan, etag: string | null, start: number, data: Blob, id: number): Promise<void> {
  const old = await get<SavedRange>("ranges", [p.path, start]);
  const areas = old && old.end <= start + data.size - 1 ? [...new Set([...old.areas, id])] : [id];
  await put<SavedRange>("ranges", { url: p.path, start, end: start + data.size - 1, size: p.size, etag, data, areas });
}

/**
 * Stores the plan's bytes for saved area `id`: what another saved area already
 * keeps is shared, not stored twice. `step` is called once per step; resolves
 * with the bytes newly stored.
 */
export async function storeArchive(p: ArchivePlan, id: number, step: () => void): Promise<number> {
  let stored = 0;
  let etag = p.etag;
  if (p.read.length) {
    for (const r of p.read) {
      if (await shareRange(p.path, r.start, r.end, etag, id)) continue;
      await keep(p, etag, r.start, new Blob([r.data]), id);
      stored += r.data.byteLength;
    }
    step();
  }
  for (const r of p.fetch) {
    if (p.whole && etag === null) {
      // a whole archive: its ETag is known once asked; a copy kept for another area with that ETag is shared
      const head = await fetch(p.path, { method: "HEAD", headers: { [SAVE_HEADER]: "1" }, cache: "no-store" });
      etag = head.headers.get("etag");
    }
    if (await shareRange(p.path, r.start, r.end, etag, id)) {
      step();
      continue;
    }
    const res = await fetch(p.path, { headers: { range: `bytes=${r.start}-${r.end}`, [SAVE_HEADER]: "1" }, cache: "no-store" });
    if (res.status !== 206 && res.status !== 200) throw new Error(`map archive ${p.name}: HTTP ${res.status}`);
    const got = res.headers.get("etag");
    if (etag && got && got !== etag) throw new Error(`the map archive ${p.name} changed on the gateway while saving: save again`);
    const data = await res.blob();
    if (data.size !== r.end - r.start + 1) throw new Error(`map archive ${p.name}: ${data.size} bytes where ${r.end - r.start + 1} were asked`);
    await keep(p, etag ?? got, r.start, data, id);
    stored += data.size;
    step();
  }
  return stored;
}
