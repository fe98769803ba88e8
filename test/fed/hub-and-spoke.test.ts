import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { count, feedFrame, signed } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { pushToHub } from "../../src/fed/hub-and-spoke.ts";
import { relayToken } from "../../src/fed/relay.ts";
import { bootstrapConfiguredPeers, PULL_ORDER, syncAll } from "../../src/fed/sync.ts";
import { decodePage, encodePage } from "../../src/lib/fed/page.ts";
import { applyPage } from "../../src/fed/apply.ts";
import { decodeCbor, encodeCbor } from "../../src/lib/fed/cbor.ts";
import { pruneAll } from "../../src/jobs/prune.ts";

const INGEST = "ingest-secret-0123456789";
const SEC = "network-submit-secret-0123";
const RELAY = "network-relay-secret-01234";
const ingest = { "x-ingest-secret": INGEST };
const cbor = { "content-type": "application/cbor" };
const json = async (r: Response) => (await r.json()) as any;
const cache = (name: string) => cacheToWire({ name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 46.5, lon: 7.5, status: "active" });

const kH = generateKeyPair();
const kS = generateKeyPair();
let H: Running; // the hub
let S: Running; // a packet-only spoke with an intermittent HTTP path to its hub
let Q: Running; // another instance that wants S's records, through the hub's relay

beforeAll(async () => {
  H = await startInProcess({
    INSTANCE: "gw-hub",
    FED_PRIVATE_KEY: kH.privateKey,
    FED_SUBMIT_SECRET: SEC,
    FED_RELAY_SECRET: RELAY,
    INGEST_SECRET: INGEST,
    FED_LOOPBACK_PEERS: "on",
  });
  const common = { FED_HUB_URL: H.url, FED_SUBMIT_SECRET: SEC, FED_RELAY_SECRET: RELAY, FED_LOOPBACK_PEERS: "on", INGEST_SECRET: INGEST };
  S = await startInProcess({
    ...common,
    INSTANCE: "gw-spoke",
    FED_PRIVATE_KEY: kS.privateKey,
    FED_RELAY_TOKEN: relayToken(RELAY, "gw-spoke"),
    FED_ENDPOINTS: "ax25:N0SPK-5",
  });
  Q = await startInProcess({ ...common, INSTANCE: "gw-q", FED_PRIVATE_KEY: generateKeyPair().privateKey });
  // Each pushed its peer record after start (the push after a write); settle that before counting.
  await Promise.all([pushToHub(S.gw), pushToHub(Q.gw)]);
});
afterAll(async () => {
  await Promise.all([H.stop(), S.stop(), Q.stop()]);
});

const submitTo = (g: Running, body: Uint8Array | string, headers: Record<string, string>) =>
  fetch(g.url + "/federation/submit", { method: "POST", headers, body: body as BodyInit });

describe("submit", () => {
  test("the fed secret and CBOR only: 401 without the secret, 415 for any other content type", async () => {
    const page = encodePage({ frames: [], next: 0, more: false });
    expect((await submitTo(H, page, cbor)).status).toBe(401);
    expect((await submitTo(H, page, { ...cbor, "x-fed-secret": "wrong-secret-0123456789" })).status).toBe(401);
    expect((await submitTo(H, "{}", { "content-type": "application/json", "x-fed-secret": SEC })).status).toBe(415);
    expect((await submitTo(H, page, { "content-type": "application/octet-stream", "x-fed-secret": SEC })).status).toBe(415);
    expect((await submitTo(H, page, { ...cbor, "x-fed-secret": SEC })).status).toBe(400); // no frames
  });

  test("the gate and the content type are checked before the body is read: 401 and 415 for bodies that do not parse", async () => {
    const cbor = { "content-type": "application/cbor" };
    const notJson = new Uint8Array([0xa1, 0x01, 0xff, 0x7b]);
    const noSecret = await submitTo(H, notJson, { "content-type": "application/json" });
    expect(noSecret.status).toBe(401);
    expect(((await noSecret.json()) as { error: string }).error).toBe("unauthorized");
    const asJson = await submitTo(H, notJson, { "content-type": "application/json", "x-fed-secret": SEC });
    expect(asJson.status).toBe(415);
    expect(((await asJson.json()) as { error: string }).error).toBe("unsupported_media_type");
    // Positive control: the same bytes with the secret, as CBOR, are read and refused as a bad page.
    expect((await submitTo(H, notJson, { ...cbor, "x-fed-secret": SEC })).status).toBe(400);
  });

  test("a spoke pushes its own records on the cron: the hub admits it as unvetted, pinned to its one key, and mirrors them; cursors move on", async () => {
    for (let i = 1; i <= 3; i++)
      publishRecord(
        S.gw,
        "cache",
        i,
        cacheToWire({ name: `Spoke ${i}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 46.5, lon: 7.5, status: "active" }),
      );
    publishTombstone(S.gw, "gw-spoke:cache:3");
    const r = await S.gw.scheduler.runNow("hub-push");
    // 2 caches and the tombstone (the spoke's peer record went at start-up)
    expect(r).toMatchObject({ ok: true, error: null, pushed: 3 });
    expect(getPeer(H.gw, "gw-spoke")).toMatchObject({ trust: "unvetted", foundVia: "submit", keyPin: kS.publicKey });
    expect(count(H.gw, "mirror_caches", "origin = 'gw-spoke'")).toBe(2);
    expect(count(H.gw, "tombstones", "gid = 'gw-spoke:cache:3'")).toBe(1);
    expect(getPeer(H.gw, "gw-spoke")!.endpoints).toEqual([{ transport: "ax25", address: "N0SPK-5", priority: 0 }]);
    expect(await pushToHub(S.gw)).toMatchObject({ ok: true, pushed: 0 });
    publishRecord(S.gw, "cache", 4, cache("Spoke 4"));
    expect(await pushToHub(S.gw)).toMatchObject({ ok: true, pushed: 1, applied: 1 });
  });

  test("exactly one key, and the submitter is its own signer; otherwise the whole submission is rejected", async () => {
    const other = generateKeyPair();
    const mine = feedFrame(S.gw, "gw-spoke:cache:1");
    const before = count(H.gw, "mirror_records");
    const post = (frames: Uint8Array[]) => submitTo(H, encodePage({ frames, next: 0, more: false }), { ...cbor, "x-fed-secret": SEC });
    const twoKeys = await post([mine, signed(other.privateKey, { type: 1, gid: "gw-spoke:cache:9", origin: "gw-spoke", v: 1, body: cache("x") as never })]);
    expect(twoKeys.status).toBe(400);
    expect((await json(twoKeys)).error).toBe("multiple_keys");
    // another instance's name under the spoke's key: not the submitter's own records
    const relayed = await post([signed(kS.privateKey, { type: 1, gid: "gw-other:cache:1", origin: "gw-other", v: 1, body: cache("not mine") as never })]);
    expect(relayed.status).toBe(400);
    expect((await json(relayed)).error).toBe("not_own_signer");
    expect(getPeer(H.gw, "gw-other")).toBeNull();
    const byCall = await post([
      signed(kS.privateKey, {
        type: 1,
        gid: "gw-spoke:cache:8",
        origin: "gw-spoke",
        signer: "N0OWN",
        v: 1,
        body: { ...cache("c"), ownerCall: "N0OWN" } as never,
      }),
    ]);
    expect((await json(byCall)).error).toBe("not_own_signer");
    // a known submitter with a new key and no signed rotation
    const newKey = await post([signed(other.privateKey, { type: 1, gid: "gw-spoke:cache:7", origin: "gw-spoke", v: 1, body: cache("new key") as never })]);
    expect(newKey.status).toBe(409);
    expect((await json(newKey)).error).toBe("key_changed");
    expect(count(H.gw, "mirror_records")).toBe(before);
  });
});

describe("relay", () => {
  test("HTTP leg: a peer's queries wait at the hub, the spoke leases and answers them with its token, the peer applies the pages", async () => {
    upsertPeer(Q.gw, { instance: "gw-spoke", endpoints: ["ax25:N0SPK-5"], trust: "trusted", keyPin: kS.publicKey });
    await bootstrapConfiguredPeers(S.gw); // the spoke knows its hub's key (it verifies the hub's queries by it)
    expect(getPeer(S.gw, "gw-hub")).toMatchObject({ trust: "trusted", keyPin: kH.publicKey });
    const first = await syncAll(Q.gw);
    const viaRelay = first.peers.find((p) => p.instance === "gw-spoke")!;
    expect(viaRelay).toMatchObject({ ok: true, applied: 0, url: `${H.url} (relay)` });
    // one query per feed both ends serve (docs/protocol.md "Pull sync")
    expect(count(H.gw, "relay_queue", "instance = 'gw-spoke' AND state = 'queued'")).toBe(PULL_ORDER.length);
    const leg = await S.gw.scheduler.runNow("relay-spoke");
    expect(leg).toMatchObject({ ok: true, leased: PULL_ORDER.length, answered: PULL_ORDER.length, refused: 0 });
    const second = await syncAll(Q.gw);
    expect(second.peers.find((p) => p.instance === "gw-spoke")).toMatchObject({ ok: true, applied: 4 }); // 3 caches + the tombstone
    expect(count(Q.gw, "mirror_caches", "origin = 'gw-spoke'")).toBe(3);
    expect(count(Q.gw, "tombstones", "gid = 'gw-spoke:cache:3'")).toBe(1);
  });

  test("the per-spoke token guards the HTTP lease and answer legs", async () => {
    const relay = { "x-relay-secret": RELAY };
    expect((await H.post("/federation/relay/gw-spoke/lease", {}, { headers: relay })).status).toBe(401);
    expect((await H.post("/federation/relay/gw-spoke/lease", {}, { headers: { ...relay, "x-relay-token": relayToken(RELAY, "gw-other") } })).status).toBe(401);
    expect((await H.post("/federation/relay/gw-spoke/answer", { answers: [] }, { headers: relay })).status).toBe(401);
    expect((await H.post("/federation/relay/gw-spoke/lease", {}, { headers: { ...relay, "x-relay-token": relayToken(RELAY, "gw-spoke") } })).status).toBe(200);
    expect((await H.post("/federation/relay/gw-spoke/query", { type: "caches" }, { headers: relay })).status).toBe(400);
  });

  test("packet leg: dispatch packs queries into signed frames, the spoke answers only its own, the answers come back without a token", async () => {
    const relay = { "x-relay-secret": RELAY };
    expect((await H.post("/federation/relay/gw-other/query", { type: "cache" }, { headers: relay })).status).toBe(404); // not a spoke of this hub
    upsertPeer(H.gw, { instance: "gw-other", trust: "unvetted", keyPin: generateKeyPair().publicKey });
    const q = await json(await H.post("/federation/relay/gw-spoke/query", { type: "cache", since: 0, limit: 10 }, { headers: relay }));
    const q2 = await json(await H.post("/federation/relay/gw-other/query", { type: "cache" }, { headers: relay }));
    const d = await json(await H.post("/federation/relay/gw-spoke/dispatch", {}, { headers: ingest }));
    expect(d.ids).toEqual([q.id]);
    const other = await json(await H.post("/federation/relay/gw-other/dispatch", {}, { headers: ingest }));
    // over the air to the spoke: its operator hands the frames to its gateway
    const frames = [...d.frames, ...other.frames].map((f: string) => new Uint8Array(Buffer.from(f, "base64url")));
    const carried = await S.post("/federation/relay/gw-spoke/query", encodeCbor(frames), { headers: { ...cbor, ...relay } });
    expect(carried.status).toBe(200);
    expect(carried.headers.get("x-relay-refused")).toBe("1"); // the one addressed to gw-other
    const answers = decodeCbor(new Uint8Array(await carried.arrayBuffer())) as Uint8Array[];
    expect(answers.length).toBe(1);
    // and back to the hub, posted by the hub's own box: no token on this leg
    const back = await json(await H.post("/federation/relay/gw-spoke/answer", encodeCbor(answers), { headers: { ...cbor, ...relay } }));
    expect(back.answers).toEqual([{ id: q.id, stored: true, reason: null }]);
    // the same answer posted for another spoke's query, or signed by another key, is not stored
    expect((await json(await H.post("/federation/relay/gw-other/answer", encodeCbor(answers), { headers: { ...cbor, ...relay } }))).answers[0].stored).toBe(
      false,
    );
    const result = await json(await H.get(`/federation/relay/gw-spoke/result/${q.id}`, { headers: relay }));
    expect(result).toMatchObject({ id: q.id, state: "answered", query: { type: "cache", since: 0, limit: 10 } });
    const page = new Uint8Array(Buffer.from(result.pageB64, "base64"));
    expect(decodePage(page).frames.length).toBe(3);
    const rep = await applyPage(Q.gw, page, { via: "relay", servedBy: "gw-spoke" });
    expect(rep).toMatchObject({ received: 3, duplicate: 3, rejected: 0 });
    expect((await json(await H.get(`/federation/relay/gw-other/result/${q2.id}`, { headers: relay }))).state).toBe("leased");
  });

  test("the JSON legs name a member they do not take (a union with CBOR, checked as JSON first), and take the same body without it", async () => {
    const relay = { "x-relay-secret": RELAY };
    const token = { ...relay, "x-relay-token": relayToken(RELAY, "gw-spoke") };
    const named = async (r: Response, field: string) =>
      expect({ status: r.status, body: await json(r) }).toMatchObject({
        status: 400,
        body: { error: "invalid", field, message: expect.stringContaining(`unknown field "colour"; it takes `) },
      });
    const queued = count(H.gw, "relay_queue");
    await named(await H.post("/federation/relay/gw-spoke/query", { type: "cache", colour: "red" }, { headers: relay }), "body.colour");
    expect(count(H.gw, "relay_queue")).toBe(queued);
    expect((await H.post("/federation/relay/gw-spoke/query", { type: "cache" }, { headers: relay })).status).toBe(202);
    expect(count(H.gw, "relay_queue")).toBe(queued + 1);
    await named(await H.post("/federation/relay/gw-spoke/answer", { answers: [], colour: "red" }, { headers: token }), "body.colour");
    await named(await H.post("/federation/relay/gw-spoke/answer", { answers: [{ frame: "AA", colour: "red" }] }, { headers: token }), "body.answers.0.colour");
    expect(await json(await H.post("/federation/relay/gw-spoke/answer", { answers: [] }, { headers: token }))).toEqual({ instance: "gw-spoke", answers: [] });
  });

  test("stale relay entries are pruned", async () => {
    expect(count(H.gw, "relay_queue")).toBeGreaterThan(0);
    await pruneAll(H.gw.db, H.gw.config, Date.now() + 49 * 3_600_000);
    expect(count(H.gw, "relay_queue")).toBe(0);
  });
});

test("svc-gateway relay token SPOKE prints the token the hub checks", async () => {
  const { runCli } = await import("../helpers/gateway.ts");
  const { tmpDir } = await import("../helpers/tmp.ts");
  const r = await runCli(["relay", "token", "gw-spoke", "--data", tmpDir()], { env: { FED_RELAY_SECRET: RELAY } });
  expect(r).toMatchObject({ code: 0, stdout: `FED_RELAY_TOKEN=${relayToken(RELAY, "gw-spoke")}\n` });
  expect((await runCli(["relay", "token", "gw-spoke", "--data", tmpDir()], {})).code).toBe(1);
  expect((await runCli(["relay", "nonsense"], {})).code).toBe(2);
});
