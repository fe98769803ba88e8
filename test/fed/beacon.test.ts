/**
 * SVCB1 presence beacons: the datagram an instance serves (its peer record,
 * endpoints trimmed from the lowest priority up until it fits one UI frame),
 * and what a heard datagram does, over HTTP and over the radio: a known
 * peer's endpoints refreshed, an unknown origin quarantined (no peer
 * inserted), tombstones applied once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { count, feedFrame, signed } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { localGid, publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, refreshEndpoints, upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { BEACON_MAX_BYTES } from "../../src/fed/beacon.ts";
import { radioTick } from "../../src/radio-node/radio.ts";
import { uiFrame } from "../../radio/index.ts";
import { waitFor } from "../helpers/wait.ts";

const INGEST = "ingest-secret-0123456789";
const kA = generateKeyPair();
const kB = generateKeyPair();
const kC = generateKeyPair();
const ENDPOINTS = "https:https://gwa.example;10,ax25:N0GWA-5;20,ampr:n0gwa.ampr.org;30,netrom:GWA;40,bbs:N0GWA@N0BBS.#NCA.CA.USA.NOAM;50";
let A: Running;
let B: Running;
let C: Running;
let tnc: FakeTnc;

beforeAll(async () => {
  tnc = fakeTnc();
  A = await startInProcess({ INSTANCE: "gw-beacon-a", FED_PRIVATE_KEY: kA.privateKey, FED_ENDPOINTS: ENDPOINTS });
  C = await startInProcess({ INSTANCE: "gw-c", FED_PRIVATE_KEY: kC.privateKey, FED_ENDPOINTS: "ax25:N0GWC-5" });
  B = await startInProcess({
    INSTANCE: "gw-b",
    FED_PRIVATE_KEY: kB.privateKey,
    INGEST_SECRET: INGEST,
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GWB-5",
    FED_BEACON_INTERVAL_MIN: "30",
  });
  await tnc.connected();
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop(), C.stop()]);
  tnc.stop();
});

const beacon = async (g: Running) => new Uint8Array(await (await g.get("/federation/beacon")).arrayBuffer());
const post = (bytes: Uint8Array, headers: Record<string, string> = { "x-ingest-secret": INGEST }) =>
  fetch(`${B.url}/federation/beacon`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream", ...headers },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
const dg = (frame: Uint8Array) => new Uint8Array([...new TextEncoder().encode("SVCB1"), ...frame]);

describe("SVCB1 beacons", () => {
  test("an instance serves its signed peer record, endpoints trimmed from the lowest priority up until the datagram fits one UI frame", async () => {
    const r = await A.get("/federation/beacon");
    expect(r.headers.get("content-type")).toBe("application/octet-stream");
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(new TextDecoder().decode(bytes.subarray(0, 5))).toBe("SVCB1");
    expect(bytes.length).toBeLessThanOrEqual(BEACON_MAX_BYTES);
    const p = decodePayload(decodeFrame(bytes.subarray(5)).payload);
    expect(p).toMatchObject({ type: 7, gid: "gw-beacon-a:peer:beacon", origin: "gw-beacon-a" });
    const kept = p.body.endpoints as string[];
    const info = await (await A.get("/federation/beacon?format=json")).json();
    expect(info).toMatchObject({ bytes: bytes.length, limit: 256, endpoints: kept });
    // kept: the most preferred, in order; dropped: the rest, the least preferred
    const all = ENDPOINTS.split(",");
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    expect([...kept, ...info.dropped]).toEqual(all);
    // one more endpoint would not have fitted: the trim stopped as soon as it fitted
    expect(bytes.length + info.dropped[0].length + 1).toBeGreaterThan(BEACON_MAX_BYTES);
    // served again: the same signed bytes (republished only when what it says changes)
    expect(await beacon(A)).toEqual(bytes);
    expect((await C.get("/federation/beacon?format=json").then((x) => x.json())).dropped).toEqual([]);
    const unsigned = await startInProcess({});
    const long = await startInProcess({ INSTANCE: "a-very-long-instance-name.gateways.example.org", FED_PRIVATE_KEY: generateKeyPair().privateKey });
    try {
      expect((await unsigned.get("/federation/beacon")).status).toBe(404);
      const tooLong = await long.get("/federation/beacon");
      expect({ status: tooLong.status, error: (await tooLong.json()).error }).toEqual({ status: 422, error: "too_large" });
    } finally {
      await Promise.all([unsigned.stop(), long.stop()]);
    }
  });

  test("a known peer's beacon refreshes its endpoints (the trimmed-away tail kept); again it is a duplicate", async () => {
    upsertPeer(B.gw, { instance: "gw-beacon-a", trust: "trusted", keyPin: kA.publicKey });
    // what an earlier record of its own said (self-attested: the next one replaces it)
    refreshEndpoints(B.gw, "gw-beacon-a", ["https:https://old.example.org;10", "bbs:N0GWA@N0BBS.#NCA.CA.USA.NOAM;50"]);
    const d = await beacon(A);
    expect((await post(d, {})).status).toBe(401);
    const r = await post(d);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ type: "peer", origin: "gw-beacon-a", outcome: "applied" });
    const eps = getPeer(B.gw, "gw-beacon-a")!.endpoints.map((e) => `${e.transport}:${e.address};${e.priority}`);
    const announced = decodePayload(decodeFrame(d.subarray(5)).payload).body.endpoints as string[];
    expect(eps).toEqual([...announced, "bbs:N0GWA@N0BBS.#NCA.CA.USA.NOAM;50"]);
    expect(await (await post(d)).json()).toMatchObject({ outcome: "duplicate" });
    // as JSON too; a member the JSON form does not take is named, as on a JSON-only route
    const datagram = Buffer.from(d).toString("base64");
    const stray = await B.post("/federation/beacon", { datagram, colour: "red" }, { headers: { "x-ingest-secret": INGEST } });
    expect({ status: stray.status, body: await stray.json() }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.colour: unknown field "colour"; it takes datagram', field: "body.colour" },
    });
    const j = await B.post("/federation/beacon", { datagram }, { headers: { "x-ingest-secret": INGEST } });
    expect({ status: j.status, body: await j.json() }).toMatchObject({ status: 200, body: { outcome: "duplicate" } });
  });

  test("an unknown origin is quarantined and no peer is inserted; tombstones apply once; other records and bad datagrams are refused", async () => {
    const unknown = await post(await beacon(C));
    expect(await unknown.json()).toMatchObject({ origin: "gw-c", outcome: "quarantined" });
    expect(getPeer(B.gw, "gw-c")).toBeNull();
    expect(count(B.gw, "fed_quarantine", "origin = 'gw-c'")).toBe(1);

    publishRecord(
      A.gw,
      "cache",
      1,
      cacheToWire({ name: "Beacon cache", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 2, status: "active" }),
    );
    const cacheFrame = feedFrame(A.gw, localGid(A.gw, "cache", 1));
    const notTier = await post(dg(cacheFrame));
    expect(notTier.status).toBe(422);
    expect((await notTier.json()).error).toBe("not_beacon_tier");
    expect(count(B.gw, "mirror_records", "gid LIKE 'gw-beacon-a:cache:%'")).toBe(0);

    publishTombstone(A.gw, localGid(A.gw, "cache", 1));
    const tomb = dg(feedFrame(A.gw, localGid(A.gw, "cache", 1)));
    expect(tomb.length).toBeLessThanOrEqual(BEACON_MAX_BYTES);
    expect(await (await post(tomb)).json()).toMatchObject({ type: "tombstone", outcome: "applied" });
    expect(await (await post(tomb)).json()).toMatchObject({ type: "tombstone", outcome: "duplicate" });
    expect(count(B.gw, "tombstones", "gid = 'gw-beacon-a:cache:1'")).toBe(1);

    for (const [bytes, code] of [
      [new TextEncoder().encode("SVCB2hello"), "bad_beacon"],
      [dg(new Uint8Array(300)), "bad_beacon"], // not a frame at all
      [dg(new Uint8Array([...feedFrame(C.gw, localGid(C.gw, "peer", "self")), ...new Uint8Array(60)])), "bad_beacon"], // trailing bytes
      [dg(Uint8Array.of(0xa3, 0x01)), "bad_beacon"],
    ] as const) {
      const r = await post(bytes);
      expect({ status: r.status, code: (await r.json()).error }).toEqual({ status: 400, code });
    }
  });

  test("over the radio: a beacon heard is applied; our own goes out on its schedule once RADIO_CALL is verified", async () => {
    // C, now a known peer, beacons on the air: B's port hears it and refreshes C's endpoints
    const frame = feedFrame(C.gw, localGid(C.gw, "peer", "beacon"));
    upsertPeer(B.gw, { instance: "gw-c", trust: "trusted", keyPin: kC.publicKey, endpoints: [] });
    tnc.hear(uiFrame({ dest: { call: "SVCB1", ssid: 0 }, src: { call: "N0GWC", ssid: 5 }, info: dg(frame) }));
    await waitFor(() => getPeer(B.gw, "gw-c")!.endpoints.length > 0, "gw-c's endpoints from its beacon", { timeoutMs: 5000 });
    expect(getPeer(B.gw, "gw-c")!.endpoints.map((e) => e.address)).toEqual(["N0GWC-5"]);
    expect(count(B.gw, "mirror_records", "gid = 'gw-c:peer:beacon' AND via = 'beacon'")).toBe(1);

    const from = tnc.sent.length;
    expect((await radioTick(B.gw)).beacon).toBeUndefined(); // not verified: silent
    signedInUser(B.gw, "N0GWB", { verified: true });
    const tick = await radioTick(B.gw);
    expect(tick.beacon).toMatchObject({ ports: 1 });
    const [sent] = await tnc.waitSent(1, { from });
    expect(sent).toMatchObject({ type: "UI", dest: { call: "SVCB1", ssid: 0 }, src: { call: "N0GWB", ssid: 5 }, path: [] });
    expect(sent!.info).toEqual(await beacon(B));
    // and its have-list right after, in a second UI frame
    expect(tick.beacon).toMatchObject({ haveBytes: expect.any(Number) });
    const [, have] = await tnc.waitSent(2, { from });
    expect(have).toMatchObject({ type: "UI", dest: { call: "SVCB1", ssid: 0 }, path: [] });
    expect(have!.info).toEqual(new Uint8Array(await (await B.get("/federation/beacon?record=have")).arrayBuffer()));
    expect((await radioTick(B.gw)).beacon).toBeUndefined(); // not due again for 30 minutes
  });

  test("have-lists: a signed datagram of each feed's highest cursor; a listener behind on a feed pulls the peer, one caught up does not; endpoints untouched", async () => {
    const kH = generateKeyPair();
    const H = await startInProcess({ INSTANCE: "gw-have", FED_PRIVATE_KEY: kH.privateKey });
    const L = await startInProcess({ INSTANCE: "gw-listen", FED_PRIVATE_KEY: generateKeyPair().privateKey, INGEST_SECRET: INGEST, FED_LOOPBACK_PEERS: "on" });
    const hear = async (bytes: Uint8Array) =>
      (
        await fetch(`${L.url}/federation/beacon`, {
          method: "POST",
          headers: { "content-type": "application/octet-stream", "x-ingest-secret": INGEST },
          body: bytes as Uint8Array<ArrayBuffer>,
        })
      ).json();
    try {
      for (let i = 1; i <= 3; i++)
        publishRecord(
          H.gw,
          "cache",
          i,
          cacheToWire({ name: `Have ${i}`, type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 2 + i / 100, status: "active" }),
        );
      publishTombstone(H.gw, localGid(H.gw, "cache", 3));
      const top = (type: number) => (H.gw.db.query("SELECT max(seq) AS s FROM fed_feed WHERE type = ?").get(type) as { s: number }).s;
      const info = await (await H.get("/federation/beacon?record=have&format=json")).json();
      expect(info.have).toEqual({ cache: top(1), tombstone: top(5) });
      const dgram = new Uint8Array(await (await H.get("/federation/beacon?record=have")).arrayBuffer());
      expect(Buffer.from(dgram).toString("base64")).toBe(info.datagram);
      expect(dgram.length).toBeLessThanOrEqual(BEACON_MAX_BYTES);
      const p = decodePayload(decodeFrame(dgram.subarray(5)).payload);
      expect(p).toMatchObject({
        type: 7,
        gid: "gw-have:peer:have",
        origin: "gw-have",
        body: { instance: "gw-have", endpoints: [], have: [1, top(1), 5, top(5)] },
      });
      // unchanged: the same signed bytes again
      expect(new Uint8Array(await (await H.get("/federation/beacon?record=have")).arrayBuffer())).toEqual(dgram);
      expect((await H.get("/federation/beacon?record=everything")).status).toBe(400);

      // an unknown origin: quarantined, nothing learnt
      expect(await hear(dgram)).toMatchObject({ type: "have", origin: "gw-have", outcome: "quarantined" });
      expect((await hear(dgram)).behind).toBeUndefined();

      // known, radio-only (no sync URL): behind on both feeds, nothing it can pull now; its endpoints stay
      upsertPeer(L.gw, { instance: "gw-have", trust: "trusted", keyPin: kH.publicKey });
      refreshEndpoints(L.gw, "gw-have", ["ax25:N0HAV-5"]);
      expect(await hear(dgram)).toMatchObject({
        type: "have",
        outcome: "applied",
        have: { cache: top(1), tombstone: top(5) },
        behind: ["cache", "tombstone"],
        pull: "no_sync_endpoint",
      });
      expect(getPeer(L.gw, "gw-have")!.endpoints.map((e) => e.address)).toEqual(["N0HAV-5"]);

      // with a sync URL the same datagram starts a pull, which brings what the list announced
      upsertPeer(L.gw, { instance: "gw-have", url: H.url });
      expect(await hear(dgram)).toMatchObject({ outcome: "duplicate", behind: ["cache", "tombstone"], pull: expect.stringMatching(/^(started|coalesced)$/) });
      expect((await pullPeer(L.gw, "gw-have")).ok).toBe(true);
      expect(count(L.gw, "mirror_caches", "origin = 'gw-have'")).toBe(2);
      expect(count(L.gw, "tombstones", "gid = 'gw-have:cache:3'")).toBe(1);
      // caught up: heard again, nothing is behind and no pull starts
      expect(await hear(dgram)).toMatchObject({ outcome: "duplicate", behind: [], pull: null });

      // a new record moves the list; only that feed is behind
      publishRecord(
        H.gw,
        "cache",
        4,
        cacheToWire({ name: "Have 4", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 3, status: "active" }),
      );
      const moved = new Uint8Array(await (await H.get("/federation/beacon?record=have")).arrayBuffer());
      expect(decodePayload(decodeFrame(moved.subarray(5)).payload).v).toBe(2);
      expect(await hear(moved)).toMatchObject({ outcome: "applied", behind: ["cache"], pull: expect.stringMatching(/^(started|coalesced)$/) });
      expect((await pullPeer(L.gw, "gw-have")).ok).toBe(true);
      expect(count(L.gw, "mirror_caches", "origin = 'gw-have'")).toBe(3);

      // a have-list that is not (type, cursor) pairs by type is refused by the apply pipeline
      const seed = kH.privateKey;
      const bad = dg(
        signed(seed, { type: 7, gid: "gw-have:peer:have", origin: "gw-have", v: 9, body: { instance: "gw-have", endpoints: [], have: [5, 1, 1, 1] } }),
      );
      expect(await hear(bad)).toMatchObject({ outcome: "rejected", report: { reasons: { bad_body: 1 } } });
    } finally {
      await Promise.all([H.stop(), L.stop()]);
    }
  });

  test("a have-list too long for one datagram leaves out the least needed feeds first, and says which", async () => {
    const id = "have-gw-seventeen"; // each character of the id costs 4 bytes (gid, origin, signer, instance)
    const G = await startInProcess({ INSTANCE: id, FED_PRIVATE_KEY: generateKeyPair().privateKey });
    try {
      const c = publishRecord(
        G.gw,
        "cache",
        1,
        cacheToWire({ name: "One", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 2, status: "active" }),
      );
      publishRecord(
        G.gw,
        "cache",
        2,
        cacheToWire({ name: "Two", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 1, lon: 3, status: "active" }),
      );
      publishRecord(G.gw, "find", 1, { cache: c.gid, kind: "find", loggedAt: 1_700_000_000, call: "N0FND" });
      publishRecord(G.gw, "key", "k1", { call: "N0FND", key: generateKeyPair().publicKey, createdAt: 1_700_000_000 });
      publishRecord(G.gw, "bulletin", 1, { from: "N0FND", category: "ALL", subject: "hi", text: "73", postedAt: 1_700_000_000 });
      publishTombstone(G.gw, localGid(G.gw, "cache", 2));
      const info = await (await G.get("/federation/beacon?record=have&format=json")).json();
      expect(info.bytes).toBeLessThanOrEqual(BEACON_MAX_BYTES);
      expect(Object.keys(info.have).sort()).toEqual(["bulletin", "cache", "find", "tombstone"]);
      expect(info.dropped).toEqual(["key"]);
    } finally {
      await G.stop();
    }
  });
});
