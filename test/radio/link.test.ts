/**
 * The AX.25 data link between two stations on a simulated 1200-baud
 * half-duplex channel, in virtual time (ManualClock): timers, retries, loss
 * recovery, flow control, every way a link ends.
 */
import { describe, expect, test } from "bun:test";
import { formatAddress } from "../../radio/address.ts";
import { ManualClock } from "../../radio/clock.ts";
import { decodeFrame, encodeFrame, type Ax25Frame } from "../../radio/frame.ts";
import { LinkError, type Ax25Link, type LinkParams } from "../../radio/link.ts";
import { SimChannel, type SimOptions } from "../../radio/sim.ts";
import { Ax25Station, type MonitorEvent } from "../../radio/station.ts";

const A = "N0AAA-1";
const B = "N0BBB-2";

function world(sim: Partial<SimOptions> = {}, link: Partial<LinkParams> = {}) {
  const clock = new ManualClock();
  const ch = new SimChannel({ clock, seed: 7, ...sim });
  const a = new Ax25Station(ch.endpoint("A"), { calls: [A], clock, link });
  const b = new Ax25Station(ch.endpoint("B"), { calls: [B], clock, link });
  /** what A put on the air, as `TYPE flags` */
  const sent: MonitorEvent[] = [];
  const heardByA: MonitorEvent[] = [];
  /** both, in the order they happened */
  const events: MonitorEvent[] = [];
  a.onMonitor((e) => {
    (e.dir === "tx" ? sent : heardByA).push(e);
    events.push(e);
  });
  return { clock, ch, a, b, sent, heardByA, events };
}

/** Runs virtual time until `p` settles (microtasks run between timers). */
async function run<T>(clock: ManualClock, p: Promise<T>, limitMs = 3_600_000): Promise<T> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  const end = clock.now() + limitMs;
  for (;;) {
    await new Promise((r) => setImmediate(r));
    if (settled) return p;
    const at = clock.next();
    if (at === null || at > end) throw new Error(`nothing settled by ${Math.round(clock.now())} ms`);
    clock.step();
  }
}

const data = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed * 13 + (i >> 8)) & 0xff);
const tag = (e: MonitorEvent) => `${e.frame.type}${e.frame.pf ? (e.frame.cr === "command" ? " P" : " F") : ""}`;

function received(link: Ax25Link): () => Uint8Array {
  const parts: Uint8Array[] = [];
  link.onData((d) => parts.push(d));
  return () => Uint8Array.from(parts.flatMap((p) => [...p]));
}

async function connected(w: ReturnType<typeof world>, params?: Partial<LinkParams>) {
  let accepted: Ax25Link | null = null;
  w.b.listen((l) => (accepted = l));
  const la = await run(w.clock, w.a.connect(B, { params }));
  expect(accepted).not.toBeNull();
  return { la, lb: accepted! as Ax25Link };
}

/** A frame A puts on the air for B (`toB`) or B for A (`toA`): no digipeaters, no info unless given. */
const toB = (f: Omit<Ax25Frame, "dest" | "src" | "path" | "info"> & { info?: Uint8Array }): Ax25Frame => ({
  dest: { call: "N0BBB", ssid: 2 },
  src: { call: "N0AAA", ssid: 1 },
  path: [],
  info: new Uint8Array(),
  ...f,
});
const toA = (f: Omit<Ax25Frame, "dest" | "src" | "path" | "info"> & { info?: Uint8Array }): Ax25Frame => ({
  ...toB(f),
  dest: { call: "N0AAA", ssid: 1 },
  src: { call: "N0BBB", ssid: 2 },
});

/** A sends `ab` while B sends `ba`; once both are acknowledged, each side has received the other's bytes intact. */
async function exchange(w: ReturnType<typeof world>, la: Ax25Link, lb: Ax25Link, ab: Uint8Array, ba: Uint8Array) {
  const gotB = received(lb);
  const gotA = received(la);
  la.send(ab);
  lb.send(ba);
  await run(w.clock, Promise.all([la.drained(), lb.drained()]));
  expect(gotB()).toEqual(ab);
  expect(gotA()).toEqual(ba);
}

describe("AX.25 data link (simulated 1200-baud half-duplex channel)", () => {
  test("connect, data both ways split at paclen within window k, disconnect", async () => {
    const w = world({}, { paclen: 100, window: 3 });
    const { la, lb } = await connected(w);
    expect(w.sent.map(tag).slice(0, 1)).toEqual(["SABM P"]);
    expect(w.heardByA.map(tag).slice(0, 1)).toEqual(["UA F"]);
    expect([la.state, lb.state]).toEqual(["connected", "connected"]);
    expect(formatAddress(lb.remote)).toBe(A);

    await exchange(w, la, lb, data(1234, 1), data(777, 2));

    // every I frame of A's carries at most paclen, and no more than k are ever outstanding
    const iA = w.sent.filter((e) => e.frame.type === "I");
    const st = la.stats();
    // 13 frames of new data; both sides started sending in the same CSMA slot, so a collision forced a few resends
    expect(iA.length).toBe(st.iFramesSent);
    expect(st.iFramesSent - st.iFramesResent).toBe(Math.ceil(1234 / 100));
    expect(Math.max(...iA.map((e) => e.frame.info.length))).toBe(100);
    let lastNr = 0;
    for (const e of w.events) {
      if (e.dir === "rx" && e.frame.nr !== undefined) lastNr = e.frame.nr;
      if (e.dir === "tx" && e.frame.type === "I") expect((e.frame.ns! - lastNr + 8) % 8).toBeLessThan(3);
    }
    expect(st).toMatchObject({ bytesSent: 1234, bytesAcked: 1234, bytesReceived: 777 });

    await run(w.clock, la.disconnect());
    expect(w.sent.map(tag).at(-1)).toBe("DISC P");
    expect(la.reason).toBe("local");
    expect(await run(w.clock, lb.closed())).toBe("remote");
    expect(w.a.activeLinks()).toEqual([]);
    expect(w.b.activeLinks()).toEqual([]);
  });

  test("a station that does not listen answers SABM with DM: the connection is refused", async () => {
    const w = world();
    const err = await run(w.clock, w.a.connect(B)).catch((e) => e);
    expect(err).toBeInstanceOf(LinkError);
    expect((err as LinkError).reason).toBe("refused");
    expect(w.heardByA.map(tag)).toEqual(["DM F"]);
  });

  test("SABME (AX.25 2.2) is answered with DM so the caller falls back to SABM", async () => {
    const w = world();
    w.b.listen(() => {});
    w.a.transmit(toB({ cr: "command", type: "SABME", pf: true }));
    w.clock.advance(5000);
    expect(w.heardByA.map(tag)).toEqual(["DM F"]);
    // and a DISC or an I frame for a link that does not exist gets DM as well
    w.a.transmit(toB({ cr: "command", type: "I", ns: 0, nr: 0, pid: 0xf0, pf: true, info: data(5) }));
    w.clock.advance(5000);
    expect(w.heardByA.map(tag)).toEqual(["DM F", "DM F"]);
  });

  test("nobody answers: SABM is repeated N2 times, T1 apart, then the connect fails with a timeout", async () => {
    const w = world({}, { retries: 3, t1Ms: 2000 });
    const t0 = w.clock.now();
    const err = await run(w.clock, w.a.connect("N0ZZZ")).catch((e) => e);
    expect((err as LinkError).reason).toBe("timeout");
    expect(w.sent.map(tag)).toEqual(["SABM P", "SABM P", "SABM P", "SABM P"]);
    const gaps = w.sent.slice(1).map((e, i) => e.at - w.sent[i]!.at);
    // T1 plus the time our own SABM was on the air (T1 does not run while we transmit)
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(2000);
    for (const g of gaps) expect(g).toBeLessThan(2000 + 600);
    expect(w.clock.now() - t0).toBeGreaterThanOrEqual(8000);
  });

  test("lost I frames and a lost acknowledgement: REJ and T1 recovery deliver everything once, in order", async () => {
    let dropped = 0;
    const drops = new Set<string>();
    const w = world(
      {
        drop: (f, from) => {
          const d = decodeFrame(f);
          if (!d.ok) return false;
          // the first time each of these goes out, lose it: I frame N(S)=1 and N(S)=5 from A, B's first RR
          const key = `${from} ${d.value.type} ${d.value.ns ?? d.value.nr}`;
          if ((from === "A" && d.value.type === "I" && (d.value.ns === 1 || d.value.ns === 5)) || (from === "B" && d.value.type === "RR" && !drops.has("RR"))) {
            if (drops.has(key)) return false;
            drops.add(key);
            if (d.value.type === "RR") drops.add("RR");
            dropped++;
            return true;
          }
          return false;
        },
      },
      { paclen: 64, window: 4 },
    );
    const { la, lb } = await connected(w);
    const got = received(lb);
    const msg = data(64 * 14, 3);
    la.send(msg);
    await run(w.clock, la.drained());
    expect(dropped).toBe(3);
    expect(got()).toEqual(msg);
    expect(lb.stats().rejSent).toBeGreaterThanOrEqual(1);
    expect(la.stats().iFramesResent).toBeGreaterThanOrEqual(2);
    expect(la.state).toBe("connected");
  });

  test("random loss of 25% of frames in both directions: the data still arrives intact", async () => {
    const w = world({ loss: 0.25, seed: 42 }, { paclen: 128, window: 4 });
    const { la, lb } = await connected(w);
    await exchange(w, la, lb, data(3000, 5), data(1500, 6));
    expect(w.ch.stats.framesLost).toBeGreaterThan(5);
    expect(la.state).toBe("connected");
  });

  test("T3: an idle link is polled; a peer that vanished is given up after N2 polls and gets DM", async () => {
    let gone = false;
    const w = world({ drop: () => gone }, { t3Ms: 60_000, retries: 4 });
    const { la } = await connected(w);
    const t0 = w.clock.now();
    w.clock.advance(61_000);
    // whichever side's T3 ran out first polled, the other answered: still connected
    const idle = w.events.slice(2).map((e) => `${e.dir} ${tag(e)}`);
    expect(idle.sort()).toEqual(["rx RR P", "tx RR F"]);
    expect(la.state).toBe("connected");
    gone = true;
    const mark = w.sent.length;
    const reason = await run(w.clock, la.closed());
    expect(reason).toBe("timeout");
    // one poll when T3 runs out, N2 more on T1, then DM
    expect(w.sent.slice(mark).map(tag)).toEqual(["RR P", "RR P", "RR P", "RR P", "RR P", "DM"]);
    expect(w.clock.now() - t0).toBeGreaterThan(2 * 60_000);
  });

  test("flow control: a busy receiver (RNR) stops the sender, which polls, and resumes on RR", async () => {
    const w = world({}, { paclen: 50, window: 2 });
    const { la, lb } = await connected(w);
    const got = received(lb);
    lb.setBusy(true);
    w.clock.advance(3000);
    const msg = data(500, 9);
    la.send(msg);
    w.clock.advance(60_000);
    // nothing got through while busy, and A kept asking
    expect(got().length).toBe(0);
    expect(w.heardByA.some((e) => e.frame.type === "RNR")).toBe(true);
    expect(w.sent.filter((e) => e.frame.type === "RR" && e.frame.pf).length).toBeGreaterThan(2);
    lb.setBusy(false);
    await run(w.clock, la.drained());
    expect(got()).toEqual(msg);
  });

  test("through a digipeater: the path is used both ways and replies go back reversed", async () => {
    const clock = new ManualClock();
    const ch = new SimChannel({ clock, seed: 3 });
    const a = new Ax25Station(ch.endpoint("A"), { calls: [A], clock });
    const b = new Ax25Station(ch.endpoint("B"), { calls: [B], clock });
    // a plain digipeater: repeats frames whose next unrepeated hop is RELAY
    const digi = ch.endpoint("D");
    const paths: string[] = [];
    digi.onFrame((bytes) => {
      const f = decodeFrame(bytes);
      if (!f.ok) return;
      const hop = f.value.path.find((d) => !d.repeated);
      if (hop?.call !== "RELAY") return;
      hop.repeated = true;
      paths.push(`${formatAddress(f.value.src)}>${formatAddress(f.value.dest)} ${f.value.type}`);
      digi.sendFrame(encodeFrame(f.value));
    });
    let lb: Ax25Link | null = null;
    b.listen((l) => (lb = l));
    const la = await run(clock, a.connect(B, { via: ["RELAY"] }));
    expect(lb!.path.map(formatAddress)).toEqual(["RELAY"]);
    const got = received(lb!);
    la.send("via the digipeater");
    await run(clock, la.drained());
    expect(new TextDecoder().decode(got())).toBe("via the digipeater");
    expect(paths.slice(0, 2)).toEqual([`${A}>${B} SABM`, `${B}>${A} UA`]);
  });

  test("the peer resets the link (SABM while connected) and drops it (DM): both are reported", async () => {
    const w = world();
    const { la, lb } = await connected(w);
    const states: string[] = [];
    la.onState((s, r) => states.push(r ? `${s}:${r}` : s));
    // B's side sends SABM again: A answers UA and starts over, still connected
    w.b.transmit(toA({ cr: "command", type: "SABM", pf: true }));
    w.clock.advance(3000);
    expect(la.state).toBe("connected");
    expect(w.sent.map(tag).at(-1)).toBe("UA F");
    w.b.transmit(toA({ cr: "response", type: "DM", pf: false }));
    expect(await run(w.clock, la.closed())).toBe("lost");
    expect(states).toEqual(["disconnected:lost"]);
    void lb;
    expect(() => la.send("late")).toThrow(LinkError);
  });

  test("request and long answer, turn by turn, on a lossless channel: every I frame goes once, nobody polls", async () => {
    // what SVCL1 does: a short request; the answer, several full-length frames, goes as soon as it is in
    const w = world({ seed: 5 }, { paclen: 256, window: 4 });
    const { la, lb } = await connected(w);
    const answers = Array.from({ length: 8 }, (_, i) => data(1800 + i * 37, i));
    let heard = 0;
    lb.onData((d) => {
      heard += d.length;
      if (heard % 45 === 0) lb.send(answers[heard / 45 - 1]!);
    });
    let got = 0;
    let turn = 0;
    const done = new Promise<void>((resolve) =>
      la.onData((d) => {
        got += d.length;
        if (got < answers.slice(0, turn + 1).reduce((n, a) => n + a.length, 0)) return;
        if (++turn === answers.length) resolve();
        else la.send(data(45, turn));
      }),
    );
    la.send(data(45, 0));
    await run(w.clock, done);
    await run(w.clock, Promise.all([la.drained(), lb.drained()]));
    expect(got).toBe(answers.reduce((n, a) => n + a.length, 0));
    expect([w.ch.stats.framesLost, w.ch.stats.collisions]).toEqual([0, 0]);
    expect([la.stats().iFramesResent, lb.stats().iFramesResent]).toEqual([0, 0]);
    expect([la.stats().t1Expiries, lb.stats().t1Expiries]).toEqual([0, 0]);
    expect(lb.stats().rejReceived + la.stats().rejReceived).toBe(0);
  });

  test("a whole window again (our acknowledgement came late): duplicates get RR where the peer is, no REJ", async () => {
    const w = world({}, { paclen: 64, window: 4 });
    const { la, lb } = await connected(w);
    const got = received(lb);
    const msg = data(4 * 64, 4);
    la.send(msg);
    await run(w.clock, la.drained());
    expect(got()).toEqual(msg);
    // A's four frames once more, as a sender whose T1 ran out before our RR arrived resends them
    const bMark = w.events.length;
    const heardByB: MonitorEvent[] = [];
    w.b.onMonitor((e) => e.dir === "tx" && heardByB.push(e));
    for (let ns = 0; ns < 4; ns++)
      w.a.transmit(
        toB({
          cr: "command",
          type: "I",
          pf: false,
          ns,
          nr: 0,
          pid: 0xf0,
          info: msg.subarray(ns * 64, ns * 64 + 64),
        }),
      );
    w.clock.advance(10_000);
    expect(w.events.length).toBeGreaterThan(bMark);
    expect(lb.stats().rejSent).toBe(0);
    expect(heardByB.length).toBeGreaterThan(0);
    expect(new Set(heardByB.map((e) => `${tag(e)} ${e.frame.nr}`))).toEqual(new Set(["RR 4"]));
    expect(got()).toEqual(msg);
    expect(la.stats().iFramesResent).toBe(0);
  });

  test("a REJ that crossed our frames on the air (they were not off the air yet) acknowledges, it does not resend them", async () => {
    // full duplex, so the REJ reaches A while its frames are still going out
    const w = world({ halfDuplex: false }, { paclen: 256, window: 4 });
    const { la, lb } = await connected(w);
    const got = received(lb);
    const msg = data(4 * 256, 6);
    la.send(msg);
    w.clock.advance(1000);
    // B asks for N(S)=0 (as it would after losing an earlier frame): frame 0 is still on the air
    w.b.transmit(toA({ cr: "response", type: "REJ", pf: false, nr: 0 }));
    await run(w.clock, la.drained());
    expect(la.stats().rejReceived).toBe(1);
    expect(la.stats().iFramesResent).toBe(0);
    expect(got()).toEqual(msg);
  });

  test("a poll answered before our frames sent after it arrived: they are not resent", async () => {
    // full duplex; B's acknowledgement of the first frame is lost, so A's T1 runs out and A polls
    let lostRr = false;
    const w = world(
      {
        halfDuplex: false,
        drop: (f, from) => {
          const d = decodeFrame(f);
          if (lostRr || from !== "B" || !d.ok || d.value.type !== "RR") return false;
          return (lostRr = true);
        },
      },
      { paclen: 256, window: 4 },
    );
    const { la, lb } = await connected(w);
    const got = received(lb);
    const first = data(100, 7);
    const more = data(3 * 256, 8);
    // right after the poll, more data: three frames go out behind it
    let sentMore = false;
    w.a.onMonitor((e) => {
      if (e.dir !== "tx" || tag(e) !== "RR P" || sentMore) return;
      sentMore = true;
      w.clock.after(0, () => la.send(more));
    });
    la.send(first);
    await run(w.clock, la.drained());
    expect(sentMore).toBe(true);
    await run(w.clock, la.drained());
    expect(lostRr).toBe(true);
    expect(la.stats()).toMatchObject({ polls: 1, iFramesResent: 0 });
    expect(got()).toEqual(Uint8Array.from([...first, ...more]));
  });

  test("T1 adapts to the measured round trip", async () => {
    const w = world({}, { t1Ms: 10_000, paclen: 128 });
    const { la, lb } = await connected(w);
    received(lb);
    const before = la.stats().t1Ms;
    for (let i = 0; i < 6; i++) {
      la.send(data(128, i));
      await run(w.clock, la.drained());
    }
    const after = la.stats();
    expect(before).toBe(10_000);
    expect(after.t1Ms).toBeLessThan(before);
    expect(after.t1Ms).toBeGreaterThanOrEqual(1000);
    expect(after.t1Expiries).toBe(0);
  });
});
