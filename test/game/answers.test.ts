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
import { CACHE_PAGE, DELETED, WAYPOINT_ONE, WAYPOINTS } from "../../src/game/shapes.ts";
import { FAVORITED, RATED, WATCHED } from "../../src/game/social.ts";
import { MEDIA_JSON, MEDIA_LIST } from "../../src/game/media.ts";
import { STAGE_UNLOCKED, STAGES } from "../../src/game/stages.ts";
import { ACTIVITY, CORROBORATORS, LEADERBOARD } from "../../src/game/stats.ts";
import { FINDER_STATS } from "../../src/game/finder-stats.ts";
import { LOG_KINDS_ON } from "../../src/game/logs.ts";
import { CACHE_REPORTS, REPORTED } from "../../src/game/maintenance.ts";
import { pngChunk, pngFile } from "../../src/http/pwa.ts";

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

  test("a cache's page, waypoints, stages, files, ratings and reports, and the game's views pass theirs", async () => {
    const hid = await json(
      await send("/api/caches", "POST", { name: "Paged", type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 47.5, lon: 8.7 }, owner),
    );
    const page = (u?: TestUser) => g.get(`/api/caches/${hid.id}`, u ? { headers: { cookie: u.cookie } } : {}).then(json);
    expect(check(CACHE_PAGE, await page(), "page").my).toBeUndefined();
    // waypoints: added, changed, listed, deleted
    const wp = await send(`/api/caches/${hid.id}/waypoints`, "POST", { kind: "parking", name: "Lot", lat: 47.5, lon: 8.71 }, owner);
    expect(wp.status).toBe(201);
    const { waypoint } = check(WAYPOINT_ONE, await json(wp), "waypoint");
    check(WAYPOINT_ONE, await json(await send(`/api/caches/${hid.id}/waypoints/${waypoint.id}`, "PATCH", { note: "free" }, owner)), "waypoint edit");
    expect(check(WAYPOINTS, await json(await g.get(`/api/caches/${hid.id}/waypoints`)), "waypoints").waypoints).toHaveLength(1);
    await send(`/api/caches/${hid.id}/waypoints`, "POST", { kind: "final", name: "Box", lat: 47.51, lon: 8.72 }, owner);
    // stages: set, read, unlocked
    const stages = [
      { title: "One", question: "Year?", content: "go north", answer: "1901" },
      { title: "Two", question: "Colour?", content: "the box", answer: "red" },
    ];
    check(STAGES, await json(await send(`/api/caches/${hid.id}/stages`, "POST", { stages }, owner)), "stages set");
    check(STAGES, await json(await g.get(`/api/caches/${hid.id}/stages`)), "stages");
    const unlocked = check(STAGE_UNLOCKED, await json(await send(`/api/caches/${hid.id}/stages/1/unlock`, "POST", { answer: "1901" }, finder)), "unlock");
    expect(unlocked.next?.question).toBe("Colour?");
    // a find, then its finder's rating, favorite, watch, picture and report
    const found = await json(await send(`/api/caches/${hid.id}/logs`, "POST", { kind: "find", text: "thanks" }, finder));
    expect(check(LOG_KINDS_ON, await json(await g.get(`/api/caches/${hid.id}/log-kinds`, { headers: { cookie: finder.cookie } })), "kinds").kinds).toContain(
      "note",
    );
    check(RATED, await json(await send(`/api/caches/${hid.id}/rate`, "POST", { stars: 4 }, finder)), "rate");
    check(FAVORITED, await json(await send(`/api/caches/${hid.id}/favorite`, "POST", {}, finder)), "favorite");
    check(WATCHED, await json(await send(`/api/caches/${hid.id}/watch`, "POST", { watch: true }, finder)), "watch");
    const img = pngFile([pngChunk("IHDR", new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0])), pngChunk("IDAT", new Uint8Array(0))]);
    const up = await g.get(`/api/caches/${hid.id}/media?caption=here`, {
      method: "POST",
      body: img as BodyInit,
      headers: { cookie: finder.cookie, "content-type": "image/png" },
    });
    expect(up.status).toBe(201);
    const media = check(MEDIA_JSON, await json(up), "upload");
    expect(check(MEDIA_LIST, await json(await g.get(`/api/caches/${hid.id}/media`)), "media").media).toHaveLength(1);
    const reported = await send(`/api/caches/${hid.id}/report`, "POST", { reason: "the lid is broken" }, finder);
    expect(reported.status).toBe(201);
    check(REPORTED, await json(reported), "report");
    check(CACHE_REPORTS, await json(await g.get(`/api/caches/${hid.id}/reports`, { headers: { cookie: owner.cookie } })), "reports");
    // the page signed in: the player's own state, personal note, the final for its finder and owner
    await send(`/api/caches/${hid.id}/personal`, "PUT", { note: "mine", corrected: { lat: 47.52, lon: 8.7 } }, finder);
    const mine = check(CACHE_PAGE, await page(finder), "page signed in");
    expect([mine.my?.found, mine.personal?.note, mine.waypoints.length, mine.logCounts.find]).toEqual([true, "mine", 2, 1]);
    expect(check(CACHE_PAGE, await page(owner), "owner's page").mine).toBe(true);
    // the game's views
    check(LEADERBOARD, await json(await g.get("/api/leaderboard")), "leaderboard");
    expect(check(ACTIVITY, await json(await g.get("/api/activity")), "activity").items.map((i) => i.type)).toEqual(expect.arrayContaining(["log", "cache"]));
    check(CORROBORATORS, await json(await g.get("/api/corroborators")), "corroborators");
    expect(check(FINDER_STATS, await json(await g.get(`/api/profile/${finder.call}/stats`)), "stats").finds).toBeGreaterThan(0);
    // deletes
    check(DELETED, await json(await send(`/api/media/${media.id}`, "DELETE", {}, finder)), "media delete");
    check(DELETED, await json(await send(`/api/caches/${hid.id}/waypoints/${waypoint.id}`, "DELETE", {}, owner)), "waypoint delete");
    check(DELETED, await json(await send(`/api/logs/${found.id}`, "DELETE", {}, finder)), "log delete");
    const list = await json(await send("/api/lists", "POST", { name: "Gone" }, finder));
    check(DELETED, await json(await send(`/api/lists/${list.id}`, "DELETE", {}, finder)), "list delete");
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
