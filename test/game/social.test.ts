/**
 * Ratings, favorites and watches (finders only, where the spec says so), the
 * media gallery, audio-cache stages, search, leaderboard, activity, top
 * corroborating IGates, profile stats and supporter recognition.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { pngChunk, pngFile } from "../../src/http/pwa.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let owner: TestUser;
let finder: TestUser;
let stranger: TestUser;
let cacheId: number;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  stranger = signedInUser(g.gw, "N0STR", { verified: true });
  const c = await (
    await g.post("/api/caches", { name: "Social cache", type: "audio", size: "small", difficulty: 3, terrain: 2, lat: 52.5, lon: 13.4 }, as(owner))
  ).json();
  cacheId = (c as { id: number }).id;
  expect((await g.post(`/api/caches/${cacheId}/logs`, { kind: "find", text: "great" }, as(finder))).status).toBe(201);
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
function as(u: TestUser, extra: Record<string, string> = {}) {
  return { headers: { cookie: u.cookie, ...extra } };
}

/** A real 1x1 PNG (signature, IHDR, IDAT, IEND with CRCs), made with the gateway's own chunk writer. */
function png(): Uint8Array {
  const ihdr = new Uint8Array([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  const idat = new Uint8Array(deflateSync(new Uint8Array([0, 255, 0, 0])));
  return pngFile([pngChunk("IHDR", ihdr), pngChunk("IDAT", idat)]);
}

describe("ratings, favorites, watches", () => {
  test("finders rate 1-5 and favorite; others may not; anyone signed in may watch", async () => {
    const rate = (u: TestUser, stars: unknown) => g.post(`/api/caches/${cacheId}/rate`, { stars }, as(u));
    const refused = await rate(stranger, 5);
    expect([refused.status, (await json(refused)).error]).toEqual([403, "not_a_finder"]);
    for (const bad of [0, 6, 2.5, "5"]) expect((await rate(finder, bad)).status).toBe(400);
    expect(await json(await rate(finder, 4))).toMatchObject({ stars: 4, rating: { average: 4, count: 1 } });
    expect(await json(await rate(finder, 5))).toMatchObject({ rating: { average: 5, count: 1 } });
    expect((await g.post(`/api/caches/${cacheId}/favorite`, {}, as(stranger))).status).toBe(403);
    expect(await json(await g.post(`/api/caches/${cacheId}/favorite`, {}, as(finder)))).toEqual({ favorite: true, favorites: 1 });
    expect(await json(await g.post(`/api/caches/${cacheId}/watch`, {}, as(stranger)))).toEqual({ watch: true });
    const detail = await json(await g.get(`/api/caches/${cacheId}`, as(finder)));
    expect(detail).toMatchObject({ favorites: 1, rating: { average: 5, count: 1 }, my: { stars: 5, favorite: true, watch: false, found: true } });
    expect((await json(await g.get(`/api/caches/${cacheId}`, as(stranger)))).my.watch).toBe(true);
    expect(await json(await g.post(`/api/caches/${cacheId}/watch`, { watch: false }, as(stranger)))).toEqual({ watch: false });
    expect((await g.post(`/api/caches/${cacheId}/rate`, { stars: 5 })).status).toBe(401);
  });

  test("bad input is a 400 naming the field it is in, and changes nothing", async () => {
    const before = await json(await g.get(`/api/caches/${cacheId}`, as(finder)));
    for (const [path, body, field] of [
      [`/api/caches/${cacheId}/rate`, { stars: "5" }, "body.stars"],
      [`/api/caches/${cacheId}/rate`, { stars: 4.5 }, "body.stars"],
      [`/api/caches/${cacheId}/favorite`, { favorite: "no" }, "body.favorite"],
      ["/api/caches/GC123/rate", { stars: 1 }, "params.id"],
    ] as const) {
      const r = await g.post(path, body, as(finder));
      expect({ path, body, status: r.status, answer: await json(r) }).toMatchObject({ path, body, status: 400, answer: { error: "invalid", field } });
    }
    const after = await json(await g.get(`/api/caches/${cacheId}`, as(finder)));
    expect(after.my).toEqual(before.my);
    // The same routes take good input.
    expect(await json(await g.post(`/api/caches/${cacheId}/rate`, { stars: 3 }, as(finder)))).toMatchObject({ stars: 3 });
  });
});

describe("media gallery", () => {
  test("owners and loggers upload real images within the limits; anyone views them", async () => {
    const img = png();
    const up = (u: TestUser, body: Uint8Array, type: string, q = "") =>
      g.get(`/api/caches/${cacheId}/media${q}`, { method: "POST", body: body as BodyInit, headers: { cookie: u.cookie, "content-type": type } });
    const r = await up(finder, img, "image/png", "?caption=at%20the%20cache");
    expect(r.status).toBe(201);
    const m = await json(r);
    expect(m).toMatchObject({ type: "image/png", size: img.length, caption: "at the cache", by: "N0FND" });
    const file = await g.get(m.url);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(img as Uint8Array<ArrayBuffer>);
    expect((await up(stranger, img, "image/png")).status).toBe(403);
    const before = count(g.gw, "media");
    expect((await up(owner, img, "image/jpeg")).status).toBe(400); // not a JPEG
    expect((await up(owner, new TextEncoder().encode("<svg/>"), "image/svg+xml")).status).toBe(415);
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    big.set(img);
    expect((await up(owner, big, "image/png")).status).toBe(413);
    expect(count(g.gw, "media")).toBe(before);
    expect((await json(await g.get(`/api/caches/${cacheId}/media`))).media.map((x: any) => x.id)).toEqual([m.id]);
    // the uploader's GDPR export carries the file itself
    const exp = await json(await g.post("/api/account/N0FND/export", {}, as(finder)));
    expect(Buffer.from(exp.data.game.media[0].base64, "base64")).toEqual(Buffer.from(img));
    expect((await g.get(m.url, { method: "DELETE", headers: { cookie: stranger.cookie, "content-type": "application/json" }, body: "{}" })).status).toBe(403);
  });
});

describe("audio-cache stages", () => {
  test("numbered stages unlock in order by their answers; content is revealed only when unlocked", async () => {
    const wav = new Uint8Array(44);
    wav.set(new TextEncoder().encode("RIFF\x24\x00\x00\x00WAVEfmt "), 0);
    const audio = await json(
      await g.get(`/api/caches/${cacheId}/media`, { method: "POST", body: wav as BodyInit, headers: { cookie: owner.cookie, "content-type": "audio/wav" } }),
    );
    const stages = [
      { title: "The bridge", question: "What year is on the plaque?", content: "Go to N52 30.100 E013 24.200", answer: "1896", audioMediaId: audio.id },
      { title: "The tower", question: "What colour is the door?", content: "The box is behind the third stone", answer: "Dark Green" },
    ];
    expect((await g.post(`/api/caches/${cacheId}/stages`, { stages }, as(finder))).status).toBe(403);
    expect((await g.post(`/api/caches/${cacheId}/stages`, { stages: [{ title: "x" }] }, as(owner))).status).toBe(400);
    const set = await json(await g.post(`/api/caches/${cacheId}/stages`, { stages }, as(owner)));
    expect(set.stages.map((s: any) => s.content)).toEqual(["Go to N52 30.100 E013 24.200", "The box is behind the third stone"]);
    expect(JSON.stringify(g.gw.db.query("SELECT * FROM stages").all())).not.toContain("Dark Green");
    const anon = await json(await g.get(`/api/caches/${cacheId}/stages`));
    expect(anon.stages).toEqual([
      { n: 1, title: "The bridge", question: "What year is on the plaque?", audio: `/api/media/${audio.id}`, unlocked: false },
      { n: 2, title: "The tower", unlocked: false },
    ]);
    const unlock = (n: number, answer: string) => g.post(`/api/caches/${cacheId}/stages/${n}/unlock`, { answer }, as(stranger));
    const early = await unlock(2, "dark green");
    expect([early.status, (await json(early)).error]).toEqual([409, "locked_in_order"]);
    const wrong = await unlock(1, "1900");
    expect([wrong.status, (await json(wrong)).error]).toEqual([422, "wrong_answer"]);
    const one = await json(await unlock(1, " 1896 "));
    expect(one.unlocked).toMatchObject({ n: 1, unlocked: true, content: "Go to N52 30.100 E013 24.200" });
    expect(one.next).toEqual({ n: 2, title: "The tower", question: "What colour is the door?", audio: null, unlocked: false });
    const two = await json(await unlock(2, "DARK   green"));
    expect(two.unlocked.content).toBe("The box is behind the third stone");
    const mine = await json(await g.get(`/api/caches/${cacheId}/stages`, as(stranger)));
    expect(mine.next).toBeNull();
    expect((await g.post(`/api/caches/${cacheId}/stages/9/unlock`, { answer: "x" }, as(stranger))).status).toBe(404);
  });
});

describe("media and stages through the ingest box (gate actor)", () => {
  test("x-ingest-secret uploads a picture, sets the stages and unlocks one for a player heard on RF; nothing without it", async () => {
    const box = (extra: Record<string, string> = {}) => ({ headers: { "x-ingest-secret": INGEST, ...extra } });
    const hider = signedInUser(g.gw, "N0BOX", { verified: true });
    const c = await json(
      await g.post("/api/caches", { name: "Box cache", type: "audio", size: "small", difficulty: 2, terrain: 2, lat: 52.6, lon: 13.5 }, as(hider)),
    );
    const img = png();
    const upload = (headers: Record<string, string>) =>
      g.get(`/api/caches/${c.id}/media`, { method: "POST", body: img as BodyInit, headers: { "content-type": "image/png", ...headers } });
    const stages = [{ title: "Gate", question: "Year?", content: "N52 36.000 E013 30.000", answer: "1901" }];
    const mediaBefore = count(g.gw, "media");
    // Refused without credentials or with a wrong secret: nothing stored.
    expect((await upload({})).status).toBe(401);
    expect((await upload({ "x-ingest-secret": INGEST + "x" })).status).toBe(401);
    expect((await g.post(`/api/caches/${c.id}/stages`, { stages })).status).toBe(401);
    expect((await g.post(`/api/caches/${c.id}/stages/1/unlock`, { answer: "1901", call: "N0FND" })).status).toBe(401);
    expect(count(g.gw, "media")).toBe(mediaBefore);
    // Admitted with the ingest secret.
    const up = await upload({ "x-ingest-secret": INGEST });
    expect(up.status).toBe(201);
    expect(count(g.gw, "media")).toBe(mediaBefore + 1);
    const set = await g.post(`/api/caches/${c.id}/stages`, { stages }, box());
    expect(set.status).toBe(200);
    expect((await json(await g.get(`/api/caches/${c.id}/stages`))).stages).toEqual([{ n: 1, title: "Gate", question: "Year?", audio: null, unlocked: false }]);
    // The box names the player; the unlock is the account's that holds the callsign verified.
    expect((await g.post(`/api/caches/${c.id}/stages/1/unlock`, { answer: "1901" }, box())).status).toBe(400);
    expect((await g.post(`/api/caches/${c.id}/stages/1/unlock`, { answer: "1901", call: "N0NONE" }, box())).status).toBe(404);
    const wrong = await g.post(`/api/caches/${c.id}/stages/1/unlock`, { answer: "1902", call: "N0FND-7" }, box());
    expect(wrong.status).toBe(422);
    const ok = await g.post(`/api/caches/${c.id}/stages/1/unlock`, { answer: "1901", call: "N0FND-7" }, box());
    expect(ok.status).toBe(200);
    expect((await json(ok)).unlocked).toMatchObject({ n: 1, unlocked: true, content: "N52 36.000 E013 30.000" });
    expect((await json(await g.get(`/api/caches/${c.id}/stages`, as(finder)))).stages[0].unlocked).toBe(true);
    expect((await json(await g.get(`/api/caches/${c.id}/stages`, as(stranger)))).stages[0].unlocked).toBe(false);
  });
});

describe("search, leaderboard, activity, corroborators, profiles", () => {
  test("they reflect the finds and caches", async () => {
    // a Tier A find through an RF sighting heard by DB0IG-10
    const c2 = await json(
      await g.post("/api/caches", { name: "Riverside", type: "traditional", size: "micro", difficulty: 1, terrain: 1, lat: 52.51, lon: 13.41 }, as(owner)),
    );
    await g.post("/ingest", { packets: ["N0STR-9>APRS,WIDE1-1,qAR,DB0IG-10:!5230.60N/01324.60E["] }, { headers: { "x-ingest-secret": INGEST } });
    const f = await json(await g.post(`/api/caches/${c2.id}/logs`, { kind: "find" }, as(stranger)));
    expect(f.tier).toBe("a");
    await g.post(`/api/caches/${c2.id}/logs`, { kind: "find" }, as(finder));
    const s = await json(await g.get("/api/search?q=river"));
    expect(s.caches.map((c: any) => c.name)).toEqual(["Riverside"]);
    expect((await json(await g.get("/api/search?q=n0st"))).stations.map((x: any) => x.call)).toEqual(["N0STR-9"]);
    expect((await g.get("/api/search")).status).toBe(400);
    const lb = await json(await g.get("/api/leaderboard"));
    expect(lb.finders[0]).toEqual({ call: "N0FND", finds: 2, tierA: 0 });
    expect(lb.finders).toContainEqual({ call: "N0STR", finds: 1, tierA: 1 });
    expect(lb.hiders[0]).toMatchObject({ call: "N0OWN", caches: 2, finds: 3, favorites: 1 });
    const act = await json(await g.get("/api/activity?limit=3"));
    expect(act.items[0]).toMatchObject({ type: "log", kind: "find", call: "N0FND", cacheName: "Riverside" });
    expect(act.items.map((i: any) => i.type)).toContain("log");
    const cor = await json(await g.get("/api/corroborators"));
    expect(cor.igates).toEqual([expect.objectContaining({ call: "DB0IG-10", finds: 1, finders: 1 })]);
    const prof = await json(await g.get("/api/profile/N0FND"));
    expect(prof.game).toMatchObject({ finds: 2, tierA: 0, hidden: 0 });
    expect((await json(await g.get("/api/profile/N0OWN"))).game).toMatchObject({ hidden: 2, favoritesReceived: 1 });
  });
});

describe("supporters", () => {
  test("confirmed by the backend, listed only when they opt in", async () => {
    expect((await g.post("/api/support/confirm", { call: "N0FND" })).status).toBe(401);
    expect((await g.post("/api/support/prefs", { public: true }, as(finder))).status).toBe(409);
    expect((await g.post("/api/support/confirm", { call: "N0NONE" }, { headers: { "x-ingest-secret": INGEST } })).status).toBe(404);
    expect((await g.post("/api/support/confirm", { call: "N0FND", level: "club" }, { headers: { "x-ingest-secret": INGEST } })).status).toBe(200);
    expect((await json(await g.get("/api/support"))).supporters).toEqual([]);
    expect(await json(await g.get("/api/support/prefs", as(finder)))).toMatchObject({ supporter: true, public: false });
    expect(await json(await g.post("/api/support/prefs", { public: true, name: "Fred's shack" }, as(finder)))).toMatchObject({
      public: true,
      name: "Fred's shack",
    });
    expect((await json(await g.get("/api/support"))).supporters).toEqual([expect.objectContaining({ name: "Fred's shack", call: "N0FND", level: "club" })]);
    expect((await g.post("/api/support/prefs", { name: "" }, as(finder))).status).toBe(400);
    // A value of the wrong type is refused by the route's schema, naming the field, and changes nothing.
    expect(await json(await g.post("/api/support/prefs", { public: "no" }, as(finder)))).toMatchObject({ error: "invalid", field: "body.public" });
    // A field the prefs do not have is refused by name, not dropped.
    const unknown = await g.post("/api/support/prefs", { public: false, colour: "red" }, as(finder));
    expect({ status: unknown.status, body: await json(unknown) }).toMatchObject({
      status: 400,
      body: { error: "invalid", message: expect.stringContaining("colour") },
    });
    const refused = await g.post("/api/support/confirm", { call: "N0FND", until: "soon" }, { headers: { "x-ingest-secret": INGEST } });
    expect({ status: refused.status, body: await json(refused) }).toMatchObject({ status: 400, body: { error: "invalid", field: "body.until" } });
    expect((await json(await g.get("/api/support"))).supporters).toEqual([expect.objectContaining({ name: "Fred's shack", call: "N0FND", level: "club" })]);
    const page = await g.get("/support", { headers: { accept: "text/html" } });
    expect(page.headers.get("content-type")).toContain("text/html");
  });
});
