/**
 * REVIEW=on (issue 29 item 6): a new cache waits in the reviewers' queue,
 * seen by its owner and the reviewers only, off the map and unpublished,
 * until a reviewer (a sysop, or REVIEWER_CALLSIGNS) publishes it or returns
 * it with a reviewer note; the refusals of everyone else.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";

let g: Running;
let owner: TestUser;
let finder: TestUser;
let sysop: TestUser;
let reviewer: TestUser;
let unverifiedReviewer: TestUser;
beforeAll(async () => {
  g = await startInProcess({
    INSTANCE: "gw1",
    FED_PRIVATE_KEY: generateKeyPair().privateKey,
    REVIEW: "on",
    ADMIN_CALLSIGNS: "N0SYS",
    REVIEWER_CALLSIGNS: "N0REV,N0UNR",
  });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
  reviewer = signedInUser(g.gw, "N0REV-7", { verified: true });
  unverifiedReviewer = signedInUser(g.gw, "N0UNR");
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const published = (gid: string) => !!g.gw.db.query("SELECT 1 FROM fed_feed WHERE gid = ?").get(gid);
const onMap = async (id: number, lat: number) =>
  (await json(await g.get(`/api/caches?bbox=7.9,${lat - 0.01},8.1,${lat + 0.01}`))).caches.some((c: any) => c.id === id);
const patch = (id: number, body: unknown, u: TestUser) =>
  fetch(`${g.url}/api/caches/${id}`, { method: "PATCH", headers: { "content-type": "application/json", cookie: u.cookie }, body: JSON.stringify(body) });
async function hide(lat: number, over: Record<string, unknown> = {}) {
  const r = await g.post("/api/caches", { name: `New ${lat}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: 8, ...over }, as(owner));
  expect(r.status).toBe(201);
  return json(r);
}

describe("the review queue", () => {
  test("a new cache waits for review: its owner and reviewers see it; it is not on the map, not federated, takes no logs", async () => {
    const c = await hide(46.1);
    expect(c.status).toBe("review");
    expect((await json(await g.get(`/api/caches/${c.id}`, as(owner)))).status).toBe("review");
    expect((await g.get(`/api/caches/${c.id}`, as(reviewer))).status).toBe(200);
    expect((await g.get(`/api/caches/${c.id}`, as(finder))).status).toBe(404);
    expect((await g.get(`/api/caches/${c.id}`)).status).toBe(404);
    expect(await onMap(c.id, 46.1)).toBe(false);
    expect(published(c.gid)).toBe(false);
    expect((await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(finder))).status).toBe(404);
    const q = await json(await g.get("/api/review", as(reviewer)));
    expect(q.queue.map((x: any) => x.id)).toContain(c.id);
    expect((await json(await g.get("/api/review", as(sysop)))).queue.map((x: any) => x.id)).toContain(c.id);
  });

  test("only reviewers read the queue, publish and return: 403 for others, an unverified reviewer's callsign included", async () => {
    const c = await hide(46.2);
    for (const u of [owner, finder, unverifiedReviewer]) {
      const r = await g.get("/api/review", as(u));
      expect([u.call, r.status, (await json(r)).error]).toEqual([u.call, 403, "not_reviewer"]);
      expect((await g.post(`/api/review/${c.id}/publish`, {}, as(u))).status).toBe(403);
      expect((await g.post(`/api/review/${c.id}/return`, { text: "no" }, as(u))).status).toBe(403);
    }
    expect((await g.get("/api/review")).status).toBe(401);
    expect((await json(await g.get(`/api/caches/${c.id}`, as(owner)))).status).toBe("review");
  });

  test("a reviewer returns it with a note (required); the owner fixes it and sends it again; a reviewer publishes it", async () => {
    const c = await hide(46.3);
    const noNote = await g.post(`/api/review/${c.id}/return`, {}, as(reviewer));
    expect(noNote.status).toBe(400);
    const back = await g.post(`/api/review/${c.id}/return`, { text: "Move it off the railway embankment" }, as(reviewer));
    expect(back.status).toBe(200);
    expect(await json(back)).toMatchObject({ status: "draft", returned: true, note: { kind: "reviewer-note", call: "N0REV-7" } });
    const book = await json(await g.get(`/api/caches/${c.id}/logs`, as(owner)));
    expect(book.logs).toEqual([expect.objectContaining({ kind: "reviewer-note", text: "Move it off the railway embankment" })]);
    // the note on a cache still in review is not federated, as the draft is not
    expect(published(book.logs[0].gid)).toBe(false);
    expect((await json(await g.get("/api/review", as(reviewer)))).queue.map((x: any) => x.id)).not.toContain(c.id);
    const again = await patch(c.id, { lat: 46.31, lon: 8, status: "active" }, owner);
    expect(again.status).toBe(200);
    expect((await json(again)).status).toBe("review");
    expect((await json(await g.get("/api/review", as(reviewer)))).queue.map((x: any) => x.id)).toContain(c.id);
    const pub = await g.post(`/api/review/${c.id}/publish`, { text: "Published, thank you" }, as(sysop));
    expect(pub.status).toBe(200);
    expect(await json(pub)).toMatchObject({ status: "active", note: { kind: "reviewer-note" } });
    expect((await g.get(`/api/caches/${c.id}`)).status).toBe(200);
    expect(await onMap(c.id, 46.31)).toBe(true);
    expect(published(c.gid)).toBe(true);
    expect((await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(finder))).status).toBe(201);
    const twice = await g.post(`/api/review/${c.id}/publish`, {}, as(reviewer));
    expect([twice.status, (await json(twice)).error]).toEqual([409, "not_in_review"]);
  });

  test("a draft stays a draft; sending it to be active queues it; the owner may withdraw a queued cache by archiving it", async () => {
    const d = await hide(46.4, { status: "draft" });
    expect(d.status).toBe("draft");
    expect((await json(await g.get("/api/review", as(reviewer)))).queue.map((x: any) => x.id)).not.toContain(d.id);
    expect((await json(await patch(d.id, { status: "active" }, owner))).status).toBe("review");
    const toDraft = await patch(d.id, { status: "draft" }, owner);
    expect([toDraft.status, (await json(toDraft)).error]).toEqual([409, "in_review"]);
    expect((await json(await patch(d.id, { status: "archived" }, owner))).status).toBe("archived");
    expect((await json(await g.get("/api/review", as(reviewer)))).queue.map((x: any) => x.id)).not.toContain(d.id);
  });

  test("reports reach the reviewers' view", async () => {
    const c = await hide(46.5);
    await g.post(`/api/review/${c.id}/publish`, {}, as(reviewer));
    expect((await g.post(`/api/caches/${c.id}/report`, { reason: "container is broken glass" }, as(finder))).status).toBe(201);
    const q = await json(await g.get("/api/review", as(reviewer)));
    expect(q.reports).toContainEqual(expect.objectContaining({ cacheId: c.id, call: "N0FND", reason: "container is broken glass" }));
  });
});
