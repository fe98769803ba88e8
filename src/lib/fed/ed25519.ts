/**
 * The Ed25519 verification rule of svc-fed/1, identical on every instance and
 * every code path (docs/protocol.md, "Verification rule"). It is libsodium's
 * `crypto_sign_verify_detached`:
 *
 *   1. the public key is 32 bytes and the signature 64 bytes;
 *   2. S (the signature's second half, little-endian) is below the group order L;
 *   3. R (the first half) is not the encoding of a point of small order;
 *   4. the public key is canonical (y < p) and not of small order, and is a curve point;
 *   5. cofactorless equation: the encoding of [S]B - [k]A equals R byte for byte,
 *      where k = SHA-512(R || A || M) mod L.
 *
 * Plain RFC 8032 or ZIP-215 verifiers (and @noble/ed25519's defaults) accept
 * signatures this rule refuses, e.g. under small-order keys that let anyone
 * "sign" anything, so instances using them would disagree on the same frame.
 *
 * Paths: node:crypto (BoringSSL/OpenSSL, the fast one; a key object is cached
 * per signer), WebCrypto, and @noble/ed25519 for runtimes with neither. Each
 * applies checks 1-4 itself first, so all give the same verdict (tested
 * against each other and against libsodium).
 */
import { createPublicKey, verify as nodeVerify, type KeyObject } from "node:crypto";
import { Point, etc } from "@noble/ed25519";

/** The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian. */
const L_LE = Uint8Array.from(Buffer.from("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010", "hex"));
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * Encodings (sign bit masked off) of the points of small order, the same
 * list libsodium checks: y = 0, 1, p-1, the two y of the order-8 points, and
 * the non-canonical p and p+1. test/fed/ed25519.test.ts derives them from the curve.
 */
export const SMALL_ORDER_ENCODINGS: readonly Uint8Array[] = [
  "0000000000000000000000000000000000000000000000000000000000000000",
  "0100000000000000000000000000000000000000000000000000000000000000",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
].map((h) => Uint8Array.from(Buffer.from(h, "hex")));

export type KeyVerdict = "ok" | "bad_key_length" | "non_canonical_key" | "small_order_key" | "key_not_on_curve";
export type SigVerdict = "ok" | "bad_signature_length" | "s_not_reduced" | "small_order_r";

/** Whether 32 bytes (sign bit ignored) encode a small-order point. */
function isSmallOrderEncoding(b: Uint8Array): boolean {
  outer: for (const so of SMALL_ORDER_ENCODINGS) {
    for (let i = 0; i < 31; i++) if (b[i] !== so[i]) continue outer;
    if ((b[31]! & 0x7f) === so[31]) return true;
  }
  return false;
}

/** y (sign bit ignored) below p = 2^255 - 19. */
export function isCanonicalEncoding(b: Uint8Array): boolean {
  if ((b[31]! & 0x7f) !== 0x7f) return true;
  for (let i = 30; i > 0; i--) if (b[i] !== 0xff) return true;
  return b[0]! < 0xed;
}

/** S < L, comparing little-endian bytes from the top. */
export function isReducedScalar(s: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    if (s[i]! < L_LE[i]!) return true;
    if (s[i]! > L_LE[i]!) return false;
  }
  return false; // equal to L
}

/** Checks 1 and 4 for a public key (the curve check costs a square root: cache the verdict). */
export function checkPublicKey(pk: Uint8Array): KeyVerdict {
  if (pk.length !== 32) return "bad_key_length";
  if (!isCanonicalEncoding(pk)) return "non_canonical_key";
  if (isSmallOrderEncoding(pk)) return "small_order_key";
  try {
    Point.fromBytes(pk, false);
  } catch {
    return "key_not_on_curve";
  }
  return "ok";
}

/** Checks 1-3 for a signature. */
function checkSignature(sig: Uint8Array): SigVerdict {
  if (sig.length !== 64) return "bad_signature_length";
  if (!isReducedScalar(sig.subarray(32))) return "s_not_reduced";
  if (isSmallOrderEncoding(sig.subarray(0, 32))) return "small_order_r";
  return "ok";
}

/** One way of checking the equation (step 5); the rule's checks 1-4 run before it. */
export interface Ed25519Path {
  readonly name: string;
  equation(pk: Uint8Array, msg: Uint8Array, sig: Uint8Array): boolean | Promise<boolean>;
}

const keyVerdicts = new Map<string, KeyVerdict>();
const nodeKeys = new Map<string, KeyObject>();
const CACHE_MAX = 4096;

// The last key's id: a run of frames under one signer encodes it once. Compared
// byte for byte, never by identity (a caller may refill the same array).
const lastKey = new Uint8Array(32);
let lastId = "";

function keyId(pk: Uint8Array): string {
  if (pk.length === 32 && lastId !== "") {
    let i = 0;
    while (i < 32 && pk[i] === lastKey[i]) i++;
    if (i === 32) return lastId;
  }
  const id = Buffer.from(pk.buffer, pk.byteOffset, pk.byteLength).toString("base64url");
  if (pk.length === 32) {
    lastKey.set(pk);
    lastId = id;
  }
  return id;
}

function cachedKeyVerdict(pk: Uint8Array, id: string): KeyVerdict {
  let v = keyVerdicts.get(id);
  if (v === undefined) {
    v = checkPublicKey(pk);
    if (keyVerdicts.size >= CACHE_MAX) keyVerdicts.clear();
    keyVerdicts.set(id, v);
  }
  return v;
}

/** node:crypto: BoringSSL in Bun, OpenSSL in Node; one KeyObject per signer. */
export const nodePath: Ed25519Path = {
  name: "node:crypto",
  equation(pk, msg, sig) {
    const id = keyId(pk);
    let key = nodeKeys.get(id);
    if (!key) {
      key = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: id }, format: "jwk" });
      if (nodeKeys.size >= CACHE_MAX) nodeKeys.clear();
      nodeKeys.set(id, key);
    }
    return nodeVerify(null, msg, key, sig);
  },
};

const subtleKeys = new Map<string, Promise<CryptoKey>>();

/** WebCrypto (crypto.subtle), async. */
export const webCryptoPath: Ed25519Path = {
  name: "webcrypto",
  async equation(pk, msg, sig) {
    const id = keyId(pk);
    let key = subtleKeys.get(id);
    if (!key) {
      key = crypto.subtle.importKey("raw", pk.slice(), { name: "Ed25519" }, false, ["verify"]);
      if (subtleKeys.size >= CACHE_MAX) subtleKeys.clear();
      subtleKeys.set(id, key);
    }
    return crypto.subtle.verify("Ed25519", await key, sig.slice(), msg.slice());
  },
};

function numberLE(b: Uint8Array): bigint {
  return BigInt("0x" + (etc.bytesToHex(Uint8Array.from(b).reverse()) || "0"));
}

/** The equation on @noble/ed25519's point arithmetic, cofactorless like libsodium (noble's own verify is cofactored). */
function nobleEquation(pk: Uint8Array, sig: Uint8Array, digest: Uint8Array): boolean {
  let A: Point;
  try {
    A = Point.fromBytes(pk, false);
  } catch {
    return false;
  }
  const s = numberLE(sig.subarray(32));
  const k = numberLE(digest) % L;
  const check = Point.BASE.multiply(s, false).subtract(A.multiply(k, false)).toBytes();
  const r = sig.subarray(0, 32);
  for (let i = 0; i < 32; i++) if (check[i] !== r[i]) return false;
  return true;
}

/** @noble/ed25519 with SHA-512 from WebCrypto: for runtimes without node:crypto. Slow; async. */
export const noblePath: Ed25519Path = {
  name: "noble",
  async equation(pk, msg, sig) {
    const h = new Uint8Array(64 + msg.length);
    h.set(sig.subarray(0, 32), 0);
    h.set(pk, 32);
    h.set(msg, 64);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-512", h));
    return nobleEquation(pk, sig, digest);
  },
};

export type VerifyVerdict = "ok" | "bad_signature" | KeyVerdict | SigVerdict;

/**
 * Verifies under the rule. Synchronous for node:crypto (the default), a
 * Promise for the other paths.
 */
export function verifyEd25519(pk: Uint8Array, msg: Uint8Array, sig: Uint8Array, path: Ed25519Path = nodePath): VerifyVerdict | Promise<VerifyVerdict> {
  if (pk.length !== 32) return "bad_key_length";
  const kv = cachedKeyVerdict(pk, keyId(pk));
  if (kv !== "ok") return kv;
  const sv = checkSignature(sig);
  if (sv !== "ok") return sv;
  let r: boolean | Promise<boolean>;
  try {
    r = path.equation(pk, msg, sig);
  } catch {
    // A library refusing the key or signature outright is a refusal, never an exception.
    return "bad_signature";
  }
  if (typeof r === "boolean") return r ? "ok" : "bad_signature";
  return r.then(
    (ok) => (ok ? "ok" : "bad_signature"),
    () => "bad_signature" as const,
  );
}

/** The fastest path this runtime has: node:crypto when it does Ed25519, else WebCrypto, else noble. */
export function fastestPath(): Ed25519Path {
  try {
    const probe = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo" }, format: "jwk" });
    nodeVerify(null, new Uint8Array(1), probe, new Uint8Array(64));
    return nodePath;
  } catch {
    return typeof crypto?.subtle?.verify === "function" ? webCryptoPath : noblePath;
  }
}
