/**
 * Found by the simulator (issue 31, 200 gateways): a gateway learnt a peer
 * from a trusted peer's registry view before anyone had an address for it,
 * so it joined with none and was never pulled; after the peer rotated its key,
 * later views listed only the new key, so its address was never filled in and
 * its records never arrived. A view entry without an address is now skipped,
 * and the peer is learnt from the first view that has one (pinned to the key
 * that view lists).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { getPeer, peerKeys, upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer, syncAll } from "../../src/fed/sync.ts";

const kP = generateKeyPair();
const kP2 = generateKeyPair();
let A: Running; // trusted by C; trusts gw-p, first without an address
let C: Running;
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: generateKeyPair().privateKey });
  C = await startInProcess({ INSTANCE: "gw-c", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_PEERS: A.url, FED_LOOPBACK_PEERS: "on" });
});
afterAll(() => Promise.all([A.stop(), C.stop()]));

test("a view entry without an address is not learnt; the first view with one is, pinned to the key it lists then", async () => {
  upsertPeer(A.gw, { instance: "gw-p", trust: "trusted", keyPin: kP.publicKey });
  const first = (await syncAll(C.gw)).peers.find((p) => p.instance === "gw-a");
  expect(first?.ok).toBe(true);
  expect(getPeer(C.gw, "gw-p")).toBeNull();

  // P rotated its key (the view now lists only the new one) and A has its address
  A.gw.db.query("DELETE FROM peer_keys WHERE peer_id = (SELECT id FROM peers WHERE instance = 'gw-p')").run();
  A.gw.db.query("UPDATE peers SET key_pin = NULL WHERE instance = 'gw-p'").run();
  upsertPeer(A.gw, { instance: "gw-p", keyPin: kP2.publicKey, endpoints: ["https:https://gw-p.example.org;10"] });
  expect((await pullPeer(C.gw, "gw-a")).ok).toBe(true);
  const p = getPeer(C.gw, "gw-p")!;
  expect(p).toMatchObject({ trust: "unvetted", foundVia: "transitive:gw-a" });
  expect(p.endpoints.map((e) => e.address)).toEqual(["https://gw-p.example.org"]);
  expect(peerKeys(C.gw, "gw-p").map((k) => k.publicKey)).toEqual([kP2.publicKey]);
});
