/**
 * The game's write routes answer as they declare: a hidden or edited cache,
 * a posted log (and its replay) and a logbook pass the closed schemas of
 * src/game/shapes.ts, with nothing the API document does not name, and
 * /api/openapi.json declares those schemas beside the gate's refusals.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { check } from "../../src/lib/schema.ts";
import { CACHE_WITH_CONTACT, EVENTS_ANSWER, LOG_POSTED, LOGBOOK, MAP_ANSWER, NEAR_ANSWER } from "../../src/game/shapes.ts";
import { CACHE_LIST, LIST_WITH_CACHES, MY_LISTS } from "../../src/game/lists.ts";
import { PERSONAL_SAVED } from "../../src/game/personal.ts";
import { MOVE_LOGGED, TRACKABLE_DETAIL, TRACKABLE_LIST, TRACKABLE_MADE } from "../../src/game/trackables-shapes.ts";

let g: Running;
let owner: TestUser;
let finder: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const send = (path: string, method: string, body: unknown, u: TestUser) =>
  g.get(path, { method, body: JSON.stringify(body), headers: { "content-type": "application/json", cookie: u.cookie } });
const plainJson = (s: TSchema) => JSON.parse(JSON.stringify(s));

beforeAll(async () => {
  g = await startInProcess({});
  owner = signedInUser(g.gw, "N0ANS", { verified: true });
  finder = signedInUser(g.gw, "N0ANF");
});
afterAll(async () => {
  await g.stop();
});

describe("the game's answers", () => {
  test("a hide, an edit, a log, its replay and the logbook pass the schemas they are declared with", async () => {
    const hid = await send(
      "/api/caches",
      "POST",
      {
        name: "Answer box",
        type: "event",
        size: "other",
        difficulty: 1,
        terrain: 1,
        lat: 47.3,
        lon: 8.5,
        contact: { email: "owner@example.org" },
        attributes: [{ id: 1, inc: true }],
        event: { date: new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10), start: "10:00", end: "12:00", timeZone: "Europe/Zurich" },
      },
      owner,
    );
    expect(hid.status).toBe(201);
    const cache = check(CACHE_WITH_CONTACT, await json(hid), "hide");
    expect(cache.contact).toEqual({ email: "owner@example.org" });
    check(CACHE_WITH_CONTACT, await json(await send(`/api/caches/${cache.id}`, "PATCH", { hint: "by the gate" }, owner)), "edit");
    const body = { kind: "will-attend", text: "coming", clientId: "answers-0001" };
    const posted = await send(`/api/caches/${cache.id}/logs`, "POST", body, finder);
    expect(posted.status).toBe(201);
    check(LOG_POSTED, await json(posted), "log");
    const again = await send(`/api/caches/${cache.id}/logs`, "POST", body, finder);
    expect(again.status).toBe(200);
    expect(check(LOG_POSTED, await json(again), "replay").replayed).toBe(true);
    const book = check(LOGBOOK, await json(await g.get(`/api/caches/${cache.id}/logs`)), "logbook");
    expect(book.logs.map((l) => l.kind)).toEqual(["will-attend"]);
    // the map: listed, clustered, near; signed in, with the player's marks (found, corrected)
    await send(`/api/caches/${cache.id}/personal`, "PUT", { corrected: { lat: 47.31, lon: 8.51 } }, finder);
    for (let i = 0; i < 4; i++)
      await send(
        "/api/caches",
        "POST",
        { name: `Near ${i}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.3 + i / 1000, lon: 8.5 },
        owner,
      );
    const map = (q: string, u?: TestUser) => g.get(`/api/caches?${q}`, u ? { headers: { cookie: u.cookie } } : {}).then(json);
    const listed = check(MAP_ANSWER, await map("bbox=8,47,9,48", finder), "map");
    expect(listed.caches.some((c) => c.corrected === true && c.original !== undefined)).toBe(true);
    expect(check(MAP_ANSWER, await map("bbox=8,47,9,48&limit=1"), "clustered").clustered).toBe(true);
    check(NEAR_ANSWER, await map("near=47.3,8.5", finder), "near");
    check(NEAR_ANSWER, await map("near=47.3,8.5"), "near");
    const events = check(EVENTS_ANSWER, await json(await g.get("/api/events?near=47.3,8.5")), "events");
    expect(events.events.map((e) => e.id)).toEqual([cache.id]);
    // a control: a member the schema does not name fails it
    expect(() => check(LOGBOOK, { logs: [{ ...book.logs[0], mine: true }] }, "logbook")).toThrow('unknown field "mine"');
  });

  test("lists, trackables and their moves, and a personal note pass theirs", async () => {
    const hid = await json(
      await send("/api/caches", "POST", { name: "Listed", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 47.4, lon: 8.6 }, owner),
    );
    const made = await send("/api/lists", "POST", { name: "Trip" }, finder);
    expect(made.status).toBe(201);
    const list = check(CACHE_LIST, await json(made), "list");
    check(CACHE_LIST, await json(await send(`/api/lists/${list.id}/caches`, "POST", { cache: hid.id }, finder)), "list add");
    check(CACHE_LIST, await json(await send(`/api/lists/${list.id}`, "PATCH", { public: true }, finder)), "list edit");
    expect(check(LIST_WITH_CACHES, await json(await g.get(`/api/lists/${list.id}`)), "list read").caches).toHaveLength(1);
    check(MY_LISTS, await json(await g.get("/api/lists", { headers: { cookie: finder.cookie } })), "my lists");
    const tb = await send("/api/trackables", "POST", { name: "Bug", goal: "the sea" }, owner);
    expect(tb.status).toBe(201);
    const t = check(TRACKABLE_MADE, await json(tb), "trackable");
    const moved = await send(`/api/trackables/${t.ref}/moves`, "POST", { kind: "drop", cacheId: hid.id }, owner);
    expect(moved.status).toBe(201);
    check(MOVE_LOGGED, await json(moved), "move");
    const detail = check(TRACKABLE_DETAIL, await json(await g.get(`/api/trackables/${t.ref}`)), "trackable read");
    expect(detail.moves.map((m) => m.kind)).toEqual(["drop"]);
    check(TRACKABLE_LIST, await json(await g.get(`/api/trackables?owner=${owner.call}`)), "trackables");
    const noted = check(PERSONAL_SAVED, await json(await send(`/api/caches/${hid.id}/personal`, "PUT", { note: "solved" }, finder)), "personal");
    expect(noted.personal?.note).toBe("solved");
    expect(check(PERSONAL_SAVED, await json(await send(`/api/caches/${hid.id}/personal`, "PUT", { note: null }, finder)), "cleared").personal).toBeNull();
  });

  test("/api/openapi.json declares those schemas, and keeps the gate's refusals beside them", async () => {
    const doc = await json(await g.get("/api/openapi.json"));
    const hide = doc.paths["/api/caches"].post.responses;
    expect(hide["201"].content["application/json"].schema).toEqual(plainJson(CACHE_WITH_CONTACT));
    expect(hide["200"]).toBeUndefined();
    expect(Object.keys(hide)).toEqual(expect.arrayContaining(["400", "401", "403"]));
    const log = doc.paths["/api/caches/{id}/logs"].post.responses;
    expect(log["201"].content["application/json"].schema).toEqual(plainJson(LOG_POSTED));
    expect(log["200"].content["application/json"].schema).toEqual(plainJson(LOG_POSTED));
    expect(doc.paths["/api/caches/{id}/logs"].get.responses["200"].content["application/json"].schema).toEqual(plainJson(LOGBOOK));
  });
});
