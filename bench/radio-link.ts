/**
 * The AX.25 data link on a simulated 1200-baud half-duplex channel (byte-timed
 * HDLC frames, 300 ms key-up, CSMA with p-persistence, seeded frame loss), in
 * virtual time: goodput of a bulk transfer against the channel's raw byte
 * capacity (baud / 8), by paclen, window and loss.
 */
import { ManualClock } from "../radio/clock.ts";
import type { LinkParams } from "../radio/link.ts";
import { SimChannel } from "../radio/sim.ts";
import { Ax25Station } from "../radio/station.ts";
import { table } from "./lib/stats.ts";

interface Case {
  paclen: number;
  window: number;
  loss: number;
  bytes: number;
  both?: boolean;
  t2Ms?: number | null;
}

interface Outcome {
  seconds: number;
  goodput: number;
  sent: number;
  resent: number;
  lost: number;
  collisions: number;
  busyPct: number;
  wallMs: number;
}

async function transfer(c: Case, seed: number): Promise<Outcome> {
  const wall = performance.now();
  const clock = new ManualClock();
  const ch = new SimChannel({ clock, baud: 1200, txDelayMs: 300, loss: c.loss, seed });
  const params: Partial<LinkParams> = { paclen: c.paclen, window: c.window, ...(c.t2Ms !== undefined ? { t2Ms: c.t2Ms } : {}) };
  const a = new Ax25Station(ch.endpoint("A"), { calls: ["N0AAA"], clock, link: params, txDelayMs: 300 });
  const b = new Ax25Station(ch.endpoint("B"), { calls: ["N0BBB"], clock, link: params, txDelayMs: 300 });
  let got = 0;
  let gotBack = 0;
  let lb: import("../radio/link.ts").Ax25Link | null = null;
  b.listen((l) => {
    lb = l;
    l.onData((d) => (got += d.length));
  });
  const p = a.connect("N0BBB");
  // link state changes synchronously; the promise settles once we await it
  clock.runUntil(() => a.activeLinks()[0]?.state === "connected");
  const la = await p;
  la.onData((d) => (gotBack += d.length));
  const t0 = clock.now();
  const busy0 = ch.stats.busyMs;
  const payload = new Uint8Array(c.bytes).fill(0x55);
  la.send(payload);
  if (c.both) lb!.send(payload);
  const want = c.both ? 2 * c.bytes : c.bytes;
  if (!clock.runUntil(() => got + gotBack >= want && la.pending === 0, 48 * 3600_000))
    throw new Error(`transfer stalled at ${got + gotBack} of ${want} bytes (${JSON.stringify(c)} seed ${seed})`);
  const seconds = (clock.now() - t0) / 1000;
  const st = la.stats();
  const out: Outcome = {
    seconds,
    goodput: want / seconds,
    sent: st.iFramesSent + (c.both ? lb!.stats().iFramesSent : 0),
    resent: st.iFramesResent + (c.both ? lb!.stats().iFramesResent : 0),
    lost: ch.stats.framesLost,
    collisions: ch.stats.collisions,
    busyPct: ((ch.stats.busyMs - busy0) / 1000 / seconds) * 100,
    wallMs: performance.now() - wall,
  };
  a.stop();
  b.stop();
  return out;
}

const SEEDS = [1, 2, 3];

export async function run() {
  const capacity = 1200 / 8;
  const cases: (Case & { label: string })[] = [];
  for (const [paclen, window] of [
    [128, 4],
    [256, 4],
    [256, 7],
  ] as const)
    for (const loss of [0, 0.01, 0.05, 0.1, 0.2]) cases.push({ label: "one way", paclen, window, loss, bytes: 16_384 });
  for (const loss of [0, 0.05]) cases.push({ label: "both ways", paclen: 256, window: 4, loss, bytes: 8192, both: true });
  for (const t2Ms of [200, 3000]) cases.push({ label: `one way, fixed T2 ${t2Ms} ms`, paclen: 256, window: 4, loss: 0, bytes: 16_384, t2Ms });

  const rows = [];
  for (const c of cases) {
    const runs: Outcome[] = [];
    for (const seed of SEEDS) runs.push(await transfer(c, seed));
    const mean = (f: (o: Outcome) => number) => runs.reduce((s, o) => s + f(o), 0) / runs.length;
    rows.push({
      transfer: `${c.label}, ${c.bytes * (c.both ? 2 : 1)} B`,
      paclen: c.paclen,
      k: c.window,
      loss: `${c.loss * 100}%`,
      "goodput B/s": mean((o) => o.goodput).toFixed(1),
      "of raw capacity": `${((mean((o) => o.goodput) / capacity) * 100).toFixed(1)} %`,
      "air time s": mean((o) => o.seconds).toFixed(0),
      "I frames (resent)": `${mean((o) => o.sent).toFixed(0)} (${mean((o) => o.resent).toFixed(0)})`,
      "channel busy": `${mean((o) => o.busyPct).toFixed(0)} %`,
      collisions: mean((o) => o.collisions).toFixed(1),
      "wall ms": mean((o) => o.wallMs).toFixed(0),
    });
  }
  console.log(`\n## radio link (simulated 1200-baud half-duplex channel, 300 ms TXDELAY, virtual time; mean of ${SEEDS.length} seeds)\n`);
  console.log(`raw byte capacity of the channel (the reference): ${capacity} B/s\n`);
  console.log(table(rows));
  return rows;
}

if (import.meta.main) await run();
