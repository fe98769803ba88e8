/**
 * Stations answer as /api and /api/v1 declare (src/stations/shapes.ts, closed
 * schemas): a list, and one station with its track, how it was heard,
 * weather, telemetry definitions and the objects it sent, heard from real
 * APRS lines, pass their schemas with nothing the documents do not name; the
 * documents' components are those schemas.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { check } from "../../src/lib/schema.ts";
import {
  APRS_MESSAGES,
  APRS_PACKET,
  SERIES,
  STATION_DETAIL,
  STATION_JSON,
  STATION_LIST,
  STATION_MAP,
  STATION_PACKETS,
  type StationDetail,
} from "../../src/stations/shapes.ts";
import { PORTS } from "../../src/stations/ports.ts";

let g: Running;
const json = async (path: string) => {
  const r = await g.get(path);
  expect({ path, status: r.status }).toEqual({ path, status: 200 });
  return r.json() as Promise<any>;
};

beforeAll(async () => {
  g = await startInProcess({ RATE_LIMIT_PER_MINUTE: "1000" });
  const now = Date.now();
  ingestLines(
    g.gw,
    [
      { line: "N0ANS>APRS,WIDE1-1:!4221.00N/07103.00W-home", heardAt: now - 9000 },
      { line: "N0ANS>APRS:;ANSOBJ   *092345z4220.00N/07102.00W>an object", heardAt: now - 8000 },
      { line: "N0MOV-9>APRS:!4200.00N/07100.00W>090/030", heardAt: now - 600_000 },
      { line: "N0MOV-9>APRS:!4201.00N/07059.00W>090/030 moving", heardAt: now - 1000 },
      { line: "N0ANT>APRS::N0ANT    :PARM.Battery,Temp", heardAt: now - 7000 },
      { line: "N0ANT>APRS::N0ANT    :UNIT.V,C", heardAt: now - 7000 },
      { line: "N0ANT>APRS::N0ANT    :EQNS.0,0.1,0,0,0.5,-20", heardAt: now - 7000 },
      { line: "N0ANT>APRS:T#001,120,080", heardAt: now - 6000 },
      { line: "N0ANT>APRS:@092345z4223.00N/07105.00W_220/004g005t077r000p000P000h50b09900", heardAt: now - 5000 },
      { line: "N0ANS>APRS::N0ANT    :see you at the cache{7", heardAt: now - 4000 },
    ],
    { source: "aprsis" },
  );
});
afterAll(() => g.stop());

describe("station answers", () => {
  test("the lists and each station, with track, weather, telemetry definitions and objects, pass their schemas", async () => {
    for (const path of ["/api/stations", "/api/v1/stations"]) check(STATION_LIST, await json(path), path);
    const details: StationDetail[] = [];
    for (const call of ["N0ANS", "N0MOV-9", "N0ANT", "ANSOBJ"])
      for (const base of ["/api/stations", "/api/v1/stations"]) details.push(check(STATION_DETAIL, await json(`${base}/${call}`), `${base}/${call}`));
    // the answers carry what the schemas name: a track, weather, definitions, an object
    expect(details.some((d) => d.track.length >= 2)).toBe(true);
    expect(details.some((d) => d.wx?.tempC !== undefined)).toBe(true);
    expect(details.some((d) => d.telemetryDefinitions?.parm?.[0] === "Battery")).toBe(true);
    expect(details.some((d) => d.objects.includes("ANSOBJ"))).toBe(true);
    // a control: a member the schema does not name fails it
    expect(() => check(STATION_DETAIL, { ...details[0], secret: 1 }, "station")).toThrow('unknown field "secret"');
  });

  test("a station's series and packets, the map's view, messages, ports and a decoded packet pass theirs", async () => {
    const series = check(SERIES, await json("/api/stations/N0ANT/series"), "series");
    expect([series.telemetry.points.length, series.wx.length]).toEqual([1, 1]);
    const page = check(STATION_PACKETS, await json("/api/stations/N0MOV-9/packets?limit=1"), "packets");
    expect(page.next).not.toBeNull();
    for (const limit of [100, 1]) check(STATION_MAP, await json(`/api/stations?cluster=1&bbox=-72,41,-70,43&limit=${limit}`), `map ${limit}`);
    expect(check(APRS_MESSAGES, await json("/api/messages?call=N0ANT"), "messages").messages).toHaveLength(1);
    check(PORTS, await json("/api/ports"), "ports");
    const r = await g.post("/api/decode", { line: "N0GW>APRS,TCPIP*:}N0IN>APRS,TCPIP,N0GW*:!4221.00N/07103.00W-inside" });
    expect(r.status).toBe(200);
    expect(check(APRS_PACKET, await r.json(), "decode").inner?.src).toBe("N0IN");
  });

  test("the documents declare them", async () => {
    const plain = (s: TSchema) => JSON.parse(JSON.stringify(s));
    const v1 = await json("/api/v1/openapi.json");
    expect(v1.components.schemas.Station).toEqual(plain(STATION_JSON));
    expect(v1.components.schemas.StationDetail).toEqual(plain(STATION_DETAIL));
    const api = await json("/api/openapi.json");
    // the /api document names the same component
    expect(api.paths["/api/stations/{call}"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/StationDetail" });
    expect(api.components.schemas.StationDetail).toEqual(plain(STATION_DETAIL));
  });
});
