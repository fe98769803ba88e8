/**
 * The iGate end to end: gateway A has a radio (a fake TNC) and logs in to
 * gateway B's APRS-IS server (APRSIS_LISTEN) as its upstream, with IGATE and
 * IGATE_TX on. A watcher logged in to B sees what A gates up; a sender on B
 * messages stations A's radio heard. A's clock is the test's: the duplicate
 * windows and the transmit budget do not depend on how fast the machine is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { waitFor } from "../helpers/wait.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";
import { localSighting } from "../../src/game/corroborate.ts";
import { fromAprsIs, igateStatus, type IgateStatus } from "../../src/stations/igate.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { handClock } from "../helpers/clock.ts";

const CALL = "N0GW-10";
const clock = handClock();
let a: Running;
let b: Running;
let tnc: FakeTnc;
let watcher: LineClient;
let sender: LineClient;

async function client(call: string, filter: string | null): Promise<LineClient> {
  const c = await lineClient(b.gw.hub!.aprsIs!.port);
  c.send(`user ${call} pass ${aprsIsPasscode(call)} vers TestClient 1.0${filter ? ` filter ${filter}` : ""}`);
  await c.waitFor(/^# logresp .* verified/);
  return c;
}

async function igate(): Promise<IgateStatus> {
  const ports = (await (await a.get("/api/ports")).json()) as { ports: Array<{ name: string; igate?: IgateStatus }> };
  return ports.ports.find((p) => p.name === "aprs-is")!.igate!;
}

const hear = (line: string) => tnc.hear(tnc2Frame(line));

beforeAll(async () => {
  b = await startInProcess({ APRSIS_LISTEN: "127.0.0.1:0" });
  tnc = fakeTnc();
  a = await startInProcess(
    {
      KISS_PORTS: tnc.url,
      RADIO_CALL: CALL,
      RADIO_PATH: "WIDE1-1",
      RADIO_TX_PER_MINUTE: "4",
      APRSIS_SERVER: `127.0.0.1:${b.gw.hub!.aprsIs!.port}`,
      APRSIS_CALL: CALL,
      // the sender's positions, and N0LOC2's lines on APRS-IS
      APRSIS_FILTER: "b/N0SND*/N0LOC2*",
      IGATE: "on",
      IGATE_TX: "on",
    },
    { clock },
  );
  await tnc.connected();
  await waitFor(async () => (await igate()).uplink, "A's verified login to B");
  watcher = await client("N0WCH", "p/N0");
  sender = await client("N0SND", null);
}, 30_000);

afterAll(async () => {
  watcher?.close();
  sender?.close();
  await a?.stop();
  await b?.stop();
  tnc?.stop();
});

describe("iGate, RF to APRS-IS", () => {
  test("what the radio hears reaches the upstream with qAR and our call; each rule keeps its cases off; counters say why", async () => {
    hear("N0LOC-7>APRS,WIDE1-1:!4237.14N/07120.83W-local");
    hear("N0LOC2-7>APRS:!4237.24N/07120.93W-local too");
    hear("N0NG-1>APRS,NOGATE:>nogate");
    hear("N0RO-1>APRS,RFONLY:>rfonly");
    hear("N0TI-1>APRS,TCPIP*:>tcpip");
    hear("N0TX-1>APRS,TCPXX*:>tcpxx");
    hear("N0GX-1>APRS,WIDE1*:}N0IN-1>APRS,TCPIP,N0GX-1*::N0LOC-7  :from the internet{1");
    hear("N0GX-1>APRS:}N0IN-2>APXYZ,N0RELAY*:>inner gated");
    hear("N0Q-1>APRS:?APRS?");
    hear("N0DUP-1>APRS,N0DIG-1*:>twice");
    hear("N0DUP-1>APRS,WIDE1-1:>twice");
    hear("N0FAR-1>APRS,N0DIG-1,N0DIG-2*:>two hops away");
    hear("N0END-1>APRS:>end");
    await watcher.waitFor(/^N0END-1>/);
    const up = watcher.lines.filter((l) => /^N0(LOC|NG|RO|TI|TX|GX|IN|Q|DUP|FAR|END)/.test(l));
    expect(up).toEqual([
      `N0LOC-7>APRS,WIDE1-1,qAR,${CALL}:!4237.14N/07120.83W-local`,
      `N0LOC2-7>APRS,qAR,${CALL}:!4237.24N/07120.93W-local too`,
      `N0IN-2>APXYZ,N0RELAY*,qAR,${CALL}:>inner gated`,
      `N0DUP-1>APRS,N0DIG-1*,qAR,${CALL}:>twice`,
      `N0FAR-1>APRS,N0DIG-1,N0DIG-2*,qAR,${CALL}:>two hops away`,
      `N0END-1>APRS,qAR,${CALL}:>end`,
    ]);
    const s = await igate();
    expect(s).toMatchObject({ rfToIs: true, heard: 13, gated: 6, dropped: { "no-gate-path": 4, "third-party-internet": 1, query: 1, duplicate: 1 } });
    expect(s.recent[0]).toMatchObject({ dir: "rf-to-is", line: `N0END-1>APRS,qAR,${CALL}:>end` });
    // our own radio's hearing is an RF sighting on A; the same line through APRS-IS is none on B (issue 27, item 6)
    expect(localSighting(a.gw, "N0LOC-7", 42.619, -71.347, clock.now())).not.toBeNull();
    await waitFor(() => b.gw.db.query("SELECT 1 FROM positions WHERE call = 'N0LOC-7'").get(), "B stores N0LOC-7");
    expect(localSighting(b.gw, "N0LOC-7", 42.619, -71.347, Date.now())).toBeNull();
  });

  test("the same frame goes up once in 30 s, and again after", async () => {
    const before = await igate();
    hear("N0WIN-1>APRS:>window");
    hear("N0WIN-1>APRS,N0DIG-1*:>window");
    await waitFor(async () => (await igate()).heard === before.heard + 2, "two frames heard");
    clock.advance(31_000);
    hear("N0WIN-1>APRS:>window");
    await waitFor(async () => (await igate()).heard === before.heard + 3, "three frames heard");
    const s = await igate();
    expect(s.gated).toBe(before.gated + 2);
    expect(s.dropped.duplicate).toBe((before.dropped.duplicate ?? 0) + 1);
  });
});

describe("iGate, APRS-IS to RF", () => {
  test("nothing goes on the air while RADIO_CALL is unverified", async () => {
    sender.send("N0SND>APRS,TCPIP*::N0LOC-7  :not yet{1");
    await waitFor(async () => (await igate()).notToRf["not-verified"] === 1, "a message held back: RADIO_CALL unverified");
    expect(tnc.sent).toHaveLength(0);
    signedInUser(a.gw, "N0GW", { verified: true });
  });

  test("a message to a station heard directly goes out as third-party, then the sender's next position, once", async () => {
    sender.send("N0SND>APRS,TCPIP*::N0LOC-7  :hello{2");
    const [m] = await tnc.waitSent(1);
    expect(tnc2Text(m!)).toBe(`${CALL}>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,${CALL}*::N0LOC-7  :hello{2`);
    sender.send("N0SND>APRS,TCPIP*:!4237.00N/07120.00W-the sender");
    const [p] = await tnc.waitSent(1, { from: 1 });
    expect(tnc2Text(p!)).toBe(`${CALL}>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,${CALL}*:!4237.00N/07120.00W-the sender`);
    // the next position is not owed: it stays off the air
    const before = (await igate()).notToRf["not-for-rf"] ?? 0;
    sender.send("N0SND>APRS,TCPIP*:!4237.01N/07120.01W-moved");
    await waitFor(async () => (await igate()).notToRf["not-for-rf"] === before + 1, "the second position held back");
    expect(tnc.sent).toHaveLength(2);
    expect((await igate()).toRf).toEqual({ message: 1, position: 1, filter: 0 });
  });

  test("our own transmission heard back through a digipeater is not gated up", async () => {
    const before = await igate();
    hear(`${CALL}>APZSVC,N0DIG-1*:}N0SND>APRS,TCPIP,${CALL}*::N0LOC-7  :hello{2`);
    await waitFor(async () => (await igate()).heard === before.heard + 1, "the echo heard");
    expect((await igate()).dropped["own-echo"]).toBe(1);
  });

  test("messages to stations two hops away, or heard on APRS-IS since, stay off the air", async () => {
    sender.send("N0SND>APRS,TCPIP*::N0FAR-1  :too far{3");
    await waitFor(async () => (await igate()).notToRf["addressee-not-local"] === 1, "the message to N0FAR-1 held back");
    // N0LOC2-7 logs in to APRS-IS itself: its messages go there
    const loc2 = await client("N0LOC2-7", null);
    loc2.send("N0LOC2-7>APRS,TCPIP*:>on the internet now");
    await waitFor(() => b.gw.db.query("SELECT 1 FROM packets WHERE src = 'N0LOC2-7' AND via = 'aprsis'").get(), "B stores N0LOC2-7's line");
    await Bun.sleep(200);
    sender.send("N0SND>APRS,TCPIP*::N0LOC2-7 :use the internet{4");
    await waitFor(async () => (await igate()).notToRf["addressee-on-aprs-is"] === 1, "the message to N0LOC2-7 held back");
    loc2.close();
    expect(tnc.sent).toHaveLength(2);
  });

  test("?IGATE? is answered on RF; a flood of messages is held to RADIO_TX_PER_MINUTE", async () => {
    hear("N0Q-2>APRS,WIDE1-1:?IGATE?");
    const [ans] = await tnc.waitSent(1, { from: 2 });
    expect(tnc2Text(ans!)).toMatch(new RegExp(`^${CALL}>APZSVC,WIDE1-1:<IGATE,MSG_CNT=1,LOC_CNT=\\d+$`));
    // three of the four tokens are spent (the clock stands still): one more message goes, two wait
    for (const i of [5, 6, 7]) sender.send(`N0SND>APRS,TCPIP*::N0LOC-7  :flood ${i}{${i}`);
    await waitFor(async () => (await igate()).notToRf["rate-limited"] === 2, "two messages over the budget");
    expect(tnc.sent).toHaveLength(4);
    expect(tnc2Text(tnc.sent[3]!)).toContain("flood 5{5");
  });
});

describe("iGate, APRS-IS to RF: the windows", () => {
  test("the same line goes on the air once in 30 s; the sender's position is owed again 30 minutes on", async () => {
    const radio = fakeTnc();
    let now = Date.now();
    const c = await startInProcess(
      {
        KISS_PORTS: radio.url,
        RADIO_CALL: "N1GW-10",
        RADIO_PATH: "WIDE1-1",
        RADIO_TX_PER_MINUTE: "60",
        IGATE: "on",
        IGATE_TX: "on",
        STATION_BEACON: "42.3601,-71.0589,R&,svc iGate",
      },
      { clock: { now: () => now } },
    );
    try {
      await radioOf(c.gw)!.radio.ports[0]!.port.whenConnected();
      signedInUser(c.gw, "N1GW", { verified: true });
      const tx = radioOf(c.gw)!.tx;
      const fromIs = (line: string) => fromAprsIs(c.gw, new TextEncoder().encode(line), tx);
      const local = async () => {
        const before = igateStatus(c.gw).localStations;
        radio.hear(tnc2Frame(`N0LOC-7>APRS:>here ${now}`));
        await waitFor(() => igateStatus(c.gw).localStations > before || before === 1, "N0LOC-7 heard");
        await Bun.sleep(100);
      };
      await local();
      const msg = "N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :hi{1";
      const pos = "N0SND>APRS,TCPIP*,qAC,T2TEST:!4237.00N/07120.00W-sender";
      fromIs(msg);
      fromIs(msg);
      fromIs(pos);
      fromIs(pos);
      expect(igateStatus(c.gw)).toMatchObject({ toRf: { message: 1, position: 1 }, notToRf: { duplicate: 1, "not-for-rf": 1 } });
      // a retry after 30 s goes again; the position is not owed again yet
      now += 31_000;
      fromIs(msg);
      fromIs(pos);
      expect(igateStatus(c.gw)).toMatchObject({ toRf: { message: 2, position: 1 }, notToRf: { "not-for-rf": 2 } });
      // half an hour on (N0LOC-7 heard again): the next message brings the next position
      now += 30 * 60_000;
      await local();
      fromIs("N0SND>APRS,TCPIP*,qAC,T2TEST::N0LOC-7  :later{2");
      fromIs(pos);
      expect(igateStatus(c.gw).toRf).toEqual({ message: 3, position: 2, filter: 0 });
      const sent = await radio.waitSent(5);
      expect(sent.map(tnc2Text)).toEqual([
        `N1GW-10>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,N1GW-10*::N0LOC-7  :hi{1`,
        `N1GW-10>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,N1GW-10*:!4237.00N/07120.00W-sender`,
        `N1GW-10>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,N1GW-10*::N0LOC-7  :hi{1`,
        `N1GW-10>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,N1GW-10*::N0LOC-7  :later{2`,
        `N1GW-10>APZSVC,WIDE1-1:}N0SND>APRS,TCPIP,N1GW-10*:!4237.00N/07120.00W-sender`,
      ]);
      // bad input is counted, never thrown, never sent
      for (const bad of ["", ">", "N0SND>:", "N0SND>APRS,TCPIP*::N0LOC-7", "\u0000\u00ff>\u0001:x", `N0SND>APRS,${"X,".repeat(500)}qAC:>y`]) fromIs(bad);
      expect(igateStatus(c.gw).notToRf.malformed).toBe(4);
      expect(radio.sent).toHaveLength(5);
      // ?APRS? is answered with the station's position (STATION_BEACON), once in 5 minutes
      radio.hear(tnc2Frame("N0Q-3>APRS:?APRS?"));
      const [answer] = await radio.waitSent(1, { from: 5 });
      expect(tnc2Text(answer!)).toBe("N1GW-10>APZSVC,WIDE1-1:!4221.61NR07103.53W&svc iGate");
      radio.hear(tnc2Frame("N0Q-4>APRS:?APRS?"));
      await waitFor(() => igateStatus(c.gw).dropped.query === 2, "the second query heard");
      expect(igateStatus(c.gw).answered).toBe(1);
      expect(radio.sent).toHaveLength(6);
    } finally {
      await c.stop();
      radio.stop();
    }
  });
});
