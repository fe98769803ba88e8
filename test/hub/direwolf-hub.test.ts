/**
 * The gateway as the hub of a station, with real programs on both sides of a
 * real Direwolf pair (../helpers/direwolf.ts: 1200 baud AFSK through FIFO
 * "audio"). The gateway's TNC is Direwolf 1; Direwolf 2 is the other station
 * on the channel.
 *
 *   KISS server   aprx (Debian's aprx, its tcp-device interface) is a KISS
 *                 client of the gateway: what Direwolf 2 transmits reaches
 *                 aprx's RF log through the gateway, and aprx's beacon goes on
 *                 the air through the gateway and Direwolf 1 to Direwolf 2.
 *   APRS-IS       Direwolf 2's IGate (IGSERVER, IGLOGIN) logs in to the
 *                 gateway's APRS-IS server, uploads what its radio hears (no
 *                 RF sighting here: it came over APRS-IS), and gets a message
 *                 for a station it heard to gate back to RF.
 *   IGate rule    a message a verified client sends to a station the
 *                 gateway's own radio heard goes on the air from RADIO_CALL.
 *
 * Frames take about a second each on this channel: the timeouts are long.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess, Socket } from "bun";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { tnc2Frame } from "../helpers/kiss-tnc.ts";
import { startAprx } from "../helpers/aprx.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";
import { localSighting } from "../../src/game/corroborate.ts";
import { encodeFrame, encodeKiss } from "../../radio/index.ts";
import type { GatewayEvents } from "../../src/core/events.ts";
import { freePorts } from "../helpers/ports.ts";

const RADIO_CALL = "N0GWH-10";
const IGATE = "N0DWB-2";
let pair: DirewolfPair;
let g: Running;
let aprx: Subprocess<"ignore", "pipe", "pipe"> | null = null;
let aprxOut = "";
const clients: LineClient[] = [];
const kissSockets: Socket<undefined>[] = [];

/** Transmits a frame on a Direwolf as a KISS client of it (as any program on that station would). */
async function transmitVia(kissPort: number, line: string) {
  const s = await Bun.connect({ hostname: "127.0.0.1", port: kissPort, socket: { data() {} } });
  kissSockets.push(s);
  s.write(encodeKiss(encodeFrame(tnc2Frame(line))));
}

async function isClient(call: string, filter: string | null): Promise<LineClient> {
  const c = await lineClient(g.gw.hub!.aprsIs!.port);
  clients.push(c);
  c.send(`user ${call} pass ${aprsIsPasscode(call)} vers TestClient 1.0${filter ? ` filter ${filter}` : ""}`);
  await c.waitFor(/^# logresp .* verified/);
  return c;
}

function nextEvent<K extends "aprsMessage" | "position">(kind: K, match: (e: GatewayEvents[K]) => boolean, timeoutMs = 60_000): Promise<GatewayEvents[K]> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(
      () => (
        off(),
        reject(new Error(`no ${kind} event in ${timeoutMs} ms\n--- direwolf 1\n${pair.a.log().slice(-3000)}\n--- direwolf 2\n${pair.b.log().slice(-3000)}`))
      ),
      timeoutMs,
    );
    const off = g.gw.events.on(kind, (e) => {
      if (!match(e)) return;
      clearTimeout(t);
      off();
      resolve(e);
    });
  });
}

beforeAll(async () => {
  const [isPort, kissPort] = await freePorts(2);
  pair = await startDirewolfPair({
    calls: ["N0DWA-1", IGATE],
    // Direwolf 2 is an IGate client of the gateway's APRS-IS server, and gates messages back to RF
    extra: [[], [`IGSERVER 127.0.0.1:${isPort}`, `IGLOGIN ${IGATE} ${aprsIsPasscode(IGATE)}`, "IGTXVIA 0 WIDE1-1"]],
  });
  g = await startInProcess({
    KISS_PORTS: `tcp://127.0.0.1:${pair.a.kissPort}`,
    RADIO_CALL,
    RADIO_PATH: "WIDE1-1",
    KISS_SERVER: `127.0.0.1:${kissPort}`,
    KISS_SERVER_TX: "on",
    APRSIS_LISTEN: `127.0.0.1:${isPort}`,
  });
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
  // RADIO_CALL verified: the station may transmit
  signedInUser(g.gw, "N0GWH", { verified: true });
  // aprx beacons as N0APX-1 through the KISS server: a call verified here
  signedInUser(g.gw, "N0APX", { verified: true });
}, 60_000);

afterAll(async () => {
  if (process.env.DUMP)
    console.log(
      g?.gw.db.query("SELECT src, raw, source, igate, via FROM packets").all(),
      g?.gw.db.query("SELECT * FROM aprs_messages").all(),
      "--- aprx\n",
      aprxOut,
      "\n--- direwolf 1\n",
      pair?.a.log(),
      "\n--- direwolf 2\n",
      pair?.b.log(),
    );
  for (const c of clients) c.close();
  for (const s of kissSockets) s.end();
  if (aprx && aprx.exitCode === null) aprx.kill();
  await aprx?.exited;
  await g?.stop();
  await pair?.stop();
});

const aprxInstalled = existsSync("/usr/sbin/aprx");

describe("the gateway as the hub of a station", () => {
  test.skipIf(!aprxInstalled)(
    "aprx as a KISS client of the gateway: it hears what crosses the air to Direwolf 1, and its beacon goes out through the gateway to Direwolf 2",
    async () => {
      const dir = pair.dir;
      aprx = startAprx(
        dir,
        {
          call: "N0APX-1",
          kissPort: g.gw.hub!.kiss!.port,
          txOk: true,
          after: [
            "<beacon>",
            "  beaconmode radio",
            "  cycle-size 10s",
            '  beacon interface N0APX-1 srccall N0APX-1 via WIDE1-1 symbol "R&" lat "4230.00N" lon "07100.00W" comment "aprx through svc-gateway"',
            "</beacon>",
          ],
        },
        (text) => (aprxOut += text),
      );
      // aprx connects
      for (let i = 0; i < 200 && !(await kissClients()).length; i++) await Bun.sleep(50);
      expect((await kissClients()).length).toBe(1);

      // Direwolf 2 transmits; Direwolf 1 hears it; the gateway copies it to aprx
      await transmitVia(pair.b.kissPort, "N0RFX-5>APRS,WIDE1-1:>heard through the hub");
      const rflog = join(dir, "aprx-rf.log");
      for (let i = 0; i < 300 && !(existsSync(rflog) && readFileSync(rflog, "latin1").includes("N0RFX-5>APRS")); i++) await Bun.sleep(100);
      expect(readFileSync(rflog, "latin1")).toMatch(/N0RFX-5>APRS,WIDE1-1:>heard through the hub/);

      // aprx's beacon: through the gateway's transmitter, Direwolf 1, the air, Direwolf 2
      await pair.b.waitForLog(/N0APX-1>APRX\w*,WIDE1-1:!4230\.00NR07100\.00W&aprx through svc-gateway/, { timeoutMs: 90_000 });
      expect(g.gw.hub!.kiss!.stats.sent).toBeGreaterThanOrEqual(1);
      const row = (await kissClients())[0]!;
      expect(row.rx as number).toBeGreaterThanOrEqual(1);
      expect(row.tx as number).toBeGreaterThanOrEqual(1);
    },
    150_000,
  );

  test("Direwolf's IGate logs in, uploads what its radio hears, and gets a message for a station it heard to gate back to RF", async () => {
    const watcher = await isClient("N0WCH", "b/N0X-7");
    for (let i = 0; i < 200 && !(await isClients()).some((c) => c.login === IGATE); i++) await Bun.sleep(100);
    const ig = (await isClients()).find((c) => c.login === IGATE)!;
    expect(ig).toMatchObject({ verified: true, software: "Dire-Wolf 1.6" });
    // Direwolf starts gating 7 s after its login
    await Bun.sleep(Math.max(0, (ig.connectedAt as number) + 10_000 - Date.now()));

    // a station near Direwolf 2 beacons (sent through Direwolf 1's KISS port by another program there)
    const pos = nextEvent("position", (e) => e.call === "N0X-7");
    await transmitVia(pair.a.kissPort, "N0X-7>APRS,WIDE1-1:!4231.00N/07101.00W-near direwolf 2");
    await pos;
    const up = await watcher.waitFor(/^N0X-7>/, { timeoutMs: 60_000 });
    expect(up).toBe(`N0X-7>APRS,WIDE1-1,qAR,${IGATE}:!4231.00N/07101.00W-near direwolf 2`);
    // the registry names the IGate that says it heard it on RF...
    const st = await (await g.get("/api/stations/N0X-7")).json();
    expect(st).toMatchObject({ source: "rf", igate: IGATE });
    // ...but the line came over APRS-IS (an upload under a computed passcode, which may name any IGate):
    // it is no RF sighting, and no find near it reaches Tier A by it (issue 27, item 6)
    expect(g.gw.db.query("SELECT via FROM positions WHERE call = 'N0X-7'").all()).toEqual([{ via: "aprsis" }]);
    expect(localSighting(g.gw, "N0X-7", 42.51667, -71.01667, Date.now())).toBeNull();

    // a verified client messages it: the server hands the message to Direwolf 2, whose IGate puts it on the air
    const sender = await isClient("N0SND", null);
    const markA = pair.a.log().length;
    sender.send("N0SND>APRS,TCPIP*::N0X-7    :hello from the hub{7");
    // Direwolf 2 got it from the server (not through a filter: it has none) and transmits it as a third-party packet
    await pair.b.waitForLog(/\[ig>tx\] N0SND>APRS,TCPIP\*,qAC,N0GWH-GW::N0X-7 {4}:hello from the hub\{7/, { timeoutMs: 30_000 });
    await pair.b.waitForLog(/\[0L\] N0DWB-2>APDW16,WIDE1-1:\}N0SND>APRS,TCPIP,N0DWB-2\*::N0X-7 {4}:hello from the hub\{7/, { timeoutMs: 60_000 });
    // and it crossed the air: Direwolf 1 decoded it
    await pair.a.waitForLog(/N0DWB-2>APDW16,WIDE1-1:\}N0SND>APRS,TCPIP,N0DWB-2\*::N0X-7 {4}:hello from the hub\{7/, { from: markA, timeoutMs: 60_000 });
    // the sender's own message is not echoed back to it; the watcher's filter (b/N0X-7) does not pass it
    expect(sender.lines.some((l) => l.includes("hello from the hub"))).toBe(false);
    expect(watcher.lines.some((l) => l.includes("hello from the hub"))).toBe(false);
  }, 150_000);

  test("a message a verified client sends to a station the gateway's radio heard goes on the air from RADIO_CALL; one to a station heard only on APRS-IS does not", async () => {
    const sender = await isClient("N0SN2", null);
    // N0Y-9 is on the air near Direwolf 1: the gateway hears it itself
    const pos = nextEvent("position", (e) => e.call === "N0Y-9" && e.via === "tnc");
    await transmitVia(pair.b.kissPort, "N0Y-9>APRS:!4229.00N/07059.00W-near the gateway");
    await pos;
    // N0Z-3 is known only from APRS-IS
    sender.send("N0Z-3>APRS,TCPIP*:!4000.00N/07000.00W-internet only");
    for (let i = 0; i < 100 && (await g.get("/api/stations/N0Z-3")).status !== 200; i++) await Bun.sleep(20);

    const gatedBefore = g.gw.hub!.aprsIs!.stats.gatedToRf;
    const mark = pair.b.log().length;
    sender.send("N0SN2>APRS,TCPIP*::N0Z-3    :not for the air{1");
    sender.send("N0SN2>APRS,TCPIP*::N0Y-9    :for the air{2");
    await pair.b.waitForLog(new RegExp(`${RADIO_CALL}>APZSVC,WIDE1-1:\\}N0SN2>APRS,TCPIP,${RADIO_CALL}\\*::N0Y-9    :for the air\\{2`), {
      from: mark,
      timeoutMs: 60_000,
    });
    expect(g.gw.hub!.aprsIs!.stats.gatedToRf).toBe(gatedBefore + 1);
    expect(pair.b.log().slice(mark)).not.toContain("not for the air");
  }, 120_000);
});

async function ports() {
  return ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, unknown> & { name: string; clients?: Array<Record<string, unknown>> }> })
    .ports;
}
async function kissClients() {
  return (await ports()).find((p) => p.name === "kiss-server")?.clients ?? [];
}
async function isClients() {
  return (await ports()).find((p) => p.name === "aprsis-server")?.clients ?? [];
}
