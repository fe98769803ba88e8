/**
 * Issue 27 item 5: APRS frames whose command/response bits are not the v2
 * command form (AX.25 v1: both C bits clear, or both set as Direwolf 1.6's own
 * beacons), or whose reserved address bits are not 11, are APRS like any
 * other, as Direwolf, aprx and APRS-IS take them: the gateway's registry gets
 * them. A frame that is truly malformed still reaches nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { fakeTnc, tnc2Frame } from "../helpers/kiss-tnc.ts";
import { direwolfInstalled, startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { encodeFrame } from "../../radio/index.ts";
import { waitFor } from "../helpers/wait.ts";

const stops: Array<() => unknown> = [];
afterAll(async () => {
  for (const s of stops.reverse()) await s();
});

const station = async (g: Running, call: string) => {
  const r = await g.get(`/api/stations/${call}`);
  return r.status === 200 && ((await r.json()) as { source: string; igate: string; lat: number; lon: number });
};

describe("APRS frames in AX.25 v1 form", () => {
  test("a v1 frame (both C bits clear), one with both set, and one with reserved bits 00 from a TNC reach the registry; a frame with a gap in its H bits does not", async () => {
    const tnc = fakeTnc();
    stops.push(() => tnc.stop());
    const g = await startInProcess({ KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10" });
    stops.push(() => g.stop());
    await tnc.connected();
    const v1 = tnc2Frame("N0VA-9>APRS,WIDE1*,WIDE2-1:!4237.14N/07120.83W>v1 both clear");
    tnc.hear({ ...v1, cr: "v1-00" });
    const v11 = tnc2Frame("N0VB-9>APRS,WIDE2-2:!4238.14N/07121.83W>v1 both set");
    tnc.hear({ ...v11, cr: "v1-11" });
    const rr = tnc2Frame("N0VC-9>APRS:!4239.14N/07122.83W>reserved bits 00");
    tnc.hear({ ...rr, dest: { ...rr.dest, rr: 0 }, src: { ...rr.src, rr: 0 } });
    // H bit set on the second hop but not the first: no TNC2 form, nothing stored
    const gap = tnc2Frame("N0VD-9>APRS,WIDE1,WIDE2-1:!4240.14N/07123.83W>gap");
    const bytes = encodeFrame({ ...gap, cr: "v1-00", path: [gap.path[0]!, { ...gap.path[1]!, repeated: true }] });
    tnc.hear(bytes);
    const a = await waitFor(() => station(g, "N0VA-9"));
    expect(a).toMatchObject({ source: "rf", igate: "N0GW-10" });
    expect(a.lat).toBeCloseTo(42.619, 3);
    expect(await waitFor(() => station(g, "N0VB-9"))).toMatchObject({ source: "rf", igate: "N0GW-10" });
    expect(await waitFor(() => station(g, "N0VC-9"))).toMatchObject({ source: "rf", igate: "N0GW-10" });
    // the port heard all four; the gap frame never became a station
    await waitFor(() => radioOf(g.gw)!.radio.status()[0]!.framesIn >= 4, "four frames heard");
    expect(await station(g, "N0VD-9")).toBe(false);
  });

  test.skipIf(!direwolfInstalled())(
    "a real Direwolf 1.6 beaconing itself (PBEACON) is heard by the gateway's Direwolf and reaches GET /api/stations",
    async () => {
      const pair: DirewolfPair = await startDirewolfPair({
        calls: ["N0DWB-1", "N0DWG-2"],
        extra: [['PBEACON delay=0:01 every=10 symbol="digi" overlay=S lat=42^37.14N long=071^20.83W comment="direwolf beacon"'], []],
      });
      stops.push(() => pair.stop());
      const g = await startInProcess({ KISS_PORTS: `tcp://127.0.0.1:${pair.b.kissPort}`, RADIO_CALL: "N0GW-10" });
      stops.push(() => g.stop());
      await pair.a.waitForLog(/\[0L\] N0DWB-1>APDW16:!4237\.14NS07120\.83W#direwolf beacon/, { timeoutMs: 30_000 });
      const st = await waitFor(() => station(g, "N0DWB-1"), "the Direwolf beacon in the registry", { timeoutMs: 30_000 });
      expect(st).toMatchObject({ source: "rf", igate: "N0GW-10" });
      expect(st.lat).toBeCloseTo(42.619, 3);
      expect(st.lon).toBeCloseTo(-71.347, 3);
      const list = (await (await g.get("/api/stations")).json()) as { stations: Array<{ call: string }> };
      expect(list.stations.map((s) => s.call)).toContain("N0DWB-1");
    },
    90_000,
  );
});
