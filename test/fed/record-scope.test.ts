/**
 * What of issue 29's game federates and what stays home, across two real
 * gateways (A hides, B pulls A): a cache's waypoints (not the final),
 * attributes, open-maintenance flag and an event's day, times and zone are
 * part of its public record and show on B's mirror; a player's personal note
 * and corrected coordinates and their bookmark lists (public or private) never
 * leave A: they are in no record A publishes and nowhere in B's database.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Running } from "../helpers/gateway.ts";
import { count, trustedPair } from "../helpers/fed.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import type { Gateway } from "../../src/hosts/gateway.ts";

const keys = { a: generateKeyPair(), b: generateKeyPair() };
let A: Running;
let B: Running;
let owner: TestUser;
let finder: TestUser;
let solver: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const send = (u: TestUser, method: string, body: unknown) => ({
  method,
  body: JSON.stringify(body),
  headers: { cookie: u.cookie, "content-type": "application/json" },
});
/** Words only the personal data holds. */
const PRIVATE = ["Solved-it-29", "Weekend-list-29", "Secret-list-29"];

/** Which tables of a gateway hold any of `needles` in any text or blob column. */
function tablesHolding(gw: Gateway, needles: string[]): string[] {
  const out = new Set<string>();
  const tables = gw.db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>;
  for (const { name } of tables)
    for (const row of gw.db.query(`SELECT * FROM "${name}"`).all() as Array<Record<string, unknown>>)
      for (const v of Object.values(row)) {
        const text = typeof v === "string" ? v : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : "";
        if (needles.some((n) => text.includes(n))) out.add(name);
      }
  return [...out].sort();
}

beforeAll(async () => {
  [A, B] = await trustedPair(keys);
  owner = signedInUser(A.gw, "N0OWN", { verified: true });
  finder = signedInUser(A.gw, "N0FND", { verified: true });
  solver = signedInUser(A.gw, "N0SLV", { verified: true });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

test("waypoints, attributes, the maintenance flag and event times reach B; personal notes and lists stay on A", async () => {
  const hide = async (body: Record<string, unknown>) => {
    const r = await A.post("/api/caches", { size: "small", difficulty: 2, terrain: 2, lon: 8.1, ...body }, as(owner));
    expect(r.status).toBe(201);
    return json(r);
  };
  const multi = await hide({
    name: "Three weirs",
    type: "multi",
    lat: 47.1,
    attributes: [
      { id: 1, inc: true },
      { id: 32, inc: false },
    ],
  });
  for (const w of [
    { kind: "parking", name: "Car park", lat: 47.099, lon: 8.099 },
    { kind: "final", name: "Final", lat: 47.102, lon: 8.102 },
  ])
    expect((await A.post(`/api/caches/${multi.id}/waypoints`, w, as(owner))).status).toBe(201);
  expect((await A.post(`/api/caches/${multi.id}/logs`, { kind: "needs-maintenance", text: "the log is wet" }, as(finder))).status).toBe(201);
  const date = new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10);
  const meet = await hide({
    name: "Weir meet",
    type: "event",
    size: "other",
    lat: 47.2,
    event: { date, start: "17:00", end: "19:30", timeZone: "Europe/Zurich" },
  });

  // the solver's own data on A
  expect((await A.get(`/api/caches/${multi.id}/personal`, send(solver, "PUT", { note: "Solved-it-29", corrected: { lat: 47.123, lon: 8.123 } }))).status).toBe(
    200,
  );
  for (const [name, pub] of [
    ["Weekend-list-29", true],
    ["Secret-list-29", false],
  ] as const) {
    const l = await json(await A.get("/api/lists", send(solver, "POST", { name, public: pub })));
    for (const c of [multi, meet]) expect((await A.get(`/api/lists/${l.id}/caches`, send(solver, "POST", { cache: c.id }))).status).toBe(200);
  }
  expect(await json(await A.get(`/api/caches/${multi.id}`, as(solver)))).toMatchObject({ personal: { note: "Solved-it-29" } });

  expect(await pullPeer(B.gw, "gw-a")).toMatchObject({ ok: true, error: null });
  const there = await json(await B.get(`/api/caches/${encodeURIComponent(multi.gid)}`));
  expect(there).toMatchObject({
    mirror: true,
    lat: 47.1,
    lon: 8.1,
    needsMaintenance: true,
    attributes: [
      { id: 1, inc: true },
      { id: 32, inc: false },
    ],
  });
  expect(there.waypoints.map((w: any) => [w.kind, w.name])).toEqual([["parking", "Car park"]]);
  expect(await json(await B.get(`/api/caches/${encodeURIComponent(meet.gid)}`))).toMatchObject({
    mirror: true,
    event: { date, start: "17:00", end: "19:30", timeZone: "Europe/Zurich" },
  });

  // nothing personal in what A publishes, nor anywhere on B
  expect(tablesHolding(A.gw, PRIVATE)).toEqual(["cache_lists", "personal_notes"]);
  expect(count(A.gw, "fed_feed")).toBeGreaterThan(0);
  expect(tablesHolding(B.gw, PRIVATE)).toEqual([]);
  expect(tablesHolding(B.gw, ["47.123"])).toEqual([]);
  expect([count(B.gw, "personal_notes"), count(B.gw, "cache_lists"), count(B.gw, "cache_list_items")]).toEqual([0, 0, 0]);
});
