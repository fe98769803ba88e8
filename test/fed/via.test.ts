/**
 * Through a gateway (FED_VIA, FED_VIA_URL; found by the simulator's radio
 * islands, issue 31): an island gateway reaches only its bridge; the rest of
 * the network reaches the island only through the bridge. Sync pages are
 * origin-only, so the bridge does not re-serve the island's records: it
 * fetches the island's documents for those who ask (and the rest's for the
 * island), and signatures, not the path, decide what is applied.
 *
 * Names under .invalid never resolve; FED_LOOPBACK_PEERS maps the ones each
 * gateway can reach to its port: the island reaches the bridge, the bridge
 * reaches both, the internet gateway reaches the bridge.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";

import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { isPulling, pullPeer, syncAll } from "../../src/fed/sync.ts";
import { count } from "../helpers/fed.ts";
import { VIA_FRESH_MS } from "../../src/fed/via.ts";
import { freePorts } from "../helpers/ports.ts";

let I: Running; // on the island: reaches the bridge only
let B: Running; // the bridge: FED_VIA=on
let A: Running; // on the internet: reaches the bridge, never the island
/** the bridge's clock, moved on past what it keeps (VIA_FRESH_MS) when a test needs a fresh fetch */
const bridgeClock = { offset: 0, now: () => Date.now() + bridgeClock.offset };
const bridgeForgets = () => void (bridgeClock.offset += VIA_FRESH_MS);
/** the island's side of its radio: every request the bridge makes of it passes here and is counted */
let islandServed = 0;
let radio: ReturnType<typeof Bun.serve>;
const cache = (name: string) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.1, lon: 11.5, status: "active", ownerCall: "N0OWN" });

beforeAll(async () => {
  const [pI, pB, pA] = (await freePorts(3)) as [number, number, number];
  radio = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      islandServed++;
      const u = new URL(req.url);
      // with the island down, the link answers 502 (a throw here would be an unhandled error that fails whichever test runs)
      const res = await fetch(`http://127.0.0.1:${pI}${u.pathname}${u.search}`, { headers: req.headers, decompress: false } as RequestInit).catch(() => null);
      if (!res) return new Response("the island does not answer", { status: 502 });
      return new Response(res.status === 304 ? null : await res.arrayBuffer(), { status: res.status, headers: res.headers });
    },
  });
  /** gw-<name> on `port` with a key of its own, and `env` besides */
  const gateway = (name: string, port: number, env: Record<string, string>, opts: { clock?: typeof bridgeClock } = {}) =>
    startInProcess({ INSTANCE: `gw-${name}`, PORT: String(port), FED_PRIVATE_KEY: generateKeyPair().privateKey, ...env }, opts);
  I = await gateway("i", pI, {
    FED_ENDPOINTS: "https:https://island.invalid;10,https:https://bridge.invalid/federation/via/gw-i;20",
    FED_VIA_URL: "https://bridge.invalid",
    FED_PEERS: "https://bridge.invalid",
    FED_LOOPBACK_PEERS: `on,bridge.invalid=${pB}`,
  });
  B = await gateway(
    "b",
    pB,
    {
      FED_ENDPOINTS: "https:https://bridge.invalid;10",
      FED_VIA: "on",
      FED_PEERS: "https://island.invalid,https://a.invalid",
      FED_LOOPBACK_PEERS: `on,island.invalid=${radio.port},a.invalid=${pA}`,
    },
    { clock: bridgeClock },
  );
  A = await gateway("a", pA, {
    FED_ENDPOINTS: "https:https://a.invalid;10",
    FED_PEERS: "https://bridge.invalid",
    FED_LOOPBACK_PEERS: `on,bridge.invalid=${pB}`,
  });
});
afterAll(async () => {
  await Promise.all([I.stop(), B.stop(), A.stop()]);
  radio.stop(true);
});

test("the island's records reach the internet gateway through the bridge, and the internet gateway's reach the island", async () => {
  publishRecord(I.gw, "cache", 1, cache("on the island"));
  publishRecord(A.gw, "cache", 1, cache("on the internet"));
  publishRecord(B.gw, "cache", 1, cache("at the bridge"));
  // the bridge pulls both directly; then each side learns the other from the bridge's registry view
  expect((await syncAll(B.gw)).peers.map((p) => [p.instance, p.ok, p.applied])).toEqual([
    ["gw-a", true, 1],
    ["gw-i", true, 1],
  ]);
  await syncAll(A.gw);
  await syncAll(I.gw);
  expect(getPeer(A.gw, "gw-i")).toMatchObject({ trust: "unvetted" });
  expect(getPeer(I.gw, "gw-a")).toMatchObject({ trust: "unvetted" });

  const fromIsland = await pullPeer(A.gw, "gw-i");
  expect(fromIsland).toMatchObject({ ok: true, applied: 1, url: "https://bridge.invalid/federation/via/gw-i" });
  expect(fromIsland.unreachable.map((u) => u.url)).toEqual(["https://island.invalid"]);
  const fromNet = await pullPeer(I.gw, "gw-a");
  expect(fromNet).toMatchObject({ ok: true, applied: 1, url: "https://bridge.invalid/federation/via/gw-a" });
  expect(count(A.gw, "mirror_caches", "origin = 'gw-i'")).toBe(1);
  expect(count(I.gw, "mirror_caches", "origin = 'gw-a'")).toBe(1);

  // what the bridge fetched is answered again while fresh: a record written since waits until the bridge asks again
  publishRecord(I.gw, "cache", 2, cache("second on the island"));
  expect(await pullPeer(A.gw, "gw-i")).toMatchObject({ ok: true, applied: 0 });
  bridgeForgets();
  expect(await pullPeer(A.gw, "gw-i")).toMatchObject({ ok: true, applied: 1 });
  expect(count(A.gw, "mirror_caches", "origin = 'gw-i'")).toBe(2);
});

/** until the island's gossip ping (after a write) has been answered and the bridge's own pull of the island is over */
async function radioQuiet(): Promise<void> {
  const g = I.gw.services.gossip;
  while (g.timer || g.inflight || isPulling(B.gw, "gw-i")) await Bun.sleep(10);
}

test("the island's radio carries a document once for every gateway that asks for it while it is fresh", async () => {
  // the previous test's write pings the bridge, which then pulls the island for itself: not what is counted here
  await radioQuiet();
  bridgeForgets();
  const before = islandServed;
  {
    const askers = await Promise.all(
      [1, 2, 3].map(async (n) => {
        const g = await startInProcess({
          INSTANCE: `gw-n${n}`,
          FED_VIA_URL: "https://bridge.invalid",
          FED_LOOPBACK_PEERS: `on,bridge.invalid=${new URL(B.url).port}`,
        });
        upsertPeer(g.gw, { instance: "gw-i", trust: "trusted", keyPin: getPeer(A.gw, "gw-i")!.keyPin!, endpoints: ["https:https://island.invalid;10"] });
        return g;
      }),
    );
    try {
      const first = await pullPeer(askers[0]!.gw, "gw-i");
      expect(first).toMatchObject({ ok: true, applied: 2 });
      const once = islandServed - before;
      expect(once).toBeGreaterThan(0);
      for (const g of askers.slice(1)) expect(await pullPeer(g.gw, "gw-i")).toMatchObject({ ok: true, applied: 2 });
      // the same descriptor and pages for the other two: nothing more crossed the radio
      expect(islandServed - before).toBe(once);
    } finally {
      await Promise.all(askers.map((g) => g.stop()));
    }
  }
});

test("the path is not trusted: a record the bridge alters on its way is refused, and nothing of it is applied", async () => {
  publishRecord(I.gw, "cache", 3, cache("third on the island"));
  // a bridge that rewrites the cache name in what it passes on (uncompressed pages only: it asks for none)
  const evil = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      const res = await fetch(`${B.url}${u.pathname}${u.search.replace(/&compress=[^&]*/, "")}`, { headers: req.headers });
      let bytes = new Uint8Array(await res.arrayBuffer());
      if (u.pathname.endsWith("/federation/sync/cache"))
        bytes = new Uint8Array(Buffer.from(Buffer.from(bytes).toString("latin1").replace("third", "THIRD"), "latin1"));
      const headers = new Headers(res.headers);
      headers.delete("content-encoding"); // fetch decoded it
      headers.delete("content-length");
      return new Response(res.status === 304 ? null : bytes, { status: res.status, headers });
    },
  });
  const tampered = await startInProcess({
    INSTANCE: "gw-t",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    FED_VIA_URL: "https://evil.invalid",
    FED_LOOPBACK_PEERS: `on,evil.invalid=${evil.port}`,
  });
  try {
    upsertPeer(tampered.gw, { instance: "gw-i", trust: "trusted", keyPin: getPeer(A.gw, "gw-i")!.keyPin!, endpoints: ["https:https://island.invalid;10"] });
    const r = await pullPeer(tampered.gw, "gw-i");
    expect(r.url).toBe("https://evil.invalid/federation/via/gw-i");
    expect(r.feeds.cache!.rejected).toBe(1);
    expect(r.feeds.cache!.applied).toBe(2);
    const names = (tampered.gw.db.query("SELECT name FROM mirror_caches WHERE origin = 'gw-i' ORDER BY name").all() as Array<{ name: string }>).map(
      (x) => x.name,
    );
    expect(names).toEqual(["on the island", "second on the island"]);
  } finally {
    await tampered.stop();
    evil.stop(true);
  }
});

test("refusals: FED_VIA off, an unknown or blocked peer, a path that is not a public federation document", async () => {
  const off = await A.get("/federation/via/gw-b/.well-known/svc");
  expect(off.status).toBe(404);
  expect(((await off.json()) as { message: string }).message).toContain("FED_VIA is off");
  expect((await B.get("/federation/via/gw-nobody/.well-known/svc")).status).toBe(404);
  expect((await B.get("/federation/via/gw-i/api/admin/runtime")).status).toBe(404);
  expect((await B.get("/federation/via/gw-i/federation/relay/gw-i/lease")).status).toBe(404);
  upsertPeer(B.gw, { instance: "gw-a", trust: "blocked" });
  expect((await B.get("/federation/via/gw-a/.well-known/svc")).status).toBe(404);
  upsertPeer(B.gw, { instance: "gw-a", trust: "trusted" });
  expect((await B.get("/federation/via/gw-a/.well-known/svc")).status).toBe(200);
});

test("a peer that does not answer the bridge either: 502 in words", async () => {
  await I.stop();
  radio.stop(true);
  bridgeForgets();
  const r = await B.get("/federation/via/gw-i/.well-known/svc");
  expect(r.status).toBe(502);
  expect(((await r.json()) as { error: string; message: string }).message).toContain("gw-i did not answer here either");
});
