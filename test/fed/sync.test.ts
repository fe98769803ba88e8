import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, runCli, type Running } from "../helpers/gateway.ts";
import { count, testCache } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, peerKeys, setTrust, upsertPeer } from "../../src/fed/peers.ts";
import { loadConfig } from "../../src/core/config.ts";
import { pullPeer, syncAll } from "../../src/fed/sync.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { tmpDir } from "../helpers/tmp.ts";
import type { Gateway } from "../../src/hosts/gateway.ts";

const INGEST = "ingest-secret-0123456789";
const kA = generateKeyPair();
const kB = generateKeyPair();
const kC = generateKeyPair();
const cache = testCache;
const ingest = { "x-ingest-secret": INGEST };
const json = async (r: Response) => (await r.json()) as any;

/** Waits for the next finished pull of `instance` on `gw` (the fedSynced event). */
function nextSync(gw: Gateway, instance: string): Promise<{ ok: boolean; applied: number; error: string | null }> {
  return new Promise((resolve) => {
    const off = gw.events.on("fedSynced", (e) => {
      if (e.instance !== instance) return;
      off();
      resolve(e);
    });
  });
}

let A: Running; // gw-a: the publisher B lists in FED_PEERS
let B: Running; // gw-b: pulls
let C: Running; // gw-c: A's trusted peer, reachable at https://gw-c.test (mapped to loopback on B)
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: kA.privateKey, FED_SYNC_BATCH: "3", FED_LOOPBACK_PEERS: "on", INGEST_SECRET: INGEST });
  C = await startInProcess({ INSTANCE: "gw-c", FED_PRIVATE_KEY: kC.privateKey, FED_ENDPOINTS: "https:https://gw-c.test;10,ax25:N0GWC-5;20" });
  B = await startInProcess({
    INSTANCE: "gw-b",
    FED_PRIVATE_KEY: kB.privateKey,
    FED_PEERS: A.url,
    FED_LOOPBACK_PEERS: `on,gw-c.test=${new URL(C.url).port}`,
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPS",
  });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop(), C.stop()]);
});

describe("transport rule", () => {
  const cfg = (env: Record<string, string>) => loadConfig({ dataDir: tmpDir(), env });
  test("FED_PEERS: https anywhere, plain http only to <call>.ampr.org; loopback http only with FED_LOOPBACK_PEERS", () => {
    expect(cfg({ FED_PEERS: "https://gw.example.org,http://n0call.ampr.org" }).errors).toEqual([]);
    expect(cfg({ FED_PEERS: "http://gw.example.org" }).errors.map((e) => e.setting)).toEqual(["FED_PEERS"]);
    expect(cfg({ FED_PEERS: "http://127.0.0.1:8080" }).errors.map((e) => e.setting)).toEqual(["FED_PEERS"]);
    expect(cfg({ FED_PEERS: "http://127.0.0.1:8080", FED_LOOPBACK_PEERS: "on" }).errors).toEqual([]);
    // the loopback switch never opens plain http to a real host
    expect(cfg({ FED_PEERS: "http://gw.example.org", FED_LOOPBACK_PEERS: "on" }).errors.map((e) => e.setting)).toEqual(["FED_PEERS"]);
    expect(cfg({ FED_LOOPBACK_PEERS: "gw.example.org=notaport" }).errors.map((e) => e.setting)).toEqual(["FED_LOOPBACK_PEERS"]);
  });

  test("a peer reachable only by plain http to a host outside 44net is never dialled", async () => {
    upsertPeer(A.gw, {
      instance: "gw-plain",
      url: "http://gw.example.org",
      endpoints: ["ax25:N0PLN-1"],
      trust: "trusted",
      keyPin: generateKeyPair().publicKey,
    });
    const r = await pullPeer(A.gw, "gw-plain");
    expect(r.error?.code).toBe("no_sync_endpoint");
    setTrust(A.gw, "gw-plain", "blocked");
  });
});

describe("pull sync", () => {
  test("a FED_PEERS peer joins trusted, pinned to the key of its descriptor; its feeds come over in pages through the apply pipeline", async () => {
    for (let i = 1; i <= 7; i++) publishRecord(A.gw, "cache", i, cacheToWire(cache(`A cache ${i}`, 48 + i / 100)));
    const r = await B.post("/federation/sync", {}, { headers: ingest });
    expect(r.status).toBe(200);
    const report = await json(r);
    const a = report.peers.find((p: any) => p.instance === "gw-a");
    expect(a).toMatchObject({ ok: true, applied: 7, error: null });
    // A serves at most 3 a page (its FED_SYNC_BATCH): the link takes the smaller batch
    expect(a.link).toMatchObject({ tier: "full", batch: 3, compression: "deflateDict1" });
    expect(a.feeds.cache).toMatchObject({ pages: 3, received: 7, applied: 7 });
    const peer = getPeer(B.gw, "gw-a")!;
    expect(peer).toMatchObject({ trust: "trusted", foundVia: "config", trustSetBy: "config", keyPin: kA.publicKey, url: A.url });
    expect(count(B.gw, "mirror_caches", "origin = 'gw-a'")).toBe(7);
    // The cursors stand where the pages ended.
    const list = await json(await B.get("/federation/peers", { headers: ingest }));
    const view = list.peers.find((p: any) => p.instance === "gw-a");
    expect(view.cursors.cache).toBeGreaterThan(0);
    expect(view.health).toMatchObject({ status: "ok", failures: 0, lastError: null });
    // 7 caches and A's own peer record (type 7)
    expect(view).toMatchObject({
      repConfirmed: 0,
      repFailed: 0,
      verifiedVia: null,
      mirrored: 8,
      feeds: ["tombstone", "key", "account-move", "cache", "find", "bulletin", "trackable", "trackable-move"],
    });
  });

  test("incremental: the next pull fetches only what is new", async () => {
    publishRecord(A.gw, "cache", 1, cacheToWire(cache("A cache 1, renamed")));
    publishRecord(A.gw, "cache", 8, cacheToWire(cache("A cache 8")));
    const r = await pullPeer(B.gw, "gw-a");
    expect(r.ok).toBe(true);
    expect(r.feeds.cache).toMatchObject({ received: 2, applied: 2, duplicate: 0 });
    expect(B.gw.db.query("SELECT name FROM mirror_caches WHERE gid = 'gw-a:cache:1'").get()).toEqual({ name: "A cache 1, renamed" });
    const again = await pullPeer(B.gw, "gw-a");
    expect(again.received).toBe(0);
  });

  test("tombstones are pulled first: a deleted record never comes back, even when its old frame arrives by another path", async () => {
    publishRecord(A.gw, "cache", 9, cacheToWire(cache("Short-lived")));
    const old = (A.gw.db.query("SELECT frame FROM fed_feed WHERE gid = 'gw-a:cache:9'").get() as { frame: Uint8Array }).frame;
    publishTombstone(A.gw, "gw-a:cache:9");
    const r = await pullPeer(B.gw, "gw-a");
    expect(r.ok).toBe(true);
    expect(Object.keys(r.feeds)[0]).toBe("tombstone");
    expect(count(B.gw, "mirror_records", "gid = 'gw-a:cache:9'")).toBe(0);
    expect(count(B.gw, "tombstones", "gid = 'gw-a:cache:9'")).toBe(1);
    expect((await applyFrames(B.gw, [old], { via: "bbs" })).suppressed).toBe(1);
    expect(count(B.gw, "mirror_records", "gid = 'gw-a:cache:9'")).toBe(0);
  });

  test("gossip: a federated write pings peers; the ping makes the receiver pull that peer", async () => {
    // A knows B (B's url; pinned) so it pings it.
    upsertPeer(A.gw, { instance: "gw-b", url: B.url, trust: "trusted", keyPin: kB.publicKey });
    const synced = nextSync(B.gw, "gw-a");
    const hidden = await A.post("/api/caches", { ...cache("Gossiped"), ownerCall: "N0RF" }, { headers: ingest });
    expect(hidden.status).toBe(201);
    const gid = (await json(hidden)).gid;
    expect(await synced).toMatchObject({ ok: true });
    expect(count(B.gw, "mirror_records", `gid = '${gid}'`)).toBe(1);
  });

  test("notify: bad bodies are 400; unknown and blocked senders start nothing; pings during a pull are coalesced", async () => {
    expect((await B.post("/federation/notify", { instance: "Not An Id" })).status).toBe(400);
    expect((await B.post("/federation/notify", "nope")).status).toBe(400);
    expect(await json(await B.post("/federation/notify", { instance: "gw-nobody" }))).toEqual({ accepted: false, coalesced: false, reason: "unknown_peer" });
    // a newer peer's ping may carry more than the instance: still a ping (the route keeps it open on purpose)
    expect(await json(await B.post("/federation/notify", { instance: "gw-nobody", colour: "red" }))).toEqual({
      accepted: false,
      coalesced: false,
      reason: "unknown_peer",
    });
    let pulls = 0;
    const off = B.gw.events.on("fedSynced", (e) => void (e.instance === "gw-a" && pulls++));
    const synced = nextSync(B.gw, "gw-a");
    const answers = await Promise.all(Array.from({ length: 6 }, () => B.post("/federation/notify", { instance: "gw-a" }).then(json)));
    expect(answers.every((a) => a.accepted)).toBe(true);
    expect(answers.filter((a) => a.coalesced).length).toBeGreaterThanOrEqual(4);
    await synced;
    // wait for the coalesced round (if any) to end
    await pullPeer(B.gw, "gw-a");
    off();
    expect(pulls).toBeLessThanOrEqual(3);
  });

  test("transitive discovery: what a trusted peer trusts joins as unvetted, mirrored but hidden from the map by default", async () => {
    upsertPeer(A.gw, { instance: "gw-c", endpoints: ["https:https://gw-c.test;10"], trust: "trusted", keyPin: kC.publicKey });
    publishRecord(C.gw, "cache", 1, cacheToWire(cache("C's cache", 47.5, 10.5)));
    await pullPeer(B.gw, "gw-a");
    const c = getPeer(B.gw, "gw-c")!;
    expect(c).toMatchObject({ trust: "unvetted", foundVia: "transitive:gw-a", keyPin: kC.publicKey });
    const r = await pullPeer(B.gw, "gw-c");
    expect(r).toMatchObject({ ok: true, url: "https://gw-c.test", applied: 1 });
    const box = "bbox=10,47,11,48";
    const shown = await json(await B.get(`/api/caches?${box}`));
    expect(shown.caches.map((x: any) => x.gid)).not.toContain("gw-c:cache:1");
    const all = await json(await B.get(`/api/caches?${box}&unvetted=1`));
    expect(all.caches.find((x: any) => x.gid === "gw-c:cache:1")).toMatchObject({ origin: "gw-c", trust: "unvetted", mirror: true });
    // endpoints came from C's own signed peer record, and never changed its tier
    expect(getPeer(B.gw, "gw-c")!.endpoints.map((e) => e.transport)).toEqual(["https", "ax25"]);
    expect(getPeer(B.gw, "gw-c")!.trust).toBe("unvetted");
  });

  test("sysop: set trust; blocked peers are never mirrored nor pulled nor surfaced; bad input changes nothing", async () => {
    const set = (b: unknown) => B.post("/federation/peers/trust", b, { headers: ingest });
    expect((await set({ instance: "gw-c", trust: "sort-of" })).status).toBe(400);
    expect((await set({ instance: "gw-zz", trust: "trusted" })).status).toBe(404);
    const stray = await set({ instance: "gw-c", trust: "blocked", until: 1 });
    expect({ status: stray.status, body: await json(stray) }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.until: unknown field "until"; it takes instance, trust', field: "body.until" },
    });
    expect(getPeer(B.gw, "gw-c")!.trust).toBe("unvetted");
    const blocked = await set({ instance: "gw-c", trust: "blocked" });
    expect(blocked.status).toBe(200);
    expect(await json(blocked)).toMatchObject({ instance: "gw-c", trust: "blocked", trustSetBy: "operator", mirrored: 0, health: { status: "blocked" } });
    expect(count(B.gw, "mirror_records", "origin = 'gw-c'")).toBe(0);
    expect(count(B.gw, "mirror_caches", "origin = 'gw-c'")).toBe(0);
    expect((await pullPeer(B.gw, "gw-c")).error?.code).toBe("blocked");
    expect(await json(await B.post("/federation/notify", { instance: "gw-c" }))).toMatchObject({ accepted: false, reason: "blocked" });
    expect((await json(await B.get("/federation/registry"))).items.map((i: any) => i.instance)).not.toContain("gw-c");
    const sync = await json(await B.post("/federation/sync", {}, { headers: ingest }));
    expect(sync.peers.map((p: any) => p.instance)).not.toContain("gw-c");
    // trusted again: pulled afresh from the start
    await set({ instance: "gw-c", trust: "trusted" });
    expect((await pullPeer(B.gw, "gw-c")).applied).toBe(1);
    expect(count(B.gw, "mirror_caches", "origin = 'gw-c'")).toBe(1);
  });
});

describe("keys", () => {
  test("a peer that starts signing with a new key without a signed rotation is refused; with `key rotate` it is followed", async () => {
    const dir = tmpDir();
    const k1 = generateKeyPair();
    let D = await startInProcess({ INSTANCE: "gw-d", FED_PRIVATE_KEY: k1.privateKey }, { dataDir: dir });
    const port = new URL(D.url).port;
    publishRecord(D.gw, "cache", 1, cacheToWire(cache("D one")));
    upsertPeer(B.gw, { instance: "gw-d", url: D.url, trust: "trusted", keyPin: k1.publicKey });
    expect((await pullPeer(B.gw, "gw-d")).applied).toBe(1);

    // Same instance, same address, a fresh key and no rotation: an impostor or a lost key.
    await D.stop();
    const k2 = generateKeyPair();
    D = await startInProcess({ INSTANCE: "gw-d", FED_PRIVATE_KEY: k2.privateKey, PORT: port }, { dataDir: dir });
    publishRecord(D.gw, "cache", 2, cacheToWire(cache("D two, new key")));
    const refused = await pullPeer(B.gw, "gw-d");
    expect(refused.error?.code).toBe("key_changed");
    expect(count(B.gw, "mirror_records", "gid = 'gw-d:cache:2'")).toBe(0);
    expect(peerKeys(B.gw, "gw-d").map((k) => k.publicKey)).toEqual([k1.publicKey]);
    expect(getPeer(B.gw, "gw-d")!.lastError).toContain("key_changed");

    // Back on the pinned key, then a proper rotation with `svc-gateway key rotate`.
    await D.stop();
    const dir2 = tmpDir();
    D = await startInProcess({ INSTANCE: "gw-d", FED_PRIVATE_KEY: k1.privateKey, PORT: port }, { dataDir: dir2 });
    publishRecord(D.gw, "cache", 1, cacheToWire(cache("D one")));
    await D.stop();
    const cli = await runCli(["key", "rotate", "--data", dir2], { env: { INSTANCE: "gw-d", FED_PRIVATE_KEY: k1.privateKey } });
    expect(cli.code).toBe(0);
    const k3 = /FED_PRIVATE_KEY=(\S+)/.exec(cli.stdout)![1]!;
    D = await startInProcess({ INSTANCE: "gw-d", FED_PRIVATE_KEY: k3, PORT: port }, { dataDir: dir2 });
    publishRecord(D.gw, "cache", 3, cacheToWire(cache("D three, rotated key")));
    const followed = await pullPeer(B.gw, "gw-d");
    expect(followed).toMatchObject({ ok: true });
    expect(count(B.gw, "mirror_records", "gid = 'gw-d:cache:3'")).toBe(1);
    expect(
      peerKeys(B.gw, "gw-d")
        .map((k) => k.via)
        .sort(),
    ).toEqual(["pin", "rotation"]);
    await D.stop();
    setTrust(B.gw, "gw-d", "blocked");
  });
});

describe("pages", () => {
  test("a page stays under the page limit however big the records: it is cut short and the pull goes on", async () => {
    const E = await startInProcess({ INSTANCE: "gw-e", FED_PRIVATE_KEY: generateKeyPair().privateKey });
    const big = "x".repeat(19_000);
    E.gw.db.transaction(() => {
      for (let i = 1; i <= 500; i++) publishRecord(E.gw, "cache", i, cacheToWire({ ...cache(`Big ${i}`), description: big }));
    })();
    const res = await E.get("/federation/sync/cache?since=0&limit=2000");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBeLessThanOrEqual(16 * 1024 * 1024);
    const { decodePage } = await import("../../src/lib/fed/page.ts");
    const page = decodePage(bytes);
    expect(page.more).toBe(true);
    expect(page.frames.length).toBeLessThan(500);
    upsertPeer(B.gw, { instance: "gw-e", url: E.url, trust: "trusted", keyPin: (await json(await E.get("/.well-known/svc"))).keys[0].key });
    const r = await pullPeer(B.gw, "gw-e");
    expect(r).toMatchObject({ ok: true });
    expect(r.feeds.cache).toMatchObject({ applied: 500 });
    expect(r.feeds.cache!.pages).toBeGreaterThan(1);
    await E.stop();
    setTrust(B.gw, "gw-e", "blocked");
  }, 120_000);
});

test("syncAll pulls every peer that is not blocked", async () => {
  const r = await syncAll(B.gw);
  expect(r.peers.every((p) => p.ok)).toBe(true);
  expect(r.bootstrap).toEqual([]);
});

test("a peer learnt from a trusted peer's registry view gets its endpoints refreshed from later views (merged), and its trust is never raised", async () => {
  const kX = generateKeyPair();
  const kY = generateKeyPair();
  const kX2 = generateKeyPair();
  // Y lists no endpoints of its own: only the views say where it is
  const X = await startInProcess({ INSTANCE: "gw-x", FED_PRIVATE_KEY: kX.privateKey });
  const Y = await startInProcess({ INSTANCE: "gw-y", FED_PRIVATE_KEY: kY.privateKey });
  // old-y.test answers as gw-x (Y's old address, now someone else's); gw-y.test is Y
  const Z = await startInProcess({
    INSTANCE: "gw-z",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    FED_LOOPBACK_PEERS: `on,old-y.test=${new URL(X.url).port},gw-y.test=${new URL(Y.url).port}`,
  });
  try {
    upsertPeer(Z.gw, { instance: "gw-x", url: X.url, trust: "trusted", keyPin: kX.publicKey });
    upsertPeer(X.gw, { instance: "gw-y", endpoints: ["https:https://old-y.test;10"], trust: "trusted", keyPin: kY.publicKey });
    publishRecord(Y.gw, "cache", 1, cacheToWire(cache("Y's cache", 46.5, 9.5)));
    expect((await pullPeer(Z.gw, "gw-x")).ok).toBe(true);
    expect(getPeer(Z.gw, "gw-y")).toMatchObject({
      trust: "unvetted",
      foundVia: "transitive:gw-x",
      endpoints: [{ transport: "https", address: "https://old-y.test", priority: 10 }],
    });
    expect((await pullPeer(Z.gw, "gw-y")).error?.code).toBe("instance_mismatch");
    // X learns Y's new address; Z's next pull of X refreshes Y's endpoints
    upsertPeer(X.gw, { instance: "gw-y", endpoints: ["https:https://gw-y.test;5"] });
    expect((await pullPeer(Z.gw, "gw-x")).ok).toBe(true);
    expect(getPeer(Z.gw, "gw-y")!.endpoints.map((e) => `${e.address};${e.priority}`)).toEqual(["https://gw-y.test;5", "https://old-y.test;10"]);
    expect(getPeer(Z.gw, "gw-y")).toMatchObject({ trust: "unvetted", trustSetBy: "discovery", keyPin: kY.publicKey });
    const r = await pullPeer(Z.gw, "gw-y");
    expect(r).toMatchObject({ ok: true, url: "https://gw-y.test", applied: 1 });
    // Y's own record (no endpoints) replaced nothing that was learnt: a second pull finds it again
    expect((await pullPeer(Z.gw, "gw-y")).ok).toBe(true);
    // another trusted peer's view that knows gw-y by another key changes nothing
    const X2 = await startInProcess({ INSTANCE: "gw-x2", FED_PRIVATE_KEY: kX2.privateKey });
    try {
      upsertPeer(Z.gw, { instance: "gw-x2", url: X2.url, trust: "trusted", keyPin: kX2.publicKey });
      upsertPeer(X2.gw, { instance: "gw-y", trust: "trusted", keyPin: generateKeyPair().publicKey, endpoints: ["https:https://elsewhere.test;0"] });
      upsertPeer(X2.gw, { instance: "gw-w", trust: "trusted", keyPin: generateKeyPair().publicKey, endpoints: ["https:https://gw-w.test;0"] });
      expect((await pullPeer(Z.gw, "gw-x2")).ok).toBe(true);
      expect(getPeer(Z.gw, "gw-y")!.endpoints.map((e) => e.address)).toEqual(["https://gw-y.test", "https://old-y.test"]);
      expect(getPeer(Z.gw, "gw-w")).toMatchObject({ foundVia: "transitive:gw-x2" }); // positive control: the view was read
    } finally {
      await X2.stop();
    }
  } finally {
    await Promise.all([X.stop(), Y.stop(), Z.stop()]);
  }
}, 60_000);
