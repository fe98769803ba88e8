/**
 * Found by the simulator (issue 31): most of a quiet network's federation
 * traffic was not records but the descriptor, read on every pull, and the
 * registry view, read after each pull of a trusted peer (about 1.2 kB a peer
 * a round). Both now carry an ETag; a puller asks again with If-None-Match
 * and a peer with nothing new answers 304 with no body.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { pullPeer, syncAll } from "../../src/fed/sync.ts";
import { count } from "../helpers/fed.ts";

let A: Running;
let B: Running;
/** what crossed the link to A: path, status and body bytes of each answer */
let seen: Array<{ path: string; status: number; bytes: number }> = [];
const proxy = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const u = new URL(req.url);
    const res = await fetch(`${A.url}${u.pathname}${u.search}`, { headers: req.headers, decompress: false } as RequestInit);
    const body = await res.arrayBuffer();
    seen.push({ path: u.pathname, status: res.status, bytes: body.byteLength });
    return new Response(res.status === 304 ? null : body, { status: res.status, headers: res.headers });
  },
});
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: generateKeyPair().privateKey });
  B = await startInProcess({
    INSTANCE: "gw-b",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    FED_PEERS: `http://127.0.0.1:${proxy.port}`,
    FED_LOOPBACK_PEERS: "on",
  });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
  proxy.stop(true);
});

const cache = (name: string) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48, lon: 11, status: "active", ownerCall: "N0OWN" });
const of = (path: string) => seen.filter((s) => s.path === path).map((s) => [s.status, s.bytes > 0]);

test("the descriptor and the registry view answer If-None-Match with 304 while nothing changed, and 200 once it did", async () => {
  const first = await A.get("/.well-known/svc");
  const etag = first.headers.get("etag")!;
  expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
  expect((await A.get("/.well-known/svc", { headers: { "if-none-match": etag } })).status).toBe(304);
  expect((await A.get("/.well-known/svc", { headers: { "if-none-match": `"stale", ${etag}` } })).status).toBe(304);
  const view = await A.get("/federation/registry?limit=200");
  const viewTag = view.headers.get("etag")!;
  expect((await A.get("/federation/registry?limit=200", { headers: { "if-none-match": viewTag } })).status).toBe(304);
  publishRecord(A.gw, "cache", 1, cache("one"));
  const after = await A.get("/.well-known/svc", { headers: { "if-none-match": etag } });
  expect(after.status).toBe(200);
  expect(after.headers.get("etag")).not.toBe(etag);
});

test("a quiet pull costs two bodiless answers; a record published since is still pulled", async () => {
  seen = [];
  // the first pull: FED_PEERS joins gw-a (its descriptor read once to pin its key, then kept)
  expect((await syncAll(B.gw)).peers.find((p) => p.instance === "gw-a")).toMatchObject({ ok: true, applied: 1 });
  expect(of("/.well-known/svc")[0]).toEqual([200, true]);
  expect(of("/federation/registry")).toEqual([[200, true]]);

  seen = [];
  expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, applied: 0 });
  expect(seen).toEqual([
    { path: "/.well-known/svc", status: 304, bytes: 0 },
    { path: "/federation/registry", status: 304, bytes: 0 },
  ]);

  seen = [];
  publishRecord(A.gw, "cache", 2, cache("two"));
  expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, applied: 1 });
  expect(of("/.well-known/svc")).toEqual([[200, true]]);
  expect(count(B.gw, "mirror_caches", "origin = 'gw-a'")).toBe(2);
});
