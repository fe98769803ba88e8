/**
 * Issue 29's GPX round trip in one file: a pocket query holding a multi with
 * its parking and stages, attributes set yes and no, an event with Will
 * Attend and Attended logs, and a cache with a Needs Maintenance log is
 * imported, and the export of what was imported holds each of them again;
 * gpsbabel reads that export and xmllint validates it against the Groundspeak
 * pocket-query schema. The file's logs are kept as the catalog's (shown in the
 * export, counted nowhere).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";

const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
let g: Running;
let importer: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const run = (cmd: string[]) => {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, out: p.stdout.toString(), err: p.stderr.toString() };
};

beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw-pq" });
  importer = signedInUser(g.gw, "N0PQI", { verified: true });
});
afterAll(async () => {
  await g.stop();
});

/** A day a year from now, so the event is still to come whenever the test runs. */
const EVENT_DAY = new Date(Date.now() + 365 * 86_400_000).toISOString().slice(0, 10);

const log = (id: number, date: string, type: string, finder: string, text: string) => `        <groundspeak:log id="${id}">
          <groundspeak:date>${date}</groundspeak:date>
          <groundspeak:type>${type}</groundspeak:type>
          <groundspeak:finder id="${id}">${finder}</groundspeak:finder>
          <groundspeak:text encoded="false">${text}</groundspeak:text>
        </groundspeak:log>`;

const cache = (
  code: string,
  lat: number,
  lon: number,
  type: string,
  name: string,
  attrs: string,
  short: string,
  long: string,
  logs: string[],
) => `  <wpt lat="${lat}" lon="${lon}">
    <time>2016-05-01T00:00:00Z</time>
    <name>${code}</name>
    <desc>${name} by Someone, ${type} (2/2)</desc>
    <sym>Geocache</sym>
    <type>Geocache|${type}</type>
    <groundspeak:cache id="${code.length}" available="true" archived="false" xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1">
      <groundspeak:name>${name}</groundspeak:name>
      <groundspeak:placed_by>Someone</groundspeak:placed_by>
      <groundspeak:owner id="9">Someone</groundspeak:owner>
      <groundspeak:type>${type}</groundspeak:type>
      <groundspeak:container>Small</groundspeak:container>
${attrs}      <groundspeak:difficulty>2</groundspeak:difficulty>
      <groundspeak:terrain>2</groundspeak:terrain>
      <groundspeak:country>Germany</groundspeak:country>
      <groundspeak:state>Bayern</groundspeak:state>
      <groundspeak:short_description html="false">${short}</groundspeak:short_description>
      <groundspeak:long_description html="false">${long}</groundspeak:long_description>
      <groundspeak:encoded_hints>Look up</groundspeak:encoded_hints>
      <groundspeak:logs>
${logs.join("\n")}
      </groundspeak:logs>
      <groundspeak:travelbugs></groundspeak:travelbugs>
    </groundspeak:cache>
  </wpt>
`;

const child = (code: string, lat: number, lon: number, type: string, desc: string, cmt: string) => `  <wpt lat="${lat}" lon="${lon}">
    <time>2016-05-01T00:00:00Z</time>
    <name>${code}</name>
    <cmt>${cmt}</cmt>
    <desc>${desc}</desc>
    <sym>${type}</sym>
    <type>Waypoint|${type}</type>
  </wpt>
`;

const PQ = `<?xml version="1.0" encoding="utf-8"?>
<gpx xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.0" creator="Groundspeak Pocket Query" xmlns="http://www.topografix.com/GPX/1/0">
  <name>Pocket Query</name>
${cache(
  "GC29MUL",
  48.1,
  11.5,
  "Multi-cache",
  "Three bridges",
  `      <groundspeak:attributes>
        <groundspeak:attribute id="1" inc="1">Dogs</groundspeak:attribute>
        <groundspeak:attribute id="32" inc="0">Bicycles</groundspeak:attribute>
      </groundspeak:attributes>
`,
  "",
  "Cross the bridges.",
  [log(11, "2024-04-02T10:00:00Z", "Found it", "Walker", "Nice walk")],
)}${child("PK29MUL", 48.099, 11.499, "Parking Area", "Parking", "Free on Sundays")}${child("S129MUL", 48.101, 11.501, "Stages of a Multicache", "Stage 1", "Count the arches: A")}${child("S229MUL", 48.102, 11.502, "Stages of a Multicache", "Stage 2", "Read the year: B")}${cache(
  "GC29EVT",
  48.2,
  11.6,
  "Event Cache",
  "Meet at the mill",
  "",
  `Event: ${EVENT_DAY} 18:00-21:00 Europe/Berlin`,
  "Bring a torch.",
  [log(21, "2024-05-01T12:00:00Z", "Will Attend", "Hiker", "See you there"), log(22, "2024-05-02T12:00:00Z", "Attended", "Rambler", "Great evening")],
)}${cache("GC29NM", 48.3, 11.7, "Traditional Cache", "Under the oak", "", "", "Under the oak.", [
  log(31, "2024-06-03T09:00:00Z", "Needs Maintenance", "Seeker", "Log book is wet"),
])}</gpx>
`;

test("one pocket query of each comes back out of the export; gpsbabel reads it and it validates", async () => {
  // the file itself is what a pocket query is (positive control for the schema)
  const source = join(tmpDir(), "pq.gpx");
  await Bun.write(source, PQ);
  expect(run(["xmllint", "--noout", "--schema", XSD, source]).code).toBe(0);

  const post = (body: string) =>
    g.get("/api/import/gpx", { method: "POST", body, headers: { cookie: importer.cookie, "content-type": "application/gpx+xml" } });
  const r = await post(PQ);
  expect(r.status).toBe(200);
  expect(await json(r)).toMatchObject({ caches: 3, created: 3, waypoints: 3, codes: ["GC29MUL", "GC29EVT", "GC29NM"] });
  const idOf = (code: string) => (g.gw.db.query("SELECT id FROM caches WHERE source_ref = ?").get(code) as { id: number }).id;

  // what the API shows of each
  const multi = await json(await g.get(`/api/caches/${idOf("GC29MUL")}`));
  expect(multi).toMatchObject({
    type: "multi",
    attributes: [
      { id: 1, inc: true },
      { id: 32, inc: false },
    ],
  });
  expect(multi.waypoints.map((w: any) => [w.code, w.kind])).toEqual([
    ["PK29MUL", "parking"],
    ["S129MUL", "physical-stage"],
    ["S229MUL", "physical-stage"],
  ]);
  expect(await json(await g.get(`/api/caches/${idOf("GC29EVT")}`))).toMatchObject({
    type: "event",
    event: { date: EVENT_DAY, start: "18:00", end: "21:00", timeZone: "Europe/Berlin" },
  });
  expect(await json(await g.get(`/api/caches/${idOf("GC29NM")}`))).toMatchObject({ needsMaintenance: true });
  // the file's logs are the catalog's: no find here, and the same file again changes nothing
  expect(multi).toMatchObject({ finds: 0 });
  expect(await json(await post(PQ))).toMatchObject({ created: 0, updated: 0, unchanged: 3 });

  // the export of the three holds each again
  const out = await g.get("/api/v1/caches.gpx?bbox=11.4,48.0,11.8,48.4", { headers: { cookie: importer.cookie } });
  expect(out.status).toBe(200);
  const gpx = await out.text();
  /** The text of one cache's <wpt> in the export, with the child waypoints that follow it. */
  const part = (code: string) => {
    const at = gpx.indexOf(`<name>${code}</name>`);
    const next = gpx.indexOf("<sym>Geocache</sym>", gpx.indexOf("</groundspeak:cache>", at));
    return gpx.slice(at, next < 0 ? undefined : next);
  };
  const [m, e, n] = [part("GC29MUL"), part("GC29EVT"), part("GC29NM")];
  expect(m).toContain('<groundspeak:attribute id="1" inc="1">Dogs</groundspeak:attribute>');
  expect(m).toContain('<groundspeak:attribute id="32" inc="0">Bicycles</groundspeak:attribute>');
  expect(m).toContain('<groundspeak:finder id="0">Walker</groundspeak:finder>');
  const children = [
    ...m.matchAll(
      /<wpt lat="([^"]+)" lon="([^"]+)">\s*<time>[^<]*<\/time>\s*<name>([^<]+)<\/name>\s*<cmt>([^<]*)<\/cmt>[\s\S]*?<type>Waypoint\|([^<]+)<\/type>/g,
    ),
  ];
  expect(children.map(([, lat, lon, code, cmt, type]) => [code, type, Number(lat), Number(lon), cmt])).toEqual([
    ["PK29MUL", "Parking Area", 48.099, 11.499, "Free on Sundays"],
    ["S129MUL", "Stages of a Multicache", 48.101, 11.501, "Count the arches: A"],
    ["S229MUL", "Stages of a Multicache", 48.102, 11.502, "Read the year: B"],
  ]);
  expect(e).toContain("<groundspeak:type>Event Cache</groundspeak:type>");
  expect(e).toContain(`Event: ${EVENT_DAY} 18:00-21:00 Europe/Berlin`);
  expect(e).toContain("<groundspeak:type>Will Attend</groundspeak:type>");
  expect(e).toContain("<groundspeak:type>Attended</groundspeak:type>");
  expect(e).toContain('<groundspeak:finder id="0">Rambler</groundspeak:finder>');
  expect(n).toContain("<groundspeak:type>Needs Maintenance</groundspeak:type>");
  expect(n).toContain("Log book is wet");
  const file = join(tmpDir(), "back.gpx");
  await Bun.write(file, gpx);
  const v = run(["xmllint", "--noout", "--schema", XSD, file]);
  expect({ code: v.code, err: v.err.trim() }).toEqual({ code: 0, err: `${file} validates` });
  const b = run(["gpsbabel", "-i", "gpx", "-f", file, "-o", "gpx", "-F", "-"]);
  expect({ code: b.code, err: b.err }).toEqual({ code: 0, err: "" });
  for (const code of ["GC29MUL", "PK29MUL", "S129MUL", "S229MUL", "GC29EVT", "GC29NM"]) expect(b.out).toContain(`<name>${code}</name>`);
  expect(b.out).toContain("Will Attend");
});
