/**
 * Our AX.25 data link against Direwolf's own (an independent AX.25 2.2
 * implementation), over a real pair of Direwolf TNCs: our station sits on
 * Direwolf 1's KISS port; the far station is registered on Direwolf 2's AGW
 * port, so Direwolf 2's data link answers for it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { formatAddress } from "../../radio/address.ts";
import type { Ax25Link } from "../../radio/link.ts";
import { KissPort } from "../../radio/port/kiss-port.ts";
import { tcpTransport } from "../../radio/port/tcp.ts";
import { Ax25Station, type MonitorEvent } from "../../radio/station.ts";
import { AgwClient } from "../helpers/agw.ts";
import { startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";

const US = "N0GW-1";
const FAR = "N0AGW-2";

let pair: DirewolfPair;
let port: KissPort;
let station: Ax25Station;
let agw: AgwClient;
const monitor: MonitorEvent[] = [];

beforeAll(async () => {
  // Direwolf 2 splits what its AGW client sends at 120 bytes and keeps at most 3 frames outstanding
  pair = await startDirewolfPair({ extra: [[], ["PACLEN 120", "MAXFRAME 3"]] });
  port = new KissPort(tcpTransport("127.0.0.1", pair.a.kissPort)).start();
  await port.whenConnected();
  station = new Ax25Station(port, { calls: [US], link: { paclen: 100, window: 3 }, onBadFrame: (e) => port.noteError(e.message) });
  station.onMonitor((e) => monitor.push(e));
  agw = await AgwClient.open(pair.b.agwPort);
  await agw.register(FAR);
});

afterAll(async () => {
  if (process.env.DUMP) for (const e of monitor) console.log(Math.round(e.at), tag(e), e.frame.ns ?? "", e.frame.nr ?? "", e.frame.info.length);
  station?.stop();
  agw?.close();
  await port?.close();
  await pair?.stop();
});

const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => 0x20 + ((i * 7 + seed) % 95)));
const tag = (e: MonitorEvent) => `${e.dir} ${e.frame.type}${e.frame.pf ? (e.frame.cr === "command" ? " P" : " F") : ""}`;

/** True if `want` appears in `seen` in this order, each right after the one before or later. */
function inOrder(seen: string[], want: string[]): boolean {
  let at = -1;
  for (const w of want) {
    at = seen.indexOf(w, at + 1);
    if (at < 0) return false;
  }
  return true;
}

function collect(link: Ax25Link, n: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let total = 0;
  return new Promise((resolve) => {
    const off = link.onData((d) => {
      parts.push(d);
      total += d.length;
      if (total >= n) {
        off();
        resolve(Buffer.concat(parts));
      }
    });
  });
}

describe("connected mode against Direwolf's data link", () => {
  test("we connect to a station on Direwolf's AGW port; data both ways, split at paclen, within a window; we disconnect", async () => {
    const mark = monitor.length;
    const agwMark = agw.frames.length;
    const link = await station.connect(FAR);
    expect(link.state).toBe("connected");
    const conn = await agw.waitFor((f) => f.kind === "C", { from: agwMark });
    expect(conn.data.toString("latin1")).toContain(`CONNECTED`);
    expect(conn.data.toString("latin1")).toContain(US);

    const ours = bytes(700, 1);
    const theirs = bytes(500, 2);
    const weGet = collect(link, theirs.length);
    link.send(ours);
    agw.send(FAR, US, theirs);
    const [atFar, atUs] = await Promise.all([agw.receive(US, ours.length, { since: agwMark }), weGet, link.drained()]);
    expect(atFar.toString("latin1")).toBe(ours.toString("latin1"));
    expect(atUs.toString("latin1")).toBe(theirs.toString("latin1"));

    const ev = monitor.slice(mark);
    expect(inOrder(ev.map(tag), ["tx SABM P", "rx UA F"])).toBe(true);
    // ours: 7 frames of at most 100 bytes; theirs: split at Direwolf's PACLEN 120
    // (a loaded machine may make either side poll and resend; what must hold is how the data was cut)
    const outI = ev.filter((e) => e.dir === "tx" && e.frame.type === "I");
    const inI = ev.filter((e) => e.dir === "rx" && e.frame.type === "I");
    expect(outI.length - link.stats().iFramesResent).toBe(7);
    expect(Math.max(...outI.map((e) => e.frame.info.length))).toBe(100);
    expect(link.stats().iFramesReceived).toBe(5);
    expect(Math.max(...inI.map((e) => e.frame.info.length))).toBe(120);
    // never more than 3 of ours outstanding
    let acked = 0;
    for (const e of ev) {
      if (e.dir === "rx" && e.frame.nr !== undefined) acked = e.frame.nr;
      if (e.dir === "tx" && e.frame.type === "I") expect((e.frame.ns! - acked + 8) % 8).toBeLessThan(3);
    }

    const agwBefore = agw.frames.length;
    await link.disconnect();
    expect(link.reason).toBe("local");
    const disc = await agw.waitFor((f) => f.kind === "d", { from: agwBefore });
    expect(disc.data.toString("latin1")).toContain("DISCONNECTED");
    expect(inOrder(monitor.slice(mark).map(tag), ["tx DISC P", "rx UA F"])).toBe(true);
  }, 90_000);

  test("a station on Direwolf's AGW port connects to us: SABME gets DM, Direwolf falls back to SABM; data both ways; it disconnects", async () => {
    const mark = monitor.length;
    const agwMark = agw.frames.length;
    const accepted = new Promise<Ax25Link>((resolve) => {
      const off = station.listen((l) => {
        off();
        resolve(l);
      });
    });
    agw.connect(FAR, US);
    const link = await accepted;
    expect(formatAddress(link.remote)).toBe(FAR);
    await agw.waitFor((f) => f.kind === "C", { from: agwMark });
    expect(inOrder(monitor.slice(mark).map(tag), ["rx SABME P", "tx DM F", "rx SABM P", "tx UA F"])).toBe(true);

    const theirs = bytes(300, 3);
    const ours = bytes(250, 4);
    const weGet = collect(link, theirs.length);
    agw.send(FAR, US, theirs);
    link.send(ours);
    const [atUs, atFar] = await Promise.all([weGet, agw.receive(US, ours.length, { since: agwMark }), link.drained()]);
    expect(atUs.toString("latin1")).toBe(theirs.toString("latin1"));
    expect(atFar.toString("latin1")).toBe(ours.toString("latin1"));

    agw.disconnect(FAR, US);
    expect(await link.closed()).toBe("remote");
    expect(inOrder(monitor.slice(mark).map(tag), ["rx DISC P", "tx UA F"])).toBe(true);
    expect(port.status().errors).toBe(0);
  }, 90_000);
});
