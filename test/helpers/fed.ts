/**
 * Federation fixtures: frames signed by hand (for records a real publisher
 * would never write) and frames read from a gateway's own feed.
 */
import type { Gateway } from "../../src/hosts/gateway.ts";
import { encodePayload, signFrame, type Body, type Payload } from "../../src/lib/fed/record.ts";
import { signerFromSeed } from "../../src/lib/fed/keys.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { cacheToWire, type CacheJson } from "../../src/lib/fed/bodies.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { encodePage } from "../../src/lib/fed/page.ts";
import { encodeSvcfedBody, type EncodedBody } from "../../src/fed/transports/svcfed.ts";
import { startInProcess, type Running } from "./gateway.ts";

/** Signs any payload with a seed: `forge(seed, { type: 1, gid: "gw1:cache:1", ... })`. */
export function signed(
  seed: string,
  p: Omit<Payload, "at" | "signer" | "body"> & Partial<Pick<Payload, "at" | "signer">> & { body: Record<string, unknown> },
): Uint8Array {
  const payload: Payload = { at: 1_700_000_000, signer: p.origin, ...p, body: p.body as Body };
  return signFrame(encodePayload(payload), signerFromSeed(seed));
}

/** The signed frame a gateway holds in its feed for a gid. */
export function feedFrame(gw: Gateway, gid: string): Uint8Array {
  const row = gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array | null } | null;
  if (!row?.frame) throw new Error(`no signed frame for ${gid}`);
  return row.frame;
}

/** A cache record's JSON for hand-made frames: traditional, small, D1.5/T2, active, N0OWN's. */
export const testCache = (name: string, lat = 48.1, lon = 11.5): CacheJson => ({
  name,
  type: "traditional",
  size: "small",
  difficulty: 1.5,
  terrain: 2,
  lat,
  lon,
  status: "active",
  ownerCall: "N0OWN",
});

type Keys = { privateKey: string; publicKey: string };

/** gw-a and gw-b in process, each a trusted peer of the other (loopback addresses allowed), with `env` besides. */
export async function trustedPair(keys: { a: Keys; b: Keys }, env: Record<string, string> = {}): Promise<[Running, Running]> {
  const envOf = (name: string, k: Keys) => ({ INSTANCE: name, FED_PRIVATE_KEY: k.privateKey, FED_LOOPBACK_PEERS: "on", ...env });
  const [A, B] = await Promise.all([startInProcess(envOf("gw-a", keys.a)), startInProcess(envOf("gw-b", keys.b))]);
  upsertPeer(A.gw, { instance: "gw-b", url: B.url, trust: "trusted", keyPin: keys.b.publicKey });
  upsertPeer(B.gw, { instance: "gw-a", url: A.url, trust: "trusted", keyPin: keys.a.publicKey });
  return [A, B];
}

/** A SVCFED bulletin body carrying one cache frame of gw-x, an origin no test gateway knows (kept and carried on, never applied). */
export function unknownOriginCarrier(): EncodedBody {
  const frame = signed(generateKeyPair().privateKey, {
    type: 1,
    gid: "gw-x:cache:1",
    origin: "gw-x",
    v: 1,
    body: cacheToWire({ name: "X", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 1, status: "active" }) as never,
  });
  return encodeSvcfedBody("gw-x", encodePage({ frames: [frame], next: 1, more: false }), 1);
}

export const count = (gw: Gateway, table: string, where = "1") => (gw.db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
