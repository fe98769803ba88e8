/**
 * The exports, read by independent tools:
 *  - GPX: xmllint --schema against GPX 1.0 + the Groundspeak cache 1.0.1
 *    extension (test/fixtures/xsd: transcriptions of the published schemas),
 *    and gpsbabel's GPX reader (geocache fields included);
 *  - KML: xmllint (well-formed) and gpsbabel's KML reader;
 *  - ADIF: adif-parser-ts; RSS: rss-parser.
 * And what must never be in them: the owner's contact fields. Plus the
 * idempotent GPX/LOC import, /api/v1 with its rate limit and API keys, and
 * the OpenAPI document listing the exports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { AdifParser } from "adif-parser-ts";
import Parser from "rss-parser";
import QRCode from "qrcode";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { tmpDir } from "../helpers/tmp.ts";

const INGEST = "ingest-secret-0123456789";
const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
const SECRET_CONTACT = "secret-owner@example.org";
let g: Running;
let owner: TestUser;
let finder: TestUser;
let dir: string;
const ids: Record<string, number> = {};
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", INGEST_SECRET: INGEST, RATE_LIMIT_PER_MINUTE: "1000", PUBLIC_URL: "https://gw1.example.org" });
  dir = tmpDir();
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  const hide = async (body: Record<string, unknown>) => {
    const r = await g.post(
      "/api/caches",
      { type: "traditional", size: "small", difficulty: 2, terrain: 2, contact: { email: SECRET_CONTACT, phone: "+1 555 0100" }, ...body },
      { headers: { cookie: owner.cookie } },
    );
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  ids.mill = await hide({
    name: "Old Mill & <Co>",
    type: "multi",
    difficulty: 2.5,
    terrain: 1.5,
    lat: 48.1234567,
    lon: 11.5432101,
    hint: "under the stone",
    description: "Line one\nLine two",
  });
  ids.bridge = await hide({ name: "Bridge", lat: 48.2, lon: 11.6, size: "micro" });
  ids.far = await hide({ name: "Far away", lat: -33.9, lon: 151.2 });
  ids.hidden = await hide({ name: "Unlisted one", lat: 48.15, lon: 11.55, unlisted: true });
  // a Tier A find on the mill: N0FND-7 heard by DB0IG-10 next to it
  await g.post("/ingest", { packets: ["N0FND-7>APRS,WIDE1-1,qAR,DB0IG-10:!4807.41N/01132.59E["] }, { headers: { "x-ingest-secret": INGEST } });
  const f = (await (
    await g.post(`/api/caches/${ids.mill}/logs`, { kind: "find", text: "Found it — TFTC!" }, { headers: { cookie: finder.cookie } })
  ).json()) as { tier: string };
  expect(f.tier).toBe("a");
  await g.post(`/api/caches/${ids.bridge}/logs`, { kind: "find", text: "quick one" }, { headers: { cookie: finder.cookie } });
});
afterAll(() => g.stop());

async function fetchTo(path: string, name: string): Promise<{ file: string; text: string; res: Response }> {
  const res = await g.get(path);
  expect(res.status).toBe(200);
  const text = await res.text();
  const file = join(dir, name);
  await Bun.write(file, text);
  return { file, text, res };
}

function run(cmd: string[]): { code: number; out: string; err: string } {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
}

/** gpsbabel's unicsv output as objects. */
function unicsv(out: string): Array<Record<string, string>> {
  const [head, ...rows] = out.trim().split(/\r?\n/);
  const split = (l: string) => [...l.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1]!.replace(/^"|"$/g, "").replace(/""/g, '"')).slice(0, -1);
  const cols = split(head!);
  return rows.map((r) => Object.fromEntries(split(r).map((v, k) => [cols[k]!, v])));
}

describe("GPX", () => {
  test("validates against GPX 1.0 + Groundspeak 1.0.1 and gpsbabel reads the geocache fields", async () => {
    const { file, text, res } = await fetchTo("/api/v1/caches.gpx", "all.gpx");
    expect(res.headers.get("content-type")).toBe("application/gpx+xml");
    const v = run(["xmllint", "--noout", "--schema", XSD, file]);
    expect({ code: v.code, err: v.err.trim() }).toEqual({ code: 0, err: `${file} validates` });
    expect(text).not.toContain(SECRET_CONTACT);
    expect(text).not.toContain("555 0100");
    expect(text).not.toContain("Unlisted one");
    const b = run(["gpsbabel", "-i", "gpx", "-f", file, "-o", "unicsv", "-F", "-"]);
    expect(b.code).toBe(0);
    const rows = unicsv(b.out);
    expect(rows.map((r) => r.Description).sort()).toEqual(["Bridge", "Far away", "Old Mill & <Co>"].sort());
    const mill = rows.find((r) => r.Description!.startsWith("Old Mill"))!;
    expect(mill).toMatchObject({
      Latitude: "48.123457",
      Longitude: "11.543210",
      Type: "Multi-cache",
      Container: "Small",
      Difficulty: "2.5",
      Terrain: "1.5",
      Placer: "N0OWN",
      Hint: "under the stone",
      Available: "True",
      Archived: "False",
    });
    expect(mill.Name).toMatch(/^SV[0-9A-Z]{4}$/);
    expect(mill["Last Found"]).toMatch(/^\d{4}\/\d\d\/\d\d/);
    expect(text).toContain("<groundspeak:type>Found it</groundspeak:type>");
    expect(text).toContain("RF-verified find, heard by DB0IG-10");
  });

  test("the schema check is real: a broken document fails it", async () => {
    const { text } = await fetchTo("/api/v1/caches.gpx?bbox=11,48,12,49", "part.gpx");
    const broken = join(dir, "broken.gpx");
    await Bun.write(broken, text.replace(/<groundspeak:difficulty>[^<]*</, "<groundspeak:difficulty>hard<"));
    expect(run(["xmllint", "--noout", "--schema", XSD, broken]).code).not.toBe(0);
    const reordered = join(dir, "reordered.gpx");
    await Bun.write(
      reordered,
      text
        .replace("<sym>Geocache</sym>", "")
        .replace("</urlname>\n    <type>", "</urlname>\n    <type>")
        .replace(/<url>([^<]*)<\/url>/, "<sym>Geocache</sym><url>$1</url>"),
    );
    expect(run(["xmllint", "--noout", "--schema", XSD, reordered]).code).not.toBe(0);
  });

  test("bbox (GeoJSON order, across the antimeridian too) and the search filters select caches", async () => {
    const names = async (q: string) => {
      const { file } = await fetchTo(`/api/v1/caches.gpx?${q}`, "q.gpx");
      expect(run(["xmllint", "--noout", "--schema", XSD, file]).code).toBe(0);
      return unicsv(run(["gpsbabel", "-i", "gpx", "-f", file, "-o", "unicsv", "-F", "-"]).out)
        .map((r) => r.Description)
        .sort();
    };
    expect(await names("bbox=11,48,12,49")).toEqual(["Bridge", "Old Mill & <Co>"]);
    expect(await names("bbox=150,-34,-170,-33")).toEqual(["Far away"]);
    expect(await names("size=micro")).toEqual(["Bridge"]);
    expect(await names("q=mill&difficulty=2-3")).toEqual(["Old Mill & <Co>"]);
    expect((await g.get("/api/v1/caches.gpx?bbox=1,2,3")).status).toBe(400);
  });

  test("one cache's GPX (the cache page's download): valid, with its logs; an unlisted one by its link; a draft only to its owner", async () => {
    const { file, res } = await fetchTo(`/api/caches/${ids.mill}/gpx`, "one.gpx");
    expect(res.headers.get("content-type")).toBe("application/gpx+xml");
    const code = ((await (await g.get(`/api/caches/${ids.mill}`)).json()) as { code: string }).code;
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="${code}.gpx"`);
    expect(run(["xmllint", "--noout", "--schema", XSD, file]).code).toBe(0);
    const rows = unicsv(run(["gpsbabel", "-i", "gpx", "-f", file, "-o", "unicsv", "-F", "-"]).out);
    expect(rows.map((r) => [r.Name, r.Description])).toEqual([[code, "Old Mill & <Co>"]]);
    expect(rows[0]!["Last Found"]).toMatch(/^\d{4}\/\d\d\/\d\d/);
    const unlisted = await fetchTo(`/api/caches/${ids.hidden}/gpx`, "unlisted.gpx");
    expect(unlisted.text).toContain("Unlisted one");
    expect(unlisted.text).not.toContain(SECRET_CONTACT);
    const draft = (await (
      await g.post(
        "/api/caches",
        { name: "Draft one", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48, lon: 11, status: "draft" },
        { headers: { cookie: owner.cookie } },
      )
    ).json()) as { id: number; status: string };
    expect(draft.status).toBe("draft");
    expect((await g.get(`/api/caches/${draft.id}/gpx`)).status).toBe(404);
    expect((await g.get(`/api/caches/${draft.id}/gpx`, { headers: { cookie: finder.cookie } })).status).toBe(404);
    const mine = await g.get(`/api/caches/${draft.id}/gpx`, { headers: { cookie: owner.cookie } });
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain("Draft one");
    expect((await g.get("/api/caches/999999/gpx")).status).toBe(404);
  });
});

describe("KML", () => {
  test("is well-formed KML 2.2 that gpsbabel reads", async () => {
    const { file, text } = await fetchTo("/api/v1/caches.kml?bbox=11,48,12,49", "caches.kml");
    expect(run(["xmllint", "--noout", file]).code).toBe(0);
    expect(text).toContain('xmlns="http://www.opengis.net/kml/2.2"');
    expect(text).not.toContain(SECRET_CONTACT);
    const rows = unicsv(run(["gpsbabel", "-i", "kml", "-f", file, "-o", "unicsv", "-F", "-"]).out);
    expect(rows.length).toBe(2);
    const mill = rows.find((r) => r.Name!.includes("Old Mill"))!;
    expect([Number(mill.Latitude), Number(mill.Longitude)]).toEqual([48.123457, 11.54321]);
  });
});

describe("ADIF", () => {
  test("a finder's RF-verified finds are contacts with the IGate that heard them", async () => {
    const res = await g.get("/api/v1/finds/N0FND.adif");
    expect(res.status).toBe(200);
    const adif = AdifParser.parseAdi(await res.text());
    expect(adif.header?.adif_ver).toBe("3.1.4");
    expect(adif.records?.length).toBe(1); // the Bridge find has no RF sighting: not a contact
    const r = adif.records![0]!;
    expect(r).toMatchObject({ call: "DB0IG-10", mode: "PKT", band: "2m", station_callsign: "N0FND-7", operator: "N0FND", my_sig: "GEOCACHE" });
    expect(r.qso_date).toMatch(/^\d{8}$/);
    expect(r.time_on).toMatch(/^\d{6}$/);
    expect(r.my_gridsquare).toBe("JN58sc"); // 48.1235N 11.5432E
    expect(r.comment).toContain("Geocache find SV");
    expect(AdifParser.parseAdi(await (await g.get("/api/v1/finds/N0FND-9.adif?band=70cm")).text()).records![0]!.band).toBe("70cm");
    expect(AdifParser.parseAdi(await (await g.get("/api/v1/finds/N0NONE.adif")).text()).records ?? []).toEqual([]);
    expect((await g.get("/api/v1/finds/not-a-call.adif")).status).toBe(400);
    expect((await g.get("/api/v1/finds/N0FND.txt")).status).toBe(400);
  });
});

describe("RSS feeds", () => {
  test("activity, caches, bulletins, leaderboard and per-user feeds parse as RSS 2.0", async () => {
    await g.post("/ingest", { packets: ["N0BLN>APRS::BLN1     :Club meeting Friday"] }, { headers: { "x-ingest-secret": INGEST } });
    const parser = new Parser();
    const read = async (name: string) => {
      const res = await g.get(`/feeds/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/rss+xml");
      const text = await res.text();
      expect(text).not.toContain(SECRET_CONTACT);
      return parser.parseString(text);
    };
    const act = await read("activity.xml");
    expect(act.title).toBe("gw1: geocaching activity");
    expect(act.items.map((i) => i.title)).toContain("N0FND found Old Mill & <Co> (RF-verified)");
    const caches = await read("caches.xml");
    expect(caches.items.map((i) => i.title)).toEqual(
      expect.arrayContaining(["Bridge (" + caches.items.find((i) => i.title!.startsWith("Bridge"))!.title!.slice(8, -1) + ")"]),
    );
    expect(caches.items.map((i) => i.title)).not.toContain(expect.stringContaining("Unlisted"));
    expect(caches.items[0]!.link).toStartWith("https://gw1.example.org/cache/");
    const bulletins = await read("bulletins.xml");
    expect(bulletins.items[0]!.title).toBe("BLN1 from N0BLN: Club meeting Friday");
    const lb = await read("leaderboard.xml");
    expect(lb.items[0]!.title).toBe("1. N0FND: 2 finds (1 RF-verified)");
    const user = await read("user/N0FND.xml");
    expect(user.items.length).toBe(2);
    expect((await g.get("/feeds/nope.xml")).status).toBe(404);
  });
});

describe("import", () => {
  test("GPX import of an export is idempotent; a GPX 1.1 Opencaching file and a LOC file too", async () => {
    const gpx = await (await g.get("/api/v1/caches.gpx?bbox=11,48,12,49")).text();
    const g2 = await startInProcess({ INSTANCE: "gw2", INGEST_SECRET: INGEST });
    try {
      const imp = signedInUser(g2.gw, "N0IMP", { verified: true });
      const post = (body: string, type = "application/gpx+xml", path = "/api/import/gpx") =>
        g2.get(path, { method: "POST", body, headers: { cookie: imp.cookie, "content-type": type } });
      const first = await post(gpx);
      expect(first.status).toBe(200);
      expect(await first.json()).toMatchObject({ caches: 2, created: 2, updated: 0, unchanged: 0 });
      expect(await (await post(gpx)).json()).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
      const edited = gpx.replace("under the stone", "under the big stone");
      expect(await (await post(edited)).json()).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
      const onMap = (await (await g2.get("/api/caches?bbox=11,48,12,49")).json()) as { caches: Array<Record<string, unknown>> };
      const millId = onMap.caches.find((c) => String(c.name).startsWith("Old Mill"))!.id;
      expect(await (await g2.get(`/api/caches/${millId}`)).json()).toMatchObject({
        type: "multi",
        size: "small",
        difficulty: 2.5,
        terrain: 1.5,
        hint: "under the big stone",
        source: "catalog",
        placedBy: "N0OWN",
        lat: 48.1234567,
      });
      // imports are another catalog's listings: never federated
      expect(count(g2.gw, "fed_feed", "type = 1")).toBe(0);
      const oc = `<?xml version="1.0" encoding="utf-8"?>
<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="Opencaching">
  <wpt lat="50.0500" lon="8.5000"><time>2019-04-01T00:00:00Z</time><name>OC1A2B3</name><type>Geocache|Unknown Cache</type>
    <extensions><groundspeak:cache xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1" available="True" archived="False">
      <groundspeak:name>Puzzle in the park</groundspeak:name><groundspeak:placed_by>Somebody</groundspeak:placed_by>
      <groundspeak:type>Unknown Cache</groundspeak:type><groundspeak:container>Regular</groundspeak:container>
      <groundspeak:difficulty>3.5</groundspeak:difficulty><groundspeak:terrain>2</groundspeak:terrain>
      <groundspeak:long_description html="True">&lt;p&gt;Solve &lt;b&gt;this&lt;/b&gt;&lt;/p&gt;</groundspeak:long_description>
      <groundspeak:encoded_hints>bench</groundspeak:encoded_hints></groundspeak:cache></extensions></wpt>
  <wpt lat="50.06" lon="8.51"><name>PARKING</name><sym>Parking Area</sym></wpt>
</gpx>`;
      expect(await (await post(oc)).json()).toMatchObject({ caches: 1, created: 1, codes: ["OC1A2B3"] });
      const park = ((await (await g2.get("/api/caches?bbox=8,50,9,51")).json()) as { caches: Array<Record<string, unknown>> }).caches;
      expect(park).toEqual([expect.objectContaining({ name: "Puzzle in the park", type: "mystery", size: "regular", difficulty: 3.5, placedBy: "Somebody" })]);
      expect(await (await g2.get(`/api/caches/${park[0]!.id}`)).json()).toMatchObject({ description: "Solve this", hint: "bench" });
      const loc = `<?xml version="1.0" encoding="UTF-8"?><loc version="1.0" src="Groundspeak"><waypoint><name id="GC12345"><![CDATA[Lakeside by A. Hider]]></name><coord lat="47.5" lon="9.5"/><type>Geocache</type><difficulty>1.5</difficulty><terrain>1</terrain><container>2</container></waypoint></loc>`;
      expect(await (await post(loc, "application/xml", "/api/import/loc")).json()).toMatchObject({ created: 1, codes: ["GC12345"] });
      const before = count(g2.gw, "caches");
      expect((await post("<gpx><wpt")).status).toBe(400);
      expect((await post("<notgpx/>")).status).toBe(400);
      expect((await post(gpx, "application/gpx+xml", "/api/import/xls")).status).toBe(404);
      expect((await g2.get("/api/import/gpx", { method: "POST", body: gpx, headers: { "content-type": "application/gpx+xml" } })).status).toBe(401);
      expect(count(g2.gw, "caches")).toBe(before);
    } finally {
      await g2.stop();
    }
  });
});

describe("/api/v1", () => {
  test("stable shapes without contact fields; rate-limit headers; a free API key raises the limit and is stored hashed", async () => {
    const lim = await startInProcess({ RATE_LIMIT_PER_MINUTE: "3", RATE_LIMIT_KEY_PER_MINUTE: "50" });
    try {
      const r1 = await lim.get("/api/v1/caches");
      expect(r1.headers.get("ratelimit-limit")).toBe("3");
      expect(r1.headers.get("ratelimit-remaining")).toBe("2");
      await lim.get("/api/v1/leaderboard");
      const keyRes = await lim.post("/api/v1", { label: "my app" });
      expect(keyRes.status).toBe(201);
      const key = (await keyRes.json()) as { key: string; limitPerMinute: number };
      expect(key.key).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(key.limitPerMinute).toBe(50);
      const blocked = await lim.get("/api/v1/caches");
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).not.toBeNull();
      const withKey = await lim.get("/api/v1/caches", { headers: { "x-api-key": key.key } });
      expect(withKey.status).toBe(200);
      expect(withKey.headers.get("ratelimit-limit")).toBe("50");
      expect(JSON.stringify(lim.gw.db.query("SELECT * FROM api_keys").all())).not.toContain(key.key);
    } finally {
      await lim.stop();
    }
    const list = (await (await g.get("/api/v1/caches?bbox=11,48,12,49")).json()) as { caches: Array<Record<string, unknown>>; next: number | null };
    expect(list.caches.map((c) => c.name)).toEqual(["Old Mill & <Co>", "Bridge"]);
    expect(list.caches[0]).toMatchObject({ url: `https://gw1.example.org/cache/${ids.mill}`, ownerCall: "N0OWN", finds: 1 });
    expect(JSON.stringify(list)).not.toContain(SECRET_CONTACT);
    const one = await (await g.get(`/api/v1/caches/${ids.mill}`)).json();
    expect(one).not.toHaveProperty("contact");
    const page = (await (await g.get("/api/v1/caches?limit=1")).json()) as { caches: unknown[]; next: number };
    expect(page.caches.length).toBe(1);
    const page2 = (await (await g.get(`/api/v1/caches?limit=1&after=${page.next}`)).json()) as { caches: Array<{ id: number }> };
    expect(page2.caches[0]!.id).toBeGreaterThan(page.next);
    const finds = (await (await g.get("/api/v1/finds?call=N0FND-3")).json()) as { finds: Array<Record<string, unknown>> };
    expect(finds.finds.map((f) => f.tier).sort()).toEqual(["a", "b"]);
    expect(finds.finds.find((f) => f.tier === "a")).toMatchObject({ igate: "DB0IG-10", call: "N0FND" });
    expect((await (await g.get("/api/v1/stations/N0FND-7")).json()) as object).toMatchObject({ call: "N0FND-7" });
    expect((await g.get(`/api/v1/caches/${ids.hidden}`)).status).toBe(200);
  });

  test("the OpenAPI document lists every /api/v1 route, the exports included, and each answers", async () => {
    const doc = (await (await g.get("/api/v1/openapi.json")).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    for (const p of [
      "/api/v1/caches.gpx",
      "/api/v1/caches.kml",
      "/api/v1/finds/{file}",
      "/api/v1/caches",
      "/api/v1/finds",
      "/api/v1/stations",
      "/api/v1/leaderboard",
    ])
      expect(Object.keys(doc.paths)).toContain(p);
    const routes = g.gw.app.routes.filter((r) => r.path.startsWith("/api/v1")).map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, "{$1}")}`);
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
    expect(routes.sort()).toEqual(documented.sort());
    // a public list for /api/v1/lists/{id}; /api/v1/events needs its near=
    const list = ((await (await g.post("/api/lists", { name: "Walk", public: true }, { headers: { cookie: owner.cookie } })).json()) as { id: number }).id;
    for (const p of Object.keys(doc.paths)) {
      const path = (p === "/api/v1/lists/{id}" ? p.replace("{id}", String(list)) : p === "/api/v1/events" ? `${p}?near=48,11` : p)
        .replace("{id}", String(ids.mill))
        .replace("{call}", "N0FND-7")
        .replace("{file}", "N0FND-7.adif");
      const res = await g.get(path);
      expect({ p, status: res.status }).toEqual({ p, status: 200 });
    }
  });

  test("the document comes from the routes: their parameters, answers, RateLimit headers and key; bad input names its field", async () => {
    const doc = (await (await g.get("/api/v1/openapi.json")).json()) as Record<string, any>;
    const finds = doc.paths["/api/v1/finds"].get;
    const kind = finds.parameters.find((p: { name: string }) => p.name === "kind");
    expect(kind).toMatchObject({
      in: "query",
      required: false,
      schema: { type: "string", enum: expect.arrayContaining(["find", "dnf", "note", "needs-maintenance"]) },
    });
    expect(JSON.stringify(finds.parameters.find((p: { name: string }) => p.name === "limit").schema)).toContain('"type":"integer"');
    expect(finds.security).toEqual([{}, { apiKey: [] }]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ in: "header", name: "x-api-key" });
    const one = doc.paths["/api/v1/caches/{id}"].get;
    expect(one.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/CacheDetail" });
    // a route that declares its refusals (v1's) keeps exactly those
    expect(Object.keys(one.responses).sort()).toEqual(["200", "400", "404", "429"]);
    expect(Object.keys(one.responses["200"].headers)).toEqual(["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]);
    expect(one.responses["404"]).toEqual({ $ref: "#/components/responses/NotFound" });
    expect(doc.paths["/api/v1"].post.responses["201"]).toBeDefined();
    // Every reference in the document resolves inside it.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(10);
    for (const r of new Set(refs)) expect({ r, found: r.split("/").reduce((o: any, k) => o?.[k], doc) !== undefined }).toEqual({ r, found: true });
    // What the document declares is what the server checks.
    const bad = await g.get("/api/v1/finds?kind=bogus");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "invalid", field: "query.kind" });
    expect((await g.get("/api/v1/finds?kind=note")).status).toBe(200);
  });
});

describe("QR codes", () => {
  test("/embed/qr.svg encodes this instance's map, a cache page or a path; bad parameters are a 400", async () => {
    const qr = (url: string) => QRCode.toString(url, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
    for (const [query, url] of [
      ["", "https://gw1.example.org/map"],
      ["?cache=7", "https://gw1.example.org/cache/7"],
      ["?path=/bbs", "https://gw1.example.org/bbs"],
    ] as const) {
      const res = await g.get(`/embed/qr.svg${query}`);
      expect(res.headers.get("content-type")).toStartWith("image/svg+xml");
      expect({ query, svg: await res.text() }).toEqual({ query, svg: await qr(url) });
    }
    for (const bad of ["?cache=%3Cscript%3E", "?path=//evil.example", "?path=nope"]) {
      const res = await g.get(`/embed/qr.svg${bad}`);
      expect({ bad, status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({ bad, status: 400, error: "invalid" });
    }
  });
});

describe("RSS words for each log kind", () => {
  test("the activity feed says what a maintenance or event log did, not that its writer wrote a note", async () => {
    const hide = async (body: Record<string, unknown>) => {
      const r = await g.post(
        "/api/caches",
        { type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 30.5, lon: 30.5, ...body },
        { headers: { cookie: owner.cookie } },
      );
      expect(r.status).toBe(201);
      return (await r.json()).id as number;
    };
    const dam = await hide({ name: "Dam Wall" });
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const meet = await hide({
      name: "Dam Meet",
      type: "event",
      size: "other",
      event: { date, start: "10:00", end: "12:00", timeZone: "Africa/Cairo" },
    });
    for (const [who, id, kind] of [
      [finder, dam, "needs-maintenance"],
      [owner, dam, "temp-disable"],
      [finder, meet, "will-attend"],
    ] as const)
      expect((await g.post(`/api/caches/${id}/logs`, { kind, text: kind }, { headers: { cookie: who.cookie } })).status).toBe(201);
    const feed = await new Parser().parseString(await (await g.get("/feeds/activity.xml")).text());
    const titles = feed.items.map((i) => i.title);
    expect(titles).toEqual(expect.arrayContaining(["N0FND reported a maintenance need on Dam Wall", "N0OWN disabled Dam Wall", "N0FND will attend Dam Meet"]));
    expect(titles.filter((t) => t?.includes("Dam") && t.includes("wrote a note"))).toEqual([]);
  });
});
