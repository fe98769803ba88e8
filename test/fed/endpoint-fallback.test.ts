/**
 * Issue 31 item 5: a peer that announces an endpoint this instance cannot
 * reach (an amateur-IP host it cannot resolve) is still pulled, through its
 * next endpoint or its FED_PEERS URL, and the pull report says which failed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer } from "../../src/fed/peers.ts";
import { pullPeer, syncAll } from "../../src/fed/sync.ts";
import { count } from "../helpers/fed.ts";

const kA = generateKeyPair();
const kB = generateKeyPair();
const cache = (name: string) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.1, lon: 11.5, status: "active", ownerCall: "N0OWN" });

let A: Running; // announces a host nobody can resolve as its preferred endpoint
let B: Running; // lists A in FED_PEERS
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: kA.privateKey, FED_ENDPOINTS: "https:https://gw-a.invalid;0,ax25:N0GWA-5;20" });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, FED_PEERS: A.url, FED_LOOPBACK_PEERS: "on" });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

test("an unreachable preferred endpoint falls back to the FED_PEERS URL; the report names the endpoint that failed", async () => {
  publishRecord(A.gw, "cache", 1, cache("first"));
  const first = (await syncAll(B.gw)).peers.find((p) => p.instance === "gw-a");
  expect(first).toMatchObject({ ok: true, url: A.url, applied: 1 });
  // A's own signed peer record now tells B its endpoints: the unresolvable host comes first
  expect(getPeer(B.gw, "gw-a")!.endpoints.map((e) => e.address)).toEqual(["https://gw-a.invalid", "N0GWA-5"]);

  publishRecord(A.gw, "cache", 2, cache("second"));
  const second = await pullPeer(B.gw, "gw-a");
  expect(second).toMatchObject({ ok: true, url: A.url, applied: 1, error: null });
  expect(second.unreachable).toHaveLength(1);
  expect(second.unreachable[0]).toMatchObject({ url: "https://gw-a.invalid" });
  expect(["unreachable", "address_refused", "timeout"]).toContain(second.unreachable[0]!.code);
  expect(count(B.gw, "mirror_caches", "origin = 'gw-a'")).toBe(2);
  expect(getPeer(B.gw, "gw-a")).toMatchObject({ lastError: null, syncFailures: 0 });
});

test("when no URL answers, the pull fails and its error (and the peer's health) names every URL tried", async () => {
  await A.stop();
  const r = await pullPeer(B.gw, "gw-a");
  expect(r.ok).toBe(false);
  expect(r.unreachable.map((u) => u.url)).toEqual(["https://gw-a.invalid"]);
  expect(r.error!.message).toContain("gw-a.invalid");
  expect(r.error!.message).toContain(A.url);
  const health = getPeer(B.gw, "gw-a")!;
  expect(health.syncFailures).toBe(1);
  expect(health.lastError).toContain("gw-a.invalid");
});
