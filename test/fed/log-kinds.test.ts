/**
 * Maintenance logs across real gateways (issue 29 item 6):
 *
 *   A, B  two gateways in this process, trusting each other: the owner on A
 *         disables their cache and a finder logs needs-maintenance; B, pulling
 *         A, shows the cache disabled and flagged, and both logs with their
 *         kinds; enabling on A clears both on B.
 *         A needs-maintenance logged on B's mirror raises the flag on A.
 *   O     an older gateway: this repository before these log kinds (git
 *         archive of the commit before them), run as a subprocess. Pulling A,
 *         it refuses nothing: each new kind arrives as a note with its text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Running } from "../helpers/gateway.ts";
import { trustedPair } from "../helpers/fed.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { pullCleanly, useOlderPeer } from "../helpers/older-peer.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { setTrust } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";

/** The last commit before the log kinds of issue 29: an "older peer" whose find records are find, dnf or note. */
const BEFORE_LOG_KINDS = "0eb9862";
const INGEST = "ingest-secret-0123456789";
const keys = { a: generateKeyPair(), b: generateKeyPair(), o: generateKeyPair() };
let A: Running;
let B: Running;
let owner: TestUser;
let finder: TestUser;
let cache: { id: number; gid: string };

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const log = async (u: TestUser, kind: string, text: string) => expect((await A.post(`/api/caches/${cache.id}/logs`, { kind, text }, as(u))).status).toBe(201);

beforeAll(async () => {
  [A, B] = await trustedPair(keys, { INGEST_SECRET: INGEST });
  owner = signedInUser(A.gw, "N0OWN", { verified: true });
  finder = signedInUser(A.gw, "N0FND", { verified: true });
  const r = await A.post("/api/caches", { name: "Bridge", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.2, lon: 11.6 }, as(owner));
  cache = await json(r);
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

describe("between two gateways of this version", () => {
  test("a temp-disable and a needs-maintenance reach B: the cache disabled and flagged, both logs with their kinds", async () => {
    await log(finder, "needs-maintenance", "the lid is cracked");
    await log(owner, "temp-disable", "fixing it this weekend");
    expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, error: null });
    const there = await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}`));
    expect(there).toMatchObject({ status: "disabled", needsMaintenance: true, mirror: true });
    const book = await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}/logs`));
    // logged within a second: the wire's times are seconds, so by kind
    expect(book.logs.map((l: any) => `${l.kind}: ${l.text}`).sort()).toEqual(["needs-maintenance: the lid is cracked", "temp-disable: fixing it this weekend"]);
    expect(there.finds).toBe(0);
  });

  test("enable on A: active and unflagged on B", async () => {
    await log(owner, "enable", "new lid");
    const r = await pullPeer(B.gw, "gw-a");
    expect(r).toMatchObject({ ok: true, error: null });
    expect(await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}`))).toMatchObject({ status: "active", needsMaintenance: false });
  });
});

describe("a need reported on another instance", () => {
  test("a needs-maintenance logged on B's mirror raises the flag on A, which publishes it back; not an older one the owner dealt with, nor an unvetted peer's", async () => {
    const visitor = signedInUser(B.gw, "N0VIS", { verified: true });
    const onB = (kind: string, text: string, foundAt?: number) =>
      B.post(`/api/caches/${encodeURIComponent(cache.gid)}/logs`, { kind, text, ...(foundAt ? { foundAt } : {}) }, as(visitor));
    // reported before the owner's latest maintenance (enable, above): A leaves its flag down
    expect((await onB("needs-maintenance", "was wobbly", Date.now() - 3_600_000)).status).toBe(201);
    expect(await pullPeer(A.gw, "gw-b")).toMatchObject({ ok: true, error: null });
    expect((await json(await A.get(`/api/caches/${cache.id}`))).needsMaintenance).toBe(false);
    expect((await onB("needs-maintenance", "the container is cracked again")).status).toBe(201);
    expect(await pullPeer(A.gw, "gw-b")).toMatchObject({ ok: true, error: null });
    expect((await json(await A.get(`/api/caches/${cache.id}`))).needsMaintenance).toBe(true);
    expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, error: null });
    expect((await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}`))).needsMaintenance).toBe(true);
    // an unvetted peer's report is kept, but raises nothing
    await log(owner, "owner-maintenance", "glued");
    setTrust(A.gw, "gw-b", "unvetted");
    try {
      expect((await onB("needs-archive", "gone for good?")).status).toBe(201);
      expect(await pullPeer(A.gw, "gw-b")).toMatchObject({ ok: true, error: null });
      expect((await json(await A.get(`/api/caches/${cache.id}`))).needsMaintenance).toBe(false);
    } finally {
      setTrust(A.gw, "gw-b", "trusted");
    }
  });
});

describe("an older peer", () => {
  const O = useOlderPeer(BEFORE_LOG_KINDS, () => ({ privateKey: keys.o.privateKey, peers: A.url, ingestSecret: INGEST }));

  test("pulling A refuses nothing: the new kinds arrive as notes with their texts, and the cache's status follows", async () => {
    await log(owner, "owner-maintenance", "all good");
    // (A's notify ping may have set off a pull of its own a moment before: what counts is what the older peer holds)
    await pullCleanly(O.url, INGEST, "gw-a");
    const book = await json(await fetch(`${O.url}/api/caches/${encodeURIComponent(cache.gid)}/logs`));
    expect(book.logs.map((l: any) => `${l.kind}: ${l.text}`).sort()).toEqual([
      "note: all good",
      "note: fixing it this weekend",
      "note: glued",
      "note: new lid",
      "note: the lid is cracked",
    ]);
    expect(await json(await fetch(`${O.url}/api/caches/${encodeURIComponent(cache.gid)}`))).toMatchObject({ status: "active", finds: 0 });
  });
});
