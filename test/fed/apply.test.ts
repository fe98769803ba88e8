import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { count, feedFrame, signed, testCache } from "../helpers/fed.ts";
import { generateKeyPair, signRotation } from "../../src/lib/fed/keys.ts";
import { accountGid, publishAccountMove, publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire, findToWire } from "../../src/lib/fed/bodies.ts";
import { applyFrames, applyPage } from "../../src/fed/apply.ts";
import { acceptRotation, getPeer, quarantined, setTrust, upsertPeer } from "../../src/fed/peers.ts";
import { mirroredCache, mirroredCachesInBox, mirroredFindsOf } from "../../src/fed/mirror.ts";
import { encodePage } from "../../src/lib/fed/page.ts";

const kA = generateKeyPair();
const kC = generateKeyPair();
const cache = testCache;

let A: Running; // publisher gw1
let B: Running; // receiver gw2
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: kA.privateKey, FED_ENDPOINTS: "https:https://gw1.example.org;10,ax25:N0GW-5;20" });
  B = await startInProcess({ INSTANCE: "gw2", FED_PRIVATE_KEY: generateKeyPair().privateKey });
});
afterAll(async () => {
  await A.stop();
  await B.stop();
});

const via = { via: "test" };

describe("apply pipeline", () => {
  test("an unknown origin is quarantined: counted, never applied; a blocked one too", async () => {
    publishRecord(A.gw, "cache", 1, cacheToWire(cache("First")));
    const r = await applyFrames(B.gw, [feedFrame(A.gw, "gw1:cache:1")], via);
    expect(r).toMatchObject({ received: 1, applied: 0, quarantined: 1 });
    expect(count(B.gw, "mirror_records")).toBe(0);
    expect(quarantined(B.gw)).toContainEqual(expect.objectContaining({ origin: "gw1", reason: "unknown", frames: 1 }));
    upsertPeer(B.gw, { instance: "gw1", trust: "blocked", keyPin: kA.publicKey });
    const r2 = await applyFrames(B.gw, [feedFrame(A.gw, "gw1:cache:1")], via);
    expect(r2).toMatchObject({ applied: 0, quarantined: 1 });
    expect(quarantined(B.gw)).toContainEqual(expect.objectContaining({ origin: "gw1", reason: "blocked", frames: 2 }));
    expect(count(B.gw, "mirror_records")).toBe(0);
  });

  test("a known peer's frames are verified and mirrored into display-only tables", async () => {
    setTrust(B.gw, "gw1", "trusted");
    const feedBefore = count(B.gw, "fed_feed");
    const r = await applyFrames(B.gw, [feedFrame(A.gw, "gw1:cache:1")], via);
    expect(r).toMatchObject({ received: 1, applied: 1, rejected: 0 });
    const c = mirroredCache(B.gw, "gw1:cache:1")!;
    expect(c).toMatchObject({ origin: "gw1", name: "First", lat: 48.1, lon: 11.5, difficulty: 1.5, terrain: 2, ownerCall: "N0OWN", trust: "trusted" });
    expect(mirroredCachesInBox(B.gw, { south: 48, west: 11, north: 49, east: 12 }).map((x) => x.gid)).toEqual(["gw1:cache:1"]);
    expect(mirroredCachesInBox(B.gw, { south: 40, west: 11, north: 41, east: 12 })).toEqual([]);
    // The receiver's own feed is untouched by mirroring.
    expect(count(B.gw, "fed_feed")).toBe(feedBefore);
    expect(getPeer(B.gw, "gw1")!.framesApplied).toBe(1);
  });

  test("by (type, gid, v): duplicates, re-ordering and multi-path delivery converge on the newest version", async () => {
    const v1 = feedFrame(A.gw, "gw1:cache:1");
    publishRecord(A.gw, "cache", 1, cacheToWire(cache("Second")));
    const v2 = feedFrame(A.gw, "gw1:cache:1");
    publishRecord(A.gw, "cache", 1, cacheToWire(cache("Third")));
    const v3 = feedFrame(A.gw, "gw1:cache:1");
    const r = await applyFrames(B.gw, [v3, v2, v3, v1], via);
    expect(r).toMatchObject({ applied: 1, duplicate: 3 });
    expect(mirroredCache(B.gw, "gw1:cache:1")!.name).toBe("Third");
    // The same frames by another path (a page over HTTP) change nothing.
    const http = await B.post("/federation/frames", encodePage({ frames: [v2, v1, v3], next: 0, more: false }), {
      headers: { "content-type": "application/cbor", "x-ingest-secret": "unused" },
    });
    expect(http.status).toBe(403); // B has no INGEST_SECRET: the route is locked
    expect((await applyPage(B.gw, encodePage({ frames: [v2, v1, v3], next: 0, more: false }), { via: "bbs" })).duplicate).toBe(3);
    expect(mirroredCache(B.gw, "gw1:cache:1")!.name).toBe("Third");
  });

  test("one bad frame never blocks the good ones; each refusal has its code", async () => {
    publishRecord(A.gw, "cache", 2, cacheToWire(cache("Good one")));
    const good = feedFrame(A.gw, "gw1:cache:2");
    const tampered = good.slice();
    tampered[Buffer.from(good).indexOf("Good one")]! ^= 1; // "Good one" -> "Food one"
    const base = { type: 1 as const, v: 1, body: cacheToWire(cache("x")) as unknown as Record<string, unknown> };
    const frames = [
      new Uint8Array([0xa3, 0x01]), // truncated CBOR
      tampered, // payload byte changed after signing
      signed(kC.privateKey, { ...base, gid: "gw1:cache:50", origin: "gw1" }), // someone else's key claiming gw1
      signed(kA.privateKey, { ...base, gid: "gw3:cache:51", origin: "gw1" }), // gid outside gw1's namespace
      signed(kA.privateKey, { ...base, gid: "gw1:find:52", origin: "gw1" }), // cache record with a find gid
      signed(kA.privateKey, { ...base, gid: "gw1:cache:53", origin: "gw1", body: { ...base.body, latE7: 999_999_999 } }), // body out of layout
      signed(kA.privateKey, { ...base, gid: "gw1:cache:54", origin: "gw1", body: { ...base.body, ownerAccount: "gw3:account:zz" } }), // another instance's account
      signed(kA.privateKey, { ...base, gid: "gw1:cache:55", origin: "gw1", signer: "N0EVIL" }), // a callsign signing about someone else
      signed(kA.privateKey, { type: 5, v: 9, gid: "gw1:cache:56", origin: "gw1", body: { call: "N0CALL" } }), // a tombstone naming a callsign
      signed(kA.privateKey, { type: 5, v: 9, gid: "gw1:account-move:57", origin: "gw1", body: {} }), // a move cannot be tombstoned
      good,
    ];
    const r = await applyFrames(B.gw, frames, via);
    expect(r.applied).toBe(1);
    expect(r.rejected).toBe(10);
    expect(r.failures.map((f) => f.code)).toEqual([
      "truncated",
      "bad_signature",
      "key_not_accepted",
      "namespace",
      "namespace",
      "bad_body",
      "not_self_attested",
      "not_self_attested",
      "tombstone_not_accepted",
      "namespace",
    ]);
    expect(mirroredCache(B.gw, "gw1:cache:2")!.name).toBe("Good one");
    expect(count(B.gw, "mirror_records", "gid LIKE 'gw1:cache:5_' OR gid LIKE 'gw3:%'")).toBe(0);
    expect(getPeer(B.gw, "gw1")!.framesRejected).toBe(9);
  });

  test("a peer serving a sync page serves only its own records", async () => {
    upsertPeer(B.gw, { instance: "gw3", trust: "trusted", keyPin: kC.publicKey });
    const theirs = signed(kC.privateKey, { type: 1, v: 1, gid: "gw3:cache:1", origin: "gw3", body: cacheToWire(cache("Relayed")) as never });
    const r = await applyFrames(B.gw, [theirs, feedFrame(A.gw, "gw1:cache:2")], { via: "sync", servedBy: "gw1" });
    expect(r.failures.map((f) => f.code)).toEqual(["namespace"]);
    expect(r.duplicate).toBe(1);
    // Delivered by a carrier with no serving peer (a bulletin, a circuit), the same frame is fine.
    expect((await applyFrames(B.gw, [theirs], { via: "bbs" })).applied).toBe(1);
  });

  test("tombstones apply first: a delete in the same page suppresses the record, and the gid is never mirrored again", async () => {
    publishRecord(A.gw, "cache", 3, cacheToWire(cache("Doomed")));
    const rec = feedFrame(A.gw, "gw1:cache:3");
    publishTombstone(A.gw, "gw1:cache:3");
    const tomb = feedFrame(A.gw, "gw1:cache:3");
    const r = await applyFrames(B.gw, [rec, tomb], via);
    expect(r).toMatchObject({ applied: 1, suppressed: 1 });
    expect(mirroredCache(B.gw, "gw1:cache:3")).toBeNull();
    expect(count(B.gw, "tombstones", "gid = 'gw1:cache:3'")).toBe(1);
    expect((await applyFrames(B.gw, [rec], via)).suppressed).toBe(1);
    expect((await applyFrames(B.gw, [tomb], via)).duplicate).toBe(1);
    // A tombstone for something already mirrored purges it.
    publishTombstone(A.gw, "gw1:cache:2");
    expect((await applyFrames(B.gw, [feedFrame(A.gw, "gw1:cache:2")], via)).applied).toBe(1);
    expect(mirroredCache(B.gw, "gw1:cache:2")).toBeNull();
    expect(count(B.gw, "mirror_records", "gid = 'gw1:cache:2'")).toBe(0);
  });

  test("erase: one account tombstone purges every mirrored row attributed to the account and keeps them out", async () => {
    const acct = accountGid(A.gw, "eraseMe01");
    const find = (n: number) =>
      findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 1_700_000_000_000 + n, call: "N0ERA", account: acct, text: "found it" });
    publishRecord(A.gw, "find", 10, find(1));
    publishRecord(A.gw, "find", 11, find(2));
    publishRecord(A.gw, "cache", 12, cacheToWire({ ...cache("Erased owner's"), ownerAccount: acct }));
    const frames = ["gw1:find:10", "gw1:find:11", "gw1:cache:12"].map((g) => feedFrame(A.gw, g));
    expect((await applyFrames(B.gw, frames, via)).applied).toBe(3);
    expect(mirroredFindsOf(B.gw, "gw1:cache:1").map((f) => f.call)).toEqual(["N0ERA", "N0ERA"]);
    publishTombstone(A.gw, acct);
    const tomb = feedFrame(A.gw, acct);
    expect(Buffer.from(tomb).toString("latin1")).not.toContain("N0ERA");
    expect((await applyFrames(B.gw, [tomb], via)).applied).toBe(1);
    expect(mirroredFindsOf(B.gw, "gw1:cache:1")).toEqual([]);
    expect(mirroredCache(B.gw, "gw1:cache:12")).toBeNull();
    // A late copy of a find of the erased account is not mirrored again.
    publishRecord(A.gw, "find", 13, find(3));
    expect((await applyFrames(B.gw, [feedFrame(A.gw, "gw1:find:13")], via)).suppressed).toBe(1);
  });

  test("an account-move re-points attribution, for rows held and rows still to come", async () => {
    const from = accountGid(A.gw, "mover01");
    publishRecord(A.gw, "find", 20, findToWire({ cache: "gw1:cache:1", kind: "note", loggedAt: 1_700_000_100_000, call: "N0MOV", account: from }));
    await applyFrames(B.gw, [feedFrame(A.gw, "gw1:find:20")], via);
    publishAccountMove(A.gw, "mover01", "gw3:account:arrived01");
    expect((await applyFrames(B.gw, [feedFrame(A.gw, "gw1:account-move:mover01")], via)).applied).toBe(1);
    publishRecord(A.gw, "find", 21, findToWire({ cache: "gw1:cache:1", kind: "note", loggedAt: 1_700_000_200_000, call: "N0MOV", account: from }));
    await applyFrames(B.gw, [feedFrame(A.gw, "gw1:find:21")], via);
    const notes = mirroredFindsOf(B.gw, "gw1:cache:1").filter((f) => f.call === "N0MOV");
    expect(notes.map((f) => f.account)).toEqual(["gw3:account:arrived01", "gw3:account:arrived01"]);
    // Only the account's own instance may move it.
    const forged = signed(kC.privateKey, {
      type: 6,
      v: 1,
      gid: "gw3:account-move:x",
      origin: "gw3",
      body: { from: "gw1:account:mover02", to: "gw3:account:y" },
    });
    expect((await applyFrames(B.gw, [forged], via)).failures.map((f) => f.code)).toEqual(["not_self_attested"]);
  });

  test("a peer descriptor refreshes that known peer's endpoints (re-validated)", async () => {
    const frame = feedFrame(A.gw, "gw1:peer:self");
    expect((await applyFrames(B.gw, [frame], via)).applied).toBe(1);
    expect(getPeer(B.gw, "gw1")!.endpoints).toEqual([
      { transport: "https", address: "https://gw1.example.org", priority: 10 },
      { transport: "ax25", address: "N0GW-5", priority: 20 },
    ]);
    const lie = signed(kA.privateKey, { type: 7, v: 99, gid: "gw1:peer:self", origin: "gw1", body: { instance: "gw3", endpoints: [] } });
    expect((await applyFrames(B.gw, [lie], via)).failures.map((f) => f.code)).toEqual(["not_self_attested"]);
  });

  test("key rotation: records under a rotated-to key are accepted once the signed rotation is; a revoked key no longer is", async () => {
    const k2 = generateKeyPair();
    const body = cacheToWire(cache("Under k2")) as never;
    const f = signed(k2.privateKey, { type: 1, v: 1, gid: "gw1:cache:70", origin: "gw1", body });
    expect((await applyFrames(B.gw, [f], via)).failures.map((x) => x.code)).toEqual(["key_not_accepted"]);
    // A rotation signed by some other key is refused.
    expect(acceptRotation(B.gw, "gw1", signRotation(kC.privateKey, "gw1", k2.publicKey, false, 1_700_000_000))).toContain("never known");
    const tampered = { ...signRotation(kA.privateKey, "gw1", k2.publicKey, false, 1_700_000_000), to: kC.publicKey };
    expect(acceptRotation(B.gw, "gw1", tampered)).toContain("does not verify");
    expect(acceptRotation(B.gw, "gw1", signRotation(kA.privateKey, "gw1", k2.publicKey, true, 1_700_000_000))).toBeNull();
    expect((await applyFrames(B.gw, [f], via)).applied).toBe(1);
    const old = signed(kA.privateKey, { type: 1, v: 1, gid: "gw1:cache:71", origin: "gw1", body });
    expect((await applyFrames(B.gw, [old], via)).failures.map((x) => x.code)).toEqual(["key_not_accepted"]);
  });

  test("our own records coming back are skipped", async () => {
    publishRecord(B.gw, "cache", 1, cacheToWire(cache("Mine")));
    const r = await applyFrames(B.gw, [feedFrame(B.gw, "gw2:cache:1")], via);
    expect(r).toMatchObject({ own: 1, applied: 0 });
    expect(count(B.gw, "mirror_records", "origin = 'gw2'")).toBe(0);
  });

  test("a frame whose storage fails is rolled back whole and counted; the rest of the page applies", async () => {
    B.gw.db.run("CREATE TEMP TRIGGER refuse_cache BEFORE INSERT ON mirror_caches WHEN NEW.name = 'Refused' BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    try {
      const k2 = generateKeyPair();
      upsertPeer(B.gw, { instance: "gw9", trust: "unvetted", keyPin: k2.publicKey });
      const mk = (id: number, name: string) =>
        signed(k2.privateKey, { type: 1, v: 1, gid: `gw9:cache:${id}`, origin: "gw9", body: cacheToWire(cache(name)) as never });
      const r = await applyFrames(B.gw, [mk(1, "Fine"), mk(2, "Refused"), mk(3, "Also fine")], via);
      expect(r).toMatchObject({ applied: 2, rejected: 1 });
      expect(r.failures[0]!.code).toBe("store_failed");
      expect(count(B.gw, "mirror_records", "gid = 'gw9:cache:2'")).toBe(0);
      expect(count(B.gw, "mirror_records", "origin = 'gw9'")).toBe(2);
      // Unvetted mirrors are held but hidden from the map unless asked for.
      const box = { south: 48, west: 11, north: 49, east: 12 };
      expect(mirroredCachesInBox(B.gw, box).some((c) => c.origin === "gw9")).toBe(false);
      expect(mirroredCachesInBox(B.gw, box, { includeUnvetted: true }).filter((c) => c.origin === "gw9").length).toBe(2);
    } finally {
      B.gw.db.run("DROP TRIGGER refuse_cache");
    }
  });

  test("a storage failure late in a page undoes none of the frames before it, nor the versions and counters written with them", async () => {
    B.gw.db.run("CREATE TEMP TRIGGER refuse_cache BEFORE INSERT ON mirror_caches WHEN NEW.name = 'Refused' BEGIN SELECT RAISE(ABORT, 'disk says no'); END");
    try {
      const k8 = generateKeyPair();
      upsertPeer(B.gw, { instance: "gw8", trust: "trusted", keyPin: k8.publicKey });
      const mk = (id: number, v: number, name: string) =>
        signed(k8.privateKey, { type: 1, v, gid: `gw8:cache:${id}`, origin: "gw8", body: cacheToWire(cache(name)) as never });
      // gid 1 twice in the page (v1 then v2), then a refused frame, then gid 1 again at v1.
      const r = await applyFrames(B.gw, [mk(1, 1, "One"), mk(1, 2, "One, v2"), mk(2, 1, "Two"), mk(3, 1, "Refused"), mk(1, 1, "One")], via);
      expect(r).toMatchObject({ received: 5, applied: 3, duplicate: 1, rejected: 1 });
      expect(r.failures).toEqual([expect.objectContaining({ index: 3, gid: "gw8:cache:3", code: "store_failed" })]);
      expect(mirroredCache(B.gw, "gw8:cache:1")!.name).toBe("One, v2");
      expect(mirroredCache(B.gw, "gw8:cache:2")!.name).toBe("Two");
      expect(count(B.gw, "mirror_records", "gid = 'gw8:cache:3'")).toBe(0);
      expect(getPeer(B.gw, "gw8")).toMatchObject({ framesApplied: 3, framesRejected: 1 });
    } finally {
      B.gw.db.run("DROP TRIGGER refuse_cache");
    }
  });
});
