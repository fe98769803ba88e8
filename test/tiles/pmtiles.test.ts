/**
 * The PMTiles writer and header reader against the independent `pmtiles`
 * reader (the format's reference implementation in JavaScript): a big archive
 * needs leaf directories and still has its root in the first 16 KiB; tiles,
 * deduplication and bounds come back as written; and the header reader
 * refuses what is not a v3 archive.
 */
import { describe, expect, test } from "bun:test";
import { PMTiles, zxyToTileId, type Source } from "pmtiles";
import { Compression, PmtilesError, readHeader, tileId, writeArchive } from "../../src/tiles/pmtiles.ts";

function memorySource(bytes: Uint8Array): Source {
  return {
    getKey: () => "memory",
    getBytes: async (offset: number, length: number) => ({ data: bytes.slice(offset, offset + length).buffer }),
  };
}

describe("PMTiles v3 writer", () => {
  test("tile ids follow the reference Hilbert numbering", () => {
    for (const [z, x, y] of [
      [0, 0, 0],
      [1, 1, 0],
      [3, 5, 2],
      [9, 271, 172],
      [14, 8000, 5400],
      [20, 543210, 345678],
    ] as const) {
      expect(tileId(z, x, y)).toBe(zxyToTileId(z, x, y));
    }
    expect(() => tileId(2, 4, 0)).toThrow(RangeError);
  });

  test("a big archive gets leaf directories, its root fits in 16 KiB, and every tile reads back", async () => {
    const tiles = new Map<string, Uint8Array>();
    // 40 000 distinct tiles of pseudo-random sizes at zoom 9 and 10, with gaps: no runs, little to compress
    let seed = 7;
    const rnd = () => {
      // xorshift32
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 2 ** 32;
    };
    const written: Array<[number, number, number, Uint8Array<ArrayBuffer>]> = [];
    for (let i = 0; written.length < 40_000; i++) {
      const z = i % 2 ? 10 : 9;
      const x = Math.floor(rnd() * 2 ** z);
      const y = Math.floor(rnd() * 2 ** z);
      if (tiles.has(`${z}/${x}/${y}`)) continue;
      const data = new Uint8Array(4 + Math.floor(rnd() * 300)).map(() => Math.floor(rnd() * 256));
      tiles.set(`${z}/${x}/${y}`, data);
      written.push([z, x, y, data]);
    }
    const bytes = writeArchive({ tiles, tileType: "png", tileCompression: Compression.none, bounds: [-10, -20, 30, 40] });
    const h = readHeader(bytes);
    expect(h.leafDirectoryLength).toBeGreaterThan(0);
    expect(h.rootDirectoryOffset + h.rootDirectoryLength).toBeLessThanOrEqual(16384);
    expect([h.minZoom, h.maxZoom, h.tileType, h.addressedTiles]).toEqual([9, 10, "png", 40_000]);

    const reader = new PMTiles(memorySource(bytes));
    const rh = await reader.getHeader();
    expect([rh.minLon, rh.minLat, rh.maxLon, rh.maxLat]).toEqual([-10, -20, 30, 40]);
    for (const [z, x, y, data] of written.filter((_, i) => i % 97 === 0)) {
      const t = await reader.getZxy(z, x, y);
      expect(new Uint8Array(t!.data)).toEqual(data);
    }
  });

  test("identical tiles are stored once, consecutive ones as one run, and read back at every position", async () => {
    const same = new Uint8Array([1, 2, 3, 4, 5]);
    const other = new Uint8Array([9, 9]);
    const tiles = new Map<string, Uint8Array>();
    for (let x = 0; x < 4; x++) for (let y = 0; y < 4; y++) tiles.set(`2/${x}/${y}`, x === 3 && y === 3 ? other : same);
    const bytes = writeArchive({ tiles, tileType: "png", tileCompression: Compression.none });
    const h = readHeader(bytes);
    expect(h.tileContents).toBe(2);
    expect(h.tileDataLength).toBe(7);
    expect(h.tileEntries).toBeLessThan(16);
    const reader = new PMTiles(memorySource(bytes));
    for (let x = 0; x < 4; x++) {
      for (let y = 0; y < 4; y++) expect(new Uint8Array((await reader.getZxy(2, x, y))!.data)).toEqual(x === 3 && y === 3 ? other : same);
    }
    expect(await reader.getZxy(3, 0, 0)).toBeUndefined();
  });

  test("the header reader refuses other files; the writer refuses empty tiles and vector archives without layers", () => {
    expect(() => readHeader(new TextEncoder().encode("x".repeat(200)))).toThrow(PmtilesError);
    expect(() => readHeader(new Uint8Array(50))).toThrow(PmtilesError);
    const good = writeArchive({ tiles: new Map([["0/0/0", new Uint8Array([1])]]), tileType: "png", tileCompression: Compression.none });
    expect(readHeader(good).maxZoom).toBe(0);
    const v2 = good.slice();
    v2[7] = 2;
    expect(() => readHeader(v2)).toThrow("only version 3");
    const badBounds = good.slice();
    new DataView(badBounds.buffer).setInt32(110, 200e7 | 0, true);
    expect(() => readHeader(badBounds)).toThrow("bad bounds");
    expect(() => writeArchive({ tiles: new Map([["0/0/0", new Uint8Array()]]), tileType: "png", tileCompression: Compression.none })).toThrow(
      "cannot be empty",
    );
    expect(() => writeArchive({ tiles: new Map([["0/0/0", new Uint8Array([1])]]), tileType: "mvt", tileCompression: Compression.none })).toThrow(
      "vector_layers",
    );
  });
});
