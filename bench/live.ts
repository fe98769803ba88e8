/**
 * Live fan-out: CLIENTS WebSocket clients (in their own process) spread over
 * ROOMS Maidenhead squares, while positions are ingested at RATE per second
 * through POST /ingest (from this process) for SECONDS. Each position's
 * comment carries its send time; the clients measure end-to-end delivery
 * latency (ingest request sent -> message received). Reported: p50/p99/max,
 * deliveries against those expected, and the server's CPU (share of one
 * core) and memory. The reference is the same fan-out through a bare
 * Bun.serve that only parses the line and publishes (bench/live/reference.ts).
 * The gateway runs twice: with its data on disk, as deployed, and in tmpfs,
 * which separates what disk writes (commits, WAL checkpoints) add to the
 * latency from what the fan-out itself costs.
 * Target: p99 under 100 ms with every client connected.
 */
import { join } from "node:path";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { spawnGateway } from "../test/helpers/gateway.ts";
import { BUN, ROOT } from "../test/helpers/paths.ts";
import { table } from "./lib/stats.ts";
import { cpuSeconds, memoryMiB } from "./live/proc.ts";

const SECRET = "bench-ingest-secret-0123456789";

interface Target {
  name: string;
  base: string;
  pid: number;
  stop(): Promise<void>;
}

async function lines(stream: ReadableStream<Uint8Array>, onLine: (l: string) => void) {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) {
    buf += dec.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  }
}

/** The gateway as deployed (its data directory on disk), or with its data in tmpfs, which takes disk stalls out of the figures. */
async function gateway(clients: number, inMemory: boolean): Promise<Target> {
  const dataDir = inMemory ? mkdtempSync("/dev/shm/svc-bench-live-") : undefined;
  const g = await spawnGateway({ dataDir, env: { INGEST_SECRET: SECRET, LIVE_MAX_PER_IP: String(clients + 10), LOG_LEVEL: "warn" } });
  return {
    name: inMemory ? "svc-gateway, data in tmpfs" : "svc-gateway, data on disk",
    base: g.url,
    pid: g.proc.pid,
    stop: async () => {
      await g.kill();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function reference(): Promise<Target> {
  const proc = Bun.spawn([BUN, join(ROOT, "bench/live/reference.ts")], { stdout: "pipe", stderr: "inherit" });
  const port = await new Promise<number>((resolve) => void lines(proc.stdout, (l) => l.startsWith("listening ") && resolve(Number(l.split(" ")[1]))));
  return { name: "bare Bun.serve", base: `http://127.0.0.1:${port}`, pid: proc.pid, stop: async () => void (proc.kill(), await proc.exited) };
}

/** APRS latitude/longitude of the middle of square FN<d>2. */
const position = (d: number) => `4230.00N/0${String(79 - 2 * d).padStart(2, "0")}00.00W`;

async function measure(t: Target, o: { clients: number; rooms: number; rate: number; seconds: number }) {
  const mem0 = memoryMiB(t.pid);
  const proc = Bun.spawn([BUN, join(ROOT, "bench/live/clients.ts"), t.base.replace(/^http/, "ws"), String(o.clients), String(o.rooms)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  let result: any = null;
  let readyResolve: () => void = () => {};
  const ready = new Promise<void>((r) => (readyResolve = r));
  const done = lines(proc.stdout, (l) => {
    if (l.startsWith("READY")) readyResolve();
    else if (l.startsWith("{")) result = JSON.parse(l);
  });
  await ready;
  const memConnected = memoryMiB(t.pid);
  let seq = 0;
  const post = (marked: boolean, count: number) => {
    const body = Array.from({ length: count }, () => {
      const k = seq++;
      const comment = marked ? `t=${(performance.timeOrigin + performance.now()).toFixed(3)}` : `warm ${k}`;
      return `N0B${String(k % 200).padStart(3, "0")}>APRS:!${position(k % o.rooms)}>${comment}`;
    }).join("\n");
    return fetch(`${t.base}/ingest`, { method: "POST", headers: { "x-ingest-secret": SECRET, "content-type": "text/plain" }, body }).then((r) =>
      r.arrayBuffer(),
    );
  };
  // Paced ingest: every few ms, send what the rate says is due.
  const pace = async (seconds: number, marked: boolean) => {
    const start = performance.now();
    const inflight: Array<Promise<unknown>> = [];
    let sent = 0;
    for (;;) {
      const elapsed = (performance.now() - start) / 1000;
      if (elapsed >= seconds) break;
      const due = Math.floor(elapsed * o.rate) - sent;
      if (due > 0) {
        inflight.push(post(marked, due));
        sent += due;
      }
      await Bun.sleep(4);
    }
    await Promise.all(inflight);
    return sent;
  };
  await pace(1, false); // warm-up, not measured
  const cpu0 = cpuSeconds(t.pid);
  const t0 = performance.now();
  const sent = await pace(o.seconds, true);
  const wall = (performance.now() - t0) / 1000;
  const cpu = (cpuSeconds(t.pid) - cpu0) / wall;
  proc.stdin.write(`DONE ${sent * (o.clients / o.rooms)}\n`);
  proc.stdin.flush();
  await done;
  await proc.exited;
  const mem = memoryMiB(t.pid);
  return { sent, result, cpu, mem0, memConnected, mem, clientsCpu: result.cpuS / wall };
}

export async function run(o = { clients: 1000, rooms: 10, rate: 200, seconds: 10 }) {
  console.log(
    `\nlive fan-out: ${o.clients} WebSocket clients in ${o.rooms} rooms (own process), ${o.rate} positions/s through POST /ingest for ${o.seconds} s`,
  );
  const rows: Array<Record<string, string | number>> = [];
  const p99: number[] = [];
  const targets = [() => gateway(o.clients, false), ...(existsSync("/dev/shm") ? [() => gateway(o.clients, true)] : []), reference];
  for (const start of targets) {
    const t = await start();
    try {
      const m = await measure(t, o);
      p99.push(m.result.p99);
      rows.push({
        server: t.name,
        delivered: `${m.result.delivered}/${m.result.expected}`,
        "p50 ms": m.result.p50,
        "p99 ms": m.result.p99,
        "max ms": m.result.max,
        "server CPU": `${Math.round(m.cpu * 100)}% of a core`,
        "server RSS MiB (idle/connected/end/peak)": `${m.mem0.rss}/${m.memConnected.rss}/${m.mem.rss}/${m.mem.peak}`,
        "clients CPU": `${Math.round(m.clientsCpu * 100)}%`,
        dropped: m.result.closed,
      });
    } finally {
      await t.stop();
    }
  }
  console.log(table(rows));
  const ref = p99[p99.length - 1]!;
  console.log(
    `p99 against the bare fan-out: ${p99
      .slice(0, -1)
      .map((p) => (p / ref).toFixed(1) + "x")
      .join(", ")}; target p99 < 100 ms (data on disk): ${p99[0]! < 100 ? "met" : "NOT met"}`,
  );
  console.log(`load average while measuring: ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")} (2 cores shared)`);
  return rows;
}

if (import.meta.main) await run();
