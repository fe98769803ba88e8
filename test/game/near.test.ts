/**
 * Caches near me: GET /api/caches?near=LAT,LON answers nearest first with
 * distanceM and bearingDeg (checked against a hand computation: 0.01° of a
 * great circle is 6 371 008.8 m × π/180 × 0.01 = 1 111.95 m), across the
 * antimeridian and near a pole; the limit; the filters (found or not by me,
 * mine, disabled, Tier A finds, type); a rare attribute filter over 3,000
 * caches against a walk over all of them; and the 400s for bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

let g: Running;
let owner: TestUser;
let finder: TestUser;
const ids: Record<string, number> = {};
const json = (r: Response) => r.json() as Promise<any>;

async function hide(name: string, lat: number, lon: number, who: TestUser, over: Record<string, unknown> = {}): Promise<number> {
  const r = await g.post(
    "/api/caches",
    { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon, ...over },
    { headers: { cookie: who.cookie } },
  );
  expect(r.status).toBe(201);
  return (await json(r)).id;
}
const near = async (q: string, who?: TestUser) => {
  const r = await g.get(`/api/caches?${q}`, who ? { headers: { cookie: who.cookie } } : undefined);
  return { status: r.status, body: await json(r) };
};
const names = (b: any) => b.caches.map((c: any) => c.name);

beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  // Around 0,0: east 0.01°, south 0.02°, north-west 0.03°/0.03°, and one far off.
  ids.east = await hide("East", 0, 0.01, owner);
  ids.south = await hide("South", -0.02, 0, owner);
  ids.nw = await hide("North-west", 0.03, -0.03, finder, { type: "multi" });
  ids.far = await hide("Far", 10, 10, owner);
  // Across the antimeridian and by the north pole.
  ids.dateline = await hide("Dateline", 0, -179.995, owner);
  ids.pole = await hide("Pole", 89.999, 180, owner);
  // The finder finds East; South is disabled; North-west has a Tier A find.
  const f = await g.post(`/api/caches/${ids.east}/logs`, { kind: "find", text: "TFTC" }, { headers: { cookie: finder.cookie } });
  expect(f.status).toBe(201);
  const d = await g.get(`/api/caches/${ids.south}`, {
    method: "PATCH",
    body: JSON.stringify({ status: "disabled" }),
    headers: { cookie: owner.cookie, "content-type": "application/json" },
  });
  expect(d.status).toBe(200);
  const a = await g.post(`/api/caches/${ids.nw}/logs`, { kind: "find" }, { headers: { cookie: owner.cookie } });
  expect(a.status).toBe(201);
  // Tier A comes from an RF sighting (corroborate.ts); the test sets it on the row.
  g.gw.db.query("UPDATE logs SET tier = 'a' WHERE id = ?").run((await json(a)).id);
});
afterAll(() => g.stop());

describe("nearest first", () => {
  test("caches around 0,0 come nearest first with hand-computed distances and bearings", async () => {
    const { status, body } = await near("near=0,0&limit=4");
    expect(status).toBe(200);
    expect(names(body)).toEqual(["East", "South", "North-west", "Far"]);
    const [e, s, nw, far] = body.caches;
    expect(e).toMatchObject({ distanceM: 1112, bearingDeg: 90 });
    expect(s).toMatchObject({ distanceM: 2224, bearingDeg: 180 });
    // √2 × 0.03° = 4 717.6 m, to the north-west
    expect(nw.distanceM).toBe(4718);
    expect(nw.bearingDeg).toBe(315);
    // 0,0 to 10,10: 1 568.5 km on a bearing of 44.6° (the spherical formulas by hand)
    expect(Math.abs(far.distanceM - 1_568_520)).toBeLessThan(200);
    expect(far.bearingDeg).toBe(44.6);
  });

  test("limit cuts the list; the default is 20", async () => {
    expect(names((await near("near=0,0&limit=2")).body)).toEqual(["East", "South"]);
    expect((await near("near=0,0")).body.caches.length).toBe(6);
  });

  test("across the antimeridian: 0.01° east of 179.995 E is -179.995", async () => {
    const { body } = await near("near=0,179.995&limit=1");
    expect(body.caches[0]).toMatchObject({ name: "Dateline", distanceM: 1112, bearingDeg: 90 });
  });

  test("by the north pole: a cache across the pole lies straight north", async () => {
    const { body } = await near("near=89.999,0&limit=1");
    // 0.001° to the pole and 0.001° down the other side: 222.4 m, bearing 0
    expect(body.caches[0]).toMatchObject({ name: "Pole", distanceM: 222, bearingDeg: 0 });
  });
});

describe("filters", () => {
  test("found=1 answers what I found, found=0 the rest; both need a signed-in user", async () => {
    expect(names((await near("near=0,0&limit=3&found=1", finder)).body)).toEqual(["East"]);
    expect(names((await near("near=0,0&limit=3&found=0", finder)).body)).toEqual(["South", "North-west", "Far"]);
    const anon = await near("near=0,0&found=1");
    expect(anon.status).toBe(400);
    expect(anon.body.message).toContain("found");
  });

  test("mine=1 answers my caches; mine=0 the others", async () => {
    expect(names((await near("near=0,0&mine=1", finder)).body)).toEqual(["North-west"]);
    expect(names((await near("near=0,0&limit=2&mine=0", finder)).body)).toEqual(["East", "South"]);
  });

  test("disabled=1 answers disabled caches; disabled=0 leaves them out", async () => {
    expect(names((await near("near=0,0&disabled=1")).body)).toEqual(["South"]);
    expect(names((await near("near=0,0&limit=2&disabled=0")).body)).toEqual(["East", "North-west"]);
  });

  test("tierA=1 answers caches with an RF-proven find", async () => {
    expect(names((await near("near=0,0&tierA=1")).body)).toEqual(["North-west"]);
  });

  test("the search filters apply too: type", async () => {
    expect(names((await near("near=0,0&type=multi")).body)).toEqual(["North-west"]);
  });

  test("the map's box query takes the same filters", async () => {
    const { body } = await g.get("/api/caches?bbox=-1,-1,1,1&disabled=0").then(async (r) => ({ body: await json(r) }));
    expect(body.caches.map((c: any) => c.name).sort()).toEqual(["East", "North-west"]);
  });
});

describe("a rare filter", () => {
  test("attr=1,-32 answers exactly the nearest matches, as a walk over every cache computes them", async () => {
    // 3,000 caches in clusters around 40 N 20 E, about 1 in 60 with dogs yes and bicycles no (set on the rows: hiding 3,000 through the API is slow)
    let s = 29;
    const rnd = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
    const now = Date.now();
    const ins = g.gw.db.query(
      `INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, description, placed_at, created_at, updated_at, search, attributes)
       VALUES ('N0OWN', ?, 'traditional', 'small', 2, 2, ?, ?, 'active', '', ?, ?, ?, ?, ?)`,
    );
    g.gw.db.transaction(() => {
      for (let i = 0; i < 3000; i++) {
        const hub = i % 5;
        const [lat, lon] = [40 + hub * 0.8 + (rnd() - 0.5) * 0.6, 20 + hub * 1.1 + (rnd() - 0.5) * 0.8];
        const r = rnd();
        const attrs = r < 1 / 60 ? "[1,-32]" : r < 0.2 ? "[1,32]" : r < 0.3 ? "[-1,-32]" : r < 0.35 ? "[11]" : null;
        ins.run(`Rare ${i}`, Math.round(lat * 1e6) / 1e6, Math.round(lon * 1e6) / 1e6, now, now, now, `rare ${i}`, attrs);
      }
    })();
    const rows = g.gw.db
      .query("SELECT name, lat, lon FROM caches WHERE attributes = '[1,-32]' AND status IN ('active', 'disabled') AND unlisted = 0")
      .all() as Array<{
      name: string;
      lat: number;
      lon: number;
    }>;
    const rad = Math.PI / 180;
    const dist = (a: { lat: number; lon: number }, b: { lat: number; lon: number }) => {
      const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lon - a.lon) * rad) / 2) ** 2;
      return 2 * 6_371_008.8 * Math.asin(Math.min(1, Math.sqrt(h)));
    };
    for (const at of [
      { lat: 40, lon: 20 },
      { lat: 41.6, lon: 22.2 },
      { lat: 43, lon: 26 },
      { lat: 38.2, lon: 19.1 },
    ]) {
      for (const limit of [1, 20, 40]) {
        const want = rows
          .map((r) => ({ name: r.name, d: dist(at, r) }))
          .sort((a, b) => a.d - b.d)
          .slice(0, limit);
        const { status, body } = await near(`near=${at.lat},${at.lon}&limit=${limit}&attr=1,-32`);
        expect(status).toBe(200);
        expect(names(body)).toEqual(want.map((w) => w.name));
        expect(body.caches.map((c: any) => c.distanceM)).toEqual(want.map((w) => Math.round(w.d)));
      }
    }
    // a filter one cache matches, and one none does: fewer than the limit, found over the whole globe
    g.gw.db.query("UPDATE caches SET attributes = '[3,-4]' WHERE name = 'Rare 7'").run();
    expect(names((await near("near=-40,-60&limit=5&attr=3,-4")).body)).toEqual(["Rare 7"]);
    expect(await near("near=-40,-60&limit=5&attr=3,4")).toEqual({ status: 200, body: { caches: [] } });
  });
});

describe("bad input is a 400 naming the field", () => {
  for (const [q, field] of [
    ["near=91,0", "near"],
    ["near=abc", "near"],
    ["near=1,2,3", "near"],
    ["near=0,0&limit=0", "limit"],
    ["near=0,0&limit=201", "limit"],
    ["near=0,0&bbox=-1,-1,1,1", "bbox"],
    ["near=0,0&disabled=maybe", "disabled"],
    ["", "bbox"],
  ] as const) {
    test(`${q || "(nothing)"}: 400 naming ${field}`, async () => {
      const r = await g.get(`/api/caches?${q}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(await json(r))).toContain(field);
    });
  }
});

describe("/api/v1/caches?near= (an added optional parameter)", () => {
  test("nearest first with distanceM, bearingDeg and the stable fields; filters apply", async () => {
    const r = await g.get("/api/v1/caches?near=0,0&limit=3");
    const status = r.status;
    const body = await json(r);
    expect(status).toBe(200);
    expect(names(body)).toEqual(["East", "South", "North-west"]);
    expect(body.caches[0]).toMatchObject({ distanceM: 1112, bearingDeg: 90, url: expect.stringContaining("/cache/") });
    expect(body.next).toBeNull();
    const multi = await json(await g.get("/api/v1/caches?near=0,0&type=multi"));
    expect(names(multi)).toEqual(["North-west"]);
  });

  test("without near the listing is unchanged: by id, paged", async () => {
    const body = await json(await g.get("/api/v1/caches?limit=2"));
    expect(body.caches.map((c: any) => c.id)).toEqual([ids.east, ids.south]);
    expect(body.caches[0].distanceM).toBeUndefined();
    expect(body.next).toBe(ids.south);
  });

  test("bad near, limit over 200, near with bbox or after: 400 naming the field", async () => {
    for (const [q, field] of [
      ["near=0,200", "near"],
      ["near=0,0&limit=500", "limit"],
      ["near=0,0&bbox=-1,-1,1,1", "bbox"],
      ["near=0,0&after=3", "after"],
    ] as const) {
      const r = await g.get(`/api/v1/caches?${q}`);
      expect(r.status).toBe(400);
      expect(JSON.stringify(await json(r))).toContain(field);
    }
  });
});
