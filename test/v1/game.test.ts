/**
 * /api/v1's game reads (issue 29): upcoming events nearest a point (400 for a
 * missing or bad near=), a public bookmark list with its caches and its GPX
 * (a private list is a 404 exactly like an unknown one, to a visitor and to
 * its own owner's session alike), a finder's statistics as on
 * /api/profile/:call/stats; all rate-limited, more with an API key, and in
 * the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const DAY = 86_400_000;
let g: Running;
let owner: TestUser;
let finder: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const dayIn = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);
const hide = async (body: Record<string, unknown>) =>
  (await json(await g.post("/api/caches", { size: "other", difficulty: 1, terrain: 1, lon: 11.5, ...body }, as(owner)))).id as number;

beforeAll(async () => {
  g = await startInProcess({ RATE_LIMIT_PER_MINUTE: "1000", RATE_LIMIT_KEY_PER_MINUTE: "2000" });
  owner = signedInUser(g.gw, "N0VOW", { verified: true });
  finder = signedInUser(g.gw, "N0VFI", { verified: true });
});
afterAll(async () => {
  await g.stop();
});

describe("GET /api/v1/events", () => {
  test("upcoming events nearest first in v1's cache shape, the same events as /api/events; bad near= is a 400", async () => {
    const ev = (lat: number) => hide({ name: `Meet ${lat}`, type: "event", lat, event: { date: dayIn(5), start: "18:00", end: "20:00", timeZone: "UTC" } });
    const far = await ev(20.2);
    const near = await ev(20.0);
    await hide({ name: "Not an event", type: "traditional", size: "small", lat: 20.0 });
    const v1 = await g.get("/api/v1/events?near=20,11.5&limit=2");
    expect(v1.status).toBe(200);
    expect(v1.headers.get("ratelimit-limit")).toBe("1000");
    const body = await json(v1);
    expect(body.events.map((e: any) => e.id)).toEqual([near, far]);
    expect(body.events[0]).toMatchObject({
      type: "event",
      distanceM: 0,
      url: expect.stringContaining(`/cache/${near}`),
      event: { start: "18:00", timeZone: "UTC" },
    });
    // v1's shape: no instance-private fields the full cache JSON carries
    expect(Object.keys(body.events[0])).not.toContain("mine");
    const plain = await json(await g.get("/api/events?near=20,11.5&limit=2"));
    expect(plain.events.map((e: any) => [e.id, e.distanceM])).toEqual(body.events.map((e: any) => [e.id, e.distanceM]));
    for (const q of ["", "?near=95,0", "?near=nowhere", "?near=20,11.5&limit=0", "?near=20,11.5&limit=201"]) {
      const r = await g.get(`/api/v1/events${q}`);
      expect({ q, status: r.status }).toEqual({ q, status: 400 });
      expect(await json(r)).toMatchObject({ error: "invalid", message: expect.any(String) });
    }
  });
});

describe("GET /api/v1/lists/:id", () => {
  test("a public list and its GPX; a private list is a 404 like an unknown one, even to its owner's session", async () => {
    const a = await hide({ name: "Bridge box", type: "traditional", size: "small", lat: 47.1 });
    const b = await hide({ name: "Mill box", type: "traditional", size: "small", lat: 47.2 });
    const list = (await json(await g.post("/api/lists", { name: "Walk" }, as(owner)))).id as number;
    for (const cache of [a, b]) expect((await g.post(`/api/lists/${list}/caches`, { cache }, as(owner))).status).toBe(200);

    const unknown = await g.get("/api/v1/lists/999999");
    expect(unknown.status).toBe(404);
    const unknownBody = await json(unknown);
    for (const path of [`/api/v1/lists/${list}`, `/api/v1/lists/${list}.gpx`]) {
      for (const init of [{}, as(owner)]) {
        const r = await g.get(path, init);
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
        expect((await json(r)).error).toBe(unknownBody.error);
      }
    }
    expect((await g.get("/api/v1/lists/999999.gpx")).status).toBe(404);
    for (const bad of ["abc", "0", "12.kml"]) expect((await g.get(`/api/v1/lists/${bad}`)).status).toBe(400);

    expect(
      (
        await g.get(`/api/lists/${list}`, {
          method: "PATCH",
          body: JSON.stringify({ public: true }),
          headers: { "content-type": "application/json", cookie: owner.cookie },
        })
      ).status,
    ).toBe(200);
    const open = await json(await g.get(`/api/v1/lists/${list}`));
    expect(open).toMatchObject({ id: list, name: "Walk", public: true, owner: "N0VOW", count: 2 });
    expect(open.caches.map((c: any) => c.name).sort()).toEqual(["Bridge box", "Mill box"]);
    expect(open.caches[0]).toMatchObject({ url: expect.any(String), needsMaintenance: false });
    expect(Object.keys(open.caches[0])).not.toContain("mine");
    const gpx = await g.get(`/api/v1/lists/${list}.gpx`);
    expect(gpx.status).toBe(200);
    expect(gpx.headers.get("content-type")).toContain("gpx");
    expect(gpx.headers.get("content-disposition")).toContain(`list-${list}.gpx`);
    const text = await gpx.text();
    expect(text).toContain("Bridge box");
    expect(text).toContain("Mill box");
  });
});

describe("GET /api/v1/profiles/:call/stats", () => {
  test("a finder's statistics, as /api/profile/:call/stats; a bad callsign is a 400", async () => {
    const c = await hide({ name: "Stats box", type: "traditional", size: "small", lat: 46.5 });
    expect((await g.post(`/api/caches/${c}/logs`, { kind: "find" }, as(finder))).status).toBe(201);
    const v1 = await json(await g.get("/api/v1/profiles/n0vfi-7/stats"));
    expect(v1.finds).toBe(1);
    expect(v1).toEqual(await json(await g.get("/api/profile/N0VFI/stats")));
    const bad = await g.get("/api/v1/profiles/not%20a%20call/stats");
    expect(bad.status).toBe(400);
    expect(await json(bad)).toMatchObject({ error: expect.any(String), message: expect.any(String) });
  });
});

describe("keys and the document", () => {
  test("an API key raises the limit on the new routes, and the OpenAPI document lists them", async () => {
    const key = (await json(await g.post("/api/v1", {}))).key as string;
    for (const path of ["/api/v1/events?near=20,11.5", "/api/v1/profiles/N0VFI/stats", "/api/v1/lists/999999"]) {
      const r = await g.get(path, { headers: { "x-api-key": key } });
      expect({ path, limit: r.headers.get("ratelimit-limit") }).toEqual({ path, limit: "2000" });
    }
    const doc = await json(await g.get("/api/v1/openapi.json"));
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/v1/events", "/api/v1/lists/{id}", "/api/v1/profiles/{call}/stats"]));
  });

  test("issuing a key names a field it does not take, and issues none; without it, a key", async () => {
    const keys = () => (g.gw.db.query("SELECT COUNT(*) AS n FROM api_keys").get() as { n: number }).n;
    const before = keys();
    const bad = await g.post("/api/v1", { label: "my app", scope: "all" });
    expect({ status: bad.status, body: await json(bad) }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.scope: unknown field "scope"; it takes label', field: "body.scope" },
    });
    expect(keys()).toBe(before);
    const ok = await g.post("/api/v1", { label: "my app" });
    expect({ status: ok.status, body: await json(ok) }).toMatchObject({ status: 201, body: { label: "my app", key: expect.stringMatching(/^svc_/) } });
    expect(keys()).toBe(before + 1);
  });
});
