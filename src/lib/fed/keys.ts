/**
 * Ed25519 signing keys as operators handle them: the private key is the
 * base64url of the 32-byte seed (what `svc-gateway keygen` prints as
 * FED_PRIVATE_KEY), the public key the base64url of the raw 32-byte key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import canonicalize from "canonicalize";
import { verifyEd25519 } from "./ed25519.ts";
import { isInstanceId } from "./record.ts";

// PKCS#8 prefix for an Ed25519 private key: the 32-byte seed follows.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export interface KeyPair {
  /** base64url of the 32-byte seed */
  privateKey: string;
  /** base64url of the 32-byte raw public key */
  publicKey: string;
}

export function generateKeyPair(): KeyPair {
  const { privateKey } = generateKeyPairSync("ed25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { privateKey: jwk.d!, publicKey: jwk.x! };
}

/** The node:crypto private key object for a base64url seed. */
export function privateKeyObject(seedB64url: string): KeyObject {
  const seed = Buffer.from(seedB64url, "base64url");
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** base64url public key of a base64url seed. */
export function publicKeyFromSeed(seedB64url: string): string {
  return createPublicKey(privateKeyObject(seedB64url)).export({ format: "jwk" }).x!;
}

/** A signer for frames and documents from a base64url seed (FED_PRIVATE_KEY). */
export function signerFromSeed(seedB64url: string): { publicKey: string; sign(message: Uint8Array): Uint8Array } {
  const key = privateKeyObject(seedB64url);
  const publicKey = createPublicKey(key).export({ format: "jwk" }).x!;
  return { publicKey, sign: (message) => new Uint8Array(sign(null, message, key)) };
}

// ---------------------------------------------------------------- standalone signed documents

/**
 * Standalone signed documents (key rotations; later the registry and account
 * operations) never use the feed encoding: their signing base is the
 * stable-string serialization, `"svc-doc/1\n" + RFC 8785 JSON` of the
 * document without its `sig` member.
 */
const DOC_DOMAIN = "svc-doc/1";

export function documentBytes(doc: Record<string, unknown>): Uint8Array {
  const { sig: _sig, ...rest } = doc;
  return new TextEncoder().encode(`${DOC_DOMAIN}\n${canonicalize(rest)}`);
}

/**
 * A key rotation: the instance's key `from` hands over to `to`. Signed by
 * `from`. With `revoke` the old key must no longer be accepted (it leaked);
 * without, both stay active and records signed before still verify.
 */
export interface RotationRecord {
  type: "key-rotation";
  instance: string;
  from: string;
  to: string;
  revoke: boolean;
  /** unix seconds */
  at: number;
  /** base64url signature by `from` */
  sig: string;
}

export function signRotation(fromSeed: string, instance: string, to: string, revoke: boolean, at: number): RotationRecord {
  const doc: Omit<RotationRecord, "sig"> = { type: "key-rotation", instance, from: publicKeyFromSeed(fromSeed), to, revoke, at };
  const sig = sign(null, documentBytes(doc), privateKeyObject(fromSeed));
  return { ...doc, sig: Buffer.from(sig).toString("base64url") };
}

/** Checks a rotation record's shape and its signature by `from` (the verification rule applies). */
export function checkRotation(doc: unknown): { ok: true; rotation: RotationRecord } | { ok: false; message: string } {
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) return { ok: false, message: "a rotation record is a JSON object" };
  const d = doc as Record<string, unknown>;
  const key = /^[A-Za-z0-9_-]{43}$/;
  if (d.type !== "key-rotation") return { ok: false, message: 'type must be "key-rotation"' };
  if (typeof d.instance !== "string" || !isInstanceId(d.instance)) return { ok: false, message: "instance must be an instance id" };
  if (typeof d.from !== "string" || !key.test(d.from) || typeof d.to !== "string" || !key.test(d.to))
    return { ok: false, message: "from and to must be base64url keys" };
  if (d.from === d.to) return { ok: false, message: "from and to are the same key" };
  if (typeof d.revoke !== "boolean") return { ok: false, message: "revoke must be true or false" };
  if (typeof d.at !== "number" || !Number.isSafeInteger(d.at) || d.at < 0) return { ok: false, message: "at must be unix seconds" };
  if (typeof d.sig !== "string" || !/^[A-Za-z0-9_-]{86}$/.test(d.sig)) return { ok: false, message: "sig must be a base64url signature" };
  const extra = Object.keys(d).filter((k) => !["type", "instance", "from", "to", "revoke", "at", "sig"].includes(k));
  if (extra.length) return { ok: false, message: `unknown member ${extra[0]}` };
  const verdict = verifyEd25519(Buffer.from(d.from, "base64url"), documentBytes(d), Buffer.from(d.sig, "base64url"));
  if (verdict !== "ok") return { ok: false, message: `the signature by the old key does not verify (${verdict})` };
  return { ok: true, rotation: d as unknown as RotationRecord };
}
