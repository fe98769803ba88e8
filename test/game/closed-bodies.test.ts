/**
 * Every body of the game's write routes has one definition, a closed schema:
 * a member it does not declare is a 400 that names it (`field`), and changes
 * nothing, while the same body without it is taken. A find in an /ingest
 * batch is checked with the same schema as a log posted on its own.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-closed-0123456789";
let g: Running;
let owner: TestUser;
let finder: TestUser;
let cache = 0;
let list = 0;
let trackable = "";

const send = (path: string, method: string, body: unknown, u: TestUser | null) =>
  g.get(path, {
    method,
    body: JSON.stringify(body),
    headers: { "content-type": "application/json", ...(u ? { cookie: u.cookie } : { "x-ingest-secret": INGEST }) },
  });

/** What a refused write could have changed: the tables these routes write. */
const counts = () =>
  Object.fromEntries(
    ["caches", "logs", "cache_lists", "cache_list_items", "cache_waypoints", "trackables", "trackable_moves", "personal_notes", "ratings", "cache_reports"].map(
      (t) => [t, (g.gw.db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n],
    ),
  );

beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  const hid = await send(
    "/api/caches",
    "POST",
    { name: "Closed box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.1, lon: 8.1 },
    owner,
  );
  cache = ((await hid.json()) as { id: number }).id;
  list = ((await (await send("/api/lists", "POST", { name: "Mine" }, finder)).json()) as { id: number }).id;
  trackable = ((await (await send("/api/trackables", "POST", { name: "Bug" }, finder)).json()) as { ref: string }).ref;
});
afterAll(async () => {
  await g.stop();
});

describe("closed bodies", () => {
  test("each write route refuses an undeclared member by name and changes nothing; without it the body is taken", async () => {
    const routes: Array<[string, string, () => string, Record<string, unknown>, TestUser | null]> = [
      ["hide", "POST", () => "/api/caches", { name: "Second", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 47.2, lon: 8.2 }, owner],
      ["edit", "PATCH", () => `/api/caches/${cache}`, { hint: "under the stone" }, owner],
      ["log", "POST", () => `/api/caches/${cache}/logs`, { kind: "note", text: "nice walk" }, finder],
      ["log alias", "POST", () => "/api/logs", { cache, kind: "dnf" }, finder],
      ["waypoint", "POST", () => `/api/caches/${cache}/waypoints`, { kind: "parking", name: "Car park", lat: 47.1, lon: 8.1 }, owner],
      ["personal", "PUT", () => `/api/caches/${cache}/personal`, { note: "solved", corrected: { lat: 47.1, lon: 8.1 } }, finder],
      ["report", "POST", () => `/api/caches/${cache}/report`, { reason: "the lid is broken" }, finder],
      ["list", "POST", () => "/api/lists", { name: "Another" }, finder],
      ["list edit", "PATCH", () => `/api/lists/${list}`, { public: true }, finder],
      ["list add", "POST", () => `/api/lists/${list}/caches`, { cache }, finder],
      ["trackable", "POST", () => "/api/trackables", { name: "Coin", goal: "to the sea" }, finder],
      ["move", "POST", () => `/api/trackables/${trackable}/moves`, { kind: "note", text: "still here" }, finder],
    ];
    for (const [name, method, path, body, u] of routes) {
      const before = counts();
      const r = await send(path(), method, { ...body, colour: "red" }, u);
      const e = (await r.json()) as { error: string; message: string; field: string };
      expect({ name, status: r.status, error: e.error, field: e.field }).toEqual({ name, status: 400, error: "invalid", field: "body.colour" });
      expect(e.message).toContain('unknown field "colour"');
      expect({ name, counts: counts() }).toEqual({ name, counts: before });
      const ok = await send(path(), method, body, u);
      expect({ name, status: ok.status < 300 }).toEqual({ name, status: true });
    }
  });

  test("a member nested in a body is refused where it is: the contact, an attribute, corrected coordinates", async () => {
    for (const [path, method, body, u, field] of [
      [`/api/caches/${cache}`, "PATCH", { contact: { email: "a@b.example", fax: "1" } }, owner, "body.contact.fax"],
      [`/api/caches/${cache}`, "PATCH", { attributes: [{ id: 1, inc: true, colour: "red" }] }, owner, "body.attributes.0.colour"],
      [`/api/caches/${cache}/personal`, "PUT", { corrected: { lat: 47, lon: 8, alt: 400 } }, finder, "body.corrected.alt"],
    ] as const) {
      const r = await send(path, method, body, u);
      expect({ status: r.status, field: ((await r.json()) as { field: string }).field }).toEqual({ status: 400, field });
    }
  });

  test("a find in an /ingest batch is checked as a log is: a stray member refuses the whole batch and names the item", async () => {
    const before = counts();
    const r = await send(
      "/ingest",
      "POST",
      {
        finds: [
          { cache, call: "N0RFA-9" },
          { cache, call: "N0RFB-9", colour: "red" },
        ],
      },
      null,
    );
    const e = (await r.json()) as { error: string; message: string; field: string };
    expect({ status: r.status, field: e.field }).toEqual({ status: 400, field: "finds.1.colour" });
    expect(e.message).toContain('unknown field "colour"');
    expect(counts()).toEqual(before);
    const ok = await send(
      "/ingest",
      "POST",
      {
        finds: [
          { cache, call: "N0RFA-9" },
          { cache, call: "N0RFB-9", kind: "dnf" },
        ],
      },
      null,
    );
    expect(ok.status).toBe(200);
    expect(counts().logs).toBe(before.logs + 2);
  });
});
