/**
 * PMTiles version 3 (the archive format of protomaps/PMTiles, spec/v3/spec.md):
 * a 127-byte header, a root directory, optional JSON metadata, optional leaf
 * directories and the tile data. Directories list tiles by their id on the
 * Hilbert curve of each zoom level, as varint columns (id deltas, run lengths,
 * lengths, offsets). The gateway only reads headers (to list an archive's
 * bounds); build.ts and the tests write archives with `writeArchive`.
 */
import { zlib } from "../lib/builtins.ts";
import { concatBytes } from "../lib/net/bytes.ts";

export const HEADER_BYTES = 127;
/** The header and the root directory must fit in the first 16 KiB. */
const ROOT_LIMIT = 16384 - HEADER_BYTES;

export const Compression = { unknown: 0, none: 1, gzip: 2, brotli: 3, zstd: 4 } as const;
/** The tile types a PMTiles header names, by their number. */
export const TILE_TYPE_NAMES = ["unknown", "mvt", "png", "jpeg", "webp", "avif"] as const;
export type TileTypeName = (typeof TILE_TYPE_NAMES)[number];

export interface Header {
  rootDirectoryOffset: number;
  rootDirectoryLength: number;
  metadataOffset: number;
  metadataLength: number;
  leafDirectoryOffset: number;
  leafDirectoryLength: number;
  tileDataOffset: number;
  tileDataLength: number;
  addressedTiles: number;
  tileEntries: number;
  tileContents: number;
  clustered: boolean;
  internalCompression: number;
  tileCompression: number;
  tileType: TileTypeName;
  minZoom: number;
  maxZoom: number;
  /** [west, south, east, north] in degrees */
  bounds: [number, number, number, number];
  center: { zoom: number; lon: number; lat: number };
}

export class PmtilesError extends Error {}

/** Reads and checks the header; throws PmtilesError when the bytes are not a PMTiles v3 archive. */
export function readHeader(bytes: Uint8Array): Header {
  if (bytes.length < HEADER_BYTES) throw new PmtilesError("shorter than a PMTiles header (127 bytes)");
  if (new TextDecoder().decode(bytes.subarray(0, 7)) !== "PMTiles") throw new PmtilesError("not a PMTiles archive (no PMTiles magic)");
  if (bytes[7] !== 3) throw new PmtilesError(`PMTiles spec version ${bytes[7]}; only version 3 is read`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const u64 = (o: number) => Number(v.getBigUint64(o, true));
  const e7 = (o: number) => v.getInt32(o, true) / 1e7;
  const type = v.getUint8(99);
  const h: Header = {
    rootDirectoryOffset: u64(8),
    rootDirectoryLength: u64(16),
    metadataOffset: u64(24),
    metadataLength: u64(32),
    leafDirectoryOffset: u64(40),
    leafDirectoryLength: u64(48),
    tileDataOffset: u64(56),
    tileDataLength: u64(64),
    addressedTiles: u64(72),
    tileEntries: u64(80),
    tileContents: u64(88),
    clustered: v.getUint8(96) === 1,
    internalCompression: v.getUint8(97),
    tileCompression: v.getUint8(98),
    tileType: TILE_TYPE_NAMES[type] ?? "unknown",
    minZoom: v.getUint8(100),
    maxZoom: v.getUint8(101),
    bounds: [e7(102), e7(106), e7(110), e7(114)],
    center: { zoom: v.getUint8(118), lon: e7(119), lat: e7(123) },
  };
  if (h.minZoom > h.maxZoom || h.maxZoom > 30) throw new PmtilesError(`bad zoom range ${h.minZoom}-${h.maxZoom}`);
  const [w, s, e, n] = h.bounds;
  if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90 && w <= e && s <= n)) throw new PmtilesError(`bad bounds ${h.bounds.join(",")}`);
  return h;
}

/** Tile id of z/x/y: the tiles of lower zooms, then the position on level z's Hilbert curve. */
export function tileId(z: number, x: number, y: number): number {
  if (z > 26 || x < 0 || y < 0 || x >= 2 ** z || y >= 2 ** z) throw new RangeError(`no tile ${z}/${x}/${y}`);
  let d = 0;
  let tx = x;
  let ty = y;
  for (let s = 2 ** z / 2; s >= 1; s /= 2) {
    const rx = (tx & s) > 0 ? 1 : 0;
    const ry = (ty & s) > 0 ? 1 : 0;
    d += s * s * ((3 * rx) ^ ry);
    // rotate the quadrant so the curve stays continuous (as the reference implementation does)
    if (ry === 0) {
      if (rx === 1) {
        tx = s - 1 - tx;
        ty = s - 1 - ty;
      }
      [tx, ty] = [ty, tx];
    }
  }
  // tiles of all lower zoom levels come first
  return (4 ** z - 1) / 3 + d;
}

interface Entry {
  tileId: number;
  offset: number;
  length: number;
  runLength: number;
}

function varint(out: number[], n: number): void {
  while (n >= 0x80) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
}

function encodeDirectory(entries: Entry[]): Uint8Array {
  const out: number[] = [];
  varint(out, entries.length);
  let last = 0;
  for (const e of entries) {
    varint(out, e.tileId - last);
    last = e.tileId;
  }
  for (const e of entries) varint(out, e.runLength);
  for (const e of entries) varint(out, e.length);
  entries.forEach((e, i) => {
    const prev = entries[i - 1];
    // 0 means "right after the previous entry", otherwise offset + 1
    varint(out, i > 0 && prev && e.offset === prev.offset + prev.length ? 0 : e.offset + 1);
  });
  return zlib().gzipSync(new Uint8Array(out));
}

export interface ArchiveInput {
  /** tile bytes (already compressed as `tileCompression` says) by "z/x/y" */
  tiles: Map<string, Uint8Array>;
  tileType: TileTypeName;
  tileCompression: number;
  /** [west, south, east, north]; defaults to the whole world */
  bounds?: [number, number, number, number];
  metadata?: Record<string, unknown>;
}

/**
 * Writes a clustered archive: tiles in tile-id order, identical tiles stored
 * once (consecutive repeats as one run), directories gzip-compressed, and
 * leaf directories when the root would not fit in the first 16 KiB.
 */
export function writeArchive(input: ArchiveInput): Uint8Array<ArrayBuffer> {
  const byId: Array<{ id: number; z: number; data: Uint8Array }> = [];
  for (const [key, data] of input.tiles) {
    const [z, x, y] = key.split("/").map(Number) as [number, number, number];
    byId.push({ id: tileId(z, x, y), z, data });
  }
  byId.sort((a, b) => a.id - b.id);
  if (byId.length === 0) throw new PmtilesError("an archive needs at least one tile");
  // the spec: every length is > 0, and vector archives say which layers they have
  if (byId.some((t) => t.data.length === 0)) throw new PmtilesError("a tile cannot be empty: leave it out");
  if (input.tileType === "mvt" && !Array.isArray(input.metadata?.vector_layers)) throw new PmtilesError("a vector archive's metadata needs vector_layers");

  const chunks: Uint8Array[] = [];
  const seen = new Map<string, { offset: number; length: number }>();
  const entries: Entry[] = [];
  let dataLength = 0;
  for (const t of byId) {
    const key = Bun.hash(t.data).toString(36) + ":" + t.data.length;
    let at = seen.get(key);
    if (!at) {
      at = { offset: dataLength, length: t.data.length };
      seen.set(key, at);
      chunks.push(t.data);
      dataLength += t.data.length;
    }
    const last = entries.at(-1);
    if (last && last.offset === at.offset && last.tileId + last.runLength === t.id) last.runLength++;
    else entries.push({ tileId: t.id, offset: at.offset, length: at.length, runLength: 1 });
  }

  let root = encodeDirectory(entries);
  let leaves: Uint8Array = new Uint8Array(0);
  if (root.length > ROOT_LIMIT) {
    // fewer, bigger leaves until the root fits
    for (let per = 4096; ; per *= 2) {
      const leafParts: Uint8Array[] = [];
      const rootEntries: Entry[] = [];
      let off = 0;
      for (let i = 0; i < entries.length; i += per) {
        const leaf = encodeDirectory(entries.slice(i, i + per));
        rootEntries.push({ tileId: entries[i]!.tileId, offset: off, length: leaf.length, runLength: 0 });
        leafParts.push(leaf);
        off += leaf.length;
      }
      root = encodeDirectory(rootEntries);
      if (root.length <= ROOT_LIMIT) {
        leaves = concatBytes(leafParts);
        break;
      }
    }
  }

  const metadata = zlib().gzipSync(new TextEncoder().encode(JSON.stringify(input.metadata ?? {})));
  const zooms = byId.map((t) => t.z);
  const [w, s, e, n] = input.bounds ?? [-180, -85.0511287, 180, 85.0511287];
  const header = new Uint8Array(HEADER_BYTES);
  const v = new DataView(header.buffer);
  new TextEncoder().encodeInto("PMTiles", header);
  header[7] = 3;
  const rootOffset = HEADER_BYTES;
  const metaOffset = rootOffset + root.length;
  const leafOffset = metaOffset + metadata.length;
  const dataOffset = leafOffset + leaves.length;
  const u64 = (o: number, x: number) => v.setBigUint64(o, BigInt(x), true);
  u64(8, rootOffset);
  u64(16, root.length);
  u64(24, metaOffset);
  u64(32, metadata.length);
  u64(40, leafOffset);
  u64(48, leaves.length);
  u64(56, dataOffset);
  u64(64, dataLength);
  u64(72, byId.length);
  u64(80, entries.length);
  u64(88, chunks.length);
  v.setUint8(96, 1);
  v.setUint8(97, Compression.gzip);
  v.setUint8(98, input.tileCompression);
  v.setUint8(99, TILE_TYPE_NAMES.indexOf(input.tileType));
  const minZoom = Math.min(...zooms);
  v.setUint8(100, minZoom);
  v.setUint8(101, Math.max(...zooms));
  const e7 = (o: number, x: number) => v.setInt32(o, Math.round(x * 1e7), true);
  e7(102, w);
  e7(106, s);
  e7(110, e);
  e7(114, n);
  v.setUint8(118, minZoom);
  e7(119, (w + e) / 2);
  e7(123, (s + n) / 2);
  return concatBytes([header, root, metadata, leaves, ...chunks]);
}
