/**
 * SVCL1 sync over a simulated 1200-baud half-duplex radio channel, in virtual
 * time: two gateways with real stores (bun:sqlite, signed records, the apply
 * pipeline), each with its radio on one port of a SimChannel (byte-timed HDLC
 * frames, 300 ms TXDELAY, CSMA, seeded frame loss) and its data link on the
 * same ManualClock. B connects to A's RADIO_CALL and pulls 200 cache records
 * with the SVCL1 client (the code behind syncOverRadio), with and without
 * deflateDict1, at 0 and 5 % frame loss:
 *   - records per minute of air time,
 *   - record bytes per second (the pages decompressed: the signed records
 *     delivered) against the channel's raw byte capacity (baud / 8), the
 *     reference, as a ratio (above 1 is compression winning over the channel),
 *   - what it cost on the air (bytes of AX.25 frames both ways, I frames
 *     resent, polls, channel busy).
 * Then the SVCB1 beacon of typical instances against one UI frame (256-byte
 * information field): its bytes, the limit, the endpoints trimmed to fit, and
 * its air time. Figures only: nothing here is asserted.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway, type Gateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { createUser, markCallsignVerified } from "../src/accounts/users.ts";
import { cacheToWire } from "../src/lib/fed/bodies.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { publishRecord } from "../src/fed/feed.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import type { LinkCaps } from "../src/lib/fed/caps.ts";
import { pullSvcl1, type PullReport } from "../src/fed/transports/svcl1.ts";
import { BEACON_MAX_BYTES, ownBeacon, type Beacon } from "../src/fed/beacon.ts";
import { startRadio } from "../src/radio-node/radio.ts";
import { openCircuit, svcl1Caps } from "../src/radio-node/sync.ts";
import { airtimeMs } from "../radio/airtime.ts";
import { ManualClock } from "../radio/clock.ts";
import type { Ax25Link, LinkParams } from "../radio/link.ts";
import { SimChannel, simPort } from "../radio/sim.ts";
import { table } from "./lib/stats.ts";

const RECORDS = 200;
const BAUD = 1200;
const TXDELAY_MS = 300;
const SEEDS = [1, 2, 3];

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `svc-bench-radio-sync-${name}-`));
const gateway = (dir: string, env: Record<string, string>): Gateway =>
  createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", KISS_PORTS: "off", LOG_LEVEL: "error", ...env }), log: createLogger("error") });

function verify(gw: Gateway, call: string) {
  markCallsignVerified(gw, createUser(gw.db, gw.clock.now()), call, "bench: verified by hand");
}

const HINTS = [
  "Under the third stone from the left.",
  "Magnetic, look up.",
  "Behind the bench, at knee height.",
  "In the hollow of the old oak.",
  "Fence post, north side.",
];
const WORDS = ["river", "trail", "bridge", "car park", "ridge", "lake", "church", "mill", "orchard", "quarry"];

/** A cache as owners write them: varied names, hints and descriptions. */
function cacheBody(i: number) {
  const w = (k: number) => WORDS[(i * 7 + k * 3) % WORDS.length]!;
  return cacheToWire({
    name: `${w(0)[0]!.toUpperCase()}${w(0).slice(1)} walk #${i}`,
    type: i % 5 === 0 ? "mystery" : "traditional",
    size: (["micro", "small", "regular"] as const)[i % 3]!,
    difficulty: 1 + (i % 9) / 2,
    terrain: 1 + ((i >> 3) % 9) / 2,
    lat: 42 + ((i * 7919) % 20_000) / 10_000,
    lon: -72 + ((i * 104729) % 20_000) / 10_000,
    status: "active",
    hint: HINTS[i % HINTS.length],
    description: `A short walk from the ${w(1)} along the ${w(2)}, about ${(i % 17) + 2} minutes. Park near the ${w(3)}; bring a pen.`,
    ownerCall: `N${i % 10}OWN`,
    placedAt: 1_600_000_000_000 + i * 86_400_000,
  });
}

/** The publisher, its records signed once; its radio is moved to each run's channel. */
function publisher(): { gw: Gateway; publicKey: string } {
  const key = generateKeyPair();
  const gw = gateway(tmp("a"), { INSTANCE: "gw-a", FED_PRIVATE_KEY: key.privateKey, RADIO_CALL: "N0GWA-5", FED_ENDPOINTS: "ax25:N0GWA-5" });
  gw.db.transaction(() => {
    for (let i = 1; i <= RECORDS; i++) publishRecord(gw, "cache", i, cacheBody(i));
  })();
  verify(gw, "N0GWA");
  return { gw, publicKey: key.publicKey };
}

/**
 * Runs virtual time until `done`: between timers, the event loop settles
 * first (the gateways' apply and SQLite work is synchronous; promise chains
 * finish within a few turns), so work takes no air time and no timer fires
 * early because of it.
 */
async function drive(clock: ManualClock, done: () => boolean, limitMs: number) {
  const end = clock.now() + limitMs;
  const settle = async () => {
    for (let i = 0; i < 4; i++) await new Promise<void>((r) => setImmediate(r));
  };
  for (;;) {
    await settle();
    if (done()) return;
    const at = clock.next();
    if (at === null) throw new Error("the sync stalled: no timer left");
    if (at > end) throw new Error(`the sync did not finish in ${limitMs / 60_000} virtual minutes`);
    clock.step();
  }
}

interface Case {
  compression: "deflateDict1" | "none";
  loss: number;
  link: Partial<LinkParams>;
}

interface Outcome {
  report: PullReport;
  seconds: number;
  airBytes: number;
  resent: number;
  polls: number;
  collisions: number;
  busyPct: number;
  wallMs: number;
}

async function syncOnce(A: { gw: Gateway; publicKey: string }, c: Case, seed: number): Promise<Outcome> {
  const wall = performance.now();
  const clock = new ManualClock(1_000_000);
  const ch = new SimChannel({ clock, baud: BAUD, txDelayMs: TXDELAY_MS, loss: c.loss, seed });
  const B = gateway(tmp("b"), { INSTANCE: "gw-b", RADIO_CALL: "N0GWB-5" });
  verify(B, "N0GWB");
  upsertPeer(B, { instance: "gw-a", trust: "trusted", keyPin: A.publicKey, endpoints: ["ax25:N0GWA-5"] });
  const opts = { clock, link: c.link, txPollMs: 3_600_000 };
  const ra = startRadio(A.gw, { ...opts, ports: [simPort(ch, "A", clock)] })!;
  const rb = startRadio(B, { ...opts, ports: [simPort(ch, "B", clock)] })!;
  // both ends of the circuit, for their counters
  const links: Ax25Link[] = [];
  const off = ra.radio.listen((l) => void links.push(l));
  try {
    const t0 = clock.now();
    let report: PullReport | null = null;
    let failure: unknown = null;
    const caps: LinkCaps = { ...svcl1Caps(B), compress: c.compression === "none" ? ["none"] : ["deflateDict1", "none"] };
    void openCircuit(B, rb, { transport: "ax25", address: "N0GWA-5" })
      .then((circuit) => {
        links.push(circuit as Ax25Link);
        return pullSvcl1(B, circuit, { peer: "gw-a", caps, transport: "ax25" });
      })
      .then(
        (r) => (report = r),
        (e) => (failure = e),
      );
    await drive(clock, () => report !== null || failure !== null, 6 * 3600_000);
    if (failure) throw failure;
    const r = report as unknown as PullReport;
    if (!r.ok || r.applied !== RECORDS) throw new Error(`the sync delivered ${r.applied} of ${RECORDS}: ${JSON.stringify(r.error)}`);
    const seconds = (clock.now() - t0) / 1000;
    const sum = (f: (s: ReturnType<Ax25Link["stats"]>) => number) => links.reduce((n, l) => n + f(l.stats()), 0);
    return {
      report: r,
      seconds,
      airBytes: ch.stats.bytesOnAir,
      resent: sum((s) => s.iFramesResent),
      polls: sum((s) => s.polls),
      collisions: ch.stats.collisions,
      busyPct: (ch.stats.busyMs / 1000 / seconds) * 100,
      wallMs: performance.now() - wall,
    };
  } finally {
    off();
    await rb.stop();
    await ra.stop();
    await B.stop();
  }
}

async function syncTable() {
  const capacity = BAUD / 8;
  const A = publisher();
  const cases: Case[] = [];
  for (const loss of [0, 0.05]) for (const compression of ["deflateDict1", "none"] as const) cases.push({ compression, loss, link: {} });
  for (const compression of ["deflateDict1", "none"] as const) cases.push({ compression, loss: 0, link: { window: 7 } });
  const rows = [];
  try {
    for (const c of cases) {
      const runs: Outcome[] = [];
      for (const seed of SEEDS) runs.push(await syncOnce(A, c, seed));
      const mean = (f: (o: Outcome) => number) => runs.reduce((s, o) => s + f(o), 0) / runs.length;
      const recordBps = mean((o) => o.report.rawBytes / o.seconds);
      rows.push({
        compression: c.compression,
        loss: `${c.loss * 100}%`,
        "paclen/k": `${c.link.paclen ?? 256}/${c.link.window ?? 4}`,
        "air time s": mean((o) => o.seconds).toFixed(0),
        "records/min": mean((o) => RECORDS / (o.seconds / 60)).toFixed(1),
        "record B/s": recordBps.toFixed(1),
        "÷ raw capacity": `${(recordBps / capacity).toFixed(2)}`,
        "page B/record": mean((o) => o.report.bytes / RECORDS).toFixed(0),
        "record B/record": mean((o) => o.report.rawBytes / RECORDS).toFixed(0),
        "on air B (both ways)": mean((o) => o.airBytes).toFixed(0),
        "I resent": mean((o) => o.resent).toFixed(1),
        polls: mean((o) => o.polls).toFixed(1),
        collisions: mean((o) => o.collisions).toFixed(1),
        "channel busy": `${mean((o) => o.busyPct).toFixed(0)} %`,
        pages: runs[0]!.report.feeds.cache?.pages ?? 0,
        "wall ms": mean((o) => o.wallMs).toFixed(0),
      });
    }
  } finally {
    await A.gw.stop();
  }
  console.log(
    `\n## SVCL1 sync over a simulated ${BAUD}-baud half-duplex channel (${TXDELAY_MS} ms TXDELAY, CSMA, virtual time; ${RECORDS} cache records, two gateways with real stores; mean of ${SEEDS.length} seeds)\n`,
  );
  console.log(`raw byte capacity of the channel (the reference): ${capacity} B/s`);
  console.log(
    `record B/s: the signed records delivered (pages decompressed) per second of air time; page B: as they crossed the circuit (compressed, before base64)\n`,
  );
  console.log(table(rows));
  return rows;
}

async function beaconTable() {
  const key = generateKeyPair();
  const instances = [
    {
      label: "several endpoints, 11-char id",
      INSTANCE: "vt-north-gw",
      FED_ENDPOINTS: "https:https://gw.k1abc.example.org;10,ampr:k1abc.ampr.org;20,ax25:K1ABC-5;30,netrom:KABCGW;40,bbs:K1ABC@K1BBS.#NEVT.VT.USA.NOAM;50",
    },
    {
      label: "radio first, 11-char id",
      INSTANCE: "vt-north-gw",
      FED_ENDPOINTS: "ax25:K1ABC-5;10,netrom:KABCGW;20,https:https://gw.k1abc.example.org;30,bbs:K1ABC@K1BBS.#NEVT.VT.USA.NOAM;40",
    },
    {
      label: "several endpoints, 5-char id",
      INSTANCE: "k1abc",
      FED_ENDPOINTS: "https:https://gw.k1abc.example.org;10,ampr:k1abc.ampr.org;20,ax25:K1ABC-5;30,netrom:KABCGW;40,bbs:K1ABC@K1BBS.#NEVT.VT.USA.NOAM;50",
    },
    { label: "one radio endpoint, 24-char id", INSTANCE: "green-mountain-club-gw-1", FED_ENDPOINTS: "ax25:K1ABC-5" },
  ];
  const rows: Array<Record<string, string | number>> = [];
  for (const inst of instances) {
    const gw = gateway(tmp("beacon"), { INSTANCE: inst.INSTANCE, FED_PRIVATE_KEY: key.privateKey, FED_ENDPOINTS: inst.FED_ENDPOINTS });
    let b: Beacon;
    try {
      b = ownBeacon(gw);
    } catch (e) {
      rows.push({
        instance: inst.label,
        endpoints: inst.FED_ENDPOINTS.split(",").length,
        "datagram B": "-",
        "limit B": BEACON_MAX_BYTES,
        "of limit": "-",
        kept: `no beacon: ${(e as Error).message.slice(0, 40)}…`,
        trimmed: "-",
        "air ms @1200": "-",
      });
      await gw.stop();
      continue;
    }
    // the UI frame on the air: two addresses (SVCB1, the station), control, PID, the datagram
    const frameBytes = 14 + 2 + b.datagram.length;
    rows.push({
      instance: inst.label,
      endpoints: inst.FED_ENDPOINTS.split(",").length,
      "datagram B": b.datagram.length,
      "limit B": BEACON_MAX_BYTES,
      "of limit": `${Math.round((b.datagram.length / BEACON_MAX_BYTES) * 100)} %`,
      kept: b.endpoints.join(" ") || "(none)",
      trimmed: b.dropped.length,
      "air ms @1200": Math.round(TXDELAY_MS + airtimeMs(frameBytes, BAUD)),
    });
    await gw.stop();
  }
  console.log(`\n## SVCB1 beacon against one UI frame (information field ${BEACON_MAX_BYTES} B; air time with ${TXDELAY_MS} ms TXDELAY)\n`);
  console.log(table(rows));
  return rows;
}

export async function run() {
  const sync = await syncTable();
  const beacon = await beaconTable();
  return { sync, beacon };
}

if (import.meta.main) await run();
