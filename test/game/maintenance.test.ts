/**
 * Maintenance logs over HTTP (issue 29 item 6): who may log each kind (403
 * for who, 409 for the cache's state, 400 for an unknown kind, nothing
 * written on a refusal), what the owner's kinds and the needs-* kinds do to
 * the cache and its federated record, that only `find` counts as a find,
 * and users' reports of a cache.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";

let g: Running;
let owner: TestUser;
let finder: TestUser;
let unverified: TestUser;
let sysop: TestUser;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: generateKeyPair().privateKey, ADMIN_CALLSIGNS: "N0SYS" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  unverified = signedInUser(g.gw, "N0UNV");
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const log = (id: number, u: TestUser, kind: string, text = `a ${kind} log`) => g.post(`/api/caches/${id}/logs`, { kind, text }, as(u));
const cache = async (id: number, u: TestUser = owner) => json(await g.get(`/api/caches/${id}`, as(u)));
const logCount = (id: number) => (g.gw.db.query("SELECT count(*) AS n FROM logs WHERE cache_id = ?").get(id) as { n: number }).n;
/** The newest published body of a gid. */
const record = (gid: string) => {
  const row = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array } | null;
  return row ? (decodePayload(decodeFrame(row.frame).payload).body as Record<string, unknown>) : null;
};
async function newCache(lat: number, over: Record<string, unknown> = {}) {
  const r = await g.post(
    "/api/caches",
    { name: `Cache ${lat}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: 8, ...over },
    as(owner),
  );
  expect(r.status).toBe(201);
  return json(r);
}

describe("log kinds: who may log what", () => {
  test("an unknown kind is 400 and writes nothing", async () => {
    const c = await newCache(47.01);
    const r = await log(c.id, finder, "publish-listing");
    expect(r.status).toBe(400);
    expect(await json(r)).toHaveProperty("error");
    expect(logCount(c.id)).toBe(0);
  });

  test("the owner's kinds are refused to anyone else (403), reviewer-note to non-reviewers, needs-* to unverified callsigns", async () => {
    const c = await newCache(47.02);
    for (const kind of ["owner-maintenance", "temp-disable", "enable", "archive"]) {
      const r = await log(c.id, finder, kind);
      expect([kind, r.status, (await json(r)).error]).toEqual([kind, 403, "not_owner"]);
    }
    const rn = await log(c.id, owner, "reviewer-note");
    expect([rn.status, (await json(rn)).error]).toEqual([403, "not_reviewer"]);
    for (const kind of ["needs-maintenance", "needs-archive"]) {
      const r = await log(c.id, unverified, kind);
      expect([kind, r.status, (await json(r)).error]).toEqual([kind, 403, "verification_required"]);
    }
    expect(logCount(c.id)).toBe(0);
    expect(await cache(c.id)).toMatchObject({ status: "active", needsMaintenance: false });
    // a sysop reviews: a reviewer note is theirs to log
    expect((await log(c.id, sysop, "reviewer-note", "coordinates checked")).status).toBe(201);
  });

  test("the kinds each may log now, for the log form: the owner's follow the status", async () => {
    const c = await newCache(47.04);
    const kinds = async (u: TestUser) => (await json(await g.get(`/api/caches/${c.id}/log-kinds`, as(u)))).kinds;
    expect(await kinds(owner)).toEqual(["note", "needs-maintenance", "needs-archive", "owner-maintenance", "temp-disable", "archive"]);
    expect(await kinds(finder)).toEqual(["find", "dnf", "note", "needs-maintenance", "needs-archive"]);
    expect(await kinds(unverified)).toEqual(["find", "dnf", "note"]);
    expect(await kinds(sysop)).toContain("reviewer-note");
    await log(c.id, owner, "temp-disable");
    expect(await kinds(owner)).toEqual(["note", "needs-maintenance", "needs-archive", "owner-maintenance", "enable", "archive"]);
    expect((await g.get(`/api/caches/${c.id}/log-kinds`)).status).toBe(401);
  });

  test("will-attend and attended are for events only", async () => {
    const c = await newCache(47.03);
    const r = await log(c.id, finder, "will-attend");
    expect(r.status).toBe(400);
    expect(logCount(c.id)).toBe(0);
  });
});

describe("what the logs do to the cache", () => {
  test("temp-disable and enable move the status; each publishes the cache record again; a wrong move is 409", async () => {
    const c = await newCache(47.1);
    const v0 = (g.gw.db.query("SELECT v FROM fed_feed WHERE gid = ?").get(c.gid) as { v: number }).v;
    const off = await log(c.id, owner, "temp-disable", "flooded, back in spring");
    expect(off.status).toBe(201);
    expect(await json(off)).toMatchObject({ kind: "temp-disable", call: "N0OWN" });
    expect((await cache(c.id)).status).toBe("disabled");
    expect(record(c.gid)).toMatchObject({ status: "disabled" });
    expect((g.gw.db.query("SELECT v FROM fed_feed WHERE gid = ?").get(c.gid) as { v: number }).v).toBeGreaterThan(v0);
    const twice = await log(c.id, owner, "temp-disable");
    expect([twice.status, (await json(twice)).error]).toEqual([409, "bad_transition"]);
    expect((await log(c.id, owner, "enable", "dry again")).status).toBe(201);
    expect((await cache(c.id)).status).toBe("active");
    expect(record(c.gid)).toMatchObject({ status: "active" });
    const again = await log(c.id, owner, "enable");
    expect(again.status).toBe(409);
  });

  test("needs-maintenance raises the flag (cache JSON and record) until owner-maintenance; enable clears it too", async () => {
    const c = await newCache(47.2);
    expect(record(c.gid)!.needsMaintenance).toBeUndefined();
    const nm = await log(c.id, finder, "needs-maintenance", "log is soaked");
    expect(nm.status).toBe(201);
    expect(await cache(c.id)).toMatchObject({ needsMaintenance: true, status: "active" });
    expect(await json(await g.get(`/api/caches/${c.id}`))).toMatchObject({ needsMaintenance: true });
    expect(await json(await g.get(`/api/v1/caches/${c.id}`))).toMatchObject({ needsMaintenance: true });
    const v1 = await json(await g.get("/api/v1/finds?call=N0FND&kind=needs-maintenance"));
    expect(v1.finds.map((f: any) => [f.kind, f.text])).toContainEqual(["needs-maintenance", "log is soaked"]);
    expect(record(c.gid)).toMatchObject({ needsMaintenance: true });
    // the map's filter: maintenance=1 only flagged caches, 0 none of them
    const other = await newCache(47.21);
    const ids = async (q: string) => (await json(await g.get(`/api/caches?bbox=7.9,47.15,8.1,47.25${q}`))).caches.map((x: any) => x.id);
    expect(await ids("&maintenance=1")).toEqual([c.id]);
    expect(await ids("&maintenance=0")).toEqual([other.id]);
    expect((await json(await g.get("/api/caches?near=47.2,8&maintenance=1"))).caches.map((x: any) => x.id)).toEqual([c.id]);
    expect((await g.get("/api/caches?near=47.2,8&maintenance=yes")).status).toBe(400);
    // the log's own record: a note naming its kind, so a peer of an older version shows a note
    expect(record((await json(nm)).gid)).toMatchObject({ kind: "note", logKind: "needs-maintenance", text: "log is soaked" });
    expect((await log(c.id, owner, "owner-maintenance", "new logbook")).status).toBe(201);
    expect(await cache(c.id)).toMatchObject({ needsMaintenance: false });
    expect(record(c.gid)!.needsMaintenance).toBeUndefined();
    // needs-archive raises it as well; the owner disabling leaves it, enabling clears it
    expect((await log(c.id, finder, "needs-archive", "gone")).status).toBe(201);
    expect((await log(c.id, owner, "temp-disable")).status).toBe(201);
    expect(await cache(c.id)).toMatchObject({ needsMaintenance: true, status: "disabled" });
    expect((await log(c.id, owner, "enable")).status).toBe(201);
    expect(await cache(c.id)).toMatchObject({ needsMaintenance: false, status: "active" });
  });

  test("archive archives the cache: then only notes are taken", async () => {
    const c = await newCache(47.3);
    expect((await log(c.id, owner, "archive", "retired")).status).toBe(201);
    expect((await cache(c.id)).status).toBe("archived");
    expect(record(c.gid)).toMatchObject({ status: "archived" });
    const find = await log(c.id, finder, "find");
    expect([find.status, (await json(find)).error]).toEqual([409, "cache_archived"]);
    expect((await log(c.id, finder, "note", "it was a good one")).status).toBe(201);
  });

  test("only a find counts as a find: the count, finder stats and found-by-me stay as they were", async () => {
    const c = await newCache(47.4);
    const stats0 = await json(await g.get("/api/profile/N0FND/stats"));
    for (const kind of ["dnf", "needs-maintenance", "note"]) expect((await log(c.id, finder, kind)).status).toBe(201);
    expect((await cache(c.id)).finds).toBe(0);
    expect(await json(await g.get("/api/profile/N0FND/stats"))).toEqual(stats0);
    const mine = await json(await g.get("/api/caches?near=47.4,8&found=1", as(finder)));
    expect(mine.caches.map((x: any) => x.id)).not.toContain(c.id);
    expect((await log(c.id, finder, "find")).status).toBe(201);
    expect((await cache(c.id)).finds).toBe(1);
    const found = await json(await g.get("/api/caches?near=47.4,8&found=1", as(finder)));
    expect(found.caches.map((x: any) => x.id)).toContain(c.id);
  });

  test("the logbook shows each log with its kind", async () => {
    const c = await newCache(47.5);
    await log(c.id, finder, "needs-maintenance");
    await log(c.id, owner, "owner-maintenance");
    const book = await json(await g.get(`/api/caches/${c.id}/logs`));
    expect(book.logs.map((l: any) => l.kind)).toEqual(["owner-maintenance", "needs-maintenance"]);
  });
});

describe("reports", () => {
  test("a user reports a cache once (a new report replaces theirs); its owner and a reviewer read them, no one else", async () => {
    const c = await newCache(47.6);
    const bad = await g.post(`/api/caches/${c.id}/report`, { reason: "" }, as(finder));
    expect(bad.status).toBe(400);
    expect((await g.post(`/api/caches/${c.id}/report`, { reason: "on private land" }, as(finder))).status).toBe(201);
    expect((await g.post(`/api/caches/${c.id}/report`, { reason: "on private land, fenced" }, as(finder))).status).toBe(201);
    const own = await g.post(`/api/caches/${c.id}/report`, { reason: "my own" }, as(owner));
    expect([own.status, (await json(own)).error]).toEqual([409, "own_cache"]);
    const seen = await json(await g.get(`/api/caches/${c.id}/reports`, as(owner)));
    expect(seen.reports).toEqual([expect.objectContaining({ cacheId: c.id, call: "N0FND", reason: "on private land, fenced" })]);
    expect((await json(await g.get(`/api/caches/${c.id}/reports`, as(sysop)))).reports).toHaveLength(1);
    const other = await g.get(`/api/caches/${c.id}/reports`, as(unverified));
    expect([other.status, (await json(other)).error]).toEqual([403, "not_owner"]);
    expect((await g.post(`/api/caches/${c.id}/report`, { reason: "signed out" })).status).toBe(401);
    expect((await g.post("/api/caches/999999/report", { reason: "no such cache" }, as(finder))).status).toBe(404);
  });

  test("a reporter's reports are in their account export and go with their account", async () => {
    const c = await newCache(47.7);
    const u = signedInUser(g.gw, "N0REP", { verified: true });
    expect((await g.post(`/api/caches/${c.id}/report`, { reason: "cache is gone" }, as(u))).status).toBe(201);
    const x = await json(await g.post("/api/account/N0REP/export", {}, as(u)));
    expect(x.data.game.reports).toEqual([{ cacheId: c.id, call: "N0REP", reason: "cache is gone", createdAt: expect.any(Number) }]);
    expect((await g.post("/api/account/N0REP/delete", { confirm: true }, as(u))).status).toBe(200);
    expect((await json(await g.get(`/api/caches/${c.id}/reports`, as(owner)))).reports).toEqual([]);
  });
});
