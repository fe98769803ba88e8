/**
 * A software passkey authenticator (ES256, "none" attestation) for API-level
 * tests of the WebAuthn ceremonies: it builds exactly what a browser sends,
 * from the options the server returned. The browser test uses Chromium's own
 * virtual authenticator instead.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from "node:crypto";
import { encode } from "cborg";

const b64u = (b: Uint8Array | Buffer) => Buffer.from(b).toString("base64url");
const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest();

export interface SoftPasskey {
  credentialId: Buffer;
  privateKey: KeyObject;
  counter: number;
  rpId: string;
  userHandle: string | null;
}

function coseKey(pub: KeyObject): Uint8Array {
  const jwk = pub.export({ format: "jwk" });
  return encode(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, "base64url")],
      [-3, Buffer.from(jwk.y!, "base64url")],
    ]),
  );
}

function authData(rpId: string, flags: number, counter: number, attested?: Uint8Array): Buffer {
  const c = Buffer.alloc(4);
  c.writeUInt32BE(counter);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), c, ...(attested ? [attested] : [])]);
}

/** Answers registration options: returns the passkey and the credential JSON to post. */
export function createCredential(options: { challenge: string; rp: { id?: string }; user: { id: string } }, origin: string, opts: { rpId?: string } = {}) {
  const rpId = opts.rpId ?? options.rp.id!;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const credentialId = randomBytes(32);
  const idLen = Buffer.alloc(2);
  idLen.writeUInt16BE(credentialId.length);
  const attested = Buffer.concat([Buffer.alloc(16), idLen, credentialId, coseKey(publicKey)]);
  const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.create", challenge: options.challenge, origin, crossOrigin: false }));
  const attestationObject = encode({ fmt: "none", attStmt: {}, authData: authData(rpId, 0x01 | 0x04 | 0x40, 0, attested) });
  const passkey: SoftPasskey = { credentialId, privateKey, counter: 0, rpId, userHandle: options.user.id };
  return {
    passkey,
    credential: {
      id: b64u(credentialId),
      rawId: b64u(credentialId),
      type: "public-key",
      response: { clientDataJSON: b64u(clientDataJSON), attestationObject: b64u(attestationObject), transports: ["internal"] },
      clientExtensionResults: {},
      authenticatorAttachment: "platform",
    },
  };
}

/** Answers authentication options with a signature by `passkey` (its counter goes up by one). */
export function getAssertion(passkey: SoftPasskey, options: { challenge: string }, origin: string, opts: { counter?: number } = {}) {
  passkey.counter = opts.counter ?? passkey.counter + 1;
  const clientDataJSON = Buffer.from(JSON.stringify({ type: "webauthn.get", challenge: options.challenge, origin, crossOrigin: false }));
  const ad = authData(passkey.rpId, 0x01 | 0x04, passkey.counter);
  const signature = sign("sha256", Buffer.concat([ad, sha256(clientDataJSON)]), passkey.privateKey);
  return {
    id: b64u(passkey.credentialId),
    rawId: b64u(passkey.credentialId),
    type: "public-key",
    response: {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(ad),
      signature: b64u(signature),
      ...(passkey.userHandle ? { userHandle: passkey.userHandle } : {}),
    },
    clientExtensionResults: {},
    authenticatorAttachment: "platform",
  };
}
