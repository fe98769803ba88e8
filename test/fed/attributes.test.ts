/**
 * Cache attributes across gateways (issue 29 item 4): the optional
 * `attributes` field of a cache record (signed ids, +id yes, -id no).
 *
 *   A, B  two gateways in this process trusting each other: attributes set
 *         on A reach B's mirror, its cache page, its attr= filter and its GPX;
 *         an edit on A replaces them on B. A record whose attributes break
 *         the layout (0, too many, not integers) is refused as bad_body.
 *   O     an older gateway: this repository before attributes (git archive),
 *         run as a subprocess; it pulls A's cache with attributes and applies
 *         it, ignoring the field it does not know.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { hideCache } from "../helpers/caches.ts";
import { signed, trustedPair } from "../helpers/fed.ts";
import { pullCleanly, useOlderPeer } from "../helpers/older-peer.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";

/** The last commit before cache attributes: an older peer whose cache layout has no `attributes`. */
const BEFORE_ATTRIBUTES = "0eb9862";
const INGEST = "ingest-secret-0123456789";
const keys = { a: generateKeyPair(), b: generateKeyPair(), o: generateKeyPair() };
let A: Running;
let B: Running;
let owner: TestUser;
let cache: { id: number; gid: string };
const json = (r: Response) => r.json() as Promise<any>;

beforeAll(async () => {
  [A, B] = await trustedPair(keys, { INGEST_SECRET: INGEST });
  owner = signedInUser(A.gw, "N0OWN", { verified: true });
  cache = await hideCache(A, owner, {
    name: "Dog walk",
    lat: 48.5,
    lon: 11.5,
    attributes: [
      { id: 32, inc: false },
      { id: 1, inc: true },
    ],
  });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

describe("two gateways", () => {
  test("attributes set on A reach B's mirror: its page, its attr= filter, its GPX; an edit on A replaces them", async () => {
    expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, error: null });
    const onB = await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}`));
    expect(onB).toMatchObject({ mirror: true, origin: "gw-a" });
    expect(onB.attributes).toEqual([
      { id: 1, inc: true },
      { id: 32, inc: false },
    ]);
    const box = "11,48,12,49";
    const names = async (q: string) => (await json(await B.get(`/api/caches?bbox=${box}${q}`))).caches.map((c: any) => c.name);
    expect(await names("&attr=1,-32")).toEqual(["Dog walk"]);
    expect(await names("&attr=32")).toEqual([]);
    const gpx = await (await B.get(`/api/caches/${encodeURIComponent(cache.gid)}/gpx`)).text();
    expect(gpx).toContain('<groundspeak:attribute id="1" inc="1">Dogs</groundspeak:attribute>');
    expect(gpx).toContain('<groundspeak:attribute id="32" inc="0">Bicycles</groundspeak:attribute>');

    const edit = await A.get(`/api/caches/${cache.id}`, {
      method: "PATCH",
      body: JSON.stringify({ attributes: [{ id: 8, inc: true }] }),
      headers: { cookie: owner.cookie, "content-type": "application/json" },
    });
    expect(edit.status).toBe(200);
    expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true });
    expect((await json(await B.get(`/api/caches/${encodeURIComponent(cache.gid)}`))).attributes).toEqual([{ id: 8, inc: true }]);
    expect(await names("&attr=1")).toEqual([]);
    expect(await names("&attr=8")).toEqual(["Dog walk"]);
  });

  test("attributes that break the layout are refused as bad_body; an id this gateway does not know is kept", async () => {
    const body = (attributes: unknown) => ({
      ...cacheToWire({ name: "Forged", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.6, lon: 11.6, status: "active" }),
      attributes,
    });
    const frame = (n: number, attributes: unknown) =>
      signed(keys.a.privateKey, { type: 1, v: 1, gid: `gw-a:cache:${9000 + n}`, origin: "gw-a", body: body(attributes) });
    const r = await applyFrames(
      B.gw,
      [
        frame(1, [0]),
        frame(
          2,
          Array.from({ length: 81 }, (_, i) => i + 1),
        ),
        frame(3, ["1"]),
        frame(4, [1001]),
        frame(5, [1, -500]),
      ],
      { via: "test" },
    );
    expect(r.failures.map((f) => f.code)).toEqual(["bad_body", "bad_body", "bad_body", "bad_body"]);
    expect(r.applied).toBe(1);
    // a later table's id (500) stays in the mirror; the page lists it by id
    expect((await json(await B.get(`/api/caches/${encodeURIComponent("gw-a:cache:9005")}`))).attributes).toEqual([
      { id: 1, inc: true },
      { id: 500, inc: false },
    ]);
  });
});

describe("an older peer", () => {
  const O = useOlderPeer(BEFORE_ATTRIBUTES, () => ({ privateKey: keys.o.privateKey, peers: A.url, ingestSecret: INGEST }));

  test("it applies A's cache record with attributes, ignoring the field, and refuses nothing", async () => {
    // (A's notify ping may have set off a pull of its own a moment before: what counts is what the older peer holds)
    await pullCleanly(O.url, INGEST, "gw-a");
    const there = await json(await fetch(`${O.url}/api/caches/${encodeURIComponent(cache.gid)}`));
    expect(there).toMatchObject({ name: "Dog walk", mirror: true });
    expect(there.attributes).toBeUndefined();
  });
});
