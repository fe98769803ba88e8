/**
 * GET /api/search, the header's search: stations by callsign prefix, caches
 * by name or code, BBS messages by subject (bulletins for everyone, personal
 * mail only to its sender and addressee), peers by name (blocked ones to the
 * sysop only); limits and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { MIGRATIONS, openStore } from "../../src/core/store/db.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { join } from "node:path";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let cache: { id: number; code: string };
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0OPS" });
  alice = signedInUser(g.gw, "N0ALI", { verified: true });
  bob = signedInUser(g.gw, "N0BOB", { verified: true });
  carol = signedInUser(g.gw, "N0CAR", { verified: true });
  const r = await g.post("/ingest", ["N0SRCH-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>rolling", "N0SRCH-7>APRS,TCPIP*:!4238.14N/07119.83W["].join("\n"), {
    headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" },
  });
  expect(r.status).toBe(200);
  cache = (await (
    await g.post("/api/caches", { name: "Waterfall Search", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 42.5, lon: -71.1 }, as(alice))
  ).json()) as any;
  const post = (m: object) => g.post("/api/bbs/messages", m, as(alice));
  expect((await post({ type: "B", to: "ALL@WW", subject: "Club net tonight", body: "20:00 on the repeater." })).status).toBe(201);
  expect((await post({ type: "P", to: "N0BOB", subject: "Net control rota", body: "You are on Tuesday." })).status).toBe(201);
  upsertPeer(g.gw, { instance: "gw-searchable", trust: "trusted", endpoints: ["https:https://searchable.example.org;10"] });
  upsertPeer(g.gw, { instance: "gw-searchblocked", trust: "blocked" });
});
afterAll(() => g.stop());

const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const patch = (path: string, body: object, u: TestUser) =>
  g.get(path, { method: "PATCH", headers: { cookie: u.cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
const search = async (q: string, init?: RequestInit) => {
  const r = await g.get(`/api/search?q=${encodeURIComponent(q)}`, init);
  expect(r.status).toBe(200);
  return (await r.json()) as any;
};

describe("GET /api/search", () => {
  test("finds stations by callsign prefix and caches by name or code", async () => {
    expect((await search("n0srch")).stations.map((s: any) => s.call).sort()).toEqual(["N0SRCH-7", "N0SRCH-9"]);
    expect((await search("N0SRCH-9")).stations).toEqual([
      expect.objectContaining({ call: "N0SRCH-9", kind: "station", symbol: "/>", lat: expect.any(Number) }),
    ]);
    // a prefix, not a substring
    expect((await search("SRCH")).stations).toEqual([]);
    expect((await search("waterfall")).caches.map((c: any) => c.id)).toEqual([cache.id]);
    expect((await search(cache.code.toLowerCase())).caches.map((c: any) => c.id)).toEqual([cache.id]);
  });

  test("BBS messages by subject: bulletins for everyone, personal mail only to its parties", async () => {
    const subjects = (a: any) => a.messages.map((m: any) => m.subject).sort();
    expect(subjects(await search("net"))).toEqual(["Club net tonight"]);
    expect(subjects(await search("net", as(carol)))).toEqual(["Club net tonight"]);
    expect(subjects(await search("net", as(bob)))).toEqual(["Club net tonight", "Net control rota"]);
    expect(subjects(await search("net", as(alice)))).toEqual(["Club net tonight", "Net control rota"]);
    const b = (await search("club")).messages[0];
    expect(b).toMatchObject({ type: "B", from: "N0ALI", to: "ALL", subject: "Club net tonight" });
    // the link the search box follows opens the message for the same reader
    expect((await g.get(`/api/bbs/messages/${b.id}`)).status).toBe(200);
  });

  test("peers by name: those the registry lists publicly; the sysop sees blocked ones too", async () => {
    expect((await search("gw-search")).peers).toEqual([{ instance: "gw-searchable", trust: "trusted", url: "https://searchable.example.org" }]);
    const sysop = await search("gw-search", { headers: { "x-ingest-secret": INGEST } });
    expect(sysop.peers.map((p: any) => p.instance)).toEqual(["gw-searchable", "gw-searchblocked"]);
    const registry = (await (await g.get("/federation/registry")).json()) as any;
    expect(registry.items.find((i: any) => i.instance === "gw-searchable").endpoints).toEqual([
      { transport: "https", address: "https://searchable.example.org", priority: 10 },
    ]);
    expect(registry.items.map((i: any) => i.instance)).not.toContain("gw-searchblocked");
  });

  test("limits: each section is bounded", async () => {
    // 30 stations whose call starts N0LIM
    const lines = [...Array.from({ length: 16 }, (_, k) => `N0LIM-${k}`), ...Array.from({ length: 14 }, (_, k) => `N0LIMX${String.fromCharCode(65 + k)}`)].map(
      (c) => `${c}>APRS,TCPIP*:!4237.14N/07120.83W>`,
    );
    await g.post("/ingest", lines.join("\n"), { headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" } });
    expect((await search("N0LIM")).stations).toHaveLength(20);
    const r = await g.get("/api/search?q=N0LIM&limit=3");
    expect(((await r.json()) as any).stations).toHaveLength(3);
    expect((await g.get("/api/search?q=N0LIM&limit=500")).status).toBe(200);
  });

  test("bad input is a 400 with the error shape", async () => {
    for (const qs of ["", "q=", "q=%01abc", "q=" + "x".repeat(101), "q=net&limit=0", "q=net&limit=501", "q=net&limit=ten"]) {
      const r = await g.get(`/api/search?${qs}`);
      expect({ qs, status: r.status }).toEqual({ qs, status: 400 });
      const body = (await r.json()) as any;
      // A limit that is not a whole number fails the route's schema, which names the field.
      expect(body).toEqual({ error: "invalid", message: expect.any(String), ...(qs.endsWith("limit=ten") ? { field: "query.limit" } : {}) });
    }
    expect((await g.get("/api/search?q=" + "x".repeat(100))).status).toBe(200);
  });
});

describe("the cache word index (caches_text)", () => {
  test("words of the name, code, owner and description by prefix, accents folded; edits and archiving follow", async () => {
    const made = (await (
      await g.post(
        "/api/caches",
        {
          name: "Château Ruins",
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: 42.6,
          lon: -71.2,
          description: "Behind the old millpond.",
        },
        as(bob),
      )
    ).json()) as any;
    const ids = async (q: string) => (await search(q)).caches.map((c: any) => c.id);
    expect(await ids("chateau")).toEqual([made.id]);
    expect(await ids("CHÂT rui")).toEqual([made.id]);
    expect(await ids("millpo")).toEqual([made.id]);
    expect(await ids("n0bob")).toEqual([made.id]);
    expect(await ids(made.code)).toEqual([made.id]);
    // words, not substrings; every word must match
    expect(await ids("ateau")).toEqual([]);
    expect(await ids("chateau waterfall")).toEqual([]);
    expect(await ids("--")).toEqual([]);

    expect((await patch(`/api/caches/${made.id}`, { name: "Castle Keep" }, bob)).status).toBe(200);
    expect(await ids("chateau")).toEqual([]);
    expect(await ids("castle")).toEqual([made.id]);
    expect((await patch(`/api/caches/${made.id}`, { status: "archived" }, bob)).status).toBe(200);
    expect(await ids("castle")).toEqual([]);
  });

  test("a database from before the index is indexed when it is upgraded", () => {
    const file = join(tmpDir(), "old.db");
    const old = openStore(file, { upTo: MIGRATIONS.length - 1 });
    old
      .query(
        `INSERT INTO caches (name, type, size, difficulty, terrain, lat, lon, status, placed_at, created_at, updated_at, search, description)
         VALUES ('Old Mill', 'traditional', 'small', 1, 1, 1, 1, 'active', 0, 0, 0, 'old mill svc1 n0old', 'by the weir')`,
      )
      .run();
    old.close();
    const db = openStore(file);
    const hits = (q: string) => db.query("SELECT rowid FROM caches_text WHERE caches_text MATCH ?").all(q).length;
    expect([hits('"mil"*'), hits('"weir"*'), hits('"nothing"*')]).toEqual([1, 1, 0]);
    db.close();
  });
});

describe("GET /api/search is rate-limited per address", () => {
  test("the (N+1)th search in a minute is a 429 with Retry-After; an API key raises the limit", async () => {
    const small = await startInProcess({ RATE_LIMIT_PER_MINUTE: "4" });
    try {
      // issuing the key counts in the same bucket: 1 of 4
      const key = (await (await small.post("/api/v1", {})).json()) as { key: string };
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) codes.push((await small.get(`/api/search?q=n0${i}`)).status);
      expect(codes).toEqual([200, 200, 200]);
      const over = await small.get("/api/search?q=n0x");
      expect(over.status).toBe(429);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await over.json()).toMatchObject({ error: "rate_limited" });
      expect((await small.get("/api/search?q=n0x", { headers: { "x-api-key": key.key } })).status).toBe(200);
    } finally {
      await small.stop();
    }
  });
});
