import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { retryCorroborations } from "../../src/fed/corroborate.ts";

const INGEST = "ingest-secret-0123456789";
const SHARED = "shared-fed-secret-0123456789";
const ingest = { "x-ingest-secret": INGEST };
const json = async (r: Response) => (await r.json()) as any;

/** H's clock: the test moves it on to reach retries. */
let offset = 0;
const clock = { now: () => Date.now() + offset };

const CACHE = { lat: 48.12345, lon: 11.54321 };
let H: Running; // home: the find is logged here; its own IGate is N0HHH-10
let W1: Running; // trusted witness, reveals IGates
let W2: Running; // trusted witness, keeps IGates to itself, wants the shared secret
let U: Running; // unvetted witness
let D: Running; // trusted, heard nothing
let X: Running; // trusted, heard it only through H's own IGate
let spy: ReturnType<typeof Bun.serve>;
const spied: Array<{ body: any; secret: string | null }> = [];
let finder: TestUser;
let cacheId: number;

/** The next decision H makes (listen before logging: it may come before the log's answer is read). */
function nextDecision(): Promise<{ logId: number; state: string; confirmations: number; quorum: number }> {
  return new Promise((resolve) => {
    const off = H.gw.events.on("fedCorroborated", (e) => {
      off();
      resolve(e);
    });
  });
}

/** An RF position heard by `igate`, as the ingest box reports it. */
const heard = (g: Running, call: string, igate: string, ts: number, lat = CACHE.lat + 0.0004, lon = CACHE.lon) =>
  g.post("/ingest", { positions: [{ call, lat, lon, ts, source: "rf", igate }] }, { headers: ingest }).then((r) => expect(r.status).toBe(200));

beforeAll(async () => {
  const base = { INGEST_SECRET: INGEST };
  [W1, W2, U, D, X] = await Promise.all([
    startInProcess({ ...base, INSTANCE: "gw-w1", FED_REVEAL_IGATE: "true" }),
    startInProcess({ ...base, INSTANCE: "gw-w2", FED_SUBMIT_SECRET: SHARED }),
    startInProcess({ ...base, INSTANCE: "gw-u", FED_REVEAL_IGATE: "true" }),
    startInProcess({ ...base, INSTANCE: "gw-d" }),
    startInProcess({ ...base, INSTANCE: "gw-x" }),
  ]);
  spy = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      if (new URL(req.url).pathname !== "/federation/corroborate") return Response.json({ accepted: false }, { status: 202 });
      const body = await req.json();
      spied.push({ body, secret: req.headers.get("x-fed-secret") });
      return Response.json({ v: 1, id: (body as any).id, instance: "gw-spy", heard: false, distanceBucketM: null, timeBucket: null });
    },
  });
  H = await startInProcess(
    {
      ...base,
      INSTANCE: "gw-h",
      FED_PRIVATE_KEY: generateKeyPair().privateKey,
      FED_APRS_CALL: "N0HHH-10",
      FED_REVEAL_IGATE: "true",
      FED_CORROBORATION_QUORUM: "2",
      FED_AUTO_PROMOTE: "1",
      FED_SUBMIT_SECRET: SHARED,
      FED_LOOPBACK_PEERS: "on",
    },
    { clock },
  );
  const key = () => generateKeyPair().publicKey;
  for (const [g, trust] of [
    [W1, "trusted"],
    [W2, "trusted"],
    [U, "unvetted"],
    [D, "trusted"],
    [X, "trusted"],
  ] as const) {
    upsertPeer(H.gw, { instance: g.gw.config.instance, url: g.url, trust, keyPin: key() });
  }
  upsertPeer(H.gw, { instance: "gw-spy", url: `http://127.0.0.1:${spy.port}`, trust: "unvetted", keyPin: key() });
  finder = signedInUser(H.gw, "N0FND", { verified: true });
  const c = await H.post(
    "/api/caches",
    { name: "Corroborated", type: "traditional", size: "small", difficulty: 2, terrain: 2, ...CACHE, ownerCall: "N0OWN" },
    { headers: ingest },
  );
  cacheId = (await json(c)).id;
});
afterAll(async () => {
  await Promise.all([H, W1, W2, U, D, X].map((g) => g.stop()));
  spy.stop(true);
});

const logFind = async (who: TestUser, foundAt: number) => {
  const r = await H.post(`/api/caches/${cacheId}/logs`, { kind: "find", foundAt }, { headers: { cookie: who.cookie } });
  expect(r.status).toBe(201);
  return (await json(r)) as { id: number; tier: string };
};

describe("cross-instance corroboration", () => {
  test("a quorum of trusted instances that heard the finder through their own IGates promotes the find to Tier A; reputations follow", async () => {
    const t = Date.now() - 30 * 60_000;
    await heard(W1, "N0FND-7", "N0WA-10", t + 5 * 60_000);
    await heard(W2, "N0FND-7", "N0WB-10", t - 20 * 60_000);
    await heard(U, "N0FND", "N0UU-10", t);
    await heard(X, "N0FND-7", "N0HHH-10", t); // through H's own IGate: not independent
    // The decision event may fire before the log's answer is read: listen for the next one first.
    const next = nextDecision();
    const log = await logFind(finder, t);
    expect(log.tier).toBe("b");
    const { logId, ...outcome } = await next;
    expect(logId).toBe(log.id);
    expect(outcome).toEqual({ state: "confirmed", confirmations: 2, quorum: 2 });
    const after = await json(await H.get(`/api/caches/${cacheId}/logs`));
    const mine = after.logs.find((l: any) => l.id === log.id);
    expect(mine.tier).toBe("a");
    expect(mine.corroboration).toMatchObject({ source: "peers", igate: "N0WA-10" });
    // reputations: agreeing answers +confirmed, denials +failed; the unvetted one that agreed is promoted (FED_AUTO_PROMOTE=1)
    const rep = (i: string) => {
      const p = getPeer(H.gw, i)!;
      return [p.repConfirmed, p.repFailed, p.trust];
    };
    expect(rep("gw-w1")).toEqual([1, 0, "trusted"]);
    expect(rep("gw-w2")).toEqual([1, 0, "trusted"]);
    expect(rep("gw-u")).toEqual([1, 0, "trusted"]);
    expect(getPeer(H.gw, "gw-u")!.trustSetBy).toBe("auto");
    expect(rep("gw-d")).toEqual([0, 1, "trusted"]);
    expect(rep("gw-x")).toEqual([0, 1, "trusted"]);
    expect(rep("gw-spy")).toEqual([0, 1, "unvetted"]);
    // the exact IGate only where both sides reveal
    const answers = H.gw.db
      .query(
        "SELECT p.instance, a.heard, a.distance_bucket_m AS d, a.igate FROM corroboration_answers a JOIN peers p ON p.id = a.peer_id WHERE a.log_id = ? ORDER BY p.instance",
      )
      .all(log.id);
    expect(answers).toEqual([
      { instance: "gw-d", heard: 0, d: null, igate: null },
      { instance: "gw-spy", heard: 0, d: null, igate: null },
      { instance: "gw-u", heard: 1, d: 50, igate: "N0UU-10" },
      { instance: "gw-w1", heard: 1, d: 50, igate: "N0WA-10" },
      { instance: "gw-w2", heard: 1, d: 50, igate: null },
      { instance: "gw-x", heard: 0, d: null, igate: null },
    ]);
  });

  test("the question names a grid cell, a time bucket and the call: never the cache or its exact position; no secret to an unvetted peer", () => {
    const q = spied.at(-1)!;
    expect(q.secret).toBeNull();
    expect(Object.keys(q.body).sort()).toEqual([
      "bucketS",
      "call",
      "exclude",
      "from",
      "gridDeg",
      "id",
      "lat",
      "lon",
      "revealIgate",
      "timeBucket",
      "v",
      "windowS",
    ]);
    expect(q.body).toMatchObject({ v: 1, from: "gw-h", call: "N0FND", gridDeg: 0.001, bucketS: 900, exclude: ["N0HHH"], revealIgate: true });
    expect(q.body.lat).not.toBe(CACHE.lat);
    expect(Math.abs(q.body.lat - CACHE.lat)).toBeLessThanOrEqual(0.0005);
    expect(Math.abs(q.body.lon - CACHE.lon)).toBeLessThanOrEqual(0.0005);
    expect(Math.round((q.body.lat - 0.0005) * 1e7) % 10_000).toBe(0);
    expect(q.body.timeBucket % 900).toBe(0);
    expect(JSON.stringify(q.body)).not.toContain("Corroborated");
  });

  test("without a quorum the find stays where it is and is asked again later; a later sighting then promotes it", async () => {
    const other = signedInUser(H.gw, "N0TWO", { verified: true });
    const t = Date.now() - 20 * 60_000;
    await heard(W1, "N0TWO", "N0WA-10", t);
    const next = nextDecision();
    const log = await logFind(other, t);
    expect(await next).toMatchObject({ logId: log.id, state: "pending", confirmations: 1 });
    expect(H.gw.db.query("SELECT state, attempts FROM corroborations WHERE log_id = ?").get(log.id)).toEqual({ state: "pending", attempts: 1 });
    expect(await retryCorroborations(H.gw)).toEqual([]); // not due yet
    await heard(D, "N0TWO-9", "N0DD-10", t + 60_000);
    offset += 16 * 60_000;
    const [again] = await retryCorroborations(H.gw);
    expect(again).toMatchObject({ logId: log.id, state: "confirmed", confirmations: 2 });
    expect([getPeer(H.gw, "gw-d")!.repConfirmed, getPeer(H.gw, "gw-d")!.repFailed]).toEqual([1, 1]);
    expect(H.gw.db.query("SELECT tier, corr_source FROM logs WHERE id = ?").get(log.id) as any).toEqual({ tier: "a", corr_source: "peers" });
  });

  /** A corroboration question from gw-z about N0FND near 48.1235, 11.5435 (docs/protocol.md). */
  const question = (id: string, revealIgate: boolean) => ({
    v: 1,
    from: "gw-z",
    id,
    call: "N0FND",
    lat: 48.1235,
    lon: 11.5435,
    gridDeg: 0.001,
    timeBucket: 1_700_000_100,
    bucketS: 900,
    windowS: 7200,
    exclude: [],
    revealIgate,
  });

  test("answering: the shared secret when one is set; bad questions are 400; a finer grid or wider window than the protocol's is refused", async () => {
    const q = question("abc", true);
    expect((await W2.post("/federation/corroborate", q)).status).toBe(401);
    expect((await W2.post("/federation/corroborate", q, { headers: { "x-fed-secret": SHARED } })).status).toBe(200);
    const a = await json(await W1.post("/federation/corroborate", q));
    expect(a).toEqual({ v: 1, id: "abc", instance: "gw-w1", heard: false, distanceBucketM: null, timeBucket: null });
    for (const bad of [
      {},
      { ...q, v: 2 },
      { ...q, call: "no call" },
      { ...q, lat: 91 },
      { ...q, gridDeg: 0.00001 },
      { ...q, windowS: 86_400 },
      { ...q, exclude: "N0X" },
      { ...q, revealIgate: "yes" },
    ]) {
      expect((await W1.post("/federation/corroborate", bad)).status).toBe(400);
    }
    // A member the question does not have is named (a new one comes with a new v); without it, the same question is answered.
    const stray = await W1.post("/federation/corroborate", { ...q, cacheId: 7 });
    expect({ status: stray.status, body: await json(stray) }).toMatchObject({
      status: 400,
      body: {
        error: "invalid",
        field: "body.cacheId",
        message: expect.stringMatching(/^body\.cacheId: unknown field "cacheId"; it takes v, from, id, call, /),
      },
    });
    expect((await W1.post("/federation/corroborate", q)).status).toBe(200);
  });

  test("answering is rate-limited per IP", async () => {
    const q = question("rl", false);
    const codes = await Promise.all(Array.from({ length: 70 }, () => D.post("/federation/corroborate", q).then((r) => r.status)));
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0);
    expect(codes.filter((c) => c === 200).length).toBeLessThanOrEqual(60);
  });
});
