/**
 * The gateway as a NET/ROM node: the NODES table learnt from broadcasts its
 * port hears (and the sysop's routes), its own broadcast, and SVCL1 over a
 * NET/ROM circuit between two gateways joined by a KISS null modem.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, nullModem, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { radioTick } from "../../src/radio-node/radio.ts";
import { broadcastNodes } from "../../src/radio-node/broadcasts.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { syncOverRadio } from "../../src/radio-node/sync.ts";
import { decodeNodes, isNodesFrame, nodesFrames, PID_NETROM } from "../../radio/index.ts";
import { waitFor } from "../helpers/wait.ts";

const INGEST = "ingest-secret-0123456789";
let tnc: FakeTnc;
let N: Running; // a node behind a TNC the test drives
const modem = nullModem();
const kA = generateKeyPair();
const kB = generateKeyPair();
let A: Running;
let B: Running;

beforeAll(async () => {
  tnc = fakeTnc();
  N = await startInProcess({
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0NOD-5",
    NODE_ALIAS: "MYNODE",
    NODE_CALL: "N0NOD-7",
    ADMIN_CALLSIGNS: "N0SYS",
    INGEST_SECRET: INGEST,
  });
  A = await startInProcess({
    INSTANCE: "gw-a",
    FED_PRIVATE_KEY: kA.privateKey,
    KISS_PORTS: modem.a,
    RADIO_CALL: "N0GWA-5",
    NODE_ALIAS: "GWA",
    NODE_CALL: "N0GWA-7",
    FED_ENDPOINTS: "netrom:GWA",
  });
  B = await startInProcess({
    INSTANCE: "gw-b",
    FED_PRIVATE_KEY: kB.privateKey,
    KISS_PORTS: modem.b,
    RADIO_CALL: "N0GWB-5",
    NODE_ALIAS: "GWB",
    NODE_CALL: "N0GWB-7",
  });
  await tnc.connected();
  await Promise.all([A, B].map((g) => radioOf(g.gw)!.radio.ports[0]!.port.whenConnected()));
});
afterAll(async () => {
  await Promise.all([N.stop(), A.stop(), B.stop()]);
  tnc.stop();
  modem.stop();
});

const nodes = async (g: Running) =>
  (await (await g.get("/api/node/nodes")).json()) as {
    node: { alias: string; call: string } | null;
    nodes: Array<{ call: string; alias: string; neighbour: string; quality: number; source: string; port: string }>;
    routes: unknown[];
  };

describe("the NODES table", () => {
  test("a broadcast heard gives routes to its sender and through it (quality scaled, split horizon, poor routes dropped)", async () => {
    const [frame] = nodesFrames(
      { call: "N0NBR", ssid: 7 },
      {
        alias: "NBR",
        entries: [
          { dest: { call: "N0FAR", ssid: 7 }, alias: "FAR", neighbour: { call: "N0XYZ", ssid: 7 }, quality: 200 },
          { dest: { call: "N0BAK", ssid: 7 }, alias: "BACK", neighbour: { call: "N0NOD", ssid: 7 }, quality: 250 }, // learnt from us: split horizon
          { dest: { call: "N0WEK", ssid: 7 }, alias: "WEAK", neighbour: { call: "N0XYZ", ssid: 7 }, quality: 40 }, // 40 × 192/256 = 30: below 50
          { dest: { call: "N0NOD", ssid: 7 }, alias: "MYNODE", neighbour: { call: "N0NBR", ssid: 7 }, quality: 250 }, // ourselves
        ],
      },
    );
    tnc.hear(frame!);
    await waitFor(async () => (await nodes(N)).nodes.length >= 2, "two NODES entries", { timeoutMs: 5000 });
    const t = await nodes(N);
    expect(t.node).toMatchObject({ alias: "MYNODE", call: "N0NOD-7" });
    expect(t.nodes.map((n) => [n.alias, n.call, n.neighbour, n.quality, n.source])).toEqual([
      ["FAR", "N0FAR-7", "N0NBR-7", 150, "heard"],
      ["NBR", "N0NBR-7", "N0NBR-7", 192, "heard"],
    ]);
    expect(t.nodes[0]!.port).toBe(tnc.url);
  });

  test("the sysop sets and removes routes; others cannot; bad input changes nothing", async () => {
    const op = signedInUser(N.gw, "N0SYS", { verified: true });
    const user = signedInUser(N.gw, "N0USR", { verified: true });
    const route = { call: "N0MAN-7", alias: "MAN", neighbour: "N0NBR-7", quality: 120 };
    expect((await N.post("/api/node/nodes", route, { headers: { cookie: user.cookie } })).status).toBe(403);
    for (const bad of [
      { ...route, quality: 300 },
      { ...route, alias: "TOOLONGX" },
      { ...route, call: "not a call" },
      { ...route, neighbour: 7 },
    ]) {
      expect((await N.post("/api/node/nodes", bad, { headers: { cookie: op.cookie } })).status).toBe(400);
    }
    // A field the route does not take is refused by name (the same route without it is taken below).
    const stray = await N.post("/api/node/nodes", { ...route, colour: "red" }, { headers: { cookie: op.cookie } });
    expect({ status: stray.status, answer: await stray.json() }).toEqual({
      status: 400,
      answer: {
        error: "invalid",
        message: 'body.colour: unknown field "colour"; it takes call, neighbour, alias, quality, port, remove',
        field: "body.colour",
      },
    });
    expect((await nodes(N)).nodes.length).toBe(2);
    const r = await N.post("/api/node/nodes", route, { headers: { cookie: op.cookie } });
    expect(r.status).toBe(200);
    expect((await r.json()).route).toMatchObject({ call: "N0MAN-7", alias: "MAN", quality: 120, source: "manual" });
    expect((await nodes(N)).nodes.map((n) => n.alias)).toEqual(["FAR", "MAN", "NBR"]);
    // a broadcast never overwrites the sysop's route
    // (the same broadcast's other entry is taken: it was heard and applied, not yet on its way)
    tnc.hear(
      nodesFrames(
        { call: "N0NBR", ssid: 7 },
        {
          alias: "NBR",
          entries: [
            { dest: { call: "N0MAN", ssid: 7 }, alias: "OTHER", neighbour: { call: "N0XYZ", ssid: 7 }, quality: 255 },
            { dest: { call: "N0NEW", ssid: 7 }, alias: "NEW", neighbour: { call: "N0XYZ", ssid: 7 }, quality: 200 },
          ],
        },
      )[0]!,
    );
    await waitFor(async () => (await nodes(N)).nodes.some((n) => n.alias === "NEW"), "NEW from NBR's broadcast");
    expect((await nodes(N)).nodes.find((n) => n.call === "N0MAN-7")).toMatchObject({ alias: "MAN", source: "manual" });
    expect((await N.post("/api/node/nodes", { call: "N0NEW-7", neighbour: "N0NBR-7", remove: true }, { headers: { "x-ingest-secret": INGEST } })).status).toBe(
      200,
    );
    expect((await N.post("/api/node/nodes", { call: "N0MAN-7", neighbour: "N0NBR-7", remove: true }, { headers: { "x-ingest-secret": INGEST } })).status).toBe(
      200,
    );
    expect((await N.post("/api/node/nodes", { call: "N0MAN-7", neighbour: "N0NBR-7", remove: true }, { headers: { "x-ingest-secret": INGEST } })).status).toBe(
      404,
    );
  });

  test("our broadcast: only with a verified RADIO_CALL; UI frames from the node call to NODES, PID 0xCF, listing what we know", async () => {
    const gr = radioOf(N.gw)!;
    expect(broadcastNodes(N.gw, gr)).toBe(0); // RADIO_CALL not verified yet: silent
    signedInUser(N.gw, "N0NOD-5", { verified: true });
    const from = tnc.sent.length;
    const tick = await radioTick(N.gw);
    expect(tick.nodes).toBe(1);
    const [f] = await tnc.waitSent(1, { from });
    expect(isNodesFrame(f!)).toBe(true);
    expect(f!.pid).toBe(PID_NETROM);
    expect(f!.src).toEqual({ call: "N0NOD", ssid: 7 });
    const b = decodeNodes(f!.info);
    expect(b.ok && b.value.alias).toBe("MYNODE");
    expect(b.ok && b.value.entries.map((e) => [e.alias, e.quality])).toEqual([
      ["FAR", 150],
      ["NBR", 192],
    ]);
    expect((await radioTick(N.gw)).nodes).toBeUndefined(); // not due again yet
  });
});

describe("SVCL1 over a NET/ROM circuit", () => {
  test("B learns A's node from its broadcast, opens a circuit to the alias through the neighbour, and pulls A's records", async () => {
    for (let i = 1; i <= 12; i++)
      publishRecord(
        A.gw,
        "cache",
        i,
        cacheToWire({
          name: `Node cache ${i}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: 40 + i / 100,
          lon: -105,
          status: "active",
          ownerCall: "N0OWN",
        }),
      );
    signedInUser(A.gw, "N0GWA", { verified: true });
    signedInUser(B.gw, "N0GWB", { verified: true });
    upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: kA.publicKey, endpoints: ["netrom:GWA"] });
    // before A's NODES broadcast B has no route to GWA
    expect(await syncOverRadio(B.gw, "gw-a")).toMatchObject({ ok: false, error: { code: "no_route" } });
    expect(broadcastNodes(A.gw, radioOf(A.gw)!)).toBe(1);
    await waitFor(async () => (await nodes(B)).nodes.some((n) => n.alias === "GWA"), "GWA in B's NODES", { timeoutMs: 5000 });
    expect((await nodes(B)).nodes).toContainEqual(expect.objectContaining({ alias: "GWA", call: "N0GWA-7", neighbour: "N0GWA-7" }));

    const r = await syncOverRadio(B.gw, "gw-a");
    expect(r.error).toBeNull();
    expect(r).toMatchObject({ ok: true, applied: 12 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND via = 'netrom'")).toBe(12);
    // the circuit ran over an AX.25 link between the node calls, PID 0xCF
    const nb = radioOf(B.gw)!.netrom!;
    expect(nb.stats.packetsOut).toBeGreaterThan(4);
    expect(radioOf(A.gw)!.netrom!.active()).toEqual([]);
    expect(nb.active()).toEqual([]);
  });
});
