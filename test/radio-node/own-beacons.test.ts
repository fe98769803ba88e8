/**
 * The station's own beacons (STATION_BEACON): its position, a status with the
 * software and version, and telemetry of its counters with the PARM/UNIT/
 * EQNS/BITS messages addressed to itself, as aprx sends them. A fake TNC sees
 * what goes on the air; our decoder and Direwolf's decode_aprs read it; the
 * station's own page and series show it. Nothing goes out while RADIO_CALL is
 * not verified or the clock is not set, and every frame takes a token of
 * RADIO_TX_PER_MINUTE.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { runDecodeAprs } from "../aprs/direwolf.ts";
import { decode } from "../../src/lib/aprs/index.ts";
import { buildInfo } from "../../src/lib/version.ts";
import { configFor } from "../../src/core/config.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait.ts";

const json = (r: Response) => r.json() as Promise<any>;
const MIN = 60_000;
const CALL = "N0GW-10";

describe("the station's own beacons", () => {
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  let tnc: FakeTnc;
  let g: Running;
  /** what the station sent from RADIO_CALL so far, as TNC2 text */
  const own = () => tnc.sent.filter((f) => f.src.call === "N0GW" && f.src.ssid === 10).map(tnc2Text);
  const radio = () => g.gw.scheduler.runNow("radio") as Promise<any>;

  beforeAll(async () => {
    tnc = fakeTnc();
    g = await startInProcess(
      {
        KISS_PORTS: tnc.url,
        RADIO_CALL: CALL,
        RADIO_PATH: "WIDE2-1",
        RADIO_TX_PER_MINUTE: "6",
        STATION_BEACON: "42.3601,-71.0589,R&,svc-gateway test iGate, Boston",
        FED_BEACON_INTERVAL_MIN: "0",
        RADIO_SYNC_INTERVAL_MIN: "0",
      },
      { clock },
    );
    await tnc.connected();
  });
  afterAll(async () => {
    await g.stop();
    tnc.stop();
  });

  const beacons = async () => (await json(await g.get("/api/ports"))).ports.find((p: { name: string }) => p.name === "beacons");

  test("nothing goes out while RADIO_CALL is not verified, nor while the clock is not set", async () => {
    expect((await radio()).station).toEqual({ skipped: `${CALL} is not a verified callsign on this instance` });
    expect(await beacons()).toMatchObject({
      state: "down",
      paused: `${CALL} is not verified`,
      beaconMinutes: 30,
      telemetryMinutes: 10,
      positionAt: null,
      tx: 0,
    });
    signedInUser(g.gw, "N0GW", { verified: true });
    clock.offset = Date.UTC(1970, 0, 2) - Date.now();
    await g.gw.scheduler.runNow("clock-check");
    expect((await radio()).station.skipped).toMatch(/paused until it is set/);
    clock.offset = 0;
    await g.gw.scheduler.runNow("clock-check");
    expect(own()).toEqual([]);
  });

  test("once verified and the clock set: position, status and telemetry go out, the definitions when the budget has room", async () => {
    const r = (await radio()).station;
    const version = `${buildInfo().name} ${buildInfo().version}`;
    expect(r.position).toBe(`${CALL}>APZSVC,WIDE2-1:!4221.61NR07103.53W&svc-gateway test iGate, Boston`);
    expect(r.status).toStartWith(`${CALL}>APZSVC,WIDE2-1:>${version}`);
    expect(r.telemetry).toMatch(/^N0GW-10>APZSVC,WIDE2-1:T#000,\d+,0,0,\d+,0,00000000$/);
    // three tokens taken of six: the four definitions wait for room for all four
    expect(r.definitions).toBeUndefined();
    await tnc.waitSent(3);
    expect(own()).toEqual([r.position, r.status, r.telemetry]);
    // nothing is due again within the interval
    expect((await radio()).station).toEqual({});
    clock.offset += MIN;
    const d = (await radio()).station;
    expect(d.definitions).toEqual([
      `${CALL}>APZSVC,WIDE2-1::${CALL}  :PARM.RxPkts,IGateRx,IGateDropRx,TxPkts,DigiRpt,IGate,Digi`,
      `${CALL}>APZSVC,WIDE2-1::${CALL}  :UNIT.pkt/10m,pkt/10m,pkt/10m,pkt/10m,pkt/10m,on,on`,
      `${CALL}>APZSVC,WIDE2-1::${CALL}  :EQNS.0,1,0,0,1,0,0,1,0,0,1,0,0,1,0`,
      `${CALL}>APZSVC,WIDE2-1::${CALL}  :BITS.11111111,svc-gateway station`,
    ]);
    await tnc.waitSent(7);
    expect(own().slice(3)).toEqual(d.definitions);
    expect(await beacons()).toMatchObject({
      state: "up",
      paused: null,
      beacon: { symbol: "R&" },
      positionAt: expect.any(Number),
      definitionsAt: expect.any(Number),
      tx: 7,
    });
  });

  test("the telemetry counts what the radio heard and sent in each interval", async () => {
    const before = own().length;
    for (let i = 0; i < 3; i++) tnc.hear(tnc2Frame(`N0RF-${i + 1}>APRS,WIDE1-1:>heard ${i}`));
    await waitFor(async () => (await json(await g.get("/api/stations/N0RF-3"))).call, "the third frame heard");
    clock.offset += 10 * MIN;
    const r = (await radio()).station;
    // sent since the last report: the report itself and the four definitions
    expect(r.telemetry).toBe(`${CALL}>APZSVC,WIDE2-1:T#001,3,0,0,5,0,00000000`);
    expect(r.position).toBeUndefined();
    await tnc.waitSent(before + 1);
    expect(own().at(-1)).toBe(r.telemetry);
  });

  test("our decoder and Direwolf's decode_aprs read every frame as sent", () => {
    const lines = own();
    const [pos, status, tel, parm, unit, eqns, bits] = lines.map((l) => decode(l));
    expect(pos).toMatchObject({ ok: true, packet: { type: "position", symbol: "R&", comment: "svc-gateway test iGate, Boston" } });
    expect((pos as any).packet.lat).toBeCloseTo(42.3601, 3);
    expect((pos as any).packet.lon).toBeCloseTo(-71.0589, 3);
    expect(status).toMatchObject({ ok: true, packet: { type: "status", status: expect.stringContaining(buildInfo().version) } });
    expect(tel).toMatchObject({ ok: true, packet: { type: "telemetry", telemetry: { seq: 0, bits: "00000000" } } });
    expect(parm).toMatchObject({
      ok: true,
      packet: { addressee: CALL, telemetryDefinitions: { parm: ["RxPkts", "IGateRx", "IGateDropRx", "TxPkts", "DigiRpt", "IGate", "Digi"] } },
    });
    expect(unit).toMatchObject({ ok: true, packet: { telemetryDefinitions: { unit: ["pkt/10m", "pkt/10m", "pkt/10m", "pkt/10m", "pkt/10m", "on", "on"] } } });
    expect(eqns).toMatchObject({ ok: true, packet: { telemetryDefinitions: { eqns: Array(5).fill([0, 1, 0]) } } });
    expect(bits).toMatchObject({ ok: true, packet: { telemetryDefinitions: { bits: { sense: "11111111", project: "svc-gateway station" } } } });

    const dw = runDecodeAprs(lines);
    expect(dw.map((r) => r.kind)).toEqual([
      "Position",
      "Status Report",
      "Telemetry",
      "Telemetry Parameter Name Message",
      "Telemetry Unit/Label Message",
      "Telemetry Equation Coefficents Message",
      "Telemetry Bit Sense/Project Name Message",
      "Telemetry",
    ]);
    expect(dw[0]!.lat).toBeCloseTo(42.3601, 3);
    expect(dw[0]!.lon).toBeCloseTo(-71.0589, 3);
    expect(dw[0]!.comment).toBe("svc-gateway test iGate, Boston");
    expect(dw[1]!.comment).toContain(buildInfo().version);
    expect(dw[7]!.telemetrySeq).toBe(1);
    expect(dw[7]!.telemetry!.slice(0, 5).map((c) => c.value)).toEqual([3, 0, 0, 5, 0]);
  });

  test("the station's own page shows its position, status and telemetry series", async () => {
    const s = await json(await g.get(`/api/stations/${CALL}`));
    expect(s).toMatchObject({ call: CALL, symbol: "R&", comment: "svc-gateway test iGate, Boston" });
    expect(s.status).toContain(buildInfo().version);
    expect(s.lat).toBeCloseTo(42.3601, 3);
    // stored as our own transmission: never proof of anything
    expect(s.heard.every((h: { via: string }) => h.via === "echo")).toBe(true);
    expect(s.telemetryDefinitions.parm[0]).toBe("RxPkts");
    const series = await json(await g.get(`/api/stations/${CALL}/series`));
    expect(series.telemetry.channels.slice(0, 5).map((c: { name: string; unit: string }) => `${c.name} ${c.unit}`)).toEqual([
      "RxPkts pkt/10m",
      "IGateRx pkt/10m",
      "IGateDropRx pkt/10m",
      "TxPkts pkt/10m",
      "DigiRpt pkt/10m",
    ]);
    expect(series.telemetry.project).toBe("svc-gateway station");
    expect(series.telemetry.points.map((p: { seq: number }) => p.seq)).toEqual([0, 1]);
    expect(series.telemetry.points[1].values.slice(0, 5)).toEqual([3, 0, 0, 5, 0]);
  });

  test("the same frame heard back through a digipeater is not stored twice", async () => {
    const packets = async () => (await json(await g.get(`/api/stations/${CALL}/packets`))).packets.length;
    const n = await packets();
    const last = own().at(-1)!;
    tnc.hear(tnc2Frame(last.replace(",WIDE2-1:", ",N0DIG*,WIDE2:")));
    // a frame heard after it is stored: the echo has been through the pipeline by then
    tnc.hear(tnc2Frame("N0RF-5>APRS,WIDE1-1:>after the echo"));
    await waitFor(async () => (await g.get("/api/stations/N0RF-5")).status === 200, "the frame after the echo");
    expect(await packets()).toBe(n);
  });
});

describe("the telemetry counts what the iGate and the digipeater did", () => {
  const clock = { offset: 0, now: () => Date.now() + clock.offset };
  let tnc: FakeTnc;
  let g: Running;
  beforeAll(async () => {
    tnc = fakeTnc();
    // IGATE on with no APRS-IS login: what it hears is not gated (uplink-down), and counted so
    g = await startInProcess(
      { KISS_PORTS: tnc.url, RADIO_CALL: CALL, RADIO_PATH: "none", STATION_BEACON: "42.3601,-71.0589,R&", DIGIPEAT: "fill-in", IGATE: "on" },
      { clock },
    );
    signedInUser(g.gw, "N0GW", { verified: true });
    await tnc.connected();
  });
  afterAll(async () => {
    await g.stop();
    tnc.stop();
  });

  test("IGateDropRx and DigiRpt count the interval's frames; B1 and B2 say the iGate and the digipeater are on", async () => {
    const first = (await g.gw.scheduler.runNow("radio")) as any;
    expect(first.station.telemetry).toMatch(/:T#000,0,0,0,\d+,0,11000000$/);
    await tnc.waitSent(3);
    tnc.hear(tnc2Frame("N0RF-1>APRS,WIDE1-1:>fill me in"));
    const [repeat] = await tnc.waitSent(1, { from: 3 });
    expect(tnc2Text(repeat!)).toBe(`N0RF-1>APRS,${CALL}*:>fill me in`);
    clock.offset += 10 * MIN;
    const r = (await g.gw.scheduler.runNow("radio")) as any;
    // heard 1, gated 0, not gated 1, sent 2 (the last report and the repeat), repeated 1
    expect(r.station.telemetry).toBe(`${CALL}>APZSVC:T#001,1,0,1,2,1,11000000`);
  });
});

describe("STATION_BEACON settings", () => {
  const dir = tmpDir();
  const load = (env: Record<string, string>) => {
    try {
      return configFor(dir, { RADIO_CALL: CALL, ...env });
    } catch (e) {
      return (e as Error).message;
    }
  };

  test("LAT,LON,SYMBOL[,COMMENT]; intervals of 10 minutes or more", () => {
    expect(load({ STATION_BEACON: "-33.9,18.4,/-" })).toMatchObject({
      stationBeacon: { lat: -33.9, lon: 18.4, symbol: "/-", comment: "" },
      stationBeaconMinutes: 30,
      stationTelemetryMinutes: 10,
    });
    expect(load({ STATION_BEACON: "91,0,/-" })).toMatch(/^STATION_BEACON: .*latitude is -90 to 90/);
    expect(load({ STATION_BEACON: "42,-71" })).toMatch(/^STATION_BEACON: .*is not LAT,LON,SYMBOL/);
    expect(load({ STATION_BEACON: "42,-71,R&,a|b" })).toMatch(/^STATION_BEACON: .*without \| ~ \{/);
    expect(load({ STATION_BEACON: "42,-71,R&", RADIO_CALL: "" })).toMatch(/^STATION_BEACON: needs RADIO_CALL/);
    expect(load({ STATION_BEACON_MINUTES: "5" })).toMatch(/^STATION_BEACON_MINUTES: 5 is out of range/);
    expect(load({ STATION_TELEMETRY_MINUTES: "5" })).toMatch(/^STATION_TELEMETRY_MINUTES: 5 is too often/);
    expect(load({ STATION_TELEMETRY_MINUTES: "0" })).toMatchObject({ stationTelemetryMinutes: 0 });
  });
});
