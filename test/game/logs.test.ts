/**
 * The logbook over HTTP: finds, DNFs and notes, the aliases, finds in ingest
 * batches, trust tiers (Tier A from an RF sighting heard through /ingest,
 * now or later), the pinned corroborating position surviving the pruner,
 * the hand-off to cross-instance corroboration, and GDPR erase.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { pruneAll } from "../../src/jobs/prune.ts";
import { promoteToTierA, TIER_A, type PendingFind } from "../../src/game/corroborate.ts";
import type { GatewayEvents } from "../../src/core/events.ts";
import { aprsPos, ingestBeacon } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
let offset = 0;
const clock = { now: () => Date.now() + offset };
let g: Running;
let owner: TestUser;
let finder: TestUser;
let unverified: TestUser;
const handedOff: PendingFind[] = [];
const events: Array<GatewayEvents["log"]> = [];
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST, FED_PRIVATE_KEY: generateKeyPair().privateKey }, { clock });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND-7", { verified: true });
  unverified = signedInUser(g.gw, "N0UNV");
  g.gw.events.on("findPending", (f) => handedOff.push(f));
  g.gw.events.on("log", (e) => events.push(e));
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const box = { headers: { "x-ingest-secret": INGEST } };

const beacon = (call: string, igate: string, lat: number, lon: number, heardAt: number) => ingestBeacon(g, INGEST, call, igate, lat, lon, heardAt);

async function newCache(lat: number, lon: number, over: Record<string, unknown> = {}) {
  const r = await g.post(
    "/api/caches",
    { name: `Cache ${lat},${lon}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon, ...over },
    as(owner),
  );
  expect(r.status).toBe(201);
  return json(r);
}
const findRecord = (gid: string) => {
  const row = g.gw.db.query("SELECT frame, type FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array; type: number } | null;
  if (!row) return null;
  const p = decodePayload(decodeFrame(row.frame).payload);
  return { type: p.type, v: p.v, body: p.body as Record<string, unknown> };
};
const pinnedTo = (logId: number) => (g.gw.db.query("SELECT id FROM positions WHERE find_id = ?").all(logId) as Array<{ id: number }>).map((r) => r.id);

describe("logging", () => {
  test("find, DNF and note; a verified callsign's find is tier b; records and log events follow", async () => {
    const c = await newCache(47.0, 8.0);
    const dnf = await g.post(`/api/caches/${c.id}/logs`, { kind: "dnf", text: "muggles everywhere" }, as(finder));
    expect(dnf.status).toBe(201);
    const find = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "find", text: "TFTC" }, as(finder)));
    expect(find).toMatchObject({ kind: "find", call: "N0FND-7", tier: "b", state: "active", cacheGid: c.gid, corroboration: null });
    const note = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "note", text: "bring a pen" }, as(owner)));
    expect(note.kind).toBe("note");
    const rec = findRecord(find.gid)!;
    expect(rec).toMatchObject({ type: 2, body: { cache: c.gid, kind: "find", call: "N0FND-7", tier: "b", text: "TFTC" } });
    expect(String(rec.body.account)).toStartWith("gw1:account:");
    expect(events.filter((e) => e.cacheGid === c.gid).map((e) => e.kind)).toEqual(["dnf", "find", "note"]);
    expect(events.find((e) => e.logId === find.id)).toMatchObject({ cacheId: c.id, call: "N0FND-7", lat: 47, lon: 8 });
    const book = await json(await g.get(`/api/caches/${c.id}/logs`));
    expect(book.logs.map((l: any) => l.kind)).toEqual(["note", "find", "dnf"]);
    expect((await json(await g.get(`/api/caches/${c.id}`))).finds).toBe(1);
  });

  test("the rules: one find per callsign, none on your own cache or a draft, notes need text, bad input changes nothing", async () => {
    const c = await newCache(47.1, 8.1);
    expect((await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(finder))).status).toBe(201);
    const again = await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(finder));
    expect([again.status, (await json(again)).error]).toEqual([409, "already_found"]);
    expect((await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(owner)))).error).toBe("own_cache");
    const draft = await newCache(47.2, 8.2, { status: "draft" });
    expect((await g.post(`/api/caches/${draft.id}/logs`, { kind: "find" }, as(finder))).status).toBe(404);
    const before = count(g.gw, "logs");
    for (const bad of [{ kind: "note" }, { kind: "found" }, { foundAt: Date.now() + 3_600_000 }, { text: 5 }, { call: "N0X" }]) {
      const r = await g.post(`/api/caches/${c.id}/logs`, bad, as(unverified));
      expect({ bad, status: r.status }).toEqual({ bad, status: 400 });
    }
    expect((await g.post(`/api/caches/999999/logs`, { kind: "find" }, as(finder))).status).toBe(404);
    expect(count(g.gw, "logs")).toBe(before);
  });

  test("the aliases POST /api/logs and /api/logs/find; an unverified callsign's find is tier c and is handed to cross-instance corroboration", async () => {
    const c = await newCache(47.3, 8.3);
    const n = await json(await g.post("/api/logs", { cache: c.id, kind: "note", text: "alias note" }, as(unverified)));
    expect(n.kind).toBe("note");
    const f = await json(await g.post("/api/logs/find", { cache: c.gid, text: "alias find" }, as(unverified)));
    expect(f).toMatchObject({ kind: "find", tier: "c", call: "N0UNV" });
    expect((await g.post("/api/logs/find", { cache: c.id, kind: "dnf" }, as(finder))).status).toBe(400);
    expect(handedOff.find((p) => p.logId === f.id)).toMatchObject({ gid: f.gid, cacheGid: c.gid, call: "N0UNV", lat: 47.3, lon: 8.3 });
    // the federation promotes through promoteToTierA when the peers' quorum agrees
    expect(promoteToTierA(g.gw, f.id, { source: "peers" })).toBe(true);
    const after = (await json(await g.get(`/api/caches/${c.id}/logs`))).logs.find((l: any) => l.id === f.id);
    expect(after).toMatchObject({ tier: "a", corroboration: { source: "peers" } });
    expect(findRecord(f.gid)!.body.tier).toBe("a");
  });

  test("the ingest box logs RF finds in /ingest batches; a bad item refuses the whole batch", async () => {
    const c = await newCache(47.4, 8.4);
    const r = await g.post("/ingest", { finds: [{ cache: c.id, call: "N0RFF-9", text: "found via APRS" }] }, box);
    expect(r.status).toBe(200);
    const out = await json(r);
    expect(out.finds).toMatchObject({ stored: 1, tierA: 0 });
    expect(out.finds.logs[0]).toMatchObject({ call: "N0RFF-9", tier: "c" });
    const before = count(g.gw, "logs");
    const bad = await g.post(
      "/ingest",
      {
        finds: [
          { cache: c.id, call: "N0OK" },
          { cache: c.id, call: "not a call" },
        ],
      },
      box,
    );
    expect(bad.status).toBe(400);
    expect(count(g.gw, "logs")).toBe(before);
  });

  test("a log sent again with its clientId (an offline field note retried) is stored, published and announced once", async () => {
    const c = await newCache(47.5, 8.5);
    const other = await newCache(47.6, 8.6);
    const logsOf = (id: number) => (g.gw.db.query("SELECT count(*) AS n FROM logs WHERE cache_id = ?").get(id) as { n: number }).n;
    // without a clientId, a note posted twice is two notes: the retry problem this solves
    for (let k = 0; k < 2; k++) expect((await g.post(`/api/caches/${c.id}/logs`, { kind: "note", text: "twice" }, as(finder))).status).toBe(201);
    expect(logsOf(c.id)).toBe(2);
    const feedBefore = count(g.gw, "fed_feed");
    const eventsBefore = events.length;
    const foundAt = clock.now() - 5 * 60_000;
    const body = { kind: "find", text: "signed the log at dawn", foundAt, clientId: "6f1c2a4e-0b7d-4f1e-9a53-2c8e5d7b9a10" };
    const first = await g.post(`/api/caches/${c.id}/logs`, body, as(finder));
    expect(first.status).toBe(201);
    const log = await json(first);
    expect(log).toMatchObject({ kind: "find", foundAt, text: "signed the log at dawn" });
    const again = await g.post(`/api/caches/${c.id}/logs`, body, as(finder));
    expect(again.status).toBe(200);
    expect(await json(again)).toMatchObject({ id: log.id, foundAt, replayed: true });
    // the alias honours it too
    expect((await g.post("/api/logs", { cache: c.id, ...body }, as(finder))).status).toBe(200);
    expect(logsOf(c.id)).toBe(3);
    expect(count(g.gw, "fed_feed")).toBe(feedBefore + 1);
    expect(events.length).toBe(eventsBefore + 1);
    // the same clientId for another cache is a mistake, not a retry; a bad one is refused
    const reused = await g.post(`/api/caches/${other.id}/logs`, body, as(finder));
    expect([reused.status, (await json(reused)).error]).toEqual([409, "client_id_reused"]);
    const bad = await g.post(`/api/caches/${other.id}/logs`, { ...body, clientId: "no spaces allowed" }, as(finder));
    expect([bad.status, (await json(bad)).error]).toEqual([400, "invalid"]);
    // another callsign may happen to use the same clientId: its own log
    expect((await g.post(`/api/caches/${c.id}/logs`, body, as(unverified))).status).toBe(201);
    expect(logsOf(other.id)).toBe(0);
    expect(logsOf(c.id)).toBe(4);
  });

  test("a find sent later keeps its found-at time, which is not before the day the cache was placed", async () => {
    const day = 86_400_000;
    const c = await newCache(47.7, 8.7, { placedAt: clock.now() - 2 * day });
    const early = await g.post(`/api/caches/${c.id}/logs`, { kind: "find", foundAt: clock.now() - 3.5 * day }, as(finder));
    expect([early.status, (await json(early)).message]).toEqual([400, "foundAt is before the cache was placed"]);
    expect(count(g.gw, "logs", "cache_id = " + c.id)).toBe(0);
    const foundAt = clock.now() - day;
    const ok = await g.post(`/api/caches/${c.id}/logs`, { kind: "find", foundAt }, as(finder));
    expect(ok.status).toBe(201);
    expect((await json(ok)).foundAt).toBe(foundAt);
  });
});

describe("Tier A", () => {
  test("an RF sighting near the cache, heard by an IGate, promotes a find at once and is pinned", async () => {
    const c = await newCache(48.1, 11.5);
    const now = clock.now();
    expect((await beacon("N0FND-9", "DB0IG-10", 48.1003, 11.5002, now - 20 * 60_000)).status).toBe(200);
    const f = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(finder)));
    expect(f.tier).toBe("a");
    expect(f.corroboration).toMatchObject({ source: "local", igate: "DB0IG-10" });
    expect(f.corroboration.distanceM).toBeGreaterThan(20);
    expect(f.corroboration.distanceM).toBeLessThan(TIER_A.radiusM);
    expect(pinnedTo(f.id).length).toBe(1);
    expect(findRecord(f.gid)!.body).toMatchObject({ tier: "a" });
    expect(Number(findRecord(f.gid)!.body.distanceCm)).toBe(Math.round(f.corroboration.distanceM * 100));
    expect(handedOff.find((p) => p.logId === f.id)).toBeUndefined();
  });

  test("not corroborating: too far, outside the window, or heard only by the finder's own IGate", async () => {
    const c = await newCache(48.2, 11.6);
    const now = clock.now();
    await beacon("N0UNV-9", "DB0IG-10", 48.2, 11.604, now - 10 * 60_000); // ~300 m away
    await beacon("N0UNV-9", "DB0IG-10", 48.2, 11.6, now - TIER_A.windowMs - 10 * 60_000); // too early
    await beacon("N0UNV-9", "N0UNV-10", 48.2, 11.6, now - 5 * 60_000); // own IGate
    await g.post("/ingest", { heardAt: now - 60_000, packets: [`N0UNV-9>APRS,TCPIP*,qAC,T2TEST:${aprsPos(48.2, 11.6)}`] }, box); // APRS-IS, not RF
    const f = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "find" }, as(unverified)));
    expect(f.tier).toBe("c");
    expect(pinnedTo(f.id)).toEqual([]);
  });

  test("a sighting that arrives after the find promotes it; the pinned position outlives the pruner until the find is deleted", async () => {
    const c = await newCache(48.3, 11.7);
    const f = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "find", foundAt: clock.now() - 30 * 60_000 }, as(finder)));
    expect(f.tier).toBe("b");
    expect(handedOff.find((p) => p.logId === f.id)).toBeDefined();
    await beacon("N0FND", "DB0XY-10", 48.3001, 11.7001, clock.now() - 25 * 60_000);
    const promoted = (await json(await g.get(`/api/caches/${c.id}/logs`))).logs.find((l: any) => l.id === f.id);
    expect(promoted).toMatchObject({ tier: "a", corroboration: { source: "local", igate: "DB0XY-10" } });
    const [pos] = pinnedTo(f.id);
    expect(pos).toBeDefined();
    // eight days later the pruner runs: the pinned position stays, the rest of the track goes
    offset = 8 * 86_400_000;
    await pruneAll(g.gw.db, g.gw.config, clock.now());
    expect(g.gw.db.query("SELECT id FROM positions WHERE id = ?").get(pos!)).not.toBeNull();
    expect(count(g.gw, "positions", "find_id IS NULL AND call = 'N0FND'")).toBe(0);
    // the finder deletes the find: unpinned, tombstoned, and the next prune takes the position
    const del = await g.get(`/api/logs/${f.id}`, { method: "DELETE", headers: { cookie: finder.cookie } });
    expect(del.status).toBe(200);
    expect(findRecord(f.gid)!.type).toBe(5);
    await pruneAll(g.gw.db, g.gw.config, clock.now());
    expect(g.gw.db.query("SELECT id FROM positions WHERE id = ?").get(pos!)).toBeNull();
    offset = 0;
  });

  test("only the author or the cache owner deletes a log", async () => {
    const c = await newCache(48.4, 11.8);
    const f = await json(await g.post(`/api/caches/${c.id}/logs`, { kind: "note", text: "hello" }, as(finder)));
    const stranger = signedInUser(g.gw, "N0STR", { verified: true });
    const sr = await g.get(`/api/logs/${f.id}`, { method: "DELETE", headers: { cookie: stranger.cookie } });
    expect(sr.status).toBe(403);
    expect((await g.get(`/api/logs/${f.id}`, { method: "DELETE", headers: { cookie: owner.cookie } })).status).toBe(200);
  });
});

describe("GDPR erase", () => {
  test("finds anonymised and WITHDRAWN (re-published, unpinned), owned caches archived and re-published", async () => {
    const leaver = signedInUser(g.gw, "N0BYE", { verified: true });
    const other = await newCache(49.0, 12.0);
    const now = clock.now();
    await beacon("N0BYE-7", "DB0IG-10", 49.0, 12.0, now - 60_000);
    const f = await json(await g.post(`/api/caches/${other.id}/logs`, { kind: "find", text: "my secret text" }, as(leaver)));
    expect(f.tier).toBe("a");
    const mine = await json(
      await g.post(
        "/api/caches",
        { name: "Leaver's cache", type: "multi", size: "regular", difficulty: 3, terrain: 3, lat: 49.1, lon: 12.1, contact: { email: "bye@example.org" } },
        as(leaver),
      ),
    );
    const export_ = await json(await g.post(`/api/account/N0BYE/export`, {}, as(leaver)));
    expect(export_.data.game.logs[0]).toMatchObject({ id: f.id, call: "N0BYE", text: "my secret text", tier: "a", corroboratingIgate: "DB0IG-10" });
    expect(export_.data.game.logs[0].corroboratingPosition).toMatchObject({ call: "N0BYE-7" });
    expect(export_.data.game.caches[0]).toMatchObject({ name: "Leaver's cache", contact: { email: "bye@example.org" } });
    const r = await g.post(`/api/account/N0BYE/delete`, { confirm: true }, as(leaver));
    expect(r.status).toBe(200);
    expect((await json(r)).summary.game).toMatchObject({ logsWithdrawn: 1, cachesArchived: 1 });
    const log = (await json(await g.get(`/api/caches/${other.id}/logs`))).logs.find((l: any) => l.id === f.id);
    expect(log).toMatchObject({ state: "withdrawn", call: null, text: null });
    const rec = findRecord(f.gid)!;
    expect(rec.body.state).toBe("withdrawn");
    expect(rec.body).not.toHaveProperty("call");
    expect(rec.body).not.toHaveProperty("account");
    expect(pinnedTo(f.id)).toEqual([]);
    const c = await json(await g.get(`/api/caches/${mine.id}`));
    expect(c).toMatchObject({ status: "archived", ownerCall: null });
    const crec = findRecord(mine.gid)!;
    expect(crec.body.status).toBe("archived");
    expect(crec.body).not.toHaveProperty("ownerCall");
    expect(crec.body).not.toHaveProperty("ownerAccount");
    expect(JSON.stringify(g.gw.db.query("SELECT * FROM caches WHERE id = ?").get(mine.id))).not.toContain("bye@example.org");
  });
});
