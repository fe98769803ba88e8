/**
 * A cache's waypoints (docs/api.md "Waypoints"): the owner adds, changes and
 * deletes them; everyone sees them on the cache's JSON and /api/v1, but the
 * final only its owner and those who found it; others get 403, a draft's
 * 404 as the draft does; bad input is a 400 that changes nothing. The cache
 * record carries all but the final. A pocket query's child waypoints survive
 * a GPX import and come back out of the export in the same layout, which
 * gpsbabel reads; the owner's account export holds them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { decodePayload } from "../../src/lib/fed/record.ts";

let g: Running;
let owner: TestUser;
let finder: TestUser;
let other: TestUser;
let id = 0;
let draft = 0;
const as = (u: TestUser | null) => (u ? { headers: { cookie: u.cookie } } : {});
const call = (u: TestUser | null, path: string, method = "GET", body?: unknown) =>
  g.get(path, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(u ? { cookie: u.cookie } : {}) },
  });
type Wp = { id: number | null; kind: string; code: string; name: string; lat: number | null; lon: number | null; note: string | null };
const detail = async (u: TestUser | null, key: string | number = id) => (await (await g.get(`/api/caches/${key}`, as(u))).json()) as { waypoints: Wp[] };
const kinds = (ws: Wp[]) => ws.map((w) => w.kind);

beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0WPO", { verified: true });
  finder = signedInUser(g.gw, "N0WPF", { verified: true });
  other = signedInUser(g.gw, "N0WPX", { verified: true });
  const hide = async (body: Record<string, unknown>) => {
    const r = await g.post("/api/caches", { type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 47.4, lon: 8.5, ...body }, as(owner));
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  id = await hide({ name: "Three stages" });
  draft = await hide({ name: "Not yet", status: "draft" });
}, 60_000);
afterAll(async () => {
  await g.stop();
});

describe("waypoints of a cache", () => {
  test("the owner adds, changes and deletes them; the final only for the owner and finders; the record carries the rest", async () => {
    const add = async (body: Record<string, unknown>) => {
      const r = await call(owner, `/api/caches/${id}/waypoints`, "POST", body);
      expect(r.status).toBe(201);
      return ((await r.json()) as { waypoint: Wp }).waypoint;
    };
    const park = await add({ kind: "parking", name: "Car park", lat: 47.401, lon: 8.501, note: "Free on Sundays" });
    expect(park).toMatchObject({ kind: "parking", name: "Car park", lat: 47.401, lon: 8.501, note: "Free on Sundays", code: expect.stringMatching(/^PK/) });
    const s1 = await add({ kind: "physical-stage", name: "Stage 1", lat: 47.402, lon: 8.502 });
    const q = await add({ kind: "question", name: "Count the windows", note: "A = windows" });
    await add({ kind: "final", name: "Final", lat: 47.405, lon: 8.505, note: "Under the root" });
    expect([s1.code.slice(0, 2), q.code.slice(0, 2), q.lat]).toEqual(["S1", "QA", null]);

    // everyone sees all but the final; the owner sees it
    expect(kinds((await detail(null)).waypoints)).toEqual(["parking", "physical-stage", "question"]);
    expect(kinds((await detail(finder)).waypoints)).toEqual(["parking", "physical-stage", "question"]);
    expect(kinds((await detail(owner)).waypoints)).toEqual(["parking", "physical-stage", "question", "final"]);
    expect(kinds(((await (await g.get(`/api/caches/${id}/waypoints`)).json()) as { waypoints: Wp[] }).waypoints)).toEqual([
      "parking",
      "physical-stage",
      "question",
    ]);
    // a find shows it to the finder
    expect((await call(finder, `/api/caches/${id}/logs`, "POST", { kind: "find", text: "TFTC" })).status).toBe(201);
    expect((await detail(finder)).waypoints.at(-1)).toMatchObject({ kind: "final", lat: 47.405, note: "Under the root" });
    expect(kinds((await detail(other)).waypoints)).not.toContain("final");
    // /api/v1: anyone's view
    const v1 = (await (await g.get(`/api/v1/caches/${id}`)).json()) as { waypoints: Array<Record<string, unknown>> };
    expect(v1.waypoints.map((w) => w.kind)).toEqual(["parking", "physical-stage", "question"]);
    expect(v1.waypoints[0]).toEqual({ kind: "parking", code: park.code, name: "Car park", lat: 47.401, lon: 8.501, note: "Free on Sundays" });

    // the cache record: all but the final, coordinates scaled
    const body = () => {
      const row = g.gw.db.query("SELECT payload FROM fed_feed WHERE gid = ?").get(`gw1:cache:${id}`) as { payload: Uint8Array };
      return decodePayload(row.payload).body as { waypoints?: Array<Record<string, unknown>> };
    };
    expect(body().waypoints).toEqual([
      { kind: "parking", name: "Car park", latE7: 474010000, lonE7: 85010000, note: "Free on Sundays" },
      { kind: "physical-stage", name: "Stage 1", latE7: 474020000, lonE7: 85020000 },
      { kind: "question", name: "Count the windows", note: "A = windows" },
    ]);

    // change: a new name and no coordinates; a kind change takes that kind's prefix
    const ch = await call(owner, `/api/caches/${id}/waypoints/${s1.id}`, "PATCH", { name: "Stage one", lat: null, lon: null });
    expect(ch.status).toBe(200);
    expect(((await ch.json()) as { waypoint: Wp }).waypoint).toMatchObject({ name: "Stage one", lat: null, lon: null, code: s1.code });
    const k = (await (await call(owner, `/api/caches/${id}/waypoints/${s1.id}`, "PATCH", { kind: "virtual-stage" })).json()) as { waypoint: Wp };
    expect(k.waypoint).toMatchObject({ kind: "virtual-stage", name: "Stage one", code: expect.stringMatching(/^V1/) });
    // delete
    expect(await (await call(owner, `/api/caches/${id}/waypoints/${q.id}`, "DELETE")).json()).toEqual({ deleted: true });
    expect(kinds((await detail(null)).waypoints)).toEqual(["parking", "virtual-stage"]);
    expect(body().waypoints?.map((w) => w.kind)).toEqual(["parking", "virtual-stage"]);
    // an unlisted cache's record withholds them, as its description
    expect((await call(owner, `/api/caches/${id}`, "PATCH", { unlisted: true })).status).toBe(200);
    expect(body().waypoints).toBeUndefined();
    expect(kinds((await detail(null)).waypoints)).toEqual(["parking", "virtual-stage"]);
    expect((await call(owner, `/api/caches/${id}`, "PATCH", { unlisted: false })).status).toBe(200);
    expect(body().waypoints?.map((w) => w.kind)).toEqual(["parking", "virtual-stage"]);
  });

  test("others get 403, a draft's waypoints 404 as the draft, bad input 400; none of it changes anything", async () => {
    const before = await detail(owner);
    const wid = before.waypoints[0]!.id;
    for (const [u, method, path, body] of [
      [other, "POST", `/api/caches/${id}/waypoints`, { kind: "parking", name: "Mine now" }],
      [other, "PATCH", `/api/caches/${id}/waypoints/${wid}`, { name: "Mine now" }],
      [other, "DELETE", `/api/caches/${id}/waypoints/${wid}`, undefined],
      [finder, "DELETE", `/api/caches/${id}/waypoints/${wid}`, undefined],
    ] as const) {
      const r = await call(u, path, method, body);
      expect({ path, method, status: r.status }).toEqual({ path, method, status: 403 });
      expect(((await r.json()) as { error: string }).error).toBe("not_owner");
    }
    expect((await call(null, `/api/caches/${id}/waypoints`, "POST", { kind: "parking", name: "x" })).status).toBe(401);
    // a draft: its owner works on it, anyone else meets a 404
    expect((await call(owner, `/api/caches/${draft}/waypoints`, "POST", { kind: "trailhead", name: "Start" })).status).toBe(201);
    expect((await g.get(`/api/caches/${draft}/waypoints`)).status).toBe(404);
    expect((await call(other, `/api/caches/${draft}/waypoints`)).status).toBe(404);
    expect((await call(other, `/api/caches/${draft}/waypoints`, "POST", { kind: "parking", name: "x" })).status).toBe(404);
    expect((await call(owner, `/api/caches/${draft}/waypoints`)).status).toBe(200);
    expect((await call(owner, `/api/caches/999999/waypoints`, "POST", { kind: "parking", name: "x" })).status).toBe(404);
    expect((await call(owner, `/api/caches/${id}/waypoints/999999`, "PATCH", { name: "x" })).status).toBe(404);

    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ kind: "picnic", name: "x" }, /kind: must be one of parking, physical-stage/],
      [{ name: "no kind" }, /kind: is required/],
      [{ kind: "parking" }, /name: is required/],
      [{ kind: "parking", name: "x".repeat(101) }, /name: must be at most 100 characters/],
      [{ kind: "parking", name: "x", note: "n".repeat(501) }, /note must be 0-500/],
      [{ kind: "parking", name: "x", lat: 91, lon: 8 }, /lat: must be at most 90/],
      [{ kind: "parking", name: "x", lat: 47, lon: 181 }, /lon: must be at most 180/],
      [{ kind: "parking", name: "x", lat: 47 }, /lat and lon go together/],
      [{ kind: "parking", name: "x", colour: "red" }, /unknown field "colour"/],
    ];
    for (const [body, message] of bad) {
      const r = await call(owner, `/api/caches/${id}/waypoints`, "POST", body);
      const j = (await r.json()) as { error: string; message: string };
      expect({ body, status: r.status, error: j.error }).toEqual({ body, status: 400, error: "invalid" });
      expect(j.message).toMatch(message);
    }
    expect((await call(owner, `/api/caches/${id}/waypoints/${wid}`, "PATCH", {})).status).toBe(400);
    expect((await call(owner, `/api/caches/${id}/waypoints/${wid}`, "PATCH", { lat: 100, lon: 8 })).status).toBe(400);
    expect(await detail(owner)).toEqual(before);

    // at most 30 a cache
    const full = (
      (await (await g.post("/api/caches", { name: "Many", type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 47, lon: 8 }, as(owner))).json()) as {
        id: number;
      }
    ).id;
    for (let i = 0; i < 30; i++) expect((await call(owner, `/api/caches/${full}/waypoints`, "POST", { kind: "reference", name: `R${i}` })).status).toBe(201);
    const over = await call(owner, `/api/caches/${full}/waypoints`, "POST", { kind: "reference", name: "one too many" });
    expect(over.status).toBe(409);
    expect(((await over.json()) as { message: string }).message).toContain("at most 30");
    expect((await detail(owner, full)).waypoints.length).toBe(30);
  });

  test("the owner's account export holds each cache's waypoints, the final too", async () => {
    const x = (await (await g.post("/api/account/N0WPO/export", {}, as(owner))).json()) as {
      data: { game: { caches: Array<{ id: number; waypoints: Array<{ kind: string }> }> } };
    };
    expect(x.data.game.caches.find((c) => c.id === id)!.waypoints.map((w) => w.kind)).toEqual(["parking", "virtual-stage", "final"]);
  });

  test("an erased owner's callsign leaves the waypoints of its archived cache, here and in the record", async () => {
    const leaver = signedInUser(g.gw, "N0WPL", { verified: true });
    const c = (
      (await (
        await g.post("/api/caches", { name: "Leaver's walk", type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 47, lon: 8 }, as(leaver))
      ).json()) as {
        id: number;
      }
    ).id;
    expect((await call(leaver, `/api/caches/${c}/waypoints`, "POST", { kind: "parking", name: "N0WPL's drive", note: "Ask N0WPL-7 on 145.500" })).status).toBe(
      201,
    );
    expect((await g.post("/api/account/N0WPL/delete", { confirm: true }, as(leaver))).status).toBe(200);
    const after = await (await g.get(`/api/caches/${c}`)).text();
    expect(after).not.toContain("N0WPL");
    expect((JSON.parse(after) as { waypoints: Wp[] }).waypoints).toEqual([
      expect.objectContaining({ kind: "parking", name: "(erased)'s drive", note: "Ask (erased) on 145.500" }),
    ]);
    const row = g.gw.db.query("SELECT payload FROM fed_feed WHERE gid = ?").get(`gw1:cache:${c}`) as { payload: Uint8Array };
    expect(JSON.stringify(decodePayload(row.payload).body)).not.toContain("N0WPL");
  });
});

/** A pocket query: a multi with its parking, two stages and the final as separate <wpt>s, as geocaching.com writes them. */
const PQ = `<?xml version="1.0" encoding="utf-8"?>
<gpx xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.0" creator="Groundspeak Pocket Query" xmlns="http://www.topografix.com/GPX/1/0">
  <name>Pocket Query</name>
  <wpt lat="47.5" lon="9.5">
    <time>2015-06-01T00:00:00Z</time>
    <name>GC1ABCD</name>
    <desc>River walk by Someone, Multi-cache (2/3)</desc>
    <sym>Geocache</sym>
    <type>Geocache|Multi-cache</type>
    <groundspeak:cache id="1" available="True" archived="False" xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1">
      <groundspeak:name>River walk</groundspeak:name>
      <groundspeak:placed_by>Someone</groundspeak:placed_by>
      <groundspeak:type>Multi-cache</groundspeak:type>
      <groundspeak:container>Small</groundspeak:container>
      <groundspeak:difficulty>2</groundspeak:difficulty>
      <groundspeak:terrain>3</groundspeak:terrain>
      <groundspeak:long_description html="False">Walk the river.</groundspeak:long_description>
    </groundspeak:cache>
  </wpt>
${[
  ["47.49", "9.49", "PK1ABCD", "Free parking", "Parking", "Parking Area"],
  ["47.501", "9.501", "S11ABCD", "Count the steps: A", "Stage 1", "Stages of a Multicache"],
  ["47.502", "9.502", "S21ABCD", "Read the plaque: B", "Stage 2", "Stages of a Multicache"],
  ["47.5123", "9.5123", "FN1ABCD", "N 47° AB.CDE", "Final", "Final Location"],
]
  .map(
    ([lat, lon, code, cmt, desc, sym]) => `  <wpt lat="${lat}" lon="${lon}">
    <time>2015-06-01T00:00:00Z</time>
    <name>${code}</name>
    <cmt>${cmt}</cmt>
    <desc>${desc}</desc>
    <sym>${sym}</sym>
    <type>Waypoint|${sym}</type>
  </wpt>
`,
  )
  .join("")}</gpx>`;

/** The child <wpt>s of a GPX text: code, type, position, name and note. */
function children(gpx: string) {
  return [...gpx.matchAll(/<wpt lat="([^"]+)" lon="([^"]+)">([\s\S]*?)<\/wpt>/g)]
    .map(([, lat, lon, inner]) => {
      const tag = (t: string) => new RegExp(`<${t}>([^<]*)</${t}>`).exec(inner!)?.[1] ?? "";
      return { lat: Number(lat), lon: Number(lon), name: tag("name"), type: tag("type"), desc: tag("desc"), cmt: tag("cmt") };
    })
    .filter((w) => w.type.startsWith("Waypoint|"));
}

describe("GPX", () => {
  test("a pocket query's parking, stages and final survive import and come back out as it wrote them; gpsbabel reads the export", async () => {
    const imp = signedInUser(g.gw, "N0WPI", { verified: true });
    const post = (body: string) => g.get("/api/import/gpx", { method: "POST", body, headers: { cookie: imp.cookie, "content-type": "application/gpx+xml" } });
    const r = await post(PQ);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ caches: 1, created: 1, waypoints: 4, codes: ["GC1ABCD"] });
    const cacheId = (g.gw.db.query("SELECT id FROM caches WHERE source_ref = 'GC1ABCD'").get() as { id: number }).id;
    // the importer owns the copy: they see the final, anyone else the rest
    expect((await detail(imp, cacheId)).waypoints.map((w) => [w.code, w.kind, w.name])).toEqual([
      ["PK1ABCD", "parking", "Parking"],
      ["S11ABCD", "physical-stage", "Stage 1"],
      ["S21ABCD", "physical-stage", "Stage 2"],
      ["FN1ABCD", "final", "Final"],
    ]);
    expect(kinds((await detail(null, cacheId)).waypoints)).toEqual(["parking", "physical-stage", "physical-stage"]);
    // importing it again keeps four
    expect(await (await post(PQ)).json()).toMatchObject({ unchanged: 1, waypoints: 4 });
    expect((await detail(imp, cacheId)).waypoints.length).toBe(4);

    // the export, as the importer sees it: the same four, in the same layout
    const mine = await (await g.get(`/api/caches/${cacheId}/gpx`, as(imp))).text();
    expect(children(mine)).toEqual(children(PQ));
    const anyone = await (await g.get(`/api/caches/${cacheId}/gpx`)).text();
    expect(children(anyone).map((w) => w.name)).toEqual(["PK1ABCD", "S11ABCD", "S21ABCD"]);
    expect(anyone).not.toContain("AB.CDE");

    const file = join(tmpDir(), "gc1abcd.gpx");
    await Bun.write(file, mine);
    const p = Bun.spawnSync(["gpsbabel", "-i", "gpx", "-f", file, "-o", "gpx", "-F", "-"], { stdout: "pipe", stderr: "pipe" });
    expect({ code: p.exitCode, err: p.stderr.toString() }).toEqual({ code: 0, err: "" });
    const back = p.stdout.toString();
    for (const code of ["GC1ABCD", "PK1ABCD", "S11ABCD", "S21ABCD", "FN1ABCD"]) expect(back).toContain(`<name>${code}</name>`);
    const v = Bun.spawnSync(["xmllint", "--noout", "--schema", join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd"), file], { stderr: "pipe" });
    expect({ code: v.exitCode, err: v.stderr.toString().trim() }).toEqual({ code: 0, err: `${file} validates` });
  });
});
