/**
 * The browser's side of web push, for tests: a subscription's keys, a push
 * service on loopback that records what it receives, RFC 8291 (aes128gcm)
 * decryption and RFC 8292 (VAPID) checking, written from the RFCs with
 * node:crypto so the gateway's web-push library is checked independently.
 */
import { createECDH, createDecipheriv, createPublicKey, hkdfSync, randomBytes, verify } from "node:crypto";

export interface PushClient {
  subscription(endpoint: string): { endpoint: string; keys: { p256dh: string; auth: string } };
  decrypt(body: Uint8Array): string;
}

export function pushClient(): PushClient {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const uaPublic = ecdh.getPublicKey();
  return {
    subscription: (endpoint) => ({ endpoint, keys: { p256dh: uaPublic.toString("base64url"), auth: auth.toString("base64url") } }),
    decrypt(body) {
      const b = Buffer.from(body);
      const salt = b.subarray(0, 16);
      const rs = b.readUInt32BE(16);
      const idLen = b[20]!;
      const asPublic = b.subarray(21, 21 + idLen);
      const ciphertext = b.subarray(21 + idLen);
      if (ciphertext.length > rs) throw new Error("more than one record");
      const secret = ecdh.computeSecret(asPublic);
      const keyInfo = Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]);
      const ikm = Buffer.from(hkdfSync("sha256", secret, auth, keyInfo, 32));
      const cek = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: aes128gcm\0"), 16));
      const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, Buffer.from("Content-Encoding: nonce\0"), 12));
      const d = createDecipheriv("aes-128-gcm", cek, nonce);
      d.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
      const plain = Buffer.concat([d.update(ciphertext.subarray(0, ciphertext.length - 16)), d.final()]);
      const end = plain.lastIndexOf(2); // padding delimiter of the last record
      return plain.subarray(0, end).toString("utf8");
    },
  };
}

/** Checks a VAPID Authorization header; returns the JWT claims. Throws when it does not verify. */
export function checkVapid(header: string, vapidPublicKey: string): { aud: string; exp: number; sub: string } {
  const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header);
  if (!m) throw new Error(`not a VAPID header: ${header}`);
  if (m[2] !== vapidPublicKey) throw new Error("the header names another key");
  const [h, p, s] = m[1]!.split(".") as [string, string, string];
  const raw = Buffer.from(vapidPublicKey, "base64url");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: raw.subarray(1, 33).toString("base64url"), y: raw.subarray(33).toString("base64url") },
    format: "jwk",
  });
  if (JSON.parse(Buffer.from(h, "base64url").toString()).alg !== "ES256") throw new Error("not ES256");
  if (!verify("sha256", Buffer.from(`${h}.${p}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(s, "base64url"))) throw new Error("bad VAPID signature");
  return JSON.parse(Buffer.from(p, "base64url").toString());
}

export interface Received {
  path: string;
  headers: Headers;
  body: Uint8Array;
}

/** A push service on loopback: answers each path with the status set for it (201 by default). */
export function startPushService() {
  const received: Received[] = [];
  const status = new Map<string, number>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const path = new URL(req.url).pathname;
      received.push({ path, headers: req.headers, body: new Uint8Array(await req.arrayBuffer()) });
      return new Response(null, { status: status.get(path) ?? 201 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    received,
    answer: (path: string, code: number) => status.set(path, code),
    stop: () => server.stop(true),
  };
}
