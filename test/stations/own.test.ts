/**
 * Own stations and living caches: who may own a station, what the account
 * sees, and the living caches the game reads (positions from real beacons
 * through /ingest).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { listLivingCaches, livingCache } from "../../src/stations/living-caches.ts";
import type { GatewayEvents } from "../../src/core/events.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
const events: GatewayEvents["livingCache"][] = [];
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST });
  g.gw.events.on("livingCache", (e) => events.push(e));
});
afterAll(() => g.stop());

const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const heard = (line: string) => fetch(`${g.url}/ingest`, { method: "POST", headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" }, body: line });
const count = () => (g.gw.db.query("SELECT count(*) AS n FROM my_stations").get() as { n: number }).n;

describe("own stations", () => {
  test("add, list, change, remove; the base call decides ownership", async () => {
    const u = signedInUser(g.gw, "N0OWN-9");
    const r = await g.post("/api/my/stations", { call: "n0own-7", label: "car" }, as(u));
    expect(r.status).toBe(201);
    const { station } = await r.json();
    expect(station).toMatchObject({
      call: "N0OWN-7",
      label: "car",
      lat: null,
      lon: null,
      callsignHeld: true,
      verified: false,
      wxKey: null,
      wxTx: false,
      livingCache: false,
      heard: null,
    });
    expect((await g.post("/api/my/stations", { call: "N0OWN-7" }, as(u))).status).toBe(409);
    // The registry's view of the call shows up once it is heard.
    await heard("N0OWN-7>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>on the road");
    const got = await (await g.get(`/api/my/stations/${station.id}`, as(u))).json();
    expect(got.station.heard).toMatchObject({ lat: 42.619, lon: -71.3471667 });
    const moved = await (await g.post(`/api/my/stations/${station.id}`, { label: "truck", lat: 42.5, lon: -71.5 }, as(u))).json();
    expect(moved.station).toMatchObject({ label: "truck", lat: 42.5, lon: -71.5 });
    expect((await (await g.post(`/api/my/stations/${station.id}`, { lat: null, lon: null }, as(u))).json()).station).toMatchObject({
      label: "truck",
      lat: null,
      lon: null,
    });
    expect((await (await g.get("/api/my/stations", as(u))).json()).stations.map((s: { call: string }) => s.call)).toEqual(["N0OWN-7"]);
    expect(await (await g.post(`/api/my/stations/${station.id}`, { remove: true }, as(u))).json()).toEqual({ removed: true });
    expect((await (await g.get("/api/my/stations", as(u))).json()).stations).toEqual([]);
    expect((await g.get(`/api/my/stations/${station.id}`, as(u))).status).toBe(404);
  });

  test("someone else's call is refused; a call verified by another account is taken; bad input changes nothing", async () => {
    const u = signedInUser(g.gw, "N0ME");
    signedInUser(g.gw, "N0TKN", { verified: true });
    const claimant = signedInUser(g.gw, "N0TKN-5");
    const before = count();
    const cases: Array<[TestUser, unknown, number, string]> = [
      [u, { call: "W1AW-13" }, 403, "not_your_callsign"],
      [claimant, { call: "N0TKN-13" }, 403, "callsign_taken"],
      [u, { call: "not a call" }, 400, "bad_callsign"],
      [u, { call: "N0ME-1", lat: 95, lon: 0 }, 400, "invalid"],
      [u, { call: "N0ME-1", lat: 1 }, 400, "invalid"],
      [u, { call: "N0ME-1", colour: "red" }, 400, "invalid"],
    ];
    for (const [who, body, status, code] of cases) {
      const r = await g.post("/api/my/stations", body, as(who));
      expect({ body, status: r.status, code: (await r.json()).error }).toEqual({ body, status, code });
    }
    expect(count()).toBe(before);
    expect((await g.post("/api/my/stations", { call: "N0ME-1" }, {})).status).toBe(401);
  });

  test("another account's station is not found", async () => {
    const a = signedInUser(g.gw, "N0AAA");
    const b = signedInUser(g.gw, "N0BBB");
    const { station } = await (await g.post("/api/my/stations", { call: "N0AAA-2" }, as(a))).json();
    for (const path of [`/api/my/stations/${station.id}`, `/api/my/stations/${station.id}/cache`, `/api/my/stations/${station.id}/wx-key`]) {
      expect((await g.get(path, as(b))).status).toBe(404);
      expect((await g.post(path, {}, as(b))).status).toBe(404);
    }
    expect((await g.get("/api/my/stations/x1", as(a))).status).toBe(400);
  });

  test("bad input is a 400 naming the field it is in, and changes nothing", async () => {
    const u = signedInUser(g.gw, "N0FLD");
    const { station } = await (await g.post("/api/my/stations", { call: "N0FLD-3", label: "home" }, as(u))).json();
    for (const [path, body, field] of [
      ["/api/my/stations/x1", { label: "x" }, "params.sid"],
      [`/api/my/stations/${station.id}`, { label: 7 }, "body.label"],
      [`/api/my/stations/${station.id}`, { lat: "42", lon: 1 }, "body.lat"],
      [`/api/my/stations/${station.id}/cache`, { on: "yes" }, "body.on"],
      ["/api/my/stations", { call: 7 }, "body.call"],
    ] as const) {
      const r = await g.post(path, body, as(u));
      expect({ path, body, status: r.status, answer: await r.json() }).toMatchObject({ path, body, status: 400, answer: { error: "invalid", field } });
    }
    expect((await (await g.get(`/api/my/stations/${station.id}`, as(u))).json()).station).toMatchObject({ label: "home", livingCache: false });
    // The control: the same route takes good input.
    expect((await (await g.post(`/api/my/stations/${station.id}`, { label: "car" }, as(u))).json()).station).toMatchObject({ label: "car" });
  });

  test("a field a route does not take is refused by name and changes nothing; the same body without it is taken", async () => {
    const u = signedInUser(g.gw, "N0STR", { verified: true });
    const { station } = await (await g.post("/api/my/stations", { call: "N0STR-3", label: "home" }, as(u))).json();
    const state = () =>
      g.gw.db.query("SELECT call, label, lat, lon, living_cache, cache_name, wx_tx FROM my_stations WHERE user_id = ? ORDER BY call").all(u.id);
    const keys = () =>
      (g.gw.db.query("SELECT count(*) AS n FROM wx_keys k JOIN my_stations m ON m.id = k.station_id WHERE m.user_id = ?").get(u.id) as { n: number }).n;
    const cases: Array<[string, Record<string, unknown>, string, string, number]> = [
      ["/api/my/stations", { call: "N0STR-5", label: "car" }, "colour", "call, label, lat, lon", 201],
      [`/api/my/stations/${station.id}`, { label: "shack", lat: -33.9, lon: 18.4 }, "colour", "label, lat, lon, remove", 200],
      [`/api/my/stations/${station.id}/cache`, { on: true, name: "Catch me" }, "call", "on, name", 200],
      ["/api/me/cache", { call: "N0STR-7", name: "Me" }, "colour", "on, name, call", 200],
      ["/api/wx/key", { call: "N0STR-13", label: "roof" }, "colour", "call, label, lat, lon", 201],
      [`/api/my/stations/${station.id}/wx-key`, {}, "revoked", "revoke", 201],
      ["/api/wx/tx", { stationId: station.id, on: true }, "colour", "stationId, call, on", 200],
    ];
    for (const [path, body, stray, takes, status] of cases) {
      const before = [state(), keys()];
      const r = await g.post(path, { ...body, [stray]: "red" }, as(u));
      expect({ path, status: r.status, answer: await r.json() }).toEqual({
        path,
        status: 400,
        answer: { error: "invalid", message: `body.${stray}: unknown field "${stray}"; it takes ${takes}`, field: `body.${stray}` },
      });
      expect([state(), keys()]).toEqual(before);
      // The control: the same body without the stray field is taken.
      const ok = await g.post(path, body, as(u));
      expect({ path, status: ok.status }).toEqual({ path, status });
    }
  });
});

describe("living caches", () => {
  test("a verified station becomes a cache whose position is its latest beacon", async () => {
    const u = signedInUser(g.gw, "N0LIV", { verified: true });
    const { station } = await (await g.post("/api/my/stations", { call: "N0LIV-7" }, as(u))).json();
    const r = await (await g.post(`/api/my/stations/${station.id}/cache`, { on: true, name: "Catch the fox" }, as(u))).json();
    expect(r.station).toMatchObject({ livingCache: true, cacheName: "Catch the fox" });
    // Not heard yet, no fixed position: not on the cache map.
    expect(r.cache).toBeNull();
    expect(listLivingCaches(g.gw).map((c) => c.call)).not.toContain("N0LIV-7");
    expect(events.at(-1)).toEqual({ stationId: station.id, call: "N0LIV-7", userId: u.id, on: true, name: "Catch the fox" });
    // The beacon places it, and the next beacon moves it.
    const t0 = Date.now();
    await heard("N0LIV-7>APRS,WIDE1-1,qAR,W1AW-10:!4221.00N/07103.00W[fox hunt");
    expect(livingCache(g.gw, station.id)).toMatchObject({
      stationId: station.id,
      call: "N0LIV-7",
      name: "Catch the fox",
      ownerUserId: u.id,
      lat: 42.35,
      lon: -71.05,
      from: "beacon",
      symbol: "/[",
    });
    expect(livingCache(g.gw, station.id)!.positionAt).toBeGreaterThanOrEqual(t0);
    await heard("N0LIV-7>APRS,WIDE1-1,qAR,W1AW-10:!4222.00N/07104.00W[moving on");
    const c = listLivingCaches(g.gw, { bbox: { west: -72, south: 42, east: -71, north: 43 } });
    expect(c.map((x) => [x.call, x.lat, x.lon])).toEqual([["N0LIV-7", 42.3666667, -71.0666667]]);
    expect(listLivingCaches(g.gw, { bbox: { west: 0, south: 0, east: 10, north: 10 } })).toEqual([]);
    expect(listLivingCaches(g.gw, { maxAgeMs: 60_000 }).map((x) => x.call)).toContain("N0LIV-7");
    (g.gw as { clock: { now(): number } }).clock = { now: () => Date.now() + 2 * 3_600_000 };
    try {
      expect(listLivingCaches(g.gw, { maxAgeMs: 3_600_000 }).map((x) => x.call)).not.toContain("N0LIV-7");
    } finally {
      (g.gw as { clock: { now(): number } }).clock = { now: () => Date.now() };
    }
    // Off.
    const off = await (await g.post(`/api/my/stations/${station.id}/cache`, { on: false }, as(u))).json();
    expect(off).toMatchObject({ station: { livingCache: false }, cache: null });
    expect(events.at(-1)).toMatchObject({ stationId: station.id, on: false });
    expect(listLivingCaches(g.gw).map((x) => x.call)).not.toContain("N0LIV-7");
  });

  test("POST /api/me/cache: the active callsign becomes a living cache; unverified is refused and creates nothing", async () => {
    const unverified = signedInUser(g.gw, "N0NV-9");
    const before = count();
    const r = await g.post("/api/me/cache", {}, as(unverified));
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("callsign_not_verified");
    expect(count()).toBe(before);
    expect((await g.post("/api/me/cache", { name: "" }, as(unverified))).status).toBe(400);

    const u = signedInUser(g.gw, "N0ME-9", { verified: true });
    await heard("N0ME-9>APRS,TCPIP*,qAC,T2X:=4000.00N/07400.00W>hiking");
    const me = await (await g.post("/api/me/cache", { name: "Find me" }, as(u))).json();
    expect(me.station).toMatchObject({ call: "N0ME-9", livingCache: true, cacheName: "Find me" });
    expect(me.cache).toMatchObject({ call: "N0ME-9", name: "Find me", lat: 40, lon: -74, from: "beacon" });
    // Again: the same station, not a second one.
    const again = await (await g.post("/api/me/cache", {}, as(u))).json();
    expect(again.station.id).toBe(me.station.id);
    expect((await (await g.get(`/api/my/stations/${me.station.id}/cache`, as(u))).json()).cache.name).toBe("Find me");
  });

  test("a fixed position places a cache that has not beaconed; a lost callsign takes it off the map", async () => {
    const u = signedInUser(g.gw, "N0FIX", { verified: true });
    const { station } = await (await g.post("/api/my/stations", { call: "N0FIX-13", lat: 45.5, lon: -73.6 }, as(u))).json();
    await g.post(`/api/my/stations/${station.id}/cache`, { on: true }, as(u));
    expect(livingCache(g.gw, station.id)).toMatchObject({ name: "N0FIX-13", lat: 45.5, lon: -73.6, from: "fixed", positionAt: null });
    g.gw.db.query("UPDATE callsigns SET verified_at = NULL WHERE user_id = ?").run(u.id);
    expect(livingCache(g.gw, station.id)).toBeNull();
  });
});

describe("account export", () => {
  test("own stations and what the account transmitted are in the export; erase removes them", async () => {
    const u = signedInUser(g.gw, "N0GDP", { verified: true });
    await g.post("/api/my/stations", { call: "N0GDP-13", label: "garden" }, as(u));
    await g.post("/api/tx/aprs", { addressee: "W1AW", text: "hello" }, as(u));
    const x = await (await g.post("/api/account/N0GDP/export", {}, as(u))).json();
    expect(x.data.stations.ownStations).toEqual([
      expect.objectContaining({ call: "N0GDP-13", label: "garden", livingCache: false, wxTx: false, wxKeyCreatedAt: null }),
    ]);
    expect(x.data.stations.transmitted).toEqual([expect.objectContaining({ kind: "message", src: "N0GDP", addressee: "W1AW" })]);
    const e = await (await g.post("/api/account/N0GDP/delete", { confirm: true }, as(u))).json();
    expect(e.summary.stations).toEqual({ ownStations: 1, transmitted: 1 });
    expect(g.gw.db.query("SELECT count(*) AS n FROM aprs_outbox WHERE src = 'N0GDP'").get()).toEqual({ n: 0 });
  });
});
