import { describe, expect, test } from "bun:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { compressPage, decompressPage, DEFLATE_DICT1 } from "../../src/lib/fed/compress.ts";
import { encodePage } from "../../src/lib/fed/page.ts";
import { encodePayload, RecordError, signFrame } from "../../src/lib/fed/record.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { generateKeyPair, signerFromSeed } from "../../src/lib/fed/keys.ts";

const signer = signerFromSeed(generateKeyPair().privateKey);
function page(n: number): Uint8Array {
  const frames = Array.from({ length: n }, (_, i) =>
    signFrame(
      encodePayload({
        type: 1,
        gid: `gw1:cache:${i + 1}`,
        origin: "gw1",
        v: 1,
        at: 1_700_000_000 + i,
        signer: "gw1",
        body: cacheToWire({
          name: `Cache number ${i}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 1.5,
          lat: 48 + i / 1000,
          lon: 11 + i / 1000,
          status: "active",
          ownerCall: "N0OWN",
        }) as never,
      }),
      signer,
    ),
  );
  return encodePage({ frames, next: n, more: false, type: 1, instance: "gw1" });
}

describe("deflateDict1", () => {
  test("round-trips, and zlib (an independent DEFLATE) reads and writes the same stream with the same dictionary", () => {
    const p = page(40);
    const z = compressPage(p, "deflateDict1");
    expect(z.length).toBeLessThan(p.length * 0.8);
    expect(Buffer.from(decompressPage(z, "deflateDict1")).equals(Buffer.from(p))).toBe(true);
    expect(Buffer.from(inflateRawSync(z, { dictionary: DEFLATE_DICT1 })).equals(Buffer.from(p))).toBe(true);
    const fromZlib = deflateRawSync(p, { dictionary: DEFLATE_DICT1 });
    expect(Buffer.from(decompressPage(fromZlib, "deflateDict1")).equals(Buffer.from(p))).toBe(true);
    expect(compressPage(p, "none")).toBe(p);
  });

  test("the dictionary helps a small page (a radio link's few records)", () => {
    const p = page(2);
    const withDict = compressPage(p, "deflateDict1").length;
    const without = deflateRawSync(p).length;
    expect(withDict).toBeLessThan(without);
  });

  test("hostile input: corrupt, truncated, or a bomb beyond the limit is refused with bad_compression", () => {
    const z = compressPage(page(10), "deflateDict1");
    const code = (f: () => unknown) => {
      try {
        f();
        return "ok";
      } catch (e) {
        return e instanceof RecordError ? e.code : String(e);
      }
    };
    expect(code(() => decompressPage(z.subarray(0, z.length - 8), "deflateDict1"))).toBe("bad_compression");
    expect(code(() => decompressPage(new Uint8Array([0xff, 0xff, 0xff, 0xff]), "deflateDict1"))).toBe("bad_compression");
    const bomb = deflateRawSync(new Uint8Array(4 * 1024 * 1024), { dictionary: DEFLATE_DICT1 });
    expect(bomb.length).toBeLessThan(10_000);
    expect(code(() => decompressPage(bomb, "deflateDict1", 1024 * 1024))).toBe("bad_compression");
  });
});
