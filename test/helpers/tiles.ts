/**
 * Small PMTiles archives made in the test, with the gateway's own writer:
 * raster tiles of one solid colour, and vector tiles in the Protomaps schema
 * (land with a lake and a named place) over a small region.
 */
import { deflateSync, gzipSync } from "node:zlib";
import { encodeTile, featureInTile, mercator, type Feature } from "../../src/tiles/mvt.ts";
import { Compression, tileId, writeArchive } from "../../src/tiles/pmtiles.ts";
import { pngChunk, pngFile } from "../../src/http/pwa.ts";

export type Bounds = [number, number, number, number];

/** The x/y ranges of the tiles covering `b` at zoom z. */
export function tilesCovering(b: Bounds, z: number): Array<[number, number]> {
  const n = 2 ** z;
  const [x0, y1] = mercator(b[0], b[1]);
  const [x1, y0] = mercator(b[2], b[3]);
  const out: Array<[number, number]> = [];
  for (let x = Math.floor(x0 * n); x <= Math.min(n - 1, Math.floor(x1 * n)); x++) {
    for (let y = Math.floor(y0 * n); y <= Math.min(n - 1, Math.floor(y1 * n)); y++) out.push([x, y]);
  }
  return out;
}

/**
 * A 256x256 PNG of one colour. `note`: a private ancillary chunk (which
 * decoders skip) carrying this text, so tiles of one colour can differ in
 * their bytes and size, as real tiles do.
 */
export function solidPng(r: number, g: number, b: number, note?: string): Uint8Array<ArrayBuffer> {
  const row = new Uint8Array(1 + 256 * 3);
  for (let i = 0; i < 256; i++) row.set([r, g, b], 1 + i * 3);
  const raw = new Uint8Array(row.length * 256);
  for (let y = 0; y < 256; y++) raw.set(row, y * row.length);
  const ihdr = new Uint8Array(13);
  const hv = new DataView(ihdr.buffer);
  hv.setUint32(0, 256);
  hv.setUint32(4, 256);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const chunks = [pngChunk("IHDR", ihdr), pngChunk("IDAT", deflateSync(raw))];
  if (note !== undefined) chunks.push(pngChunk("prVt", new TextEncoder().encode(note)));
  return pngFile(chunks);
}

/**
 * A raster archive of solid-colour PNG tiles covering `bounds` at zooms
 * minZ..maxZ. With `padBytes`, each tile is its own (no two alike, so none is
 * stored once for many) and that many bytes bigger: an archive of a
 * realistic size, read in many ranges.
 */
export function rasterArchive(bounds: Bounds, minZ: number, maxZ: number, rgb: [number, number, number], padBytes = 0): Uint8Array<ArrayBuffer> {
  const png = solidPng(...rgb);
  const tiles = new Map<string, Uint8Array>();
  for (let z = minZ; z <= maxZ; z++)
    for (const [x, y] of tilesCovering(bounds, z)) tiles.set(`${z}/${x}/${y}`, padBytes ? solidPng(...rgb, `${z}/${x}/${y} `.padEnd(padBytes, ".")) : png);
  return writeArchive({ tiles, tileType: "png", tileCompression: Compression.none, bounds });
}

const ring = (b: Bounds) => [mercator(b[0], b[1]), mercator(b[2], b[1]), mercator(b[2], b[3]), mercator(b[0], b[3])];

/** A vector archive: land over `bounds`, a lake in its middle third, and a place named `place` at its centre. */
export function vectorArchive(bounds: Bounds, minZ: number, maxZ: number, place: string): Uint8Array<ArrayBuffer> {
  const [w, s, e, n] = bounds;
  const dx = (e - w) / 3;
  const dy = (n - s) / 3;
  const land: Feature = { geometry: { type: "polygon", rings: [ring(bounds)] }, properties: { kind: "earth" } };
  const lake: Feature = { geometry: { type: "polygon", rings: [ring([w + dx, s + dy, e - dx, n - dy])] }, properties: { kind: "lake" } };
  const town: Feature = {
    geometry: { type: "point", points: [mercator((w + e) / 2, (s + n) / 2)] },
    properties: { kind: "locality", name: place, min_zoom: 1, population_rank: 10 },
  };
  const tiles = new Map<string, Uint8Array>();
  for (let z = minZ; z <= maxZ; z++) {
    for (const [x, y] of tilesCovering(bounds, z)) {
      const layer = (f: Feature) => {
        const t = featureInTile(f, z, x, y);
        return t ? [t] : [];
      };
      tiles.set(`${z}/${x}/${y}`, gzipSync(encodeTile({ earth: layer(land), water: layer(lake), places: layer(town) })));
    }
  }
  const vector_layers = ["earth", "water", "places"].map((id) => ({ id, fields: { kind: "String" }, minzoom: minZ, maxzoom: maxZ }));
  return writeArchive({ tiles, tileType: "mvt", tileCompression: Compression.gzip, bounds, metadata: { vector_layers } });
}

export { tileId };
