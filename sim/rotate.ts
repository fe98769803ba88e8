/**
 * One key rotation, as an operator does it: what `svc-gateway key rotate
 * revoke` writes (src/fed/cli.ts: a rotation record signed by the old key
 * into the key history, the old key revoked), then a restart with the new
 * FED_PRIVATE_KEY, on which the gateway re-signs its feed with it. Peers must
 * follow the signed rotation; frames under the revoked key stop verifying.
 */
import { publicKeyFromSeed, signRotation } from "../src/lib/fed/keys.ts";
import type { SimNode } from "./net.ts";
import type { Rng } from "./prng.ts";
import type { World } from "./world.ts";

export async function rotateKey(world: World, node: SimNode, rand: Rng): Promise<void> {
  const old = world.keys.get(node.instance)!;
  const seed = Buffer.from(rand.bytes32()).toString("base64url");
  const next = { seed, publicKey: publicKeyFromSeed(seed) };
  const rotation = signRotation(old.seed, node.instance, next.publicKey, true, Math.floor(world.clock.now() / 1000));
  const db = node.gw.db;
  db.transaction(() => {
    db.query("INSERT INTO fed_own_keys (public_key, status, since, rotation) VALUES (?, 'active', ?, ?)").run(
      next.publicKey,
      rotation.at,
      JSON.stringify(rotation),
    );
    db.query("UPDATE fed_own_keys SET status = 'revoked' WHERE public_key = ?").run(rotation.from);
  })();
  world.keys.set(node.instance, next);
  await world.restart(node, { FED_PRIVATE_KEY: seed });
}
