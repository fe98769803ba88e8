import { describe, expect, test } from "bun:test";
import { Point, verify as nobleDefaultVerify, hashes } from "@noble/ed25519";
import { createHash } from "node:crypto";
import {
  checkPublicKey,
  fastestPath,
  isCanonicalEncoding,
  isReducedScalar,
  nodePath,
  noblePath,
  SMALL_ORDER_ENCODINGS,
  verifyEd25519,
  webCryptoPath,
} from "../../src/lib/fed/ed25519.ts";
import { L, P, le, fromLe, order8Point, signatureCases } from "../helpers/ed25519-cases.ts";

const hexOf = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("the verification rule", () => {
  test("the small-order list is exactly the curve's 8-torsion, canonical and y + p encodings", () => {
    const T = order8Point();
    const ys = new Set<bigint>();
    for (let k = 0n; k < 8n; k++) {
      const pt = T.multiply(k, false);
      ys.add(fromLe(pt.toBytes()) & ((1n << 255n) - 1n));
    }
    expect(ys.size).toBe(5); // 1, p-1, 0 (two x), and two y for the four order-8 points
    const derived = new Set<string>();
    for (const y of ys) {
      derived.add(hexOf(le(y)));
      if (y + P < 1n << 255n) derived.add(hexOf(le(y + P)));
    }
    expect(new Set(SMALL_ORDER_ENCODINGS.map(hexOf))).toEqual(derived);
  });

  test("S < L, canonical y", () => {
    expect(isReducedScalar(le(L - 1n))).toBe(true);
    expect(isReducedScalar(le(L))).toBe(false);
    expect(isReducedScalar(le(L + 1n))).toBe(false);
    expect(isReducedScalar(le(0n))).toBe(true);
    expect(isCanonicalEncoding(le(P - 1n))).toBe(true);
    expect(isCanonicalEncoding(le(P))).toBe(false);
    expect(isCanonicalEncoding(le(P | (1n << 255n)))).toBe(false);
    expect(isCanonicalEncoding(le((P - 1n) | (1n << 255n)))).toBe(true);
    expect(checkPublicKey(new Uint8Array(31))).toBe("bad_key_length");
  });

  test("every path gives the rule's verdict on every edge case", async () => {
    const cases = signatureCases();
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      const verdicts = {
        name: c.name,
        node: verifyEd25519(c.pk, c.msg, c.sig, nodePath),
        webcrypto: await verifyEd25519(c.pk, c.msg, c.sig, webCryptoPath),
        noble: await verifyEd25519(c.pk, c.msg, c.sig, noblePath),
      };
      expect(verdicts).toEqual({ name: c.name, node: c.expected, webcrypto: c.expected, noble: c.expected } as never);
    }
    expect(fastestPath()).toBe(nodePath);
  });

  test("one array refilled with other keys, case after case, gets each key's own verdict (caches go by the bytes)", async () => {
    const cases = signatureCases();
    const pk = new Uint8Array(32);
    // Each case twice in a row, then all of them again in reverse order.
    for (const c of [...cases.flatMap((c) => [c, c]), ...cases.slice().reverse()]) {
      if (c.pk.length !== 32) continue;
      pk.set(c.pk);
      expect({ name: c.name, node: verifyEd25519(pk, c.msg, c.sig, nodePath), webcrypto: await verifyEd25519(pk, c.msg, c.sig, webCryptoPath) }).toEqual({
        name: c.name,
        node: c.expected,
        webcrypto: c.expected,
      } as never);
    }
  });

  test("without the rule's checks, the libraries accept forgeries the rule refuses", () => {
    hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash("sha512").update(m).digest());
    const cases = signatureCases();
    const forged = cases.filter((c) => c.expected !== "ok");
    // noble's defaults (ZIP-215, cofactored) accept some of them...
    const nobleAccepts = forged.filter((c) => nobleDefaultVerify(c.sig, c.msg, c.pk)).map((c) => c.name);
    expect(nobleAccepts.length).toBeGreaterThan(0);
    expect(nobleAccepts.some((n) => n.startsWith("small-order key"))).toBe(true);
    // ...and node:crypto's bare equation accepts a small-order key "signing" anything.
    const bare = forged.filter((c) => {
      try {
        return nodePath.equation(c.pk, c.msg, c.sig) === true;
      } catch {
        return false;
      }
    });
    expect(bare.some((c) => c.name.startsWith("small-order key"))).toBe(true);
    // The mixed-order key case is where cofactored and cofactorless verification part ways.
    const mixed = cases.find((c) => c.name.startsWith("mixed-order key, k != 0"))!;
    expect(nobleDefaultVerify(mixed.sig, mixed.msg, mixed.pk)).toBe(true);
    expect(verifyEd25519(mixed.pk, mixed.msg, mixed.sig)).toBe("bad_signature");
    expect(Point.fromBytes(mixed.pk).isTorsionFree()).toBe(false);
  });
});
