/**
 * The station hub's APRS-IS server fanning packets out to CLIENTS clients with
 * mixed filters (bench/hub/clients.ts FILTERS: r/, t/, b/, p/, s/, a/, m/, f/,
 * e/, negations), against a local reference: a bare Bun TCP server that writes
 * the same packet lines to CLIENTS plain sockets with no login, filter, q
 * construct or duplicate check. Packets enter as the ingest pipeline's
 * aprsPacket event (decoded once beforehand, as ingest does), so the figures
 * are the hub's own work: dupe check, q construct, filters, socket writes.
 * The clients run in their own process and time each delivery against the
 * `t=` stamp the packet carries.
 *
 *   paced     RATE packets/s for SECONDS: per-delivery latency p50/p99/max
 *   flat out  BURST packets as fast as the server takes them: packets/s
 *             (first packet out to last delivery)
 *   filters   microseconds per matchFilter call, ordinary and hostile filters
 *             (the b/ + 44 * + Z that froze the gateway), beside the old
 *             backtracking RegExp glob
 */
import { join } from "node:path";
import type { Socket } from "bun";
import { startInProcess } from "../test/helpers/gateway.ts";
import { BUN, ROOT } from "../test/helpers/paths.ts";
import { table } from "./lib/stats.ts";
import { ingestLines } from "../src/stations/ingest.ts";
import { matchFilter, parseFilter, type FilterPacket } from "../src/hub/filter.ts";
import { decode } from "../src/lib/aprs/decode.ts";
import type { GatewayEvents } from "../src/core/events.ts";

const CLIENTS = 100;
const RATE = 1000;
const SECONDS = 3;
const BURST = 5000;

type Packet = GatewayEvents["aprsPacket"];

/** Packets of many kinds over a region, each unique (no duplicate suppression). */
function packets(n: number): Array<{ head: string; body: (t: number) => string; packet: Packet["packet"]; src: string; path: string }> {
  const calls = ["N1AA", "N2BB", "N3CC", "K1DD", "W1EE", "N4FF", "KB1GG", "N0HH"];
  const syms = ["/>", "/-", "\\#", "/_", "/k", "S#"];
  const out = [];
  let seed = 42;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (let i = 0; i < n; i++) {
    const src = `${calls[i % calls.length]}-${(i % 15) + 1}`;
    const path = i % 3 === 0 ? "WIDE1-1*,qAR,N0IG-1" : i % 3 === 1 ? "TCPIP*,qAC,T2TEST" : "qAR,N0IG-2";
    const lat = 40 + rnd() * 6;
    const lon = -76 + rnd() * 6;
    const dm = (v: number, w: number, h: string) =>
      `${String(Math.floor(Math.abs(v))).padStart(w, "0")}${((Math.abs(v) % 1) * 60).toFixed(2).padStart(5, "0")}${h}`;
    const sym = syms[i % syms.length]!;
    const kind = i % 10;
    const info =
      kind === 9
        ? `:N0C${i % CLIENTS}`.padEnd(10, " ") + `:msg ${i}{${i % 1000}`
        : kind === 8
          ? `_${String(i % 100).padStart(2, "0")}090556c220s004g005t077r000p000P000h50b09900wRSW ${i}`
          : `!${dm(lat, 2, "N")}${sym[0]}${dm(lon, 3, "W")}${sym[1]}${i}`;
    const head = `${src}>APRS,${path}:`;
    const d = decode(head + info);
    out.push({ head, body: (t: number) => `${info} t=${t}`, packet: d.ok ? d.packet : null, src, path });
  }
  return out;
}

interface ClientsProc {
  send(line: string): void;
  next(): Promise<string>;
  stop(): void;
}

async function clients(port: number, login: boolean): Promise<ClientsProc> {
  const proc = Bun.spawn([BUN, join(ROOT, "bench/hub/clients.ts"), String(port), String(CLIENTS), login ? "1" : "0"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  const queue: string[] = [];
  const waiters: Array<(l: string) => void> = [];
  void (async () => {
    let buf = "";
    for await (const c of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buf += new TextDecoder().decode(c);
      let k;
      while ((k = buf.indexOf("\n")) >= 0) {
        const l = buf.slice(0, k);
        buf = buf.slice(k + 1);
        const w = waiters.shift();
        if (w) w(l);
        else queue.push(l);
      }
    }
  })();
  const p: ClientsProc = {
    send: (l) => {
      proc.stdin.write(l + "\n");
      proc.stdin.flush();
    },
    next: () => (queue.length ? Promise.resolve(queue.shift()!) : new Promise((r) => waiters.push(r))),
    stop: () => proc.kill(),
  };
  const ready = await p.next();
  if (ready !== "READY") throw new Error(`clients: ${ready}`);
  return p;
}

const now = () => performance.timeOrigin + performance.now();

/** Runs the paced and flat-out rounds with `emit` putting one packet out. */
async function rounds(name: string, c: ClientsProc, emit: (i: number) => void, connected: () => number) {
  const rows: Array<Record<string, string | number>> = [];
  // paced
  const total = RATE * SECONDS;
  const t0 = now();
  for (let i = 0; i < total; i += RATE / 100) {
    for (let k = 0; k < RATE / 100; k++) emit(i + k);
    const due = t0 + ((i + RATE / 100) / RATE) * 1000;
    const wait = due - now();
    if (wait > 0) await Bun.sleep(wait);
  }
  c.send("DONE");
  const paced = JSON.parse(await c.next());
  rows.push({
    target: name,
    round: `paced ${RATE}/s`,
    packets: total,
    "packets/s": Math.round(total / ((paced.last - t0) / 1000)),
    deliveries: paced.deliveries,
    "p50 ms": paced.p50,
    "p99 ms": paced.p99,
    "max ms": paced.max,
    clients: connected(),
  });
  c.send("RESET");
  await c.next();
  // flat out
  const t1 = now();
  for (let i = 0; i < BURST; i++) {
    emit(total + i);
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
  }
  c.send("DONE");
  const flat = JSON.parse(await c.next());
  rows.push({
    target: name,
    round: "flat out",
    packets: BURST,
    "packets/s": Math.round(BURST / ((flat.last - t1) / 1000)),
    deliveries: flat.deliveries,
    "p50 ms": flat.p50,
    "p99 ms": flat.p99,
    "max ms": flat.max,
    clients: connected(),
  });
  return rows;
}

export async function run() {
  const all = packets(RATE * SECONDS + BURST);
  const rows: Array<Record<string, string | number>> = [];

  // svc-gateway's APRS-IS server
  const g = await startInProcess({ APRSIS_LISTEN: "127.0.0.1:0", RADIO_CALL: "N0GW-10", LOG_LEVEL: "error" });
  // positions for m/ (each client's login) and f/ (N0GW-10)
  ingestLines(
    g.gw,
    [
      "N0GW-10>APRS,qAR,N0IG-1:!4230.00N/07230.00W-",
      ...Array.from({ length: CLIENTS }, (_, i) => `N0C${i}>APRS,qAR,N0IG-1:!${42 + (i % 4)}30.00N/07${2 + (i % 3)}30.00W-`),
    ],
    { source: "aprsis" },
  );
  const hub = g.gw.hub!.aprsIs!;
  const hc = await clients(hub.port, true);
  const emitHub = (i: number) => {
    const p = all[i]!;
    const info = p.body(now());
    g.gw.events.emit("aprsPacket", {
      line: p.head + info,
      src: p.src,
      dst: "APRS",
      path: p.path,
      info,
      ts: Date.now(),
      source: "aprsis",
      igate: null,
      via: "aprsis",
      packet: p.packet,
    });
  };
  rows.push(...(await rounds("svc-gateway APRS-IS server", hc, emitHub, () => g.gw.hub!.clients.of("aprs-is").length)));
  hc.stop();
  await g.stop();

  // reference: the same lines to plain sockets, no filtering
  const socks = new Set<Socket<undefined>>();
  const ref = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: (s) => void socks.add(s), close: (s) => void socks.delete(s), data() {} } });
  const rc = await clients(ref.port, false);
  const enc = new TextEncoder();
  const emitRef = (i: number) => {
    const p = all[i]!;
    const bytes = enc.encode(p.head + p.body(now()) + "\r\n");
    for (const s of socks) s.write(bytes);
  };
  rows.push(...(await rounds("reference: plain sockets, no filter", rc, emitRef, () => socks.size)));
  rc.stop();
  ref.stop(true);

  console.log(`\nhub: APRS-IS fan-out to ${CLIENTS} clients with mixed filters (latency: packet out -> line received, per delivery)\n`);
  console.log(table(rows));
  console.log("\nhub: one client's filter against one packet (matchFilter), including the pattern that froze the gateway (issue 25 H2)\n");
  console.log(table(filterCost(all.map((p) => ({ src: p.src, dst: "APRS", path: p.path.split(","), packet: p.packet })))));
}

/** Microseconds per matchFilter call for ordinary and hostile filters, and what the old backtracking glob cost. */
export function filterCost(fps: FilterPacket[]): Array<Record<string, string | number>> {
  const filters: Record<string, string> = {
    "b/N0CALL*": "b/N0CALL*",
    "b/ + 44 * + Z": `b/${"*".repeat(44)}Z`,
    "b/*A*B*C*D*E*F*Z": "b/*A*B*C*D*E*F*Z",
    "32 terms b/*X*Y*Z (cap)": Array.from({ length: 40 }, () => "b/*X*Y*Z").join(" "),
  };
  const out: Array<Record<string, string | number>> = [];
  for (const [name, text] of Object.entries(filters)) {
    const f = parseFilter(text, "N0BENCH");
    const n = 200_000;
    const t0 = performance.now();
    let hits = 0;
    for (let i = 0; i < n; i++) if (matchFilter(f, fps[i % fps.length]!)) hits++;
    out.push({ filter: name, terms: f.terms.length, "us/match": (((performance.now() - t0) * 1000) / n).toFixed(3), hits });
  }
  // before: `*` compiled to `.*` in a RegExp, which backtracks; one call on a 7-character source
  const re = new RegExp(
    `^${"*"
      .repeat(44)
      .split("")
      .map(() => ".*")
      .join("")}Z$`,
    "i",
  );
  const t0 = performance.now();
  re.test("N0C01-1");
  out.push({ filter: "b/ + 44 * + Z, old RegExp glob", terms: 1, "us/match": ((performance.now() - t0) * 1000).toFixed(0), hits: 0 });
  return out;
}

if (import.meta.main) await run();
