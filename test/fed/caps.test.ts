import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  capsFromObject,
  CapsError,
  clampCaps,
  COMPRESSIONS,
  decodeCaps,
  encodeCaps,
  intersectCaps,
  tierCaps,
  TIERS,
  type LinkCaps,
} from "../../src/lib/fed/caps.ts";
import { encodeCbor } from "../../src/lib/fed/cbor.ts";
import { encode as cborgEncode } from "cborg";

const arbCaps: fc.Arbitrary<LinkCaps> = fc.record({
  tier: fc.constantFrom(...TIERS),
  baud: fc.constantFrom(0, 300, 1200, 9600, 56_000),
  mtu: fc.integer({ min: 1, max: 1 << 24 }),
  batch: fc.integer({ min: 1, max: 10_000 }),
  compress: fc.subarray(["deflateDict1"] as const).map((c) => [...c, "none" as const]),
  records: fc.subarray([1, 2, 3, 4, 5, 6, 7]),
});

const strip = (n: ReturnType<typeof intersectCaps>): LinkCaps => ({
  tier: n.tier,
  baud: n.baud,
  mtu: n.mtu,
  batch: n.batch,
  compress: n.compress,
  records: n.records,
});

describe("link capabilities", () => {
  test("the intersection takes the slower tier and baud, the smaller mtu and batch, the best common compression, the common records", () => {
    const vhf = { ...tierCaps("compact"), baud: 9600, records: [1, 2, 5, 7] };
    const link = intersectCaps(tierCaps("full"), vhf);
    expect(link).toEqual({
      tier: "compact",
      baud: 9600,
      mtu: 2048,
      batch: 25,
      compress: ["deflateDict1", "none"],
      records: [1, 2, 5, 7],
      compression: "deflateDict1",
    });
    const noDict = intersectCaps(tierCaps("full"), { ...tierCaps("full"), compress: ["none"] });
    expect(noDict.compression).toBe("none");
    const hf = intersectCaps(tierCaps("compact"), tierCaps("beacon"));
    expect(hf).toMatchObject({ tier: "beacon", baud: 300, batch: 1, records: [5, 7], compression: "none" });
  });

  test("both ends compute the same link: commutative, associative, idempotent", () => {
    fc.assert(
      fc.property(arbCaps, arbCaps, arbCaps, (a, b, c) => {
        expect(intersectCaps(a, b)).toEqual(intersectCaps(b, a));
        expect(intersectCaps(strip(intersectCaps(a, b)), c)).toEqual(intersectCaps(a, strip(intersectCaps(b, c))));
        expect(strip(intersectCaps(a, a))).toEqual(a);
        const ab = intersectCaps(a, b);
        expect(ab.batch).toBeLessThanOrEqual(Math.min(a.batch, b.batch));
        expect(ab.records.every((t) => a.records.includes(t) && b.records.includes(t))).toBe(true);
      }),
    );
  });

  test("operator policy clamps further, never widens", () => {
    fc.assert(
      fc.property(arbCaps, fc.integer({ min: 1, max: 20_000 }), (a, batch) => {
        const c = clampCaps(a, { batch, compress: ["none"] });
        expect(c.batch).toBe(Math.min(a.batch, batch));
        expect(c.compression).toBe("none");
        expect(c.records).toEqual(a.records);
        expect(c.tier).toBe(a.tier);
      }),
    );
  });

  test("CBOR form: deterministic bytes that round-trip (the same bytes cborg writes canonically)", () => {
    fc.assert(
      fc.property(arbCaps, (a) => {
        const bytes = encodeCaps(a);
        expect(decodeCaps(bytes)).toEqual(a);
        const oracle = cborgEncode({ tier: a.tier, baud: a.baud, mtu: a.mtu, batch: a.batch, compress: a.compress, records: a.records });
        expect(Buffer.from(bytes).equals(Buffer.from(oracle))).toBe(true);
      }),
    );
  });

  test("a peer's caps: tier required, missing fields from its tier, unknown names ignored, nonsense refused", () => {
    expect(capsFromObject({ tier: "compact" })).toEqual(tierCaps("compact"));
    expect(capsFromObject({ tier: "full", compress: ["zstd9", "deflateDict1"], records: [2, 99, 1], extra: true })).toMatchObject({
      compress: ["deflateDict1", "none"],
      records: [1, 2],
    });
    expect(capsFromObject({ tier: "full", batch: 1e9 }).batch).toBe(10_000);
    const bad = [
      null,
      [],
      "full",
      { tier: "warp" },
      { tier: "full", batch: 0 },
      { tier: "full", mtu: 1.5 },
      { tier: "full", records: "all" },
      { tier: "full", baud: -1 },
    ];
    for (const b of bad) expect(() => capsFromObject(b)).toThrow(CapsError);
    expect(() => decodeCaps(new Uint8Array([0xa1, 0x64]))).toThrow(CapsError);
    // a non-canonical map (keys out of order) is refused like any other CBOR
    const unsorted = new Uint8Array([0xa2, 0x64, ...Buffer.from("tier"), 0x64, ...Buffer.from("full"), 0x63, ...Buffer.from("mtu"), 0x01]);
    expect(() => decodeCaps(unsorted)).toThrow(CapsError);
    expect(decodeCaps(encodeCbor({ tier: "beacon" }))).toEqual(tierCaps("beacon"));
    expect(COMPRESSIONS[0]).toBe("deflateDict1");
  });
});
