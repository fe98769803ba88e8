/**
 * A geocaching.com pocket query's events (docs/api.md "Import"): no
 * "Event: ..." line of ours, so the day is the `<time>` as written, the zone
 * its whole-hour offset (else UTC), and the times the one clear range the
 * description names (24-hour or AM/PM), else the whole day. Event, CITO and
 * Mega-Event types; a traditional's `<time>` stays its placed date only.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { timesInText } from "../../src/game/events-gc.ts";

let g: Running;
let me: TestUser;
const YEAR = new Date().getUTCFullYear() + 1;

const wpt = (code: string, type: string, time: string, desc: string) => `
  <wpt lat="48.1" lon="11.5">
    <time>${time}</time>
    <name>${code}</name>
    <desc>${type} by Someone</desc>
    <type>Geocache|${type}</type>
    <groundspeak:cache id="1" available="True" archived="False" xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1">
      <groundspeak:name>${code} meeting</groundspeak:name>
      <groundspeak:placed_by>Someone</groundspeak:placed_by>
      <groundspeak:type>${type}</groundspeak:type>
      <groundspeak:container>Other</groundspeak:container>
      <groundspeak:difficulty>1</groundspeak:difficulty>
      <groundspeak:terrain>1</groundspeak:terrain>
      <groundspeak:short_description html="False"></groundspeak:short_description>
      <groundspeak:long_description html="True">${desc}</groundspeak:long_description>
    </groundspeak:cache>
  </wpt>`;

beforeAll(async () => {
  g = await startInProcess({});
  me = signedInUser(g.gw, "N0GCE", { verified: true });
});
afterAll(async () => {
  await g.stop();
});

describe("pocket query events", () => {
  test("the day from <time>, the zone from its offset, the times from the description or the whole day", async () => {
    const gpx = `<?xml version="1.0" encoding="utf-8"?>
<gpx xmlns="http://www.topografix.com/GPX/1/0" version="1.0" creator="Groundspeak Pocket Query">${[
      wpt("GC1EV01", "Event Cache", `${YEAR}-06-13T00:00:00`, "&lt;p&gt;We meet from 18:30 to 21:00 at the inn.&lt;/p&gt;"),
      wpt("GC1EV02", "Cache In Trash Out Event", `${YEAR}-04-20T00:00:00-07:00`, "Bring gloves, 9 AM - 1 PM. Meet at 9 AM sharp."),
      wpt("GC1EV03", "Mega-Event Cache", `${YEAR}-08-01T00:00:00Z`, "Saturday 10:00-12:00 talks, 14:00-18:00 games."),
      wpt("GC1TR01", "Traditional Cache", "2015-03-01T00:00:00", "Open 10:00-12:00 only."),
    ].join("")}
</gpx>`;
    const r = await g.get("/api/import/gpx", { method: "POST", body: gpx, headers: { cookie: me.cookie, "content-type": "application/gpx+xml" } });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ caches: 4 });
    const byCode = async (code: string) => {
      const id = (g.gw.db.query("SELECT id FROM caches WHERE source_ref = ?").get(code) as { id: number }).id;
      return (await (await g.get(`/api/caches/${id}`, { headers: { cookie: me.cookie } })).json()) as any;
    };
    expect((await byCode("GC1EV01")).event).toMatchObject({ date: `${YEAR}-06-13`, start: "18:30", end: "21:00", timeZone: "UTC" });
    const cito = await byCode("GC1EV02");
    expect(cito).toMatchObject({ type: "cito", event: { date: `${YEAR}-04-20`, start: "09:00", end: "13:00", timeZone: "Etc/GMT+7" } });
    expect(cito.event.startAt).toBe(Date.UTC(YEAR, 3, 20, 16, 0));
    // two ranges: not a clear pattern, so the whole day
    expect((await byCode("GC1EV03")).event).toMatchObject({ date: `${YEAR}-08-01`, start: "00:00", end: "23:59", timeZone: "UTC" });
    expect((await byCode("GC1TR01")).event).toBeUndefined();
    // upcoming: /api/events lists the three
    const ev = (await (await g.get("/api/events?near=48.1,11.5")).json()) as { events: Array<{ code: string }> };
    expect(ev.events.map((e) => e.code).sort()).toEqual(["GC1EV01", "GC1EV02", "GC1EV03"]);
    // importing it again changes nothing
    const again = await g.get("/api/import/gpx", { method: "POST", body: gpx, headers: { cookie: me.cookie, "content-type": "application/gpx+xml" } });
    expect(await again.json()).toMatchObject({ created: 0, updated: 0, unchanged: 4 });
  });

  test("what counts as a clear range of times", () => {
    expect(timesInText("from 19h00 à 22h00")).toEqual({ start: "19:00", end: "22:00" });
    expect(timesInText("Beginn 10:00 Uhr bis 14:00 Uhr")).toEqual({ start: "10:00", end: "14:00" });
    expect(timesInText("7pm-9:30pm")).toEqual({ start: "19:00", end: "21:30" });
    expect(timesInText("12 PM to 1 PM")).toEqual({ start: "12:00", end: "13:00" });
    expect(timesInText("at 18:00, no end")).toBeNull();
    expect(timesInText("22:00 - 02:00")).toBeNull();
    expect(timesInText("10:00-12:00 and again 10:00 - 12:00")).toEqual({ start: "10:00", end: "12:00" });
  });
});
