/**
 * Federation fixtures: frames signed by hand (for records a real publisher
 * would never write) and frames read from a gateway's own feed.
 */
import type { Gateway } from "../../src/gateway.ts";
import { encodePayload, signFrame, type Body, type Payload } from "../../src/fed/record.ts";
import { signerFromSeed } from "../../src/fed/keys.ts";

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

export const count = (gw: Gateway, table: string, where = "1") => (gw.db.query(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get() as { n: number }).n;
