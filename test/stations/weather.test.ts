/**
 * Personal weather stations end to end: a key issued on the account, readings
 * pushed to the real URLs the way a Weather Underground client and an Ecowitt
 * gateway send them, stored like APRS weather (series), and transmitted as
 * APRS weather packets through the outbox when the owner turns it on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { decode } from "../../src/lib/aprs/index.ts";
import type { Clock } from "../../src/hosts/gateway.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let t = Date.UTC(2026, 10, 22, 12, 0, 0);
let owner: TestUser;
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST });
  (g.gw as { clock: Clock }).clock = { now: () => t };
  owner = signedInUser(g.gw, "N0WX", { verified: true });
});
afterAll(() => g.stop());

const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const json = async (path: string) => (await g.get(path)).json();
const readings = (call: string) => (g.gw.db.query("SELECT count(*) AS n FROM sensor_readings WHERE call = ? AND kind = 'wx'").get(call) as { n: number }).n;
const box = { "x-ingest-secret": INGEST };
const lease = async () => (await (await g.get("/outbox", { headers: box })).json()).items as Array<{ id: number; kind: string; src: string; line: string }>;
/** "2026-11-22 12:00:00" as WU and Ecowitt write dateutc */
const dateutc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace("T", " ");

describe("weather keys on the account", () => {
  test("POST /api/wx/key makes the -13 station and answers the key once, with the upload settings", async () => {
    const r = await g.post("/api/wx/key", { lat: 42.3601, lon: -71.0589, label: "roof" }, as(owner));
    expect(r.status).toBe(201);
    const body = await r.json();
    expect(body.key).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(body.station).toMatchObject({ call: "N0WX-13", label: "roof", lat: 42.3601, lon: -71.0589, callsignHeld: true, verified: true, wxTx: false });
    expect(body.station.wxKey).toMatchObject({ createdAt: t, lastUsedAt: null });
    expect(body.upload.wunderground).toBe(`${g.url}/updateweatherstation?ID=N0WX-13&PASSWORD=${body.key}`);
    expect(body.upload.ecowitt).toEqual({
      server: "127.0.0.1",
      port: Number(new URL(g.url).port),
      path: `/api/wx/submit?key=${body.key}`,
      protocol: "Ecowitt",
    });
    // Only a hash is kept; listing never shows the key.
    const listed = await (await g.get("/api/wx/key", as(owner))).json();
    expect(listed.stations.map((s: { call: string }) => s.call)).toEqual(["N0WX-13"]);
    expect(JSON.stringify(listed)).not.toContain(body.key);
    expect(g.gw.db.query("SELECT count(*) AS n FROM wx_keys WHERE key_hash = ?").get(body.key)).toEqual({ n: 0 });
  });

  test("a callsign the account does not hold gets no station or key", async () => {
    const other = signedInUser(g.gw, "N0ELSE");
    const r = await g.post("/api/wx/key", { call: "W1AW-13" }, as(other));
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("not_your_callsign");
    expect(g.gw.db.query("SELECT count(*) AS n FROM my_stations WHERE call = 'W1AW-13'").get()).toEqual({ n: 0 });
    expect((await g.post("/api/wx/key", {}, { headers: {} })).status).toBe(401);
  });
});

describe("pushing readings", () => {
  let key = "";
  beforeAll(async () => {
    key = (await (await g.post("/api/wx/key", {}, as(owner))).json()).key;
  });

  test("Weather Underground: the GET a WU client sends, unit by unit, into the series", async () => {
    const wu = (await (await g.post("/api/wx/key", {}, as(owner))).json()) as { key: string; upload: { wunderground: string } };
    key = wu.key;
    const url = `${wu.upload.wunderground}&dateutc=${encodeURIComponent(dateutc(t - 30_000)).replace(/%20/g, "+")}&winddir=230&windspeedmph=12&windgustmph=18&tempf=70&rainin=0.1&dailyrainin=0.25&baromin=29.92&dewptf=55.4&humidity=45&solarradiation=512.3&UV=4&softwaretype=weewx-5.1.0&action=updateraw`;
    const r = await fetch(url);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("success\n");
    const series = await json("/api/stations/N0WX-13/series?since=0");
    expect(series.wx).toEqual([
      {
        ts: t - 30_000,
        tempC: 21.11,
        humidityPct: 45,
        windDirDeg: 230,
        windSpeedKmh: 19.31,
        windGustKmh: 28.97,
        pressureHpa: 1013.21,
        rain1hMm: 2.54,
        rainMidnightMm: 6.35,
        luminosityWm2: 512.3,
      },
    ]);
    // The station is on the map at its fixed position, as a weather station.
    const st = await json("/api/stations/N0WX-13");
    expect(st).toMatchObject({ call: "N0WX-13", lat: 42.3601, lon: -71.0589, symbol: "/_", wx: { tempC: 21.11 }, wxAt: t - 30_000 });
    expect(g.gw.db.query("SELECT source, via FROM positions WHERE call = 'N0WX-13'").all()).toEqual([{ source: "wx", via: "web" }]);
    const mine = (await (await g.get("/api/my/stations", as(owner))).json()).stations[0];
    expect(mine.wxKey.lastUsedAt).toBe(t);
  });

  test("Weather Underground as a POSTed form; -9999 means no value; dateutc=now", async () => {
    t += 60_000;
    const r = await fetch(`${g.url}/updateweatherstation`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `ID=N0WX-13&PASSWORD=${key}&dateutc=now&tempf=-9999&humidity=50&baromin=-9999&action=updateraw`,
    });
    expect(await r.text()).toBe("success\n");
    expect((await json("/api/stations/N0WX-13/series?since=0")).wx.at(-1)).toEqual({ ts: t, humidityPct: 50 });
    // Only one position: the fixed one does not repeat.
    expect(g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call = 'N0WX-13'").get()).toEqual({ n: 1 });
  });

  test("Ecowitt customized upload: the form a GW2000 POSTs, the key in the configured path", async () => {
    t += 60_000;
    const form = new URLSearchParams({
      PASSKEY: "A1B2C3D4E5F60718293A4B5C6D7E8F90",
      stationtype: "GW2000A_V3.1.4",
      runtime: "86400",
      dateutc: dateutc(t),
      tempinf: "72.5",
      humidityin: "40",
      baromrelin: "30.012",
      baromabsin: "29.501",
      tempf: "50.2",
      humidity: "88",
      winddir: "270",
      windspeedmph: "3.4",
      windgustmph: "5.6",
      maxdailygust: "12.3",
      solarradiation: "0.00",
      uv: "0",
      rainratein: "0.000",
      eventrainin: "0.020",
      hourlyrainin: "0.020",
      dailyrainin: "0.110",
      weeklyrainin: "0.500",
      monthlyrainin: "1.200",
      yearlyrainin: "20.100",
      totalrainin: "20.100",
      wh65batt: "0",
      freq: "868M",
      model: "GW2000A",
      interval: "60",
    });
    const r = await fetch(`${g.url}/api/wx/submit?key=${key}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form.toString(),
    });
    expect(r.status).toBe(200);
    expect((await json("/api/stations/N0WX-13/series?since=0")).wx.at(-1)).toEqual({
      ts: t,
      tempC: 10.11,
      humidityPct: 88,
      windDirDeg: 270,
      windSpeedKmh: 5.47,
      windGustKmh: 9.01,
      pressureHpa: 1016.32,
      rain1hMm: 0.51,
      rainMidnightMm: 2.79,
      luminosityWm2: 0,
    });
  });

  test("a JSON client gets JSON back", async () => {
    t += 60_000;
    const r = await fetch(`${g.url}/api/wx/submit`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-wx-key": key },
      body: JSON.stringify({ tempf: 32, dateutc: "now" }),
    });
    expect(await r.json()).toEqual({ stored: true, protocol: "wunderground", call: "N0WX-13", ts: t, wx: { tempC: 0 }, transmit: null });
  });

  test("bad pushes are refused with the error shape and store nothing", async () => {
    const before = readings("N0WX-13");
    const push = (q: string) => fetch(`${g.url}/updateweatherstation?${q}`);
    for (const [q, status, code] of [
      [`PASSWORD=wrong-key-12345&tempf=70`, 401, "unauthorized"],
      [`tempf=70`, 401, "unauthorized"],
      [`PASSWORD=${key}&tempf=warm`, 400, "invalid"],
      [`PASSWORD=${key}&humidity=150`, 400, "invalid"],
      [`PASSWORD=${key}&winddir=400&tempf=70`, 400, "invalid"],
      [`PASSWORD=${key}&softwaretype=x&action=updateraw`, 400, "no_readings"],
      [`PASSWORD=${key}&tempf=70&dateutc=${encodeURIComponent(dateutc(t + 3_600_000))}`, 400, "bad_time"],
      [`PASSWORD=${key}&tempf=70&dateutc=yesterday`, 400, "bad_time"],
      [`PASSWORD=${key}&tempf=70&dateutc=2026-02-30+10:00:00`, 400, "bad_time"],
    ] as const) {
      const r = await push(q);
      expect({ q, status: r.status }).toEqual({ q, status });
      expect((await r.json()).error).toBe(code);
    }
    expect(readings("N0WX-13")).toBe(before);
  });

  test("a new key replaces the old; a revoked key stops working", async () => {
    const sid = (await (await g.get("/api/my/stations", as(owner))).json()).stations[0].id;
    const fresh = await (await g.post(`/api/my/stations/${sid}/wx-key`, {}, as(owner))).json();
    expect((await fetch(`${g.url}/updateweatherstation?PASSWORD=${key}&tempf=70`)).status).toBe(401);
    expect(await (await fetch(`${g.url}/updateweatherstation?PASSWORD=${fresh.key}&tempf=70`)).text()).toBe("success\n");
    expect(await (await g.post(`/api/my/stations/${sid}/wx-key`, { revoke: true }, as(owner))).json()).toMatchObject({
      revoked: true,
      station: { wxKey: null },
    });
    expect((await fetch(`${g.url}/updateweatherstation?PASSWORD=${fresh.key}&tempf=70`)).status).toBe(401);
    // Someone else's station is not found for this account.
    const stranger = signedInUser(g.gw, "N0STR");
    expect((await g.post(`/api/my/stations/${sid}/wx-key`, {}, as(stranger))).status).toBe(404);
    key = (await (await g.post(`/api/my/stations/${sid}/wx-key`, {}, as(owner))).json()).key;
  });

  test("a station whose callsign the account lost cannot push", async () => {
    const u = signedInUser(g.gw, "N0LOSE");
    const k = (await (await g.post("/api/wx/key", { call: "N0LOSE-13" }, as(u))).json()).key;
    expect((await fetch(`${g.url}/updateweatherstation?PASSWORD=${k}&tempf=70`)).status).toBe(200);
    // No position, nothing heard on the air: the registry knows it from the push.
    expect(await json("/api/stations/N0LOSE-13")).toMatchObject({ source: "wx", packets: 0, wx: { tempC: 21.11 } });
    // Another account verifies N0LOSE: the unverified claim and its station go dormant.
    signedInUser(g.gw, "N0LOSE", { verified: true });
    const r = await fetch(`${g.url}/updateweatherstation?PASSWORD=${k}&tempf=70`);
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("not_your_station");
    expect((await (await g.get("/api/my/stations", as(u))).json()).stations[0]).toMatchObject({ call: "N0LOSE-13", callsignHeld: false });
  });
});

describe("transmitting weather as APRS", () => {
  test("needs the callsign verified by the owner", async () => {
    const u = signedInUser(g.gw, "N0UNV");
    const { station } = await (await g.post("/api/wx/key", {}, as(u))).json();
    const r = await g.post("/api/wx/tx", { stationId: station.id, on: true }, as(u));
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("callsign_not_verified");
    expect((await g.post("/api/wx/tx", { stationId: station.id, on: "yes" }, as(u))).status).toBe(400);
    expect((await g.post("/api/wx/tx", { call: "N0NOPE-13", on: true }, as(u))).status).toBe(404);
  });

  test("a push becomes an APRS weather packet in the outbox, at most once per interval; our own report heard back is not a second reading", async () => {
    const on = await g.post("/api/wx/tx", { call: "N0WX-13", on: true }, as(owner));
    expect(on.status).toBe(200);
    expect(await on.json()).toMatchObject({ station: { call: "N0WX-13", wxTx: true, wxTxLastAt: null }, intervalMinutes: 10 });
    const key = (await (await g.post("/api/wx/key", {}, as(owner))).json()).key;
    const push = async (q: string) => (await fetch(`${g.url}/updateweatherstation?PASSWORD=${key}&dateutc=now&${q}`)).text();
    t += 60_000;
    expect(await push("tempf=68&humidity=50&winddir=220&windspeedmph=4&windgustmph=5&baromin=29.91&rainin=0&dailyrainin=0")).toBe("success\n");
    const [item] = await lease();
    expect(item).toMatchObject({ kind: "weather", src: "N0WX-13" });
    const p = decode(item!.line);
    expect(p).toMatchObject({ ok: true, packet: { src: "N0WX-13", type: "weather", lat: 42.3601667, lon: -71.0588333, symbol: "/_" } });
    expect(p.ok && p.packet.wx).toEqual({
      windDirDeg: 220,
      windSpeedKmh: 6.4,
      windGustKmh: 8,
      tempC: 20,
      rain1hMm: 0,
      rainMidnightMm: 0,
      humidityPct: 50,
      pressureHpa: 1012.9,
    });
    await g.post("/outbox/ack", { sent: [item!.id] }, { headers: box });
    // Within the interval: stored, not sent again.
    t += 60_000;
    await push("tempf=69");
    expect(await lease()).toEqual([]);
    // APRS-IS hands our own packet back: kept in the raw ring, not stored as a reading twice.
    const before = readings("N0WX-13");
    const echo = item!.line.replace("TCPIP*", "TCPIP*,qAC,T2TEST");
    const rep = await (await fetch(`${g.url}/ingest`, { method: "POST", headers: { ...box, "content-type": "text/plain" }, body: echo })).json();
    expect(rep.packets.stored).toBe(1);
    expect(readings("N0WX-13")).toBe(before);
    // After the interval, the next push goes out; a report nobody picked up is replaced, not queued behind.
    t += 10 * 60_000;
    await push("tempf=70");
    t += 10 * 60_000;
    await push("tempf=71");
    const due = await lease();
    expect(due.map((i) => decode(i.line).ok && (decode(i.line) as { packet: { wx: { tempC: number } } }).packet.wx.tempC)).toEqual([21.7]);
    const mine = (await (await g.get("/api/tx/aprs", as(owner))).json()).items;
    expect(mine.filter((i: { kind: string }) => i.kind === "weather").map((i: { state: string; error: string | null }) => [i.state, i.error])).toEqual([
      ["leased", null],
      ["failed", "replaced by a newer weather report"],
      ["sent", null],
    ]);
    await g.post("/outbox/ack", { sent: due.map((i) => i.id) }, { headers: box });
    // Off: nothing more.
    await g.post("/api/wx/tx", { call: "N0WX-13", on: false }, as(owner));
    t += 20 * 60_000;
    await push("tempf=72");
    expect(await lease()).toEqual([]);
  });
});
