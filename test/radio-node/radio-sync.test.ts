/**
 * Two gateways, each with its own radio, joined by a KISS "null modem" (an
 * instant, lossless channel: the real-TNC run is in direwolf-gateway.test.ts):
 * one pulls the other's records over an AX.25 connected-mode circuit with
 * SVCL1, on request, as a box command, and on the radio schedule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { nullModem } from "../helpers/kiss-tnc.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { radioTick } from "../../src/radio-node/radio.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { syncOverRadio } from "../../src/radio-node/sync.ts";
import { runLocalBox } from "../../src/radio-node/local-box.ts";

const kA = generateKeyPair();
const kB = generateKeyPair();
const modem = nullModem();
let A: Running;
let B: Running;
const cache = (i: number) =>
  cacheToWire({
    name: `Packet cache ${i}`,
    type: "traditional",
    size: "small",
    difficulty: 2,
    terrain: 2,
    lat: 42.5 + i / 100,
    lon: -71.2,
    status: "active",
    ownerCall: "N0OWN",
  });

beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: kA.privateKey, KISS_PORTS: modem.a, RADIO_CALL: "N0GWA-5", FED_ENDPOINTS: "ax25:N0GWA-5" });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, KISS_PORTS: modem.b, RADIO_CALL: "N0GWB-5", ADMIN_CALLSIGNS: "N0GWB" });
  await Promise.all([A, B].map((g) => radioOf(g.gw)!.radio.ports[0]!.port.whenConnected()));
  for (let i = 1; i <= 30; i++) publishRecord(A.gw, "cache", i, cache(i));
  upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: kA.publicKey, endpoints: ["ax25:N0GWA-5"] });
  signedInUser(B.gw, "N0GWB", { verified: true });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
  modem.stop();
});

describe("SVCL1 over an AX.25 circuit between two gateways", () => {
  test("a station whose RADIO_CALL is not verified answers no connection", async () => {
    const r = await syncOverRadio(B.gw, "gw-a");
    expect(r).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(getPeer(B.gw, "gw-a")).toMatchObject({ syncFailures: 1 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a'")).toBe(0);
  });

  test("pulled on request: the records appear on the receiving side, marked as come by ax25", async () => {
    signedInUser(A.gw, "N0GWA", { verified: true });
    const r = await syncOverRadio(B.gw, "gw-a");
    expect(r.error).toBeNull();
    expect(r).toMatchObject({ ok: true, received: 30, applied: 30, link: { tier: "compact", compression: "deflateDict1", batch: 25 } });
    expect(r.feeds.cache!.pages).toBeGreaterThanOrEqual(2); // 25 a page at most, fewer when 25 do not fit a line
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND via = 'ax25'")).toBe(30);
    const mirrored = (await (await B.get("/api/caches?bbox=-72,42,-70,43.5")).json()) as { caches?: Array<{ name: string }> };
    expect(JSON.stringify(mirrored)).toContain("Packet cache 17");
    expect(getPeer(B.gw, "gw-a")).toMatchObject({ syncFailures: 0, lastError: null });
    // both stations went back to idle: no link left over
    expect(radioOf(A.gw)!.radio.ports[0]!.station.activeLinks()).toEqual([]);
    expect(radioOf(B.gw)!.radio.ports[0]!.station.activeLinks()).toEqual([]);
  });

  test("as a box command for the local box, and on the radio schedule for radio-only peers", async () => {
    for (let i = 31; i <= 33; i++) publishRecord(A.gw, "cache", i, cache(i));
    const op = signedInUser(B.gw, "N0GWB-1", { verified: true });
    const cmd = (await (await B.post("/api/box/local/command", { kind: "sync", peer: "gw-a" }, { headers: { cookie: op.cookie } })).json()).command;
    await runLocalBox(B.gw, radioOf(B.gw)!);
    const log = (await (await B.get("/api/box/local/log", { headers: { cookie: op.cookie } })).json()).commands as Array<{
      id: number;
      ok: boolean;
      result: Record<string, number>;
    }>;
    expect(log.find((c) => c.id === cmd.id)).toMatchObject({ ok: true, result: { applied: 3, received: 3 } });

    publishRecord(A.gw, "cache", 34, cache(34));
    const synced = new Promise<{ ok: boolean; applied: number }>((resolve) => B.gw.events.on("fedSynced", (e) => e.instance === "gw-a" && resolve(e)));
    const tick = await radioTick(B.gw);
    expect(tick.sync).toEqual(["gw-a"]);
    expect(await synced).toMatchObject({ ok: true, applied: 1 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND via = 'ax25'")).toBe(34);
    // not due again within the interval
    expect((await radioTick(B.gw)).sync).toBeUndefined();
  });
});
