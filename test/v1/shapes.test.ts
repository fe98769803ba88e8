/**
 * /api/v1's answers hold to the shapes its OpenAPI document declares
 * (src/v1/shapes.ts, closed schemas): every cache, near cache, event, cache
 * detail and log a real gateway answers passes the schema it is declared
 * with, with nothing the document does not name, and the document's
 * components are those schemas.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { check } from "../../src/lib/schema.ts";
import { V1_CACHE, V1_CACHE_DETAIL, V1_EVENT_CACHE, V1_LOG, V1_NEAR_CACHE } from "../../src/v1/shapes.ts";

const DAY = 86_400_000;
let g: Running;
let owner: TestUser;
let finder: TestUser;
let plain = 0;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const hide = async (body: Record<string, unknown>) => {
  const r = await g.post("/api/caches", { size: "small", difficulty: 2, terrain: 1.5, lon: 9.5, ...body }, as(owner));
  expect(r.status).toBe(201);
  return ((await r.json()) as { id: number }).id;
};
/** Each item passes its schema; the answer names where a member strays. */
const holds = (schema: TSchema, items: unknown[], where: string) => {
  expect(items.length).toBeGreaterThan(0);
  items.forEach((x, i) => check(schema, x, `${where}.${i}`));
};

beforeAll(async () => {
  g = await startInProcess({ RATE_LIMIT_PER_MINUTE: "1000" });
  owner = signedInUser(g.gw, "N0SHP", { verified: true });
  finder = signedInUser(g.gw, "N0SHF", { verified: true });
  plain = await hide({
    name: "Shape box",
    type: "traditional",
    lat: 46.1,
    hint: "under the root",
    attributes: [
      { id: 1, inc: true },
      { id: 32, inc: false },
    ],
  });
  await g.post(`/api/caches/${plain}/waypoints`, { kind: "parking", name: "Car park", lat: 46.1, lon: 9.5 }, as(owner));
  await g.post(`/api/caches/${plain}/waypoints`, { kind: "final", name: "Final", lat: 46.11, lon: 9.51 }, as(owner));
  await hide({ name: "Unlisted", type: "mystery", lat: 46.12, unlisted: true });
  const date = new Date(Date.now() + 7 * DAY).toISOString().slice(0, 10);
  await hide({ name: "Meet", type: "event", size: "other", lat: 46.13, event: { date, start: "18:00", end: "20:00", timeZone: "Europe/Zurich" } });
  await g.post(`/api/caches/${plain}/logs`, { kind: "find", text: "found it" }, as(finder));
  await g.post(`/api/caches/${plain}/logs`, { kind: "note", text: "a note" }, as(owner));
});
afterAll(async () => {
  await g.stop();
});

describe("/api/v1 answers as it declares", () => {
  test("caches, near caches, one cache with its waypoints, events and logs pass their closed schemas", async () => {
    const page = await json(await g.get("/api/v1/caches?bbox=9,46,10,47"));
    holds(V1_CACHE, page.caches, "caches");
    const near = await json(await g.get("/api/v1/caches?near=46.1,9.5"));
    holds(V1_NEAR_CACHE, near.caches, "near");
    const one = await json(await g.get(`/api/v1/caches/${plain}`));
    check(V1_CACHE_DETAIL, one, "cache");
    expect(one.waypoints.map((w: { kind: string }) => w.kind)).toEqual(["parking"]);
    const events = await json(await g.get("/api/v1/events?near=46.1,9.5"));
    holds(V1_EVENT_CACHE, events.events, "events");
    expect(events.events[0].event).toMatchObject({ start: "18:00", timeZone: "Europe/Zurich" });
    holds(V1_LOG, (await json(await g.get(`/api/v1/caches/${plain}/logs`))).logs, "logs");
    holds(V1_LOG, (await json(await g.get("/api/v1/finds"))).finds, "finds");
  });

  test("a member the schema does not name fails it (a control), and the document's components are the schemas", async () => {
    const one = await json(await g.get(`/api/v1/caches/${plain}`));
    expect(() => check(V1_CACHE_DETAIL, { ...one, mine: true }, "cache")).toThrow('unknown field "mine"');
    expect(() => check(V1_CACHE, one, "cache")).toThrow('unknown field "waypoints"');
    const doc = await json(await g.get("/api/v1/openapi.json"));
    const plainJson = (s: TSchema) => JSON.parse(JSON.stringify(s));
    expect(doc.components.schemas.Cache).toEqual(plainJson(V1_CACHE));
    expect(doc.components.schemas.CacheDetail).toEqual(plainJson(V1_CACHE_DETAIL));
    expect(doc.components.schemas.Log).toEqual(plainJson(V1_LOG));
    const op = doc.paths["/api/v1/caches/{id}"].get;
    expect(op.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CacheDetail" });
  });
});
