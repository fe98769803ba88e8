import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { accountGid, publishAccountMove, publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire, findToWire, waypointsToWire, type CacheJson } from "../../src/lib/fed/bodies.ts";
import { decodePage, encodePage } from "../../src/lib/fed/page.ts";
import { decodeFrame, decodePayload, openFrame } from "../../src/lib/fed/record.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { mirroredCache } from "../../src/fed/mirror.ts";
import { count } from "../helpers/fed.ts";
import { check } from "../../src/lib/schema.ts";
import { BROWSE_PAGES, DESCRIPTOR, REGISTRY_VIEW } from "../../src/fed/shapes.ts";
import { BROWSE_FEEDS } from "../../src/fed/surface.ts";

const INGEST = "ingest-secret-for-fed-tests";
const kA = generateKeyPair();
const cache = (name: string): CacheJson => ({
  name,
  type: "multi",
  size: "regular",
  difficulty: 3.5,
  terrain: 1,
  lat: -33.8688197,
  lon: 151.2092955,
  status: "active",
  hint: "look up",
  description: "Harbour views.",
});

let A: Running; // signed publisher
let U: Running; // unsigned instance
let R: Running; // receiver with an ingest box
beforeAll(async () => {
  A = await startInProcess({
    INSTANCE: "gw1",
    FED_PRIVATE_KEY: kA.privateKey,
    FED_ENDPOINTS: "https:https://gw1.example.org;10,ampr:n0gw.ampr.org;5,bogus:endpoint,ax25:not a call",
    FED_OPERATOR: "N0OPS",
    FED_APRS_CALL: "N0GW-10",
    PUBLIC_URL: "https://gw1.example.org",
  });
  U = await startInProcess({ INSTANCE: "gw0" });
  R = await startInProcess({ INSTANCE: "gw2", FED_PRIVATE_KEY: generateKeyPair().privateKey, INGEST_SECRET: INGEST });
  for (let i = 1; i <= 5; i++) publishRecord(A.gw, "cache", i, cacheToWire({ ...cache(`Cache ${i}`), unlisted: i === 5 }));
  publishRecord(A.gw, "find", 1, findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: "N0FND", distanceM: 3.25 }));
  publishTombstone(A.gw, "gw1:cache:4");
  publishRecord(U.gw, "cache", 1, cacheToWire(cache("Unsigned")));
});
afterAll(async () => {
  await Promise.all([A.stop(), U.stop(), R.stop()]);
});

async function pull(r: Running, type: string, since = 0, limit?: number) {
  const res = await r.get(`/federation/sync/${type}?since=${since}${limit ? `&limit=${limit}` : ""}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("application/cbor");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  return decodePage(new Uint8Array(await res.arrayBuffer()));
}

describe("the instance descriptor", () => {
  test("GET /.well-known/svc: keys, endpoints re-validated, sync-cbor, and a signed peer record", async () => {
    const res = await A.get("/.well-known/svc");
    expect(res.status).toBe(200);
    const d = (await res.json()) as Record<string, any>;
    // as declared (a conditional GET answers a Response, which the answer check does not see)
    check(DESCRIPTOR, d, "descriptor");
    expect(d).toMatchObject({
      instance: "gw1",
      protocol: "svc-fed/1",
      signed: true,
      capabilities: ["sync-cbor", "trackables"],
      feeds: ["cache", "find", "key", "tombstone", "account-move", "bulletin", "trackable", "trackable-move"],
      url: "https://gw1.example.org",
      operator: "N0OPS",
      aprsCall: "N0GW-10",
      rotations: [],
    });
    expect(d.keys).toEqual([{ key: kA.publicKey, status: "active", since: expect.any(Number) }]);
    // The malformed entries were dropped; the rest sorted by priority.
    expect(d.endpoints).toEqual([
      { transport: "ampr", address: "n0gw.ampr.org", priority: 5 },
      { transport: "https", address: "https://gw1.example.org", priority: 10 },
    ]);
    const opened = await openFrame(Buffer.from(d.record, "base64url"));
    expect(opened.ok).toBe(true);
    if (opened.ok)
      expect({ ...opened.payload.body }).toEqual({
        instance: "gw1",
        endpoints: ["ampr:n0gw.ampr.org;5", "https:https://gw1.example.org;10"],
        caps: ["sync-cbor"],
      });
  });

  test("an unsigned instance advertises no sync-cbor and serves no sync pages", async () => {
    const d = (await (await U.get("/.well-known/svc")).json()) as Record<string, unknown>;
    check(DESCRIPTOR, d, "descriptor");
    expect(d).toMatchObject({ instance: "gw0", signed: false, capabilities: [], feeds: [], keys: [], record: null });
    const res = await U.get("/federation/sync/cache");
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: string }).error).toBe("unsigned");
    // Its JSON browse feed still works.
    const feed = (await (await U.get("/federation/caches")).json()) as { items: Array<{ name: string; signed: boolean }> };
    expect(feed.items.map((i) => [i.name, i.signed])).toEqual([["Unsigned", false]]);
  });
});

describe("the sync surface", () => {
  test("CBOR pages of signed frames, cursor-paged, one type per feed", async () => {
    const gids: string[] = [];
    let since = 0;
    let pages = 0;
    for (;;) {
      const page = await pull(A, "cache", since, 2);
      pages++;
      expect(page.type).toBe(1);
      expect(page.instance).toBe("gw1");
      for (const f of page.frames) {
        const o = await openFrame(f);
        expect(o.ok).toBe(true);
        if (o.ok) gids.push(o.payload.gid);
      }
      since = page.next;
      if (!page.more) break;
    }
    expect(gids).toEqual(["gw1:cache:1", "gw1:cache:2", "gw1:cache:3", "gw1:cache:5"]);
    expect(pages).toBe(2);
    const tombs = await pull(A, "tombstone");
    expect(tombs.frames.map((f) => decodePayload(decodeFrame(f).payload).gid)).toEqual(["gw1:cache:4"]);
    // The unlisted cache's frame carries no description.
    const unlisted = (await pull(A, "cache", 0)).frames.map((f) => decodePayload(decodeFrame(f).payload)).find((p) => p.gid === "gw1:cache:5")!;
    expect(unlisted.body.description).toBeUndefined();
    expect(unlisted.body.unlisted).toBe(true);
  });

  test("a page stops at 8 MiB of frames and says there is more", async () => {
    const big = (i: number) => cacheToWire({ ...cache(`Big ${i}`), description: "d".repeat(20_000) });
    const g = await startInProcess({ INSTANCE: "gwbig", FED_PRIVATE_KEY: generateKeyPair().privateKey });
    try {
      g.gw.db.transaction(() => {
        for (let i = 1; i <= 450; i++) publishRecord(g.gw, "cache", i, big(i));
      })();
      const first = await pull(g, "cache", 0, 10_000);
      const size = first.frames.reduce((n, f) => n + f.length, 0);
      expect(first.more).toBe(true);
      expect(size).toBeLessThanOrEqual(8 * 1024 * 1024);
      expect(first.frames.length).toBeGreaterThan(350);
      const second = await pull(g, "cache", first.next, 10_000);
      expect(second.more).toBe(false);
      expect(first.frames.length + second.frames.length).toBe(450);
      const gids = [...first.frames, ...second.frames].map((f) => decodePayload(decodeFrame(f).payload).gid);
      expect(new Set(gids).size).toBe(450);
    } finally {
      await g.stop();
    }
  });

  test("bad cursors and unknown feeds are 4xx in the error shape", async () => {
    for (const q of ["since=-1", "since=abc", "limit=0", "limit=10001", "limit=1.5"]) {
      const res = await A.get(`/federation/sync/cache?${q}`);
      expect({ q, status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({ q, status: 400, error: "invalid" });
    }
    expect((await A.get("/federation/sync/peer")).status).toBe(404);
    expect((await A.get("/federation/sync/widgets")).status).toBe(404);
  });

  test("JSON browse feeds, under both prefixes, in the domains' own units", async () => {
    for (const prefix of ["/federation", "/federation/feed"]) {
      const res = await A.get(`${prefix}/caches?limit=2`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { instance: string; items: Array<Record<string, unknown>>; next: number; more: boolean };
      expect(page.instance).toBe("gw1");
      expect(page.more).toBe(true);
      expect(page.items[0]).toMatchObject({
        gid: "gw1:cache:1",
        v: 1,
        signed: true,
        name: "Cache 1",
        lat: -33.8688197,
        lon: 151.2092955,
        difficulty: 3.5,
        terrain: 1,
      });
      expect(typeof page.items[0]!.at).toBe("number");
      const rest = (await (await A.get(`${prefix}/caches?since=${page.next}`)).json()) as { items: Array<{ gid: string }> };
      expect(rest.items.map((i) => i.gid)).toEqual(["gw1:cache:3", "gw1:cache:5"]);
    }
    const finds = (await (await A.get("/federation/finds")).json()) as { items: Array<Record<string, unknown>> };
    expect(finds.items[0]).toMatchObject({ gid: "gw1:find:1", call: "N0FND", distanceM: 3.25, loggedAt: 1_700_000_000_000 });
    const tombs = (await (await A.get("/federation/tombstones")).json()) as { items: Array<Record<string, unknown>> };
    expect(tombs.items).toEqual([{ gid: "gw1:cache:4", v: 2, at: expect.any(Number), signed: true }]);
    for (const feed of ["bulletins", "keys", "account-moves"]) {
      expect(((await (await A.get(`/federation/${feed}`)).json()) as { items: unknown[] }).items).toEqual([]);
    }
    expect((await A.get("/federation/caches?limit=5000")).status).toBe(400);
  });

  test("the registry view: this instance, then its non-blocked peers with their keys", async () => {
    const k = generateKeyPair();
    upsertPeer(A.gw, { instance: "gw7", trust: "unvetted", keyPin: k.publicKey });
    upsertPeer(A.gw, { instance: "gw8", trust: "blocked" });
    const reg = (await (await A.get("/federation/registry")).json()) as { items: Array<Record<string, unknown>> };
    check(REGISTRY_VIEW, reg, "registry view");
    expect(reg.items.map((i) => i.instance)).toEqual(["gw1", "gw7"]);
    expect(reg.items[0]).toMatchObject({
      self: true,
      keys: [kA.publicKey],
      operator: "N0OPS",
      aprsCall: "N0GW-10",
      endpoints: [{ transport: "ampr", address: "n0gw.ampr.org", priority: 5 }],
    });
    expect(reg.items[1]).toMatchObject({ self: false, trust: "unvetted", keys: [k.publicKey] });
    expect(((await (await A.get("/federation/feed/registry")).json()) as { items: unknown[] }).items.length).toBe(2);
  });
});

test("every JSON browse feed answers as it declares: each kind's items with the members its body has", async () => {
  const k = generateKeyPair();
  const P = await startInProcess({ INSTANCE: "gw9", FED_PRIVATE_KEY: k.privateKey });
  try {
    const event = { ...cache("An event"), type: "event", eventStartAt: 1_800_000_000_000, eventEndAt: 1_800_003_600_000, timeZone: "Europe/Oslo" };
    const waypoints = waypointsToWire([
      { kind: "parking", name: "Car park", lat: -33.87, lon: 151.21, note: "free on Sundays" },
      { kind: "stage", name: "Stage 2", lat: null, lon: null, note: null },
    ]);
    publishRecord(P.gw, "cache", 1, { ...cacheToWire({ ...event, needsMaintenance: true, attributes: [1, -6] }), waypoints });
    publishRecord(P.gw, "cache", 2, cacheToWire(cache("Plain")));
    publishRecord(P.gw, "find", 1, findToWire({ cache: "gw9:cache:1", kind: "needs-maintenance", loggedAt: 1_700_000_000_000, call: "N0FND", text: "wet" }));
    publishRecord(P.gw, "bulletin", 1, { from: "N0BUL", category: "ALL", area: "WW", subject: "Hello", text: "Hello all", bid: "B1", postedAt: 1_700_000_000 });
    publishRecord(P.gw, "key", 1, { call: "N0KEY", key: k.publicKey, account: accountGid(P.gw, "u1"), createdAt: 1_700_000_000, revokedAt: 1_700_000_100 });
    publishAccountMove(P.gw, "u1", "gw5:account:u2");
    publishTombstone(P.gw, "gw9:cache:2");
    const seen: Record<string, number> = {};
    for (const [feed, kind] of Object.entries(BROWSE_FEEDS)) {
      const page = (await (await P.get(`/federation/${feed}`)).json()) as { items: unknown[] };
      check(BROWSE_PAGES[kind], page, feed);
      seen[feed] = page.items.length;
    }
    expect(seen).toEqual({ caches: 1, finds: 1, bulletins: 1, keys: 1, tombstones: 1, "account-moves": 1 });
    const caches = (await (await P.get("/federation/caches")).json()) as { items: Array<Record<string, unknown>> };
    expect(caches.items[0]).toMatchObject({ needsMaintenance: true, timeZone: "Europe/Oslo", waypoints: [{ name: "Car park" }, { lat: null, note: null }] });
  } finally {
    await P.stop();
  }
});

describe("frame delivery: POST /federation/frames", () => {
  test("a page pulled from one instance and delivered to another is mirrored there", async () => {
    upsertPeer(R.gw, { instance: "gw1", trust: "trusted", keyPin: kA.publicKey });
    const headers = { "content-type": "application/cbor", "x-ingest-secret": INGEST };
    for (const type of ["tombstone", "cache", "find"]) {
      const page = await (await A.get(`/federation/sync/${type}`)).arrayBuffer();
      const res = await R.post("/federation/frames", new Uint8Array(page), { headers });
      expect(res.status).toBe(200);
      const report = (await res.json()) as Record<string, number>;
      expect(report.rejected).toBe(0);
    }
    expect(mirroredCache(R.gw, "gw1:cache:1")).toMatchObject({
      name: "Cache 1",
      lat: -33.8688197,
      lon: 151.2092955,
      hint: "look up",
      description: "Harbour views.",
    });
    expect(mirroredCache(R.gw, "gw1:cache:5")).toMatchObject({ unlisted: true, description: null });
    expect(mirroredCache(R.gw, "gw1:cache:4")).toBeNull();
    expect(count(R.gw, "tombstones", "gid = 'gw1:cache:4'")).toBe(1);
    expect(count(R.gw, "mirror_finds")).toBe(1);
    // Delivered again: all duplicates, nothing changes.
    const again = await R.post("/federation/frames", new Uint8Array(await (await A.get("/federation/sync/cache")).arrayBuffer()), { headers });
    expect(((await again.json()) as Record<string, number>).duplicate).toBe(4);
  });

  test("the gate, the content type and an unreadable page are refused, and nothing changes", async () => {
    const before = count(R.gw, "mirror_records");
    const page = encodePage({ frames: [], next: 0, more: false });
    expect((await R.post("/federation/frames", page, { headers: { "content-type": "application/cbor" } })).status).toBe(401);
    expect(
      (await R.post("/federation/frames", page, { headers: { "content-type": "application/cbor", "x-ingest-secret": "wrong-secret-123456" } })).status,
    ).toBe(401);
    const wrongType = await R.post("/federation/frames", page, { headers: { "content-type": "application/octet-stream", "x-ingest-secret": INGEST } });
    expect(wrongType.status).toBe(415);
    for (const bad of [new Uint8Array([0xa1, 0x01]), new Uint8Array([0x80]), new Uint8Array([0xa1, 0x01, 0x81, 0x01]), new Uint8Array([0xf9, 0x3c, 0x00])]) {
      const res = await R.post("/federation/frames", bad, { headers: { "content-type": "application/cbor", "x-ingest-secret": INGEST } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe("bad_page");
    }
    expect(count(R.gw, "mirror_records")).toBe(before);
  });
});
