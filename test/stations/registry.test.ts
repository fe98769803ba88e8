/** The station registry as the map and station page read it. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { pruneAll } from "../../src/jobs/prune.ts";

let g: Running;
const now = Date.now();
beforeAll(async () => {
  g = await startInProcess();
  const lines = [
    { line: "N0BOS>APRS:!4221.00N/07103.00W-Boston", heardAt: now - 3000 },
    { line: "N0NYC>APRS:!4042.00N/07400.00W-New York", heardAt: now - 2000 },
    { line: "ZL1AKL>APRS:!3651.00S/17445.00E-Auckland", heardAt: now - 1000 },
    { line: "N0FJI>APRS:!1800.00S/17830.00W-Fiji", heardAt: now - 500 },
    { line: "N0OLD>APRS:!4222.00N/07104.00W-old", heardAt: now - 5 * 3_600_000 },
    { line: "N0OBJ>APRS:;BOSOBJ   *092345z4220.00N/07102.00W>moving", heardAt: now - 100 },
    { line: "N0OBJ>APRS:;GONE     _092345z4220.00N/07102.00W>killed", heardAt: now - 100 },
    // a moving station: a track
    { line: "N0MOB-9>APRS:!4200.00N/07100.00W>090/030", heardAt: now - 600_000 },
    { line: "N0MOB-9>APRS:!4200.50N/07099.50W>090/030".replace("07099.50", "07059.50"), heardAt: now - 300_000 },
    { line: "N0MOB-9>APRS:!4201.00N/07059.00W>090/030 latest", heardAt: now - 1000 },
    // telemetry: definitions first, then values; weather
    { line: "N0TEL>APRS::N0TEL    :PARM.Battery,Temp", heardAt: now - 9000 },
    { line: "N0TEL>APRS::N0TEL    :UNIT.V,C", heardAt: now - 9000 },
    { line: "N0TEL>APRS::N0TEL    :EQNS.0,0.1,0,0,0.5,-20", heardAt: now - 9000 },
    { line: "N0TEL>APRS:T#001,120,080", heardAt: now - 8000 },
    { line: "N0TEL>APRS:T#002,125,090", heardAt: now - 7000 },
    { line: "N0TEL>APRS:_10090556c220s004g005t068h50b10132", heardAt: now - 6000 },
    { line: "N0TEL>APRS:>solar powered", heardAt: now - 5000 },
  ];
  ingestLines(g.gw, lines, { source: "aprsis" });
});
afterAll(() => g.stop());

const json = async (path: string) => {
  const r = await g.get(path);
  return { status: r.status, body: await r.json() };
};
const calls = (b: { stations: Array<{ call: string }> }) => b.stations.map((s) => s.call);

describe("GET /api/stations", () => {
  test("bbox (west,south,east,north), newest first; killed objects are hidden", async () => {
    const { body } = await json("/api/stations?bbox=-72,41,-70,43");
    expect(calls(body)).toEqual(["BOSOBJ", "N0MOB-9", "N0BOS", "N0OLD"]);
    expect(body.truncated).toBe(false);
    expect(body.stations[0]).toMatchObject({ kind: "object", owner: "N0OBJ", alive: true, symbol: "/>" });
  });

  test("a box across the antimeridian", async () => {
    expect(calls((await json("/api/stations?bbox=170,-40,-175,-10")).body).sort()).toEqual(["N0FJI", "ZL1AKL"]);
  });

  test("since, search and limit; a full box answers the newest and says truncated", async () => {
    expect(calls((await json(`/api/stations?bbox=-72,41,-70,43&since=${now - 3_600_000}`)).body)).not.toContain("N0OLD");
    expect(calls((await json("/api/stations?q=n0b")).body)).toEqual(["N0BOS"]);
    expect(calls((await json("/api/stations?q=Auck")).body)).toEqual(["ZL1AKL"]);
    const few = (await json("/api/stations?bbox=-180,-90,180,90&limit=2")).body;
    expect(few.truncated).toBe(true);
    expect(calls(few)).toEqual(["BOSOBJ", "N0FJI"]);
  });

  test("bad parameters are 400", async () => {
    for (const q of ["bbox=1,2,3", "bbox=0,50,10,40", "bbox=a,b,c,d", "since=soon", "limit=-x"]) expect((await g.get(`/api/stations?${q}`)).status).toBe(400);
  });
});

describe("a station's detail, series, packets", () => {
  test("detail with its track and how it was heard; unknown is 404", async () => {
    const { body } = await json("/api/stations/N0MOB-9");
    expect(body).toMatchObject({ call: "N0MOB-9", comment: "latest", lat: 42.0166667, lon: -70.9833333, course: 90, packets: 3 });
    expect(body.track.map((p: { lon: number }) => p.lon)).toEqual([-71, -70.9916667, -70.9833333]);
    expect(body.heard).toHaveLength(3);
    expect((await json("/api/stations/N0OBJ")).body.objects).toEqual(["BOSOBJ"]);
    expect((await g.get("/api/stations/N0NONE")).status).toBe(404);
  });

  test("telemetry series with PARM/UNIT/EQNS applied, and weather", async () => {
    const { body } = await json("/api/stations/N0TEL/series");
    expect(body.telemetry.channels).toEqual([
      { id: "A1", name: "Battery", unit: "V" },
      { id: "A2", name: "Temp", unit: "C" },
    ]);
    expect(body.telemetry.points).toEqual([
      { ts: now - 8000, seq: 1, values: [12, 20] },
      { ts: now - 7000, seq: 2, values: [12.5, 25] },
    ]);
    expect(body.wx).toEqual([{ ts: now - 6000, windDirDeg: 220, windSpeedKmh: 6.4, windGustKmh: 8, tempC: 20, humidityPct: 50, pressureHpa: 1013.2 }]);
    expect((await json("/api/stations/N0TEL")).body).toMatchObject({ status: "solar powered", wx: { tempC: 20 } });
  });

  test("the raw packet ring pages back: next is the before of the following page, null on the last", async () => {
    const all = (await json("/api/stations/N0TEL/packets")).body;
    expect(all.next).toBeNull();
    const ids = all.packets.map((p: { id: number }) => p.id);
    expect(ids).toHaveLength(7);
    const first = (await json("/api/stations/N0TEL/packets?limit=3")).body;
    expect(first.packets.map((p: { id: number }) => p.id)).toEqual(ids.slice(0, 3));
    expect(first.next).toBe(ids[2]);
    const second = (await json(`/api/stations/N0TEL/packets?limit=3&before=${first.next}`)).body;
    expect(second.packets.map((p: { id: number }) => p.id)).toEqual(ids.slice(3, 6));
    const third = (await json(`/api/stations/N0TEL/packets?limit=3&before=${second.next}`)).body;
    expect(third).toEqual({ packets: [expect.objectContaining({ id: ids[6] })], next: null });
    expect((await g.get("/api/stations/N0TEL/packets?before=x")).status).toBe(400);
  });

  test("messages of one station, sent or received (call=)", async () => {
    ingestLines(
      g.gw,
      [
        { line: "N0MSGA>APRS::N0MSGB   :hello B{1", heardAt: now - 400 },
        { line: "N0MSGB>APRS::N0MSGA   :hello A{2", heardAt: now - 300 },
        { line: "N0MSGC>APRS::N0MSGD   :not ours{3", heardAt: now - 200 },
      ],
      { source: "aprsis" },
    );
    const { body } = await json("/api/messages?call=N0MSGA");
    expect(body.messages.map((m: { text: string }) => m.text)).toEqual(["hello A", "hello B"]);
    expect((await json("/api/messages?from=N0MSGA")).body.messages.map((m: { text: string }) => m.text)).toEqual(["hello B"]);
    const bad = await json("/api/messages?call=N0MSGA&to=N0MSGB");
    expect(bad).toEqual({ status: 400, body: { error: "invalid", message: expect.any(String) } });
  });

  test("the raw packet ring, newest first, pruned after PACKETS_TTL_HOURS with the stations", async () => {
    const { body } = await json("/api/stations/N0TEL/packets");
    expect(body.packets.map((p: { raw: string }) => p.raw)[0]).toBe("N0TEL>APRS:>solar powered");
    expect(body.packets.map((p: { type: string }) => p.type)).toEqual([
      "status",
      "weather",
      "telemetry",
      "telemetry",
      "telemetry-definitions",
      "telemetry-definitions",
      "telemetry-definitions",
    ]);
    await pruneAll(g.gw.db, g.gw.config, now + 25 * 3_600_000);
    expect((await json("/api/stations/N0TEL/packets")).body.packets).toEqual([]);
    expect((await g.get("/api/stations/N0TEL")).status).toBe(200);
    await pruneAll(g.gw.db, g.gw.config, now + 8 * 24 * 3_600_000);
    expect((await g.get("/api/stations/N0TEL")).status).toBe(404);
    expect(calls((await json("/api/stations?bbox=-180,-90,180,90")).body)).toEqual([]);
  });
});

describe("the map index after an upgrade", () => {
  test("stations stored before the B-tree map index are found in boxes after it", async () => {
    const { MIGRATIONS, openStore } = await import("../../src/core/store/db.ts");
    const { listStations } = await import("../../src/stations/registry.ts");
    const { tmpDir } = await import("../helpers/tmp.ts");
    const { join } = await import("node:path");
    const before = MIGRATIONS.findIndex((m) => m.title.includes("latitude bands"));
    expect(before).toBeGreaterThan(0);
    const file = join(tmpDir(), "old.db");
    const old = openStore(file, { upTo: before });
    old.run(
      "INSERT INTO stations (call, lat, lon, first_heard, last_heard) VALUES ('N0UP', 42.35, -71.05, 1, 2), ('N0FAR', -33.9, 151.2, 1, 3), ('N0NONE', NULL, NULL, 1, 4)",
    );
    old.close();
    const db = openStore(file);
    const gw = { db } as unknown as Parameters<typeof listStations>[0];
    expect(listStations(gw, { bbox: { west: -72, south: 42, east: -70, north: 43 } }).stations.map((s) => s.call)).toEqual(["N0UP"]);
    expect(listStations(gw, { bbox: { west: 150, south: -34, east: 152, north: -33 } }).stations.map((s) => s.call)).toEqual(["N0FAR"]);
    db.close();
  });
});
