/**
 * NET/ROM layers 3 and 4: the packet codec, and circuits between three nodes
 * on a simulated 1200-baud channel where the two ends cannot hear each other,
 * so every packet goes through the node in the middle (virtual time).
 */
import { describe, expect, test } from "bun:test";
import { ManualClock } from "../../radio/clock.ts";
import { SimChannel } from "../../radio/sim.ts";
import { Ax25Station } from "../../radio/station.ts";
import { formatAddress, sameAddress, type Ax25Address } from "../../radio/address.ts";
import { decodeFrame, PID_NETROM } from "../../radio/frame.ts";
import { decodeNetRom, encodeNetRom, NR_MAX_INFO, type NetRomPacket } from "../../radio/netrom-l4.ts";
import { NetRomNode, type NetRomCircuit } from "../../radio/netrom-node.ts";

const A = { call: "N0AAA", ssid: 7 };
const B = { call: "N0BBB", ssid: 7 };
const C = { call: "N0CCC", ssid: 7 };

describe("NET/ROM packets", () => {
  test("every transport packet round-trips; the bytes are the ones Linux and BPQ nodes write", () => {
    const packets: NetRomPacket[] = [
      { origin: A, dest: C, ttl: 16, l4: { op: "connect-request", index: 3, id: 0x9a, window: 4, user: { call: "N0USR", ssid: 0 }, node: A, timeoutS: 120 } },
      { origin: A, dest: C, ttl: 16, l4: { op: "connect-request", index: 3, id: 0x9a, window: 4, user: { call: "N0USR", ssid: 0 }, node: A } },
      { origin: C, dest: A, ttl: 15, l4: { op: "connect-ack", index: 3, id: 0x9a, myIndex: 1, myId: 0x22, window: 4, refused: false } },
      { origin: C, dest: A, ttl: 15, l4: { op: "connect-ack", index: 3, id: 0x9a, myIndex: 0, myId: 0, window: 0, refused: true } },
      {
        origin: A,
        dest: C,
        ttl: 16,
        l4: { op: "info", index: 1, id: 0x22, txSeq: 255, rxSeq: 7, choke: false, nak: false, more: true, data: Uint8Array.from([0xc0, 0xdb, 0x0d]) },
      },
      { origin: C, dest: A, ttl: 16, l4: { op: "info-ack", index: 3, id: 0x9a, rxSeq: 0, choke: true, nak: true } },
      { origin: A, dest: C, ttl: 16, l4: { op: "disconnect-request", index: 1, id: 0x22 } },
      { origin: C, dest: A, ttl: 16, l4: { op: "disconnect-ack", index: 3, id: 0x9a } },
    ];
    for (const p of packets) {
      const r = decodeNetRom(encodeNetRom(p));
      expect(r).toEqual({ ok: true, value: p });
    }
    // a connect request, byte by byte: origin (E bit clear), dest (E bit set), TTL, index, id, 0, 0, opcode 1, window, user, node, timeout LE
    const bytes = encodeNetRom(packets[0]!);
    expect(Buffer.from(bytes).toString("hex")).toBe(
      "9c6082828240" + "6e" + "9c6086868640" + "6f" + "10" + "039a000001" + "04" + "9c60aaa6a440" + "60" + "9c6082828240" + "6e" + "7800",
    );
    expect(encodeNetRom(packets[4]!)[19]).toBe(0x25); // info with more-follows
  });

  test("malformed packets are refused with a typed error, never thrown", () => {
    const good = encodeNetRom({
      origin: A,
      dest: C,
      ttl: 16,
      l4: { op: "info", index: 1, id: 2, txSeq: 0, rxSeq: 0, choke: false, nak: false, more: false, data: new Uint8Array(3) },
    });
    const bad = (b: Uint8Array) => {
      const r = decodeNetRom(b);
      return r.ok ? "ok" : r.error.code;
    };
    expect(bad(good.subarray(0, 19))).toBe("netrom-bad-packet");
    const badCall = good.slice();
    badCall[0] = 0x41; // extension bit inside a call
    expect(bad(badCall)).toBe("netrom-bad-packet");
    const op = good.slice();
    op[19] = 0x07;
    expect(bad(op)).toBe("netrom-unknown-op");
    const shortReq = encodeNetRom({ origin: A, dest: C, ttl: 16, l4: { op: "connect-request", index: 0, id: 0, window: 4, user: A, node: A } }).subarray(0, 30);
    expect(bad(shortReq)).toBe("netrom-bad-packet");
    for (let i = 0; i < 2000; i++) bad(Uint8Array.from({ length: (i % 60) + 1 }, (_, j) => (i * 31 + j * 7) & 0xff));
  });
});

/** Three stations, A and C out of each other's range, each a NET/ROM node with B as the way between. */
function threeNodes() {
  const clock = new ManualClock(1_000_000);
  const farApart = (from: string, to: string) => (from === "A" && to === "C") || (from === "C" && to === "A");
  const ch = new SimChannel({ clock, baud: 1200, txDelayMs: 300, drop: (_f, from, to) => farApart(from, to), seed: 3 });
  const routes: Record<string, Array<[Ax25Address, Ax25Address]>> = {
    A: [[C, B]],
    B: [
      [A, A],
      [C, C],
    ],
    C: [[A, B]],
  };
  const make = (name: "A" | "B" | "C", call: Ax25Address) => {
    const station = new Ax25Station(ch.endpoint(name), { calls: [call], clock, txDelayMs: 300 });
    const node: NetRomNode = new NetRomNode({
      call,
      alias: `NODE${name}`,
      clock,
      route: (dest) => {
        const r = routes[name]!.find(([d]) => sameAddress(d, dest));
        return r ? { neighbour: r[1] } : null;
      },
      link: (neighbour) => station.connect(neighbour, { from: call }),
    });
    station.listen((l) => node.attach(l));
    return { station, node };
  };
  return { clock, ch, a: make("A", A), b: make("B", B), c: make("C", C) };
}

/** Steps virtual time, letting promise continuations run between timers. */
async function runUntil(clock: ManualClock, done: () => boolean, limitMs = 3_600_000) {
  const end = clock.now() + limitMs;
  while (!done()) {
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    if (done()) return;
    const at = clock.next();
    if (at === null || at > end) throw new Error("stalled");
    clock.step();
  }
}

describe("NET/ROM circuits", () => {
  test("A opens a circuit to C through B: connect, data both ways in order, disconnect; B forwards, A and C never hear each other", async () => {
    const { clock, a, b, c } = threeNodes();
    const heardByA: string[] = [];
    a.station.onMonitor((e) => e.dir === "rx" && heardByA.push(formatAddress(e.frame.src)));
    let far: NetRomCircuit | null = null;
    const farGot: Uint8Array[] = [];
    c.node.listen((circuit) => {
      far = circuit;
      circuit.onData((d) => {
        farGot.push(d);
        circuit.send(d); // echo
      });
    });
    let circuit: NetRomCircuit | null = null;
    const p = a.node.connect(C, { user: "N0USR" }).then((x) => (circuit = x));
    await runUntil(clock, () => circuit !== null);
    await p;
    expect(circuit!.state).toBe("connected");
    expect(far!.user).toEqual({ call: "N0USR", ssid: 0 });
    expect(far!.peer).toBe("N0AAA-7");

    const msg = Uint8Array.from({ length: 1000 }, (_, i) => (i * 13) & 0xff);
    const back: Uint8Array[] = [];
    circuit!.onData((d) => back.push(d));
    circuit!.send(msg);
    const total = () => back.reduce((n, d) => n + d.length, 0);
    await runUntil(clock, () => total() >= msg.length);
    expect(Buffer.concat(back)).toEqual(Buffer.from(msg));
    expect(farGot.every((d) => d.length <= NR_MAX_INFO)).toBe(true);
    expect(b.node.stats.forwarded).toBeGreaterThan(8);
    expect(heardByA.every((s) => s === "N0BBB-7")).toBe(true);

    let closed = false;
    void circuit!.disconnect().then(() => (closed = true));
    await runUntil(clock, () => closed && far!.state === "disconnected");
    expect(circuit!.reason).toBe("local");
    expect(far!.reason).toBe("remote");
    expect(a.node.active()).toEqual([]);
    expect(c.node.active()).toEqual([]);
  });

  test("a node that does not listen refuses; a node with no route drops the packet and the caller times out", async () => {
    const { clock, a } = threeNodes();
    let refused: Error | null = null;
    void a.node.connect(C).catch((e) => (refused = e));
    await runUntil(clock, () => refused !== null);
    expect((refused as unknown as { reason: string }).reason).toBe("refused");

    let timedOut: Error | null = null;
    void a.node.connect({ call: "N0ZZZ", ssid: 7 }).catch((e) => (timedOut = e));
    await runUntil(clock, () => timedOut !== null);
    expect((timedOut as unknown as { reason: string }).reason).toBe("timeout");
    expect(a.node.stats.dropped).toBeGreaterThanOrEqual(4); // the first try and 3 retries
  });

  test("PID 0xCF rides in I frames between neighbours; the packets inside name the far ends", async () => {
    const { clock, ch, a, c } = threeNodes();
    const frames: Uint8Array[] = [];
    ch.endpoint("monitor").onFrame((f) => frames.push(f));
    c.node.listen(() => {});
    let done = false;
    void a.node.connect(C).then(() => (done = true));
    await runUntil(clock, () => done);
    const netrom = frames
      .map((f) => decodeFrame(f))
      .filter((r) => r.ok && r.value.type === "I" && r.value.pid === PID_NETROM)
      .map((r) => (r as { ok: true; value: { info: Uint8Array; src: Ax25Address } }).value);
    expect(netrom.length).toBeGreaterThanOrEqual(4); // request A->B, B->C; ack C->B, B->A
    const inner = netrom
      .map((f) => decodeNetRom(f.info))
      .filter((r) => r.ok)
      .map((r) => (r as { ok: true; value: NetRomPacket }).value);
    expect(inner.map((p) => `${formatAddress(p.origin)}>${formatAddress(p.dest)} ${p.l4.op} ttl ${p.ttl}`)).toEqual([
      "N0AAA-7>N0CCC-7 connect-request ttl 16",
      "N0AAA-7>N0CCC-7 connect-request ttl 15",
      "N0CCC-7>N0AAA-7 connect-ack ttl 16",
      "N0CCC-7>N0AAA-7 connect-ack ttl 15",
    ]);
  });
});
