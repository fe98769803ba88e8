/**
 * Edge-case Ed25519 signatures on which verifiers disagree, built from the
 * curve with @noble/ed25519's point arithmetic: small-order and
 * non-canonical keys, S >= L, small-order R, and keys with a torsion
 * component (where cofactored and cofactorless verification differ).
 * Each case says what the svc-fed/1 rule (libsodium's) decides.
 */
import { createHash, randomBytes } from "node:crypto";
import { Point } from "@noble/ed25519";
import { SMALL_ORDER_ENCODINGS } from "../../src/lib/fed/ed25519.ts";
import { generateKeyPair, privateKeyObject } from "../../src/lib/fed/keys.ts";
import { sign } from "node:crypto";

export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const P = 2n ** 255n - 19n;

export interface SigCase {
  name: string;
  pk: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
  /** the rule's verdict: "ok" or the reason it refuses */
  expected: string;
}

export const le = (n: bigint, len = 32): Uint8Array => Uint8Array.from(Buffer.from(n.toString(16).padStart(len * 2, "0"), "hex").reverse());
export const fromLe = (b: Uint8Array): bigint => BigInt("0x" + (Buffer.from(b).reverse().toString("hex") || "0"));
const sha512 = (...parts: Uint8Array[]) => new Uint8Array(createHash("sha512").update(Buffer.concat(parts)).digest());
const randScalar = () => (fromLe(randomBytes(64)) % (L - 1n)) + 1n;

/** A point of order exactly 8, found from the curve: [L]P for points P until one has order 8. */
export function order8Point(): Point {
  for (let i = 1; ; i++) {
    const y = fromLe(sha512(new TextEncoder().encode(`torsion-${i}`)).subarray(0, 32)) % P;
    let p: Point;
    try {
      p = Point.fromBytes(le(y), false);
    } catch {
      continue;
    }
    const t = p.multiply(L - 1n, false).add(p); // [L]P: only the torsion part is left
    if (!t.multiply(4n, false).is0()) return t;
  }
}

/** Sign with raw scalars: R = [r]B, S = r + k*a, under any public key bytes. */
function rawSign(a: bigint, pk: Uint8Array, msg: Uint8Array, r = randScalar()): { sig: Uint8Array; k: bigint } {
  const R = Point.BASE.multiply(r).toBytes();
  const k = fromLe(sha512(R, pk, msg)) % L;
  const S = (r + k * a) % L;
  return { sig: Uint8Array.from([...R, ...le(S)]), k };
}

export function signatureCases(): SigCase[] {
  const msg = new TextEncoder().encode("svc-fed/1\nedge cases");
  const cases: SigCase[] = [];
  // An honest key and signature, and simple tampering.
  const kp = generateKeyPair();
  const pk = Uint8Array.from(Buffer.from(kp.publicKey, "base64url"));
  const sig = new Uint8Array(sign(null, msg, privateKeyObject(kp.privateKey)));
  cases.push({ name: "honest", pk, msg, sig, expected: "ok" });
  cases.push({ name: "other message", pk, msg: Uint8Array.from([...msg, 0x21]), sig, expected: "bad_signature" });
  const flipped = sig.slice();
  flipped[5]! ^= 1;
  cases.push({ name: "flipped bit in R", pk, msg, sig: flipped, expected: "bad_signature" });
  // S + L: the same point equation, a second encoding of S.
  const sPlusL = Uint8Array.from([...sig.subarray(0, 32), ...le(fromLe(sig.subarray(32)) + L)]);
  cases.push({ name: "S + L (malleated)", pk, msg, sig: sPlusL, expected: "s_not_reduced" });
  // Small-order keys: R = identity, S = 0 "verifies" any message under a naive check.
  const identity = le(1n);
  for (const [i, so] of SMALL_ORDER_ENCODINGS.entries()) {
    for (const signBit of [0, 0x80]) {
      const key = so.slice();
      key[31] = (key[31]! & 0x7f) | signBit;
      const canonical = (fromLe(key) & ((1n << 255n) - 1n)) < P;
      cases.push({
        name: `small-order key #${i}${signBit ? " (sign bit)" : ""}`,
        pk: key,
        msg,
        sig: Uint8Array.from([...identity, ...new Uint8Array(32)]),
        expected: canonical ? "small_order_key" : "non_canonical_key",
      });
    }
  }
  // Small-order R under an honest key.
  const a = randScalar();
  const A = Point.BASE.multiply(a);
  const Ab = A.toBytes();
  cases.push({ name: "small-order R", pk: Ab, msg, sig: Uint8Array.from([...identity, ...le(0n)]), expected: "small_order_r" });
  // A key that is not a curve point (y for which x^2 has no square root).
  for (let y = 2n; ; y++) {
    try {
      Point.fromBytes(le(y), false);
    } catch {
      cases.push({ name: "key not on the curve", pk: le(y), msg, sig: rawSign(a, le(y), msg).sig, expected: "key_not_on_curve" });
      break;
    }
  }
  // Non-canonical encoding of a key: y + p, possible for y < 19 when such a y is on the curve.
  for (let y = 2n; y < 19n; y++) {
    try {
      if (Point.fromBytes(le(y), false).isSmallOrder()) continue;
    } catch {
      continue;
    }
    cases.push({ name: `non-canonical key (y = ${y} + p)`, pk: le(y + P), msg, sig, expected: "non_canonical_key" });
  }
  // Mixed-order keys A + T: cofactorless verification holds only when k*T = 0, i.e. k % 8 = 0.
  const T = order8Point();
  const mixed = A.add(T).toBytes();
  let gotZero = false;
  let gotNonZero = false;
  while (!gotZero || !gotNonZero) {
    const { sig: s, k } = rawSign(a, mixed, msg);
    if (k % 8n === 0n && !gotZero) {
      gotZero = true;
      cases.push({ name: "mixed-order key, k = 0 mod 8", pk: mixed, msg, sig: s, expected: "ok" });
    } else if (k % 8n !== 0n && !gotNonZero) {
      gotNonZero = true;
      cases.push({ name: "mixed-order key, k != 0 mod 8 (cofactored verifiers accept)", pk: mixed, msg, sig: s, expected: "bad_signature" });
    }
  }
  // Mixed-order R: R + T with an honest key; the byte comparison with [S]B - [k]A fails.
  {
    const r = randScalar();
    const R = Point.BASE.multiply(r).add(T).toBytes();
    const k = fromLe(sha512(R, Ab, msg)) % L;
    const S = (r + k * a) % L;
    cases.push({ name: "mixed-order R (cofactored verifiers accept)", pk: Ab, msg, sig: Uint8Array.from([...R, ...le(S)]), expected: "bad_signature" });
  }
  // Non-canonical R: y >= p written for a small-order point is caught by the list; an
  // honest R with the sign bit flipped is simply another point.
  const rFlip = sig.slice();
  rFlip[31]! ^= 0x80;
  cases.push({ name: "R with sign bit flipped", pk, msg, sig: rFlip, expected: "bad_signature" });
  return cases;
}
