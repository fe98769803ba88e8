/**
 * Found by the simulator (issue 31): every pull asked all eight feeds of every
 * peer, though most had nothing new: nine requests a peer a round where one
 * would do. The descriptor lists each feed's head; a puller asks only the
 * feeds whose head is past its cursor.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire, findToWire } from "../../src/lib/fed/bodies.ts";
import { syncAll, pullPeer } from "../../src/fed/sync.ts";
import { count } from "../helpers/fed.ts";

let A: Running;
let B: Running;
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: generateKeyPair().privateKey });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_PEERS: A.url, FED_LOOPBACK_PEERS: "on" });
});
afterAll(() => Promise.all([A.stop(), B.stop()]));

const cache = (name: string) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48, lon: 11, status: "active", ownerCall: "N0OWN" });

test("the descriptor lists each feed's head; a pull asks only the feeds with something new", async () => {
  const c = publishRecord(A.gw, "cache", 1, cache("one"));
  const d = (await (await A.get("/.well-known/svc")).json()) as { heads: Record<string, number> };
  expect(d.heads.cache).toBeGreaterThan(0);
  expect(d.heads.find).toBe(0);

  const first = (await syncAll(B.gw)).peers.find((p) => p.instance === "gw-a")!;
  expect(first).toMatchObject({ ok: true, applied: 1 });
  // the peer feed is served (its own record) but not pulled; of the rest only cache had frames
  expect(Object.keys(first.feeds)).toEqual(["cache"]);

  const quiet = await pullPeer(B.gw, "gw-a");
  expect(quiet).toMatchObject({ ok: true, applied: 0, bytes: 0, feeds: {} });

  publishRecord(A.gw, "find", "f1", findToWire({ cache: c.gid, kind: "find", loggedAt: Date.now(), call: "N0FND" }));
  const next = await pullPeer(B.gw, "gw-a");
  expect(next).toMatchObject({ ok: true, applied: 1 });
  expect(Object.keys(next.feeds)).toEqual(["find"]);
  expect(count(B.gw, "mirror_finds", "origin = 'gw-a'")).toBe(1);
});

test("heads that are missing (an older peer) or not whole numbers are ignored: those feeds are asked", async () => {
  const old = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      const res = await fetch(`${A.url}${u.pathname}${u.search}`);
      if (u.pathname !== "/.well-known/svc") return new Response(await res.arrayBuffer(), { status: res.status, headers: res.headers });
      const d = (await res.json()) as Record<string, unknown>;
      d.heads = { cache: -1, find: "soon", key: 1.5 };
      return Response.json(d);
    },
  });
  try {
    B.gw.db.query("UPDATE peers SET url = ?, endpoints = '[]', learnt_endpoints = '[]' WHERE instance = 'gw-a'").run(`http://127.0.0.1:${old.port}`);
    const r = await pullPeer(B.gw, "gw-a");
    expect(r).toMatchObject({ ok: true, applied: 0 });
    // none of its heads is usable, and the other feeds have none: every feed is asked
    expect(Object.keys(r.feeds)).toHaveLength(8);
  } finally {
    old.stop(true);
  }
});
