/**
 * Caches on the radio's screen (CACHE_OBJECTS), over a fake TNC: a station
 * heard near active caches gets up to 3 of them as APRS objects from
 * RADIO_CALL, each at most once per 30 minutes, within the transmit budget;
 * an object we sent for a cache since archived or disabled is killed. Direwolf's
 * decode_aprs reads what went out as objects at the caches' positions.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { waitFor } from "../helpers/wait.ts";
import { runDecodeAprs } from "../aprs/direwolf.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { aprsPos } from "../helpers/aprs.ts";
import { handClock } from "../helpers/clock.ts";

const CALL = "N0GW-10";
const clock = handClock();
let g: Running;
let tnc: FakeTnc;
let owner: TestUser;
const caches: Array<{ id: number; code: string; lat: number; lon: number }> = [];

/** Object lines the gateway sent from `from` on. */
const objects = (from = 0) =>
  tnc.sent
    .slice(from)
    .map(tnc2Text)
    .filter((l) => l.startsWith(`${CALL}>`) && l.includes(":;"));

/** A station heard on our radio at a point; resolves once its position is stored. */
async function heard(call: string, lat: number, lon: number) {
  const before = (g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call = ?").get(call) as { n: number }).n;
  tnc.hear(tnc2Frame(`${call}>APK005,WIDE1-1:${aprsPos(lat, lon, ">")}`));
  await waitFor(() => (g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call = ?").get(call) as { n: number }).n > before, `${call} stored`);
  await Bun.sleep(150);
}

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess(
    {
      INSTANCE: "gw1",
      FED_PRIVATE_KEY: generateKeyPair().privateKey,
      KISS_PORTS: tnc.url,
      RADIO_CALL: CALL,
      RADIO_PATH: "WIDE1-1",
      RADIO_TX_PER_MINUTE: "9",
      CACHE_OBJECTS: "on",
      CACHE_OBJECTS_RADIUS_KM: "5",
    },
    { clock },
  );
  await tnc.connected();
  signedInUser(g.gw, "N0GW", { verified: true });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  // four caches within 5 km of (48.1, 11.5), one 20 km away
  for (const [name, lat, lon, d] of [
    ["Old Oak", 48.101, 11.5, 2],
    ["Mill Pond", 48.11, 11.5, 1.5],
    ["Chapel Hill", 48.1, 11.52, 3],
    ["Far Bridge", 48.12, 11.53, 1],
    ["Distant", 48.28, 11.5, 1],
  ] as const) {
    const r = await g.post(
      "/api/caches",
      { name, type: "traditional", size: "small", difficulty: d, terrain: 2, lat, lon },
      { headers: { cookie: owner.cookie } },
    );
    expect(r.status).toBe(201);
    const c = (await r.json()) as { id: number; code: string };
    caches.push({ id: c.id, code: c.code, lat, lon });
  }
}, 30_000);

afterAll(() => stopAll(g, tnc));

describe("cache objects", () => {
  test("a station heard near caches gets the 3 nearest as objects: geocache symbol, name, code and D/T; decode_aprs reads them at the caches' positions", async () => {
    const mark = tnc.sent.length;
    await heard("N0PLA-7", 48.1, 11.5);
    const sent = await waitFor(() => (objects(mark).length >= 3 ? objects(mark) : null), "3 objects");
    expect(sent).toHaveLength(3);
    expect(sent[0]).toStartWith(`${CALL}>APZSVC,WIDE1-1:;${caches[0]!.code.padEnd(9, " ")}*`);
    expect(sent[0]).toEndWith(`Old Oak ${caches[0]!.code} D2/T2`);
    const reports = runDecodeAprs(sent);
    expect(reports.map((r) => r.kind)).toEqual(["Object", "Object", "Object"]);
    expect(reports.map((r) => r.name)).toEqual([caches[0]!.code, caches[1]!.code, caches[2]!.code]);
    for (const [i, r] of reports.entries()) {
      expect(Math.abs(r.lat! - caches[i]!.lat)).toBeLessThan(0.0001);
      expect(Math.abs(r.lon! - caches[i]!.lon)).toBeLessThan(0.0001);
    }
    // the overlaid point-of-interest symbol: table G, code i
    expect(sent.every((l) => /[NS]G\d{5}\.\d\d[EW]i/.test(l))).toBe(true);
  });

  test("within the transmit budget, of which objects take a third: what does not fit waits for the next station heard; a cache goes out at most once per 30 minutes", async () => {
    const mark = tnc.sent.length;
    // 9 frames a minute, 3 of them for objects: spent by the first station
    await heard("N0PLB-7", 48.1, 11.5);
    expect(objects(mark)).toEqual([]);
    // 20 s refill one: the next time it is heard, the fourth-nearest cache goes
    clock.advance(20_000);
    await heard("N0PLB-7", 48.1001, 11.5); // it moved a little (the same frame again would be a duplicate)
    expect(objects(mark).map((l) => l.slice(l.indexOf(";") + 1, l.indexOf(";") + 10).trim())).toEqual([caches[3]!.code]);
    // a minute later, the same caches are not sent again (all four went out within 30 minutes)
    clock.advance(60_000);
    const mark2 = tnc.sent.length;
    await heard("N0PLC-7", 48.1, 11.5);
    expect(objects(mark2)).toEqual([]);
    // after 30 minutes they go again
    clock.advance(30 * 60_000);
    await heard("N0PLD-7", 48.1, 11.5);
    expect(objects(mark2)).toHaveLength(3);
  });

  test("a cache archived or disabled since its object went out is killed, once", async () => {
    clock.advance(60_000);
    const a = caches[0]!;
    const d = caches[1]!;
    for (const [c, status] of [
      [a, "archived"],
      [d, "disabled"],
    ] as const) {
      const r = await g.gw.app.handle(
        new Request(`${g.url}/api/caches/${c.id}`, {
          method: "PATCH",
          headers: { cookie: owner.cookie, "content-type": "application/json" },
          body: JSON.stringify({ status }),
        }),
      );
      expect(r.status).toBe(200);
    }
    const mark = tnc.sent.length;
    await heard("N0PLE-7", 48.0, 11.0); // far from every cache: kills only
    const kills = await waitFor(() => (objects(mark).length >= 2 ? objects(mark) : null), "2 kills");
    const reports = runDecodeAprs(kills);
    expect(reports.map((r) => [r.kind, r.name])).toEqual([
      ["Killed Object", a.code],
      ["Killed Object", d.code],
    ]);
    clock.advance(60_000);
    const mark2 = tnc.sent.length;
    await heard("N0PLF-7", 48.0, 11.0);
    expect(objects(mark2)).toEqual([]);
    // the cache 20 km from every station heard was never sent
    expect(tnc.sent.map(tnc2Text).some((l) => l.includes(caches[4]!.code))).toBe(false);
  });
});
