import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import * as cborg from "cborg";
import { CborError, decodeCbor, decodeKeyed, encodeCbor, tryDecodeCbor, type CborValue } from "../../src/lib/fed/cbor.ts";

const hex = (h: string) => Uint8Array.from(Buffer.from(h.replace(/\s+/g, ""), "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");

function codeOf(bytes: Uint8Array, limits?: { maxDepth?: number; maxBytes?: number }): string {
  try {
    decodeCbor(bytes, limits);
    return "accepted";
  } catch (e) {
    expect(e).toBeInstanceOf(CborError);
    return (e as CborError).code;
  }
}

const normInt = (b: bigint): number | bigint => (b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : b);

const intArb = fc.oneof(
  fc.integer({ min: -30, max: 30 }),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n - 1n }).map(normInt),
  fc.constantFrom(23, 24, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, -24, -25, -256, -257, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
);
const textArb = fc.oneof(fc.string(), fc.string({ unit: "binary", maxLength: 40 }), fc.constantFrom("", "\uFEFFbom", "a".repeat(24), "é", "😀"));
const keyArb = fc.oneof(fc.integer({ min: -300, max: 70000 }), textArb);
const leafArb: fc.Arbitrary<CborValue> = fc.oneof(intArb, textArb, fc.uint8Array({ maxLength: 40 }), fc.boolean(), fc.constant(null));
const { value: valueArb } = fc.letrec<{ value: CborValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leafArb,
    fc.array(tie("value"), { maxLength: 6 }),
    fc.array(fc.tuple(keyArb, tie("value")), { maxLength: 6 }).map((e) => new Map(e)),
  ),
}));

describe("deterministic encoding", () => {
  test("RFC 8949 appendix A examples that are deterministic", () => {
    const cases: Array<[CborValue, string]> = [
      [0, "00"],
      [23, "17"],
      [24, "1818"],
      [100, "1864"],
      [1000, "1903e8"],
      [1000000, "1a000f4240"],
      [1000000000000, "1b000000e8d4a51000"],
      [18446744073709551615n, "1bffffffffffffffff"],
      [-18446744073709551616n, "3bffffffffffffffff"],
      [-1, "20"],
      [-100, "3863"],
      [-1000, "3903e7"],
      [false, "f4"],
      [true, "f5"],
      [null, "f6"],
      [new Uint8Array(0), "40"],
      [hex("01020304"), "4401020304"],
      ["", "60"],
      ["a", "6161"],
      ["IETF", "6449455446"],
      ['"\\', "62225c"],
      ["\u00fc", "62c3bc"],
      ["\u6c34", "63e6b0b4"],
      ["\ud800\udd51", "64f0908591"],
      [[], "80"],
      [[1, 2, 3], "83010203"],
      [[1, [2, 3], [4, 5]], "8301820203820405"],
      [new Map(), "a0"],
      [
        new Map([
          [1, 2],
          [3, 4],
        ]),
        "a201020304",
      ],
      [
        new Map<string, CborValue>([
          ["a", 1],
          ["b", [2, 3]],
        ]),
        "a26161016162820203",
      ],
      [["a", new Map([["b", "c"]])], "826161a161626163"],
    ];
    for (const [value, h] of cases) {
      expect({ value, bytes: toHex(encodeCbor(value)) }).toEqual({ value, bytes: h });
      expect(decodeCbor(hex(h))).toEqual(value);
    }
  });

  test("map keys are sorted by their encoded bytes, whatever the insertion order", () => {
    // 10 (0x0a) < 100 (0x1864) < -1 (0x20) < "z" (0x617a) < "aa" (0x626161)
    const m = new Map<string | number, CborValue>([
      ["aa", 1],
      ["z", 2],
      [-1, 3],
      [100, 4],
      [10, 5],
    ]);
    expect(toHex(encodeCbor(m))).toBe("a5" + "0a05" + "186404" + "2003" + "617a02" + "62616101");
    expect(toHex(encodeCbor({ b: 1, a: 2, undef: undefined }))).toBe("a2616102616201");
  });

  test("refuses what deterministic CBOR cannot carry", () => {
    for (const bad of [1.5, NaN, Infinity, 2 ** 53, 2n ** 64n, -(2n ** 64n) - 1n, "\ud800", new Date(0), undefined, () => 1]) {
      expect(() => encodeCbor(bad as never)).toThrow(CborError);
    }
    expect(() =>
      encodeCbor(
        new Map<number | bigint, CborValue>([
          [1, 0],
          [1n, 0],
        ]),
      ),
    ).toThrow("same bytes");
    let deep: CborValue = 0;
    for (let i = 0; i < 17; i++) deep = [deep];
    expect(() => encodeCbor(deep)).toThrow(CborError);
  });
});

describe("strict decoding", () => {
  test("each non-canonical or unsupported form is refused with its own code", () => {
    const cases: Array<[string, string]> = [
      ["1805", "non_shortest"],
      ["190010", "non_shortest"],
      ["1a00000100", "non_shortest"],
      ["1b00000000ffffffff", "non_shortest"],
      ["3817", "non_shortest"],
      ["780361626364", "non_shortest"],
      ["98020102", "non_shortest"],
      ["b8010102", "non_shortest"],
      ["5f4101ff", "indefinite_length"],
      ["7f6161ff", "indefinite_length"],
      ["9f01ff", "indefinite_length"],
      ["bf0101ff", "indefinite_length"],
      ["ff", "indefinite_length"],
      ["1c", "reserved"],
      ["3d", "reserved"],
      ["5e", "reserved"],
      ["fc", "reserved"],
      ["f93c00", "float"],
      ["fa47c35000", "float"],
      ["fb4045000000000000", "float"], // 42.0
      ["c11a514b67b0", "tag"],
      ["d82076687474703a2f2f7777772e6578616d706c652e636f6d", "tag"],
      ["f7", "simple_value"],
      ["f0", "simple_value"],
      ["f820", "simple_value"],
      ["a202000100", "unsorted_keys"],
      ["a2626262006161 00".replace(" ", ""), "unsorted_keys"],
      ["a2616100 2000".replace(" ", ""), "unsorted_keys"], // "a" (0x61) before -1 (0x20)
      ["a201000100", "duplicate_key"],
      ["a2616100616100", "duplicate_key"],
      ["a14000", "bad_key_type"],
      ["a18000", "bad_key_type"],
      ["a1f500", "bad_key_type"],
      ["62c328", "invalid_utf8"],
      ["62c080", "invalid_utf8"], // overlong
      ["63eda080", "invalid_utf8"], // surrogate
      ["64f4908080", "invalid_utf8"], // above U+10FFFF
      ["0000", "trailing_bytes"],
      ["", "truncated"],
      ["6261", "truncated"],
      ["18", "truncated"],
      ["8201", "truncated"],
      ["a101", "truncated"],
      ["5a00ffffff", "truncated"],
      ["5affffffff", "too_large"],
      ["9bffffffffffffffff", "too_large"],
    ];
    for (const [h, code] of cases) expect({ h, code: codeOf(hex(h)) }).toEqual({ h, code });
  });

  test("nesting and size limits", () => {
    const nested = (n: number) => hex("81".repeat(n) + "00");
    expect(codeOf(nested(16))).toBe("accepted");
    expect(codeOf(nested(17))).toBe("too_deep");
    expect(codeOf(nested(4), { maxDepth: 3 })).toBe("too_deep");
    expect(codeOf(hex("4400000000"), { maxBytes: 3 })).toBe("too_large");
    expect(codeOf(hex("43000000"), { maxBytes: 3 })).toBe("too_large");
    // A huge declared length never allocates: it is refused against the bytes left.
    expect(codeOf(hex("9a00ffffff00"))).toBe("truncated");
    expect(codeOf(hex("ba00ffffff0000"))).toBe("truncated");
    expect(codeOf(hex("9a7fffffff00"))).toBe("too_large");
  });

  test("a leading byte-order mark in text is data, kept on the round trip", () => {
    const bytes = encodeCbor("\uFEFFx");
    expect(toHex(bytes)).toBe("64efbbbf78");
    expect(decodeCbor(bytes)).toBe("\uFEFFx");
  });

  test("text of every length up to 300, ASCII or not, as a value or a key, decodes exactly; invalid UTF-8 is refused at any length and position", () => {
    const textHead = (n: number) => (n < 24 ? [0x60 | n] : n < 256 ? [0x78, n] : [0x79, n >> 8, n & 0xff]);
    const bad = [[0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xff]];
    for (let n = 0; n < 300; n++) {
      const ascii = Array.from({ length: n }, (_, i) => String.fromCharCode(0x20 + ((i * 7 + n) % 95))).join("");
      for (const s of [ascii, ascii + "é", "é" + ascii, "\uFEFF" + ascii, ascii + "😀"]) {
        expect(decodeCbor(encodeCbor(s))).toBe(s);
        if (s === "") continue;
        const o = decodeCbor(encodeCbor({ [s]: 1, "": 0 }), { textMaps: "object" }) as Record<string, number>;
        expect(Object.entries(o)).toEqual([
          ["", 0],
          [s, 1],
        ]);
      }
      for (const b of bad) {
        for (const at of [0, n >> 1, n]) {
          const raw = [...Buffer.from(ascii.slice(0, at)), ...b, ...Buffer.from(ascii.slice(at))];
          expect(codeOf(Uint8Array.from([...textHead(raw.length), ...raw]))).toBe("invalid_utf8");
        }
      }
    }
  });

  test("tryDecodeCbor returns the typed error instead of throwing", () => {
    const r = tryDecodeCbor(hex("f93c00"));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("float");
  });
});

describe("properties", () => {
  test("random values round-trip, and their encoding is stable", () => {
    fc.assert(
      fc.property(valueArb, (v) => {
        const bytes = encodeCbor(v);
        const back = decodeCbor(bytes);
        expect(back).toEqual(v);
        expect(toHex(encodeCbor(back))).toBe(toHex(bytes));
      }),
      { numRuns: 2000 },
    );
  });

  test('textMaps: "object" reads text-keyed maps as plain objects, with the same checks and the same bytes', () => {
    const objectify = (v: CborValue): unknown =>
      v instanceof Map
        ? v.size > 0 && [...v.keys()].every((k) => typeof k === "string")
          ? Object.fromEntries([...v].map(([k, x]) => [k, objectify(x)]))
          : new Map([...v].map(([k, x]) => [k, objectify(x)]))
        : Array.isArray(v)
          ? v.map(objectify)
          : v;
    fc.assert(
      fc.property(valueArb, (v) => {
        const bytes = encodeCbor(v);
        const asObjects = decodeCbor(bytes, { textMaps: "object" });
        expect(asObjects).toEqual(objectify(v) as CborValue);
        expect(toHex(encodeCbor(asObjects))).toBe(toHex(bytes));
      }),
      { numRuns: 1000 },
    );
    // Refusals are the same in both modes.
    for (const h of ["a2626262006161" + "00", "a2616100616100", "a2616100" + "4000"]) {
      expect(codeOf(hex(h))).not.toBe("accepted");
      let code = "accepted";
      try {
        decodeCbor(hex(h), { textMaps: "object" });
      } catch (e) {
        code = (e as CborError).code;
      }
      expect(code).toBe(codeOf(hex(h)));
    }
    // "__proto__" is data, never the prototype.
    const o = decodeCbor(encodeCbor(new Map([["__proto__", 1]])), { textMaps: "object" }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(["__proto__"]);
  });

  test("every single-byte mutation is refused or decodes to a value that encodes to exactly those bytes", () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(valueArb, (v) => {
        const bytes = encodeCbor(v);
        if (bytes.length > 48) return;
        const m = new Uint8Array(bytes);
        for (let i = 0; i < m.length; i++) {
          const orig = m[i]!;
          for (let b = 0; b < 256; b++) {
            if (b === orig) continue;
            m[i] = b;
            const r = tryDecodeCbor(m);
            if (r.ok) {
              accepted++;
              if (toHex(encodeCbor(r.value)) !== toHex(m)) throw new Error(`mutation ${toHex(m)} decoded to a value that encodes differently`);
            } else refused++;
          }
          m[i] = orig;
        }
      }),
      { numRuns: 150 },
    );
    // Both outcomes happen, so the property is exercised both ways.
    expect(accepted).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(1000);
  });

  test("decodeKeyed (the frame and payload fast path) agrees with decodeCbor on every single-byte mutation: same values, same errors, or hands the bytes back", () => {
    const limits = { maxDepth: 3, textMaps: "object" } as const;
    const outcome = (f: () => unknown) => {
      try {
        return { value: f() };
      } catch (e) {
        expect(e).toBeInstanceOf(CborError);
        const x = e as CborError;
        return { error: `${x.code} @${x.offset}: ${x.message}` };
      }
    };
    let fast = 0;
    let handedBack = 0;
    let errors = 0;
    fc.assert(
      fc.property(fc.array(valueArb, { minLength: 1, maxLength: 7 }), (values) => {
        const n = values.length;
        const bytes = encodeCbor(new Map(values.map((v, k) => [k + 1, v])));
        if (bytes.length > 64) return;
        expect(decodeKeyed(bytes, n)).not.toBeNull();
        const compare = (m: Uint8Array) => {
          const keyed = outcome(() => decodeKeyed(m, n, limits));
          const general = outcome(() => decodeCbor(m, limits));
          if (keyed.error !== undefined) {
            errors++;
            expect(keyed.error).toBe(general.error!);
          } else if (keyed.value === null) handedBack++;
          else {
            fast++;
            const map = general.value as Map<number, CborValue>;
            expect([...map.keys()]).toEqual(Array.from({ length: n }, (_, k) => k + 1));
            expect(keyed.value).toEqual([...map.values()]);
          }
        };
        // Truncated and with a byte too many, then every single-byte mutation.
        for (let end = 0; end < bytes.length; end++) compare(bytes.subarray(0, end));
        compare(Uint8Array.of(...bytes, 0));
        const m = new Uint8Array(bytes);
        for (let i = 0; i < m.length; i++) {
          const orig = m[i]!;
          for (let b = 0; b < 256; b += i === 0 ? 1 : 3) {
            m[i] = b;
            compare(m);
          }
          m[i] = orig;
        }
      }),
      { numRuns: 100 },
    );
    expect(fast).toBeGreaterThan(1000);
    expect(handedBack).toBeGreaterThan(1000);
    expect(errors).toBeGreaterThan(1000);
  });

  test("differential: cborg's RFC 8949 encoder writes the same bytes, and decodes ours to the same value", () => {
    // cborg cannot sort bigint keys, and its decoder drops a leading byte-order mark from text.
    const bom = (x: unknown) => typeof x === "string" && x.startsWith("\uFEFF");
    const cborgSafe = (v: CborValue): boolean =>
      v instanceof Map ? [...v].every(([k, x]) => typeof k !== "bigint" && !bom(k) && cborgSafe(x)) : Array.isArray(v) ? v.every(cborgSafe) : !bom(v);
    fc.assert(
      fc.property(valueArb.filter(cborgSafe), (v) => {
        const ours = encodeCbor(v);
        const theirs = cborg.encode(v, cborg.rfc8949EncodeOptions);
        expect(toHex(ours)).toBe(toHex(theirs));
        expect(cborg.decode(ours, { useMaps: true, strict: true, rejectDuplicateMapKeys: true })).toEqual(v);
      }),
      { numRuns: 1000 },
    );
  });

  test("differential: whatever we accept, cborg in strict mode accepts as the same value", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 24 }), (bytes) => {
        const r = tryDecodeCbor(bytes);
        if (!r.ok || JSON.stringify(r.value, (_k, x) => (typeof x === "bigint" ? String(x) : x instanceof Map ? [...x] : x)).includes("\uFEFF")) return;
        expect(cborg.decode(bytes, { useMaps: true, strict: true, rejectDuplicateMapKeys: true })).toEqual(r.value);
      }),
      { numRuns: 20000 },
    );
  });

  test("cborg's strict mode lets through what we refuse (why the codec is our own)", () => {
    const lax = (h: string) => {
      try {
        cborg.decode(hex(h), { useMaps: true, strict: true, rejectDuplicateMapKeys: true });
        return true;
      } catch {
        return false;
      }
    };
    // unsorted keys, 42.0 as a float, invalid UTF-8
    for (const h of ["a202000100", "fb4045000000000000", "62c328"]) {
      expect(codeOf(hex(h))).not.toBe("accepted");
      expect({ h, cborgAccepts: lax(h) }).toEqual({ h, cborgAccepts: true });
    }
  });
});
