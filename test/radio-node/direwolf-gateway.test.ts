/**
 * Two gateways, each behind its own real Direwolf TNC (a pair joined by FIFO
 * "audio", 1200 baud AFSK; ../helpers/direwolf.ts): APRS the one transmits
 * from its outbox reaches the other's station registry as heard on RF, and
 * the one pulls the other's signed records with SVCL1 over a connected AX.25
 * circuit through both Direwolfs. Frames take about a second each on this
 * channel: the records are few and the timeouts long.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { syncOverRadio } from "../../src/radio-node/sync.ts";
import type { GatewayEvents } from "../../src/core/events.ts";
import type { MonitorEvent } from "../../radio/index.ts";

const kA = generateKeyPair();
const kB = generateKeyPair();
const RECORDS = 6;
let pair: DirewolfPair;
let A: Running;
let B: Running;
/** every frame each gateway's station heard or sent, for the failure message */
const trace: string[] = [];

const cache = (i: number) =>
  cacheToWire({
    name: `Direwolf cache ${i}`,
    type: "traditional",
    size: "small",
    difficulty: 2,
    terrain: 2,
    lat: 44.1 + i / 100,
    lon: -73.4,
    status: "active",
    ownerCall: "N0OWN",
  });
const tag = (who: string, e: MonitorEvent) =>
  `${Math.round(e.at)} ${who} ${e.dir} ${e.frame.type}${e.frame.pf ? (e.frame.cr === "command" ? " P" : " F") : ""} ns=${e.frame.ns ?? "-"} nr=${e.frame.nr ?? "-"} ${e.frame.info.length}B`;

beforeAll(async () => {
  pair = await startDirewolfPair();
  const radio = (dw: { kissPort: number }) => `tcp://127.0.0.1:${dw.kissPort}`;
  A = await startInProcess({
    INSTANCE: "gw-a",
    FED_PRIVATE_KEY: kA.privateKey,
    KISS_PORTS: radio(pair.a),
    RADIO_CALL: "N0GWA-5",
    FED_ENDPOINTS: "ax25:N0GWA-5",
  });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, KISS_PORTS: radio(pair.b), RADIO_CALL: "N0GWB-5" });
  await Promise.all([A, B].map((g) => radioOf(g.gw)!.radio.ports[0]!.port.whenConnected()));
  radioOf(A.gw)!.radio.onMonitor((e) => trace.push(tag("A", e)));
  radioOf(B.gw)!.radio.onMonitor((e) => trace.push(tag("B", e)));
}, 60_000);

afterAll(async () => {
  if (process.env.DUMP) console.log(trace.join("\n"), "\n--- direwolf 1\n", pair?.a.log(), "\n--- direwolf 2\n", pair?.b.log());
  await Promise.all([A?.stop(), B?.stop()]);
  await pair?.stop();
});

/** The first position of `call` the gateway stores, as its event says. */
function positionOf(g: Running, call: string, timeoutMs = 60_000): Promise<GatewayEvents["position"]> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (off(), reject(new Error(`no position of ${call}\n${trace.slice(-40).join("\n")}`))), timeoutMs);
    const off = g.gw.events.on("position", (e) => {
      if (e.call !== call) return;
      clearTimeout(t);
      off();
      resolve(e);
    });
  });
}

describe("two gateways, each behind its own Direwolf", () => {
  test("an APRS position each transmits from its outbox is heard by the other and reaches its station registry as RF heard by that station", async () => {
    const ua = signedInUser(A.gw, "N0TXA-7", { verified: true });
    const ub = signedInUser(B.gw, "N0TXB-7", { verified: true });
    const heard = Promise.all([positionOf(B, "N0TXA-7"), positionOf(A, "N0TXB-7")]);
    const fromA = (
      await (
        await A.post("/api/tx/aprs", { kind: "position", lat: 44.25, lon: -73.5, comment: "through direwolf 1" }, { headers: { cookie: ua.cookie } })
      ).json()
    ).item;
    const fromB = (
      await (
        await B.post("/api/tx/aprs", { kind: "position", lat: 43.75, lon: -72.5, comment: "through direwolf 2" }, { headers: { cookie: ub.cookie } })
      ).json()
    ).item;
    // the radio's own transmit tick (every 2 s) takes them from the outbox
    const [posB, posA] = await heard;
    expect(posB).toMatchObject({ source: "rf", igate: "N0GWB-5", via: "tnc" });
    expect(posA).toMatchObject({ source: "rf", igate: "N0GWA-5", via: "tnc" });
    // and so the station registry shows them, through the public API
    const station = async (g: Running, call: string) => {
      const r = await g.get(`/api/stations/${call}`);
      expect(r.status).toBe(200);
      return (await r.json()) as { source: string; igate: string; lat: number; lon: number };
    };
    const [atB, atA] = await Promise.all([station(B, "N0TXA-7"), station(A, "N0TXB-7")]);
    expect(atB).toMatchObject({ source: "rf", igate: "N0GWB-5" });
    expect(atB.lat).toBeCloseTo(44.25, 2);
    expect(atB.lon).toBeCloseTo(-73.5, 2);
    expect(atA).toMatchObject({ source: "rf", igate: "N0GWA-5" });
    expect(atA.lat).toBeCloseTo(43.75, 2);
    // what the transmitter did with each line, and what Direwolf 2 decoded off the "air"
    const state = (g: Running, id: number) => (g.gw.db.query("SELECT state FROM aprs_outbox WHERE id = ?").get(id) as { state: string }).state;
    expect(state(A, fromA.id)).toBe("sent");
    expect(state(B, fromB.id)).toBe("sent");
    await pair.b.waitForLog(/N0TXA-7>APZSVC,WIDE1-1,WIDE2-1:.*through direwolf 1/);
    await pair.a.waitForLog(/N0TXB-7>APZSVC,WIDE1-1,WIDE2-1:.*through direwolf 2/);
    const mheard = (await (await B.get("/api/node/mheard")).json()).heard as Array<{ call: string }>;
    expect(mheard.map((h) => h.call)).toContain("N0TXA-7");
  }, 120_000);

  test("B pulls A's signed records with SVCL1 over a connected AX.25 circuit through both Direwolfs; they appear on B's public API", async () => {
    for (let i = 1; i <= RECORDS; i++) publishRecord(A.gw, "cache", i, cache(i));
    upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: kA.publicKey, endpoints: ["ax25:N0GWA-5"] });
    // both stations may transmit: A answers the connection, B makes it
    signedInUser(A.gw, "N0GWA", { verified: true });
    signedInUser(B.gw, "N0GWB", { verified: true });
    const mark = trace.length;

    const r = await syncOverRadio(B.gw, "gw-a");
    if (!r.ok) throw new Error(`sync failed: ${JSON.stringify(r.error)}\n${trace.slice(mark).join("\n")}`);
    expect(r).toMatchObject({ ok: true, received: RECORDS, applied: RECORDS, link: { tier: "compact", compression: "deflateDict1" } });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND via = 'ax25'")).toBe(RECORDS);
    const mirrored = (await (await B.get("/api/caches?bbox=-74,44,-73,44.5")).json()) as { caches: Array<{ name: string }> };
    expect(mirrored.caches.map((c) => c.name).sort()).toEqual(Array.from({ length: RECORDS }, (_, i) => `Direwolf cache ${i + 1}`).sort());
    expect(getPeer(B.gw, "gw-a")).toMatchObject({ syncFailures: 0, lastError: null });

    // it went over the air: Direwolf 2 keyed B's connection request and Direwolf 1 heard it, and
    // the circuit was taken down again on both sides
    await pair.a.waitForLog(/N0GWB-5>N0GWA-5.*SABM/);
    await pair.b.waitForLog(/N0GWA-5>N0GWB-5.*UA/);
    const ev = trace.slice(mark);
    expect(ev.some((l) => / B tx I /.test(l))).toBe(true);
    expect(ev.some((l) => / A tx I /.test(l))).toBe(true);
    expect(radioOf(A.gw)!.radio.ports[0]!.station.activeLinks()).toEqual([]);
    expect(radioOf(B.gw)!.radio.ports[0]!.station.activeLinks()).toEqual([]);
  }, 240_000);
});
