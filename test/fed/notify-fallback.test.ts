/**
 * A gossip ping goes where a pull would: when a peer's preferred announced
 * endpoint does not answer (an amateur-IP host this instance cannot resolve),
 * the ping tries its next endpoints and its configured URL, so the peer
 * still hears of new records at once rather than at its next scheduled pull.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { syncAll } from "../../src/fed/sync.ts";
import { count } from "../helpers/fed.ts";
import { waitFor } from "../helpers/wait.ts";

const kA = generateKeyPair();
const kB = generateKeyPair();
const cache = (name: string) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.1, lon: 11.5, status: "active", ownerCall: "N0OWN" });

let A: Running; // announces a host nobody can resolve as its preferred endpoint, and pulls B
let B: Running; // pulls A, and pings it when it publishes
beforeAll(async () => {
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, FED_LOOPBACK_PEERS: "on" });
  A = await startInProcess({
    INSTANCE: "gw-a",
    FED_PRIVATE_KEY: kA.privateKey,
    FED_ENDPOINTS: "https:https://gw-a.invalid;0,ax25:N0GWA-5;20",
    FED_PEERS: B.url,
    FED_LOOPBACK_PEERS: "on",
  });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

test("a peer whose preferred endpoint does not answer is pinged at its configured URL, and pulls at once", async () => {
  // each knows the other: A pulls B (FED_PEERS); B trusts A at its URL and learns its endpoints from A's signed peer record
  await syncAll(A.gw);
  upsertPeer(B.gw, { instance: "gw-a", url: A.url, trust: "trusted", keyPin: kA.publicKey });
  expect((await syncAll(B.gw)).peers.find((p) => p.instance === "gw-a")).toMatchObject({ ok: true });
  expect(getPeer(B.gw, "gw-a")!.endpoints.map((e) => e.address)[0]).toBe("https://gw-a.invalid");
  expect(count(A.gw, "mirror_caches", "origin = 'gw-b'")).toBe(0);
  // B publishes: its ping must reach A through A's configured URL, and A pulls B without waiting for its schedule
  publishRecord(B.gw, "cache", 1, cache("news from B"));
  await waitFor(() => count(A.gw, "mirror_caches", "origin = 'gw-b'") === 1, "A pulled B after B's ping", { timeoutMs: 15_000 });
});
