/**
 * A cache's waypoints across two gateways (docs/protocol.md "1 cache",
 * `waypoints`): A's owner sets a parking, a stage and the final; after a
 * pull, B shows the mirrored cache with the parking and the stage (its JSON,
 * its waypoint list, /api/v1 and its GPX), never the final, which A's record
 * does not carry; a change on A reaches B with the next pull. A receiver
 * ignores keys of a waypoint it does not know and refuses a malformed list.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { feedFrame, trustedPair } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { checkBody } from "../../src/lib/fed/bodies.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";

const keys = { a: generateKeyPair(), b: generateKeyPair() };
let A: Running;
let B: Running;
let owner: TestUser;
let reader: TestUser;
let id = 0;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const json = (r: Response) => r.json() as Promise<any>;

beforeAll(async () => {
  [A, B] = await trustedPair(keys, { TILE_URL: "off" });
  owner = signedInUser(A.gw, "N0WPA", { verified: true });
  reader = signedInUser(B.gw, "N0WPB", { verified: true });
  const r = await A.post("/api/caches", { name: "River multi", type: "multi", size: "small", difficulty: 2, terrain: 3, lat: 47.5, lon: 9.5 }, as(owner));
  id = ((await json(r)) as { id: number }).id;
  const add = (body: Record<string, unknown>) => A.post(`/api/caches/${id}/waypoints`, body, as(owner));
  expect((await add({ kind: "parking", name: "Car park", lat: 47.49, lon: 9.49, note: "Free" })).status).toBe(201);
  expect((await add({ kind: "physical-stage", name: "Stage 1", lat: 47.501, lon: 9.501 })).status).toBe(201);
  expect((await add({ kind: "final", name: "Final", lat: 47.5123, lon: 9.5123, note: "Under the root" })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

async function pull() {
  const r = await pullPeer(B.gw, "gw-a");
  expect(r.error).toBeNull();
}

describe("waypoints across gateways", () => {
  test("B shows the mirrored cache's parking and stage, never the final; a change on A follows", async () => {
    const gid = `gw-a:cache:${id}`;
    // the final is not in A's signed record
    const body = decodePayload(decodeFrame(feedFrame(A.gw, gid)).payload).body as { waypoints: Array<{ kind: string }> };
    expect(body.waypoints.map((w) => w.kind)).toEqual(["parking", "physical-stage"]);
    expect(JSON.stringify(body)).not.toContain("Under the root");

    await pull();
    const page = await json(await B.get(`/api/caches/${encodeURIComponent(gid)}`, as(reader)));
    expect(page).toMatchObject({ mirror: true, name: "River multi" });
    expect(page.waypoints).toEqual([
      { id: null, kind: "parking", code: expect.stringMatching(/^PK/), name: "Car park", lat: 47.49, lon: 9.49, note: "Free" },
      { id: null, kind: "physical-stage", code: expect.stringMatching(/^S1/), name: "Stage 1", lat: 47.501, lon: 9.501, note: null },
    ]);
    expect((await json(await B.get(`/api/caches/${encodeURIComponent(gid)}/waypoints`))).waypoints).toEqual(page.waypoints);
    expect((await json(await B.get(`/api/v1/caches/${encodeURIComponent(gid)}`))).waypoints.map((w: { name: string }) => w.name)).toEqual([
      "Car park",
      "Stage 1",
    ]);
    const gpx = await (await B.get(`/api/caches/${encodeURIComponent(gid)}/gpx`)).text();
    expect(gpx).toContain("<type>Waypoint|Parking Area</type>");
    expect(gpx).toContain("<type>Waypoint|Stages of a Multicache</type>");
    expect(gpx).not.toContain("Final Location");
    // on A the owner still sees the final
    expect((await json(await A.get(`/api/caches/${id}`, as(owner)))).waypoints.map((w: { kind: string }) => w.kind)).toEqual([
      "parking",
      "physical-stage",
      "final",
    ]);

    // A's owner moves the parking and deletes the stage: B follows with the next pull
    const wps = (await json(await A.get(`/api/caches/${id}/waypoints`, as(owner)))).waypoints as Array<{ id: number; kind: string }>;
    const park = wps.find((w) => w.kind === "parking")!;
    const stage = wps.find((w) => w.kind === "physical-stage")!;
    expect(
      (
        await A.get(`/api/caches/${id}/waypoints/${park.id}`, {
          method: "PATCH",
          body: JSON.stringify({ lat: 47.48, lon: 9.48 }),
          headers: { "content-type": "application/json", cookie: owner.cookie },
        })
      ).status,
    ).toBe(200);
    expect((await A.get(`/api/caches/${id}/waypoints/${stage.id}`, { method: "DELETE", headers: { cookie: owner.cookie } })).status).toBe(200);
    await pull();
    expect((await json(await B.get(`/api/caches/${encodeURIComponent(gid)}`))).waypoints).toEqual([
      expect.objectContaining({ kind: "parking", lat: 47.48, lon: 9.48 }),
    ]);
    // a peer cannot change them
    expect((await B.post(`/api/caches/${encodeURIComponent(gid)}/waypoints`, { kind: "parking", name: "x" }, as(reader))).status).toBe(400);
  });

  test("a receiver ignores a waypoint's unknown keys and refuses a malformed list; a publisher writes only the layout's", () => {
    const cache = { name: "C", type: "multi", size: "small", difficultyX10: 20, terrainX10: 20, latE7: 475000000, lonE7: 95000000, status: "active" };
    const wp = { kind: "parking", name: "Car park", latE7: 474900000, lonE7: 94900000 };
    expect(checkBody("cache", { ...cache, waypoints: [{ ...wp, colour: "red" }] } as never, "receive")).toBeNull();
    expect(checkBody("cache", { ...cache, waypoints: [{ ...wp, colour: "red" }] } as never, "publish")).toBe("waypoints[0].colour is not a field here");
    expect(checkBody("cache", { ...cache, waypoints: [{ ...wp, kind: "Parking Area" }] } as never, "receive")).toBe(
      "waypoints[0].kind must be a lower-case token",
    );
    expect(checkBody("cache", { ...cache, waypoints: [{ kind: "parking" }] } as never, "receive")).toBe("waypoints[0].name is required");
    expect(checkBody("cache", { ...cache, waypoints: [{ ...wp, latE7: 900_000_001 }] } as never, "receive")).toContain("waypoints[0].latE7");
    expect(checkBody("cache", { ...cache, waypoints: ["parking"] } as never, "receive")).toBe("waypoints[0] must be a map with text keys");
    expect(checkBody("cache", { ...cache, waypoints: Array(31).fill(wp) } as never, "receive")).toBe("waypoints must be a list of at most 30");
  });
});
