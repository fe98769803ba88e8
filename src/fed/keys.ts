/**
 * Ed25519 signing keys as operators handle them: the private key is the
 * base64url of the 32-byte seed (what `svc-gateway keygen` prints as
 * FED_PRIVATE_KEY), the public key the base64url of the raw 32-byte key.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from "node:crypto";

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
