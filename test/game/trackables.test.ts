/**
 * Trackables over HTTP against a real gateway: making one (verified callsign
 * only; the tracking code shown once, never in a GET answer or the signed
 * record), moves and who may make them, bad input changing nothing, the
 * list queries, the distance, and Tier A for a drop beside an RF position
 * of the mover heard by another IGate.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { distanceM } from "../../src/game/model.ts";
import { join } from "node:path";
import { tmpDir } from "../helpers/tmp.ts";
import { ingestBeacon } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let owner: TestUser;
let finder: TestUser;
let other: TestUser;
let unverified: TestUser;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST, FED_PRIVATE_KEY: generateKeyPair().privateKey });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND-7", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  unverified = signedInUser(g.gw, "N0UNV");
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });

const beacon = (call: string, igate: string, lat: number, lon: number, heardAt: number) => ingestBeacon(g, INGEST, call, igate, lat, lon, heardAt);

async function newCache(lat: number, lon: number) {
  const r = await g.post("/api/caches", { name: `Cache ${lat},${lon}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon }, as(owner));
  expect(r.status).toBe(201);
  return json(r);
}
async function newTrackable(by: TestUser = owner, name = "Rubber duck") {
  const r = await g.post("/api/trackables", { name, goal: "See every 2 m repeater" }, as(by));
  expect(r.status).toBe(201);
  return json(r);
}
const move = (ref: string, u: TestUser, body: Record<string, unknown>) => g.post(`/api/trackables/${ref}/moves`, body, as(u));
const detail = async (ref: string) => json(await g.get(`/api/trackables/${ref}`));
const moveCount = () => count(g.gw, "trackable_moves");

describe("making a trackable", () => {
  test("a verified callsign makes one: a public ref and a random tracking code, shown this once", async () => {
    const t = await newTrackable();
    expect(t.ref).toMatch(/^SVT[0-9A-Z]{6}$/);
    expect(t.trackingCode).toMatch(/^[2-9A-HJKMNP-Z]{8}$/);
    expect(t).toMatchObject({ gid: "gw1:trackable:" + t.gid.split(":")[2], name: "Rubber duck", owner: "N0OWN", holder: "N0OWN", inCache: null, distanceM: 0 });
    const again = await newTrackable();
    expect(again.ref).not.toBe(t.ref);
    expect(again.trackingCode).not.toBe(t.trackingCode);
    // never in a GET answer, nor in the signed record (only its salted hash)
    const page = await g.get(`/api/trackables/${t.ref}`);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).not.toContain(t.trackingCode);
    expect(JSON.parse(text)).toMatchObject({ ref: t.ref, owner: "N0OWN", holder: "N0OWN", moves: [] });
    const row = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(t.gid) as { frame: Uint8Array };
    expect(Buffer.from(row.frame).toString("latin1")).not.toContain(t.trackingCode);
    const body = decodePayload(decodeFrame(row.frame).payload);
    expect(body).toMatchObject({ type: 8, body: { ref: t.ref, ownerCall: "N0OWN", name: "Rubber duck" } });
    expect(String(body.body.codeHash)).toMatch(/^[0-9a-f]{64}$/);
    // the ref in any case, or the gid
    expect((await detail(t.ref.toLowerCase())).gid).toBe(t.gid);
    expect((await detail(encodeURIComponent(t.gid))).ref).toBe(t.ref);
  });

  test("refused: signed out (401), an unverified callsign (403), bad input (400); nothing is made", async () => {
    const before = count(g.gw, "trackables");
    const out = await g.post("/api/trackables", { name: "x" });
    expect(out.status).toBe(401);
    const unv = await g.post("/api/trackables", { name: "x" }, as(unverified));
    expect([unv.status, (await json(unv)).error]).toEqual([403, "callsign_not_verified"]);
    for (const bad of [{}, { name: "" }, { name: "x", colour: "red" }, { name: "x".repeat(101) }]) {
      const r = await g.post("/api/trackables", bad, as(owner));
      expect(r.status).toBe(400);
      expect(await json(r)).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
    expect(count(g.gw, "trackables")).toBe(before);
    expect((await g.get("/api/trackables/SVTNOSUCH")).status).toBe(404);
  });
});

describe("moves", () => {
  test("drop, retrieve with the code, grab from the holder, drop again: state, history and distance", async () => {
    const c1 = await newCache(48.1, 11.5);
    const c2 = await newCache(48.2, 11.6);
    const t = await newTrackable();
    const drop = await move(t.ref, owner, { kind: "drop", cacheId: c1.id, text: "Off you go" });
    expect(drop.status).toBe(201);
    const d = await json(drop);
    expect(d.move).toMatchObject({ kind: "drop", call: "N0OWN", cacheGid: c1.gid, tier: "b", text: "Off you go" });
    expect(d.trackable).toMatchObject({ holder: null, inCache: c1.gid });
    // taking it needs the code
    const noCode = await move(t.ref, finder, { kind: "retrieve" });
    expect([noCode.status, (await json(noCode)).error]).toEqual([403, "code_required"]);
    const wrong = await move(t.ref, finder, { kind: "retrieve", trackingCode: "ZZZZZZZZ" });
    expect([wrong.status, (await json(wrong)).error]).toEqual([403, "wrong_code"]);
    const grabFromCache = await move(t.ref, finder, { kind: "grab", trackingCode: t.trackingCode });
    expect([grabFromCache.status, (await json(grabFromCache)).error]).toEqual([409, "in_cache"]);
    const got = await move(t.ref, finder, { kind: "retrieve", cacheId: c1.id, trackingCode: t.trackingCode.toLowerCase() });
    expect(got.status).toBe(201);
    expect((await json(got)).trackable).toMatchObject({ holder: "N0FND-7", inCache: null });
    // its owner no longer holds it: no drop
    const notHolder = await move(t.ref, owner, { kind: "drop", cacheId: c2.id });
    expect([notHolder.status, (await json(notHolder)).error]).toEqual([403, "not_holder"]);
    const grab = await move(t.ref, other, { kind: "grab", trackingCode: t.trackingCode });
    expect((await json(grab)).trackable).toMatchObject({ holder: "N0OTH", inCache: null });
    const drop2 = await move(t.ref, other, { kind: "drop", cacheId: c2.gid });
    expect(drop2.status).toBe(201);
    const now = await detail(t.ref);
    expect(now).toMatchObject({ holder: null, inCache: c2.gid, missing: false });
    expect(now.moves.map((m: any) => `${m.kind}:${m.call}`)).toEqual(["drop:N0OWN", "retrieve:N0FND-7", "grab:N0OTH", "drop:N0OTH"]);
    expect(now.distanceM).toBeCloseTo(distanceM(48.1, 11.5, 48.2, 11.6), 0);
    // the lists
    const inC2 = await json(await g.get(`/api/trackables?cache=${c2.id}`));
    expect(inC2.trackables.map((x: any) => x.ref)).toEqual([t.ref]);
    expect((await json(await g.get(`/api/trackables?cache=${c1.id}`))).trackables).toEqual([]);
    expect((await json(await g.get("/api/trackables?holder=N0OTH"))).trackables.map((x: any) => x.ref)).not.toContain(t.ref);
    const grab2 = await move(t.ref, finder, { kind: "retrieve", trackingCode: t.trackingCode });
    expect(grab2.status).toBe(201);
    const held = await json(await g.get("/api/trackables?holder=N0FND"));
    expect(held.trackables.map((x: any) => x.ref)).toEqual([t.ref]);
    expect(held.trackables[0]).toMatchObject({ holder: "N0FND-7", inCache: null });
    expect((await json(await g.get("/api/trackables?owner=N0OWN"))).trackables.map((x: any) => x.ref)).toContain(t.ref);
    const two = await g.get("/api/trackables?owner=N0OWN&holder=N0OTH");
    expect(two.status).toBe(400);
  });

  test("discover and note with the code change nothing; the owner marks it missing, and a grab finds it again", async () => {
    const t = await newTrackable();
    const seen = await move(t.ref, other, { kind: "discover", trackingCode: t.trackingCode });
    expect(seen.status).toBe(201);
    const noteNoCode = await move(t.ref, other, { kind: "note", text: "Saw it at the hamfest" });
    expect([noteNoCode.status, (await json(noteNoCode)).error]).toEqual([403, "code_required"]);
    expect((await move(t.ref, owner, { kind: "note", text: "Still mine" })).status).toBe(201);
    expect(await detail(t.ref)).toMatchObject({ holder: "N0OWN", inCache: null });
    const notOwner = await move(t.ref, other, { kind: "missing", trackingCode: t.trackingCode });
    expect([notOwner.status, (await json(notOwner)).error]).toEqual([403, "not_owner"]);
    expect((await move(t.ref, owner, { kind: "missing", text: "Lost at the rally" })).status).toBe(201);
    expect(await detail(t.ref)).toMatchObject({ holder: null, inCache: null, missing: true });
    expect((await move(t.ref, finder, { kind: "grab", trackingCode: t.trackingCode })).status).toBe(201);
    expect(await detail(t.ref)).toMatchObject({ holder: "N0FND-7", missing: false });
  });

  test("bad input is refused with a clear 4xx and changes nothing", async () => {
    const c = await newCache(48.3, 11.7);
    const archived = await newCache(48.31, 11.71);
    const archive = await fetch(`${g.url}/api/caches/${archived.id}`, {
      method: "PATCH",
      headers: { cookie: owner.cookie, "content-type": "application/json" },
      body: JSON.stringify({ status: "archived" }),
    });
    expect(archive.status).toBe(200);
    const t = await newTrackable();
    const before = moveCount();
    const cases: Array<[TestUser, Record<string, unknown>, number, string]> = [
      [owner, { kind: "teleport" }, 400, "invalid"],
      [owner, { kind: "drop" }, 400, "invalid"],
      [owner, { kind: "drop", cacheId: c.id, at: Date.now() + 3_600_000 }, 400, "invalid"],
      [owner, { kind: "drop", cacheId: c.id, wings: true }, 400, "invalid"],
      [owner, { kind: "note" }, 400, "invalid"],
      [owner, { kind: "drop", cacheId: archived.id }, 409, "cache_archived"],
      [owner, { kind: "drop", cacheId: 999999 }, 404, "not_found"],
      [owner, { kind: "retrieve", trackingCode: t.trackingCode }, 409, "not_in_cache"],
      [owner, { kind: "grab", trackingCode: t.trackingCode }, 409, "already_holder"],
      [other, { kind: "visit", cacheId: c.id }, 403, "not_holder"],
      [other, { kind: "grab" }, 403, "code_required"],
    ];
    for (const [u, body, status, error] of cases) {
      const r = await move(t.ref, u, body);
      const j = await json(r);
      expect([JSON.stringify(body), r.status, j.error]).toEqual([JSON.stringify(body), status, error]);
      expect(typeof j.message).toBe("string");
    }
    expect(moveCount()).toBe(before);
    expect((await g.post(`/api/trackables/${t.ref}/moves`, { kind: "note", text: "hi" })).status).toBe(401);
    expect((await move("SVTNOSUCH", owner, { kind: "note", text: "hi" })).status).toBe(404);
    // a move dated in the past is placed in the history by its time
    const past = Date.now() - 3_600_000;
    const r = await move(t.ref, owner, { kind: "visit", cacheId: c.id, at: past + 123 });
    expect(r.status).toBe(201);
    expect((await json(r)).move.at).toBe(Math.floor((past + 123) / 1000) * 1000);
  });
});

describe("Tier A", () => {
  test("a drop beside an RF position of the mover, heard by another IGate, is Tier A; without one it is b", async () => {
    const c = await newCache(48.5, 11.9);
    const far = await newCache(48.6, 12.0);
    const t = await newTrackable(finder, "Tin frog");
    expect((await beacon("N0FND-9", "DB0IG-10", 48.5004, 11.9003, Date.now() - 10 * 60_000)).status).toBe(200);
    // the mover's own IGate is no witness
    expect((await beacon("N0FND-9", "N0FND-10", 48.6001, 12.0001, Date.now() - 10 * 60_000)).status).toBe(200);
    const a = await json(await move(t.ref, finder, { kind: "drop", cacheId: c.id }));
    expect(a.move).toMatchObject({ kind: "drop", tier: "a" });
    const stored = g.gw.db.query("SELECT corr_igate AS igate, corr_distance_m AS d FROM trackable_moves WHERE kind = 'drop' AND cache_gid = ?").get(c.gid) as {
      igate: string;
      d: number;
    };
    expect(stored.igate).toBe("DB0IG-10");
    expect(stored.d).toBeLessThan(150);
    const rec = g.gw.db.query("SELECT frame FROM fed_feed WHERE type = 9 ORDER BY seq DESC LIMIT 1").get() as { frame: Uint8Array };
    expect(decodePayload(decodeFrame(rec.frame).payload).body).toMatchObject({ kind: "drop", tier: "a", cache: c.gid, call: "N0FND-7" });
    expect((await move(t.ref, finder, { kind: "retrieve", trackingCode: t.trackingCode })).status).toBe(201);
    const b = await json(await move(t.ref, finder, { kind: "drop", cacheId: far.id }));
    expect(b.move.tier).toBe("b");
  });
});

describe("Tier A later", () => {
  test("a drop logged before the mover's RF position arrives becomes Tier A when it comes, and its record is published again", async () => {
    const c = await newCache(48.7, 12.1);
    const t = await newTrackable(other, "Glass bead");
    const d = await json(await move(t.ref, other, { kind: "drop", cacheId: c.id }));
    expect(d.move.tier).toBe("b");
    const before = g.gw.db.query("SELECT v FROM fed_feed WHERE gid = ?").get(d.move.gid) as { v: number };
    // the mover's own IGate is no witness; another one is
    expect((await beacon("N0OTH-9", "N0OTH-10", 48.7002, 12.1001, Date.now())).status).toBe(200);
    expect((await detail(t.ref)).moves[0].tier).toBe("b");
    expect((await beacon("N0OTH-9", "DB0XY-10", 48.7002, 12.1001, Date.now())).status).toBe(200);
    expect((await detail(t.ref)).moves[0]).toMatchObject({ kind: "drop", tier: "a" });
    const row = g.gw.db.query("SELECT v, frame FROM fed_feed WHERE gid = ?").get(d.move.gid) as { v: number; frame: Uint8Array };
    expect(row.v).toBe(before.v + 1);
    expect(decodePayload(decodeFrame(row.frame).payload).body).toMatchObject({ tier: "a" });
  });
});

describe("GDPR", () => {
  test("export holds an account's trackables and moves; erase keeps them, naming no one, and publishes them again", async () => {
    const leaver = signedInUser(g.gw, "N0BYE", { verified: true });
    const c = await newCache(47.6, 11.0);
    const t = await newTrackable(leaver, "Leaver's bug");
    expect((await move(t.ref, leaver, { kind: "drop", cacheId: c.id, text: "Bye from N0BYE" })).status).toBe(201);
    expect((await move(t.ref, other, { kind: "retrieve", trackingCode: t.trackingCode })).status).toBe(201);
    const exported = await json(await g.post("/api/account/N0BYE/export", {}, as(leaver)));
    expect(exported.data.game.trackables).toMatchObject([{ ref: t.ref, ownerCall: "N0BYE" }]);
    expect(exported.data.game.trackableMoves).toMatchObject([{ kind: "drop", call: "N0BYE", text: "Bye from N0BYE" }]);
    const r = await g.post("/api/account/N0BYE/delete", { confirm: true }, as(leaver));
    expect(r.status).toBe(200);
    expect((await json(r)).summary.game).toMatchObject({ trackablesAnonymised: 1, trackableMovesAnonymised: 1 });
    const after = await g.get(`/api/trackables/${t.ref}`);
    const text = await after.text();
    expect(text).not.toContain("N0BYE");
    expect(JSON.parse(text)).toMatchObject({ owner: "(erased)", holder: "N0OTH", inCache: null });
    expect(JSON.parse(text).moves.map((m: any) => [m.kind, m.call, m.text])).toEqual([
      ["drop", "(erased)", null],
      ["retrieve", "N0OTH", null],
    ]);
    const record = (gid: string) => {
      const row = g.gw.db.query("SELECT v, frame FROM fed_feed WHERE gid = ?").get(gid) as { v: number; frame: Uint8Array };
      return { v: row.v, body: decodePayload(decodeFrame(row.frame).payload).body };
    };
    const tr = record(t.gid);
    expect(tr.v).toBe(2);
    expect(tr.body).not.toHaveProperty("ownerCall");
    expect(tr.body).not.toHaveProperty("ownerAccount");
    const dropGid = JSON.parse(text).moves[0].gid;
    const mr = record(dropGid);
    expect(mr.v).toBe(2);
    expect(mr.body).not.toHaveProperty("call");
    expect(mr.body).not.toHaveProperty("account");
    expect(mr.body).not.toHaveProperty("text");
  });
});

describe("GPX", () => {
  const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
  test("a cache's GPX lists the trackables in it (valid against Groundspeak 1.0.1); an import keeps listed travel bugs that are not ours", async () => {
    const c = await newCache(47.9, 11.2);
    const t = await newTrackable(owner, "Brass <key> & chain");
    expect((await move(t.ref, owner, { kind: "drop", cacheId: c.id })).status).toBe(201);
    const gpx = await (await g.get(`/api/caches/${c.id}/gpx`)).text();
    expect(gpx).toContain(`<groundspeak:travelbug id="${t.gid.split(":")[2]}" ref="${t.ref}">`);
    expect(gpx).toContain("<groundspeak:name>Brass &lt;key&gt; &amp; chain</groundspeak:name>");
    const file = join(tmpDir(), "one.gpx");
    await Bun.write(file, gpx);
    const v = Bun.spawnSync(["xmllint", "--noout", "--schema", XSD, file]);
    expect({ code: v.exitCode, err: v.stderr.toString().trim() }).toEqual({ code: 0, err: `${file} validates` });
    // the same file as another catalog's listing, with a geocaching.com travel bug beside ours
    const foreign = `<groundspeak:travelbug id="12345" ref="TB1A2B3">
          <groundspeak:name>Someone's bug</groundspeak:name>
        </groundspeak:travelbug>
        <groundspeak:travelbug id="1" ref="${t.ref}">`;
    const listing = gpx.replace(`<name>${c.code}</name>`, "<name>GC9TBX1</name>").replace(/<groundspeak:travelbug id="\d+" ref="[^"]+">/, foreign);
    const post = (body: string) => g.post("/api/import/gpx", body, { headers: { cookie: owner.cookie, "content-type": "application/gpx+xml" } });
    const imported = await post(listing);
    expect(imported.status).toBe(200);
    expect(await json(imported)).toMatchObject({ caches: 1, created: 1 });
    const row = g.gw.db.query("SELECT id FROM caches WHERE source_ref = 'GC9TBX1'").get() as { id: number };
    expect(g.gw.db.query("SELECT ref, tb_id AS id, name FROM cache_travelbugs WHERE cache_id = ?").all(row.id)).toEqual([
      { ref: "TB1A2B3", id: "12345", name: "Someone's bug" },
    ]);
    const again = await (await g.get(`/api/caches/${row.id}/gpx`)).text();
    expect(again).toContain('<groundspeak:travelbug id="12345" ref="TB1A2B3">');
    // ours is where its moves put it, not where a file says
    expect(again).not.toContain(t.ref);
    // importing the listing again without travel bugs leaves none
    expect(
      (await post(listing.replace(/<groundspeak:travelbugs>[\s\S]*<\/groundspeak:travelbugs>/, "<groundspeak:travelbugs></groundspeak:travelbugs>"))).status,
    ).toBe(200);
    expect(count(g.gw, "cache_travelbugs", `cache_id = ${row.id}`)).toBe(0);
  });
});
