/**
 * Trackables across real gateways (issue 30, "How it is tested"):
 *
 *   A, B, C  three gateways in this process, each trusting the others: a
 *            trackable made on A goes into A's cache, is retrieved on A, grabbed
 *            on B with its code (B checks it against the hash A published) and
 *            dropped into B's cache; all three then agree on its holder, cache,
 *            history and distance, and B's GPX of A's mirrored cache listed it
 *            while it was there. Two grabs in the same second on A and B
 *            resolve alike everywhere. Forged, tampered, misplaced and replayed
 *            move records change nothing.
 *   O        an older gateway: this repository before record types 8 and 9
 *            (git archive of the commit before them), run as a subprocess. It
 *            keeps syncing caches and finds with A both ways, and a pushed
 *            trackable frame is refused alone while the rest of its page applies.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count, feedFrame, signed } from "../helpers/fed.ts";
import { pullCleanly, useOlderPeer } from "../helpers/older-peer.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { setTrust, upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { encodePage } from "../../src/lib/fed/page.ts";
import { encodeCbor } from "../../src/lib/fed/cbor.ts";
import { payloadMap, signFrame } from "../../src/lib/fed/record.ts";
import { signerFromSeed } from "../../src/lib/fed/keys.ts";
import { ingestBeacon } from "../helpers/aprs.ts";

/** The last commit before trackables: an "older peer" that knows record types 1-7 only. */
const BEFORE_TRACKABLES = "fe88e50";
const INGEST = "ingest-secret-0123456789";
const keys = { a: generateKeyPair(), b: generateKeyPair(), c: generateKeyPair(), o: generateKeyPair() };
let A: Running;
let B: Running;
let C: Running;
let all: Array<{ name: string; g: Running }>;
let owner: TestUser; // N0OWN on A
let one: TestUser; // N0ONE on A
let two: TestUser; // N0TWO on B
let bee: TestUser; // N0BEE on B, hides B's cache

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const ingest = { "x-ingest-secret": INGEST };

beforeAll(async () => {
  const env = (name: string, k: { privateKey: string }) => ({ INSTANCE: name, FED_PRIVATE_KEY: k.privateKey, FED_LOOPBACK_PEERS: "on", INGEST_SECRET: INGEST });
  [A, B, C] = await Promise.all([startInProcess(env("gw-a", keys.a)), startInProcess(env("gw-b", keys.b)), startInProcess(env("gw-c", keys.c))]);
  all = [
    { name: "gw-a", g: A },
    { name: "gw-b", g: B },
    { name: "gw-c", g: C },
  ];
  const key = { "gw-a": keys.a, "gw-b": keys.b, "gw-c": keys.c } as const;
  for (const x of all)
    for (const y of all)
      if (x !== y) upsertPeer(x.g.gw, { instance: y.name, url: y.g.url, trust: "trusted", keyPin: key[y.name as keyof typeof key].publicKey });
  owner = signedInUser(A.gw, "N0OWN", { verified: true });
  one = signedInUser(A.gw, "N0ONE", { verified: true });
  two = signedInUser(B.gw, "N0TWO", { verified: true });
  bee = signedInUser(B.gw, "N0BEE", { verified: true });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop(), C.stop()]);
});

/** Every gateway pulls every other once. */
async function syncAll() {
  for (const x of all)
    for (const y of all)
      if (x !== y) {
        const r = await pullPeer(x.g.gw, y.name);
        expect([x.name, y.name, r.error]).toEqual([x.name, y.name, null]);
      }
}
async function newCache(g: Running, u: TestUser, lat: number, lon: number) {
  const r = await g.post("/api/caches", { name: `Cache ${lat}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon }, as(u));
  expect(r.status).toBe(201);
  return json(r);
}
const move = (g: Running, ref: string, u: TestUser, body: Record<string, unknown>) => g.post(`/api/trackables/${ref}/moves`, body, as(u));
const view = async (g: Running, ref: string) => json(await g.get(`/api/trackables/${ref}`));
const gpxOf = async (g: Running, cacheGid: string) => (await g.get(`/api/caches/${encodeURIComponent(cacheGid)}/gpx`)).text();
const beacon = (g: Running, call: string, igate: string, lat: number, lon: number, heardAt: number) => ingestBeacon(g, INGEST, call, igate, lat, lon, heardAt);
/** What must agree everywhere: the state and the history. */
const agreed = (t: any) => ({
  holder: t.holder,
  inCache: t.inCache,
  missing: t.missing,
  distanceM: t.distanceM,
  moves: t.moves.map((m: any) => [m.gid, m.kind, m.call, m.cacheGid, m.at, m.tier]),
});

let tag: { ref: string; gid: string; trackingCode: string };
let cA: any;
let cB: any;

describe("three gateways", () => {
  test("made on A and dropped into A's cache; B and C see it there, and B's GPX of A's cache lists it", async () => {
    cA = await newCache(A, owner, 48.1, 11.5);
    cB = await newCache(B, bee, 48.3, 11.9);
    const r = await A.post("/api/trackables", { name: "Rubber duck", goal: "Visit every gateway" }, as(owner));
    expect(r.status).toBe(201);
    tag = await json(r);
    expect((await move(A, tag.ref, owner, { kind: "drop", cacheId: cA.id })).status).toBe(201);
    await syncAll();
    for (const { g } of all) expect(await view(g, tag.ref)).toMatchObject({ gid: tag.gid, origin: "gw-a", owner: "N0OWN", holder: null, inCache: cA.gid });
    const gpx = await gpxOf(B, cA.gid);
    expect(gpx).toContain(`<groundspeak:travelbug id="${tag.gid.split(":")[2]}" ref="${tag.ref}">`);
    expect(gpx).toContain("<groundspeak:name>Rubber duck</groundspeak:name>");
    expect(gpx).not.toContain(tag.trackingCode);
  });

  test("retrieved on A, grabbed on B with its code, dropped into B's cache: all three agree", async () => {
    expect((await move(A, tag.ref, one, { kind: "retrieve", trackingCode: tag.trackingCode })).status).toBe(201);
    await syncAll();
    expect(await view(B, tag.ref)).toMatchObject({ holder: "N0ONE", inCache: null });
    expect(await gpxOf(B, cA.gid)).not.toContain(tag.ref);
    // B checks the code against the hash A published
    const wrong = await move(B, tag.ref, two, { kind: "grab", trackingCode: "ABCDEFGH" });
    expect([wrong.status, (await json(wrong)).error]).toEqual([403, "wrong_code"]);
    const none = await move(B, tag.ref, two, { kind: "grab" });
    expect([none.status, (await json(none)).error]).toEqual([403, "code_required"]);
    const grab = await move(B, tag.ref, two, { kind: "grab", trackingCode: tag.trackingCode });
    expect(grab.status).toBe(201);
    expect((await json(grab)).move.gid).toMatch(/^gw-b:trackable-move:\d+$/);
    expect((await move(B, tag.ref, two, { kind: "drop", cacheId: cB.id })).status).toBe(201);
    await syncAll();
    const views = await Promise.all(all.map(({ g }) => view(g, tag.ref)));
    expect(views[0]).toMatchObject({ holder: null, inCache: cB.gid, missing: false });
    expect(views[0].moves.map((m: any) => `${m.kind}:${m.call}@${m.gid.split(":")[0]}`)).toEqual([
      "drop:N0OWN@gw-a",
      "retrieve:N0ONE@gw-a",
      "grab:N0TWO@gw-b",
      "drop:N0TWO@gw-b",
    ]);
    expect(views[0].distanceM).toBeGreaterThan(30_000);
    expect(agreed(views[1])).toEqual(agreed(views[0]));
    expect(agreed(views[2])).toEqual(agreed(views[0]));
    // the lists agree too
    for (const { g } of all) {
      const inB = await json(await g.get(`/api/trackables?cache=${encodeURIComponent(cB.gid)}`));
      expect(inB.trackables.map((t: any) => t.ref)).toEqual([tag.ref]);
    }
    expect(await gpxOf(A, cB.gid)).toContain(`ref="${tag.ref}"`);
    expect(await gpxOf(B, cA.gid)).not.toContain(tag.ref);
    // moves of a peer that is not trusted do not move it: on C with B unvetted, it is where A's moves left it
    setTrust(C.gw, "gw-b", "unvetted");
    expect(await view(C, tag.ref)).toMatchObject({ holder: "N0ONE", inCache: null });
    setTrust(C.gw, "gw-b", "trusted");
    expect(agreed(await view(C, tag.ref))).toEqual(agreed(views[0]));
  });

  test("two grabs in the same second on A and B: each accepted, and once synced the same holder everywhere", async () => {
    const t = await json(await A.post("/api/trackables", { name: "Tin frog" }, as(owner)));
    await syncAll();
    const at = Math.floor(Date.now() / 1000) * 1000 - 5000;
    expect((await move(A, t.ref, one, { kind: "grab", trackingCode: t.trackingCode, at })).status).toBe(201);
    expect((await move(B, t.ref, two, { kind: "grab", trackingCode: t.trackingCode, at: at + 400 })).status).toBe(201);
    expect((await view(A, t.ref)).holder).toBe("N0ONE");
    expect((await view(B, t.ref)).holder).toBe("N0TWO");
    await syncAll();
    const views = await Promise.all(all.map(({ g }) => view(g, t.ref)));
    // same second: ordered by the signing instance, gw-a before gw-b, so B's grab is the later one
    for (const v of views) expect(agreed(v)).toEqual(agreed(views[0]));
    expect(views[0].holder).toBe("N0TWO");
    expect(views[0].moves.map((m: any) => m.gid.split(":")[0])).toEqual(["gw-a", "gw-b"]);
  });

  test("a visit no RF position here corroborates is Tier A once a quorum of trusted peers heard the mover there", async () => {
    const t = await json(await B.post("/api/trackables", { name: "Copper coil" }, as(two)));
    // N0TWO-9 heard near A's cache by the IGates of A's and C's boxes, not by B
    const heardAt = Date.now() - 10 * 60_000;
    expect((await beacon(A, "N0TWO-9", "DB0AAA-10", 48.1003, 11.5002, heardAt)).status).toBe(200);
    expect((await beacon(C, "N0TWO-9", "DB0CCC-10", 48.1002, 11.5003, heardAt)).status).toBe(200);
    const answered = new Promise<{ confirmations: number; quorum: number }>((resolve) => {
      const off = B.gw.events.on("trackableMoveCorroborated", (e) => {
        off();
        resolve(e);
      });
    });
    const r = await json(await move(B, t.ref, two, { kind: "visit", cacheId: cA.gid }));
    expect(r.move.tier).toBe("b");
    expect(await answered).toMatchObject({ confirmations: 2, quorum: 2 });
    expect((await view(B, t.ref)).moves[0]).toMatchObject({ kind: "visit", tier: "a" });
    await syncAll();
    // the promoted move went out again as a new version of its record
    for (const { g } of all) expect((await view(g, t.ref)).moves.map((m: any) => m.tier)).toEqual(["a"]);
  });

  test("a forged, tampered, misplaced or replayed move record is rejected and changes nothing", async () => {
    const before = agreed(await view(C, tag.ref));
    const movesHeld = count(C.gw, "mirror_trackable_moves");
    const real = B.gw.db.query("SELECT gid FROM fed_feed WHERE type = 9 ORDER BY seq DESC LIMIT 1").get() as { gid: string };
    const body = { trackable: tag.gid, kind: "grab", call: "N0EVE", at: Math.floor(Date.now() / 1000) };
    const forged = signed(generateKeyPair().privateKey, { type: 9, gid: "gw-b:trackable-move:9999", origin: "gw-b", v: 1, body });
    const tampered = feedFrame(B.gw, real.gid).slice();
    tampered[20] = tampered[20]! ^ 1;
    const misplaced = signed(keys.a.privateKey, { type: 9, gid: "gw-b:trackable-move:9998", origin: "gw-a", v: 1, body });
    const foreignAccount = signed(keys.a.privateKey, {
      type: 9,
      gid: "gw-a:trackable-move:9997",
      origin: "gw-a",
      v: 1,
      body: { ...body, account: "gw-b:account:x" },
    });
    const page = encodePage({ frames: [forged, tampered, misplaced, foreignAccount, feedFrame(B.gw, real.gid)], next: 0, more: false });
    const r = await C.post("/federation/frames", page, { headers: { ...ingest, "content-type": "application/cbor" } });
    expect(r.status).toBe(200);
    const report = await json(r);
    expect(report).toMatchObject({ received: 5, applied: 0, duplicate: 1, rejected: 4 });
    expect(report.reasons).toMatchObject({ key_not_accepted: 1, namespace: 1, not_self_attested: 1 });
    expect(Object.values(report.reasons as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(4);
    expect(count(C.gw, "mirror_trackable_moves")).toBe(movesHeld);
    expect(agreed(await view(C, tag.ref))).toEqual(before);
    // a second pull brings nothing new either
    expect((await pullPeer(C.gw, "gw-b")).applied).toBe(0);
  });
});

describe("a later record type", () => {
  test("a frame of a type this version does not know is skipped, not refused; the rest of its page applies", async () => {
    const payload = encodeCbor(
      payloadMap({
        type: 10 as never,
        gid: "gw-a:cache:9000",
        origin: "gw-a",
        v: 1,
        at: Math.floor(Date.now() / 1000),
        signer: "gw-a",
        body: { shape: "new" },
      }),
    );
    const future = signFrame(payload, signerFromSeed(keys.a.privateKey));
    const fresh = await newCache(A, owner, 47.2, 10.2);
    const page = encodePage({ frames: [future, feedFrame(A.gw, fresh.gid)], next: 0, more: false });
    const r = await C.post("/federation/frames", page, { headers: { ...ingest, "content-type": "application/cbor" } });
    expect(await json(r)).toMatchObject({ received: 2, applied: 1, skipped: 1, rejected: 0, reasons: {} });
  });
});

describe("an older peer", () => {
  const O = useOlderPeer(BEFORE_TRACKABLES, () => ({ privateKey: keys.o.privateKey, peers: A.url, ingestSecret: INGEST }));
  beforeAll(() => {
    upsertPeer(A.gw, { instance: "gw-old", url: O.url, trust: "trusted", keyPin: keys.o.publicKey });
  });

  test("it lists no trackable feeds; A's caches and finds reach it, its caches reach A, nothing is refused", async () => {
    const d = await json(await fetch(`${O.url}/.well-known/svc`));
    expect(d.feeds).not.toContain("trackable");
    expect(d.link.records).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect((await A.post(`/api/caches/${cA.id}/logs`, { kind: "note", text: "Trackables pass through here" }, as(one))).status).toBe(201);
    const a = await pullCleanly(O.url, INGEST, "gw-a");
    expect(Object.keys(a.feeds)).not.toContain("trackable");
    // (A's notify ping may have set off a pull of its own a moment before: what counts is what the older peer holds)
    expect((await fetch(`${O.url}/api/caches/${encodeURIComponent(cA.gid)}`)).status).toBe(200);
    const logs = await json(await fetch(`${O.url}/api/caches/${encodeURIComponent(cA.gid)}/logs`));
    expect(JSON.stringify(logs)).toContain("Trackables pass through here");
    // and the other way: A pulls the older peer without asking it for trackables
    const hidden = await fetch(`${O.url}/api/caches`, {
      method: "POST",
      headers: { ...ingest, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Old peer's cache",
        type: "traditional",
        size: "small",
        difficulty: 1,
        terrain: 1,
        lat: 47.5,
        lon: 10.5,
        ownerCall: "N0OLD",
      }),
    });
    expect(hidden.status).toBe(201);
    const oldCache = await json(hidden);
    const back = await pullPeer(A.gw, "gw-old");
    expect(back).toMatchObject({ ok: true, error: null });
    expect(Object.keys(back.feeds)).not.toContain("trackable");
    expect((await A.get(`/api/caches/${encodeURIComponent(oldCache.gid)}`)).status).toBe(200);
  });

  test("a trackable frame pushed to it is refused on its own; the cache frame beside it applies", async () => {
    const fresh = await newCache(A, owner, 48.9, 11.1);
    const page = encodePage({ frames: [feedFrame(A.gw, tag.gid), feedFrame(A.gw, fresh.gid)], next: 0, more: false });
    const r = await fetch(`${O.url}/federation/frames`, {
      method: "POST",
      headers: { ...ingest, "content-type": "application/cbor" },
      body: page as Uint8Array<ArrayBuffer>,
    });
    expect(r.status).toBe(200);
    const report = await json(r);
    expect(report).toMatchObject({ received: 2, rejected: 1, reasons: { bad_payload: 1 } });
    // the cache frame is taken: now, or already by a pull that A's notify ping set off a moment before
    expect(report.applied + report.duplicate).toBe(1);
    expect((await fetch(`${O.url}/api/caches/${encodeURIComponent(fresh.gid)}`)).status).toBe(200);
  });
});
