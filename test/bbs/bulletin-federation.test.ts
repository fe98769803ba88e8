/**
 * Bulletins posted on the BBS are this instance's federation records (type 4):
 * seen over HTTP on the browse feed, the signed sync feed and the RSS feed of
 * the gateway they were posted on, and mirrored by a second gateway that pulls it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { decodePage } from "../../src/lib/fed/page.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";

const INGEST = "ingest-secret-0123456789";
const kA = generateKeyPair();
let A: Running; // the BBS the bulletin is posted on
let B: Running; // a peer that mirrors A
let alice: TestUser;
let admin: TestUser;

beforeAll(async () => {
  A = await startInProcess({
    INSTANCE: "gw-bbs-a",
    FED_PRIVATE_KEY: kA.privateKey,
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPS",
    BBS_HA: "N0GW.#TST.USA.NOAM",
  });
  B = await startInProcess({ INSTANCE: "gw-bbs-b", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_LOOPBACK_PEERS: "on" });
  alice = signedInUser(A.gw, "N0ALI", { verified: true });
  admin = signedInUser(A.gw, "N0OPS", { verified: true });
  upsertPeer(B.gw, { instance: "gw-bbs-a", url: A.url, trust: "trusted", keyPin: kA.publicKey });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

const post = (g: Running, path: string, body: unknown, u: TestUser) => g.post(path, body, { headers: { cookie: u.cookie } });
const browse = async (g: Running) => ((await (await g.get("/federation/bulletins")).json()) as { items: Array<Record<string, unknown>> }).items;
const syncGids = async (g: Running) => {
  const r = await g.get("/federation/sync/bulletin");
  expect(r.status).toBe(200);
  return decodePage(new Uint8Array(await r.arrayBuffer())).frames.map((f) => decodePayload(decodeFrame(f).payload));
};
const rss = async (g: Running) => (await g.get("/feeds/bulletins.xml")).text();

describe("BBS bulletins federated", () => {
  test("a bulletin posted on the BBS is on /federation/bulletins, the bulletin sync feed and /feeds/bulletins.xml; a personal message is on none; a peer mirrors it", async () => {
    expect(await browse(A)).toEqual([]);
    const p = await post(A, "/api/bbs/messages", { to: "N0OPS", subject: "Private note", body: "for the sysop only" }, alice);
    expect(p.status).toBe(201);
    const r = await post(A, "/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Net tonight", body: "Cache hunt net on 145.500 at 19:00" }, alice);
    expect(r.status).toBe(201);
    const msg = (await r.json()) as { id: number; bid: string };

    const items = await browse(A);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      gid: `gw-bbs-a:bulletin:${msg.id}`,
      v: 1,
      signed: true,
      from: "N0ALI",
      category: "ALL",
      area: "WW",
      subject: "Net tonight",
      text: "Cache hunt net on 145.500 at 19:00",
      bid: msg.bid,
    });
    const frames = await syncGids(A);
    expect(frames.map((x) => x.gid)).toEqual([`gw-bbs-a:bulletin:${msg.id}`]);
    expect(frames[0]!.body).toMatchObject({ from: "N0ALI", subject: "Net tonight" });

    const feed = await rss(A);
    expect(feed).toContain("<title>ALL: Net tonight (N0ALI)</title>");
    expect(feed).toContain(`/bbs/msg/${msg.id}</link>`);
    expect(feed).not.toContain("Private note");

    // a second gateway pulls A and mirrors the bulletin; its RSS lists it too
    const pulled = await pullPeer(B.gw, "gw-bbs-a");
    expect(pulled.ok).toBe(true);
    expect(pulled.feeds.bulletin).toMatchObject({ applied: 1 });
    expect(await rss(B)).toContain("<title>ALL: Net tonight (N0ALI)</title>");
    expect(B.gw.db.query("SELECT subject FROM mirror_bulletins WHERE gid = ?").get(`gw-bbs-a:bulletin:${msg.id}`)).toEqual({ subject: "Net tonight" });
  });

  test("a killed bulletin is tombstoned: gone from the RSS feed, and purged by the peer on its next pull", async () => {
    const r = await post(A, "/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Wrong date", body: "oops" }, alice);
    const msg = (await r.json()) as { id: number };
    const gid = `gw-bbs-a:bulletin:${msg.id}`;
    expect((await pullPeer(B.gw, "gw-bbs-a")).ok).toBe(true);
    expect(B.gw.db.query("SELECT count(*) AS n FROM mirror_bulletins WHERE gid = ?").get(gid)).toEqual({ n: 1 });
    expect(await rss(A)).toContain("Wrong date");
    const k = await A.get(`/api/bbs/messages/${msg.id}`, { method: "DELETE", headers: { cookie: admin.cookie } });
    expect(k.status).toBeLessThan(300);
    expect(await rss(A)).not.toContain("Wrong date");
    expect((await (await A.get("/federation/tombstones")).json()).items.map((i: { gid: string }) => i.gid)).toContain(gid);
    expect((await pullPeer(B.gw, "gw-bbs-a")).ok).toBe(true);
    expect(B.gw.db.query("SELECT count(*) AS n FROM mirror_bulletins WHERE gid = ?").get(gid)).toEqual({ n: 0 });
    // the first bulletin is still mirrored (positive control)
    expect(B.gw.db.query("SELECT count(*) AS n FROM mirror_bulletins").get()).toEqual({ n: 1 });
  });
});
