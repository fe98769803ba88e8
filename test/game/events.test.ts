/**
 * Event caches (issue 29 item 5): an event or cito cache's day, times and
 * IANA time zone (400 for an unknown zone, a past event, an end before the
 * start, an event missing or misplaced, nothing stored), its record fields,
 * Will Attend and Attended (attended only from the event's day), its .ics,
 * upcoming events nearest first, the job that archives past events, the GPX
 * round trip to another gateway, and a peer showing a mirrored event.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";
import { zonedToUtc } from "../../src/game/events.ts";

const XSD = join(import.meta.dir, "../fixtures/xsd/pocket-query.xsd");
const DAY = 86_400_000;
let offset = 0;
const clock = { now: () => Date.now() + offset };
const keys = { a: generateKeyPair(), b: generateKeyPair() };
let g: Running;
let g2: Running;
let owner: TestUser;
let finder: TestUser;
let sysop: TestUser;
let importer: TestUser;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
/** The day `n` days from now, YYYY-MM-DD (UTC). */
const dayIn = (n: number) => new Date(clock.now() + n * DAY).toISOString().slice(0, 10);
const cacheCount = () => (g.gw.db.query("SELECT count(*) AS n FROM caches").get() as { n: number }).n;

beforeAll(async () => {
  const env = (name: string, k: { privateKey: string }) => ({
    INSTANCE: name,
    FED_PRIVATE_KEY: k.privateKey,
    FED_LOOPBACK_PEERS: "on",
    ADMIN_CALLSIGNS: "N0SYS",
  });
  [g, g2] = await Promise.all([startInProcess(env("gw-a", keys.a), { clock }), startInProcess(env("gw-b", keys.b))]);
  upsertPeer(g2.gw, { instance: "gw-a", url: g.url, trust: "trusted", keyPin: keys.a.publicKey });
  owner = signedInUser(g.gw, "N0EVO", { verified: true });
  finder = signedInUser(g.gw, "N0EVF", { verified: true });
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
  importer = signedInUser(g2.gw, "N0IMP", { verified: true });
});
afterAll(async () => {
  await Promise.all([g.stop(), g2.stop()]);
});

async function hideEvent(lat: number, event: Record<string, unknown>, over: Record<string, unknown> = {}) {
  return g.post(
    "/api/caches",
    { name: `Meet, greet ${lat}`, type: "event", size: "other", difficulty: 1, terrain: 1, lat, lon: 11.5, description: "Bring a mug", event, ...over },
    as(owner),
  );
}

test("a wall-clock time in a zone is the right instant, summer and winter", () => {
  expect(zonedToUtc("2027-01-15", "18:00", "Europe/Berlin")).toBe(Date.UTC(2027, 0, 15, 17, 0));
  expect(zonedToUtc("2027-07-15", "18:00", "Europe/Berlin")).toBe(Date.UTC(2027, 6, 15, 16, 0));
  expect(zonedToUtc("2027-07-15", "18:00", "America/New_York")).toBe(Date.UTC(2027, 6, 15, 22, 0));
  expect(zonedToUtc("2027-03-01", "09:30", "Asia/Kolkata")).toBe(Date.UTC(2027, 2, 1, 4, 0));
});

describe("hiding an event", () => {
  test("its day, times and zone come back, as instants too, and travel in the cache record", async () => {
    const date = dayIn(3);
    const r = await hideEvent(48.1, { date, start: "18:00", end: "21:30", timeZone: "Asia/Kolkata" });
    expect(r.status).toBe(201);
    const c = await json(r);
    const startAt = zonedToUtc(date, "18:00", "Asia/Kolkata");
    expect(c.event).toEqual({ date, start: "18:00", end: "21:30", timeZone: "Asia/Kolkata", startAt, endAt: startAt + 3.5 * 3_600_000 });
    const row = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(c.gid) as { frame: Uint8Array };
    expect(decodePayload(decodeFrame(row.frame).payload).body).toMatchObject({
      type: "event",
      eventStartAt: startAt / 1000,
      eventEndAt: startAt / 1000 + 3.5 * 3600,
      timeZone: "Asia/Kolkata",
    });
  });

  test("refusals (400, nothing stored): unknown zone, a past event, end before start, an event without times, times on a traditional", async () => {
    const before = cacheCount();
    const bad: Array<[Record<string, unknown> | undefined, Record<string, unknown>]> = [
      [{ date: dayIn(3), start: "10:00", end: "12:00", timeZone: "Mars/Olympus_Mons" }, {}],
      [{ date: dayIn(3), start: "10:00", end: "12:00", timeZone: "CET; DROP TABLE" }, {}],
      [{ date: dayIn(-2), start: "10:00", end: "12:00", timeZone: "Europe/Berlin" }, {}],
      [{ date: dayIn(3), start: "12:00", end: "10:00", timeZone: "Europe/Berlin" }, {}],
      [{ date: "2027-02-30", start: "10:00", end: "12:00", timeZone: "Europe/Berlin" }, {}],
      [{ date: dayIn(3), start: "25:00", end: "26:00", timeZone: "Europe/Berlin" }, {}],
      [undefined, {}],
      [
        { date: dayIn(3), start: "10:00", end: "12:00", timeZone: "Europe/Berlin" },
        { type: "traditional", size: "small" },
      ],
    ];
    for (const [event, over] of bad) {
      const r = await hideEvent(48.2, event as Record<string, unknown>, over);
      expect([JSON.stringify(event), r.status]).toEqual([JSON.stringify(event), 400]);
      expect((await json(r)).error).toBe("invalid");
    }
    expect(cacheCount()).toBe(before);
  });
});

describe("attending", () => {
  test("will-attend before it ends; attended only from the event's day, and not as a find; a CITO takes them", async () => {
    const date = dayIn(4);
    const c = await json(await hideEvent(48.3, { date, start: "10:00", end: "12:00", timeZone: "UTC" }, { type: "cito" }));
    expect(c.type).toBe("cito");
    const log = (u: TestUser, kind: string, foundAt?: number) => g.post(`/api/caches/${c.id}/logs`, { kind, ...(foundAt ? { foundAt } : {}) }, as(u));
    expect((await log(finder, "will-attend")).status).toBe(201);
    const early = await log(finder, "attended");
    expect([early.status, (await json(early)).message]).toEqual([400, expect.stringContaining("on or after the event's day")]);
    offset = Date.parse(`${date}T11:00:00Z`) - Date.now();
    try {
      expect((await log(finder, "attended")).status).toBe(201);
      offset = Date.parse(`${date}T13:00:00Z`) - Date.now();
      expect((await log(owner, "will-attend")).status).toBe(400);
      // attended is not a find
      expect((await json(await g.get(`/api/caches/${c.id}`))).finds).toBe(0);
    } finally {
      offset = 0;
    }
  });
});

describe("calendars and lists", () => {
  test("event.ics: one VEVENT, UTC times, the gid as UID, escaped text, CRLF lines of at most 75 octets", async () => {
    const date = dayIn(5);
    const c = await json(
      await hideEvent(48.4, { date, start: "19:00", end: "22:00", timeZone: "UTC" }, { name: "Pizza, radios; and a very long name to fold over the line" }),
    );
    const r = await g.get(`/api/caches/${c.id}/event.ics`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("text/calendar");
    const ics = await r.text();
    expect(ics.endsWith("\r\n")).toBe(true);
    const lines = ics.slice(0, -2).split("\r\n");
    for (const l of lines) expect(new TextEncoder().encode(l).length).toBeLessThanOrEqual(75);
    const unfolded = ics.replace(/\r\n /g, "").split("\r\n");
    expect(unfolded[0]).toBe("BEGIN:VCALENDAR");
    const ymd = date.replace(/-/g, "");
    expect(unfolded).toEqual(
      expect.arrayContaining([
        "VERSION:2.0",
        "BEGIN:VEVENT",
        `UID:${c.gid}`,
        `DTSTART:${ymd}T190000Z`,
        `DTEND:${ymd}T220000Z`,
        "SUMMARY:Pizza\\, radios\\; and a very long name to fold over the line",
        "END:VEVENT",
        "END:VCALENDAR",
      ]),
    );
    expect(unfolded.filter((l) => l.startsWith("DTSTAMP:"))).toHaveLength(1);
    const trad = await json(
      await g.post("/api/caches", { name: "Plain", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.41, lon: 11.5 }, as(owner)),
    );
    expect((await g.get(`/api/caches/${trad.id}/event.ics`)).status).toBe(404);
  });

  test("upcoming events near a point, nearest first; near is required", async () => {
    const ev = async (lat: number) => (await json(await hideEvent(lat, { date: dayIn(6), start: "10:00", end: "11:00", timeZone: "UTC" }))).id as number;
    const far = await ev(10.2);
    const near = await ev(10.0);
    const mid = await ev(10.1);
    const list = await json(await g.get("/api/events?near=10,11.5&limit=3"));
    expect(list.events.map((e: any) => e.id)).toEqual([near, mid, far]);
    expect(list.events[0].distanceM).toBe(0);
    expect(list.events[1]).toMatchObject({ type: "event", event: expect.objectContaining({ timeZone: "UTC" }) });
    // /api/v1 shows the event too
    expect((await json(await g.get(`/api/v1/caches/${near}`))).event).toMatchObject({ start: "10:00", end: "11:00", timeZone: "UTC" });
    expect((await g.get("/api/events")).status).toBe(400);
    expect((await g.get("/api/events?near=95,0")).status).toBe(400);
  });
});

describe("past events", () => {
  test("the events-archive job archives an event a week after it ended, and publishes it archived", async () => {
    const date = dayIn(1);
    const c = await json(await hideEvent(48.5, { date, start: "10:00", end: "12:00", timeZone: "UTC" }));
    const run = () => g.post("/api/admin/jobs/events-archive/run", {}, as(sysop));
    offset = Date.parse(`${date}T12:00:00Z`) + 6 * DAY - Date.now();
    try {
      expect((await json(await run())).error).toBeNull();
      expect((await json(await g.get(`/api/caches/${c.id}`))).status).toBe("active");
      expect((await json(await g.get("/api/events?near=48.5,11.5"))).events.map((e: any) => e.id)).not.toContain(c.id);
      offset = Date.parse(`${date}T12:00:00Z`) + 8 * DAY - Date.now();
      const r = await json(await run());
      expect(r.result.archived).toBeGreaterThanOrEqual(1);
      expect((await json(await g.get(`/api/caches/${c.id}`))).status).toBe("archived");
      const row = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(c.gid) as { frame: Uint8Array };
      expect(decodePayload(decodeFrame(row.frame).payload).body).toMatchObject({ status: "archived" });
    } finally {
      offset = 0;
    }
  });
});

describe("other gateways", () => {
  test("GPX round trip: the export (with its Will Attend log) validates and another gateway's import keeps the type, day, times and zone", async () => {
    const date = dayIn(9);
    const c = await json(await hideEvent(47.9, { date, start: "09:15", end: "13:00", timeZone: "Europe/Vienna" }, { type: "cito", name: "Clean the shore" }));
    expect((await g.post(`/api/caches/${c.id}/logs`, { kind: "will-attend", text: "bringing bags" }, as(finder))).status).toBe(201);
    const gpx = await (await g.get(`/api/caches/${c.id}/gpx`)).text();
    expect(gpx).toContain("<groundspeak:type>Cache In Trash Out Event</groundspeak:type>");
    expect(gpx).toContain("<groundspeak:type>Will Attend</groundspeak:type>");
    expect(gpx).toContain(`<groundspeak:short_description html="false">Event: ${date} 09:15-13:00 Europe/Vienna</groundspeak:short_description>`);
    const file = join(tmpDir(), "event.gpx");
    await Bun.write(file, gpx);
    const v = Bun.spawnSync(["xmllint", "--noout", "--schema", XSD, file], { stderr: "pipe" });
    expect({ code: v.exitCode, err: v.stderr.toString().trim() }).toEqual({ code: 0, err: `${file} validates` });
    const post = (body: string) =>
      g2.get("/api/import/gpx", { method: "POST", body, headers: { cookie: importer.cookie, "content-type": "application/gpx+xml" } });
    expect(await json(await post(gpx))).toMatchObject({ caches: 1, created: 1 });
    const id = (g2.gw.db.query("SELECT id FROM caches WHERE source_ref = ?").get(c.code) as { id: number }).id;
    const back = await json(await g2.get(`/api/caches/${id}`));
    expect(back).toMatchObject({ type: "cito", description: "Bring a mug", event: { date, start: "09:15", end: "13:00", timeZone: "Europe/Vienna" } });
    expect(await json(await post(gpx))).toMatchObject({ unchanged: 1 });
  });

  test("a peer shows a mirrored event with its times", async () => {
    const date = dayIn(10);
    const c = await json(await hideEvent(47.8, { date, start: "20:00", end: "23:00", timeZone: "America/New_York" }));
    expect(await pullPeer(g2.gw, "gw-a")).toMatchObject({ ok: true, error: null });
    const there = await json(await g2.get(`/api/caches/${encodeURIComponent(c.gid)}`));
    expect(there).toMatchObject({ mirror: true, event: { date, start: "20:00", end: "23:00", timeZone: "America/New_York", startAt: c.event.startAt } });
    const ics = await (await g2.get(`/api/caches/${encodeURIComponent(c.gid)}/event.ics`)).text();
    expect(ics).toContain(`UID:${c.gid}`);
  });
});
