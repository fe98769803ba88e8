/**
 * The same gateway on each host, side by side in one run: cold start (spawn
 * until it prints its URL, fresh data directory, schema created), idle
 * memory (resident set 2 s after start), federation records pulled, verified
 * and applied per second (the host pulls 2,000 signed caches from a Bun peer
 * with `POST /federation/sync`), and requests per second for `/health` and
 * for `/api/caches?bbox=` over the 2,000 pulled caches (a clustered answer)
 * (16 connections in this process), measured with every host up, in turns,
 * beside two bare servers that answer /health's JSON and nothing else
 * (Bun.serve, node:http: the ceiling each runtime's HTTP server sets). The Node host runs the bundle `npm run start:node`
 * runs, workerd the one `npm run start:worker` runs, in miniflare (whose
 * front server, in this process's Node-compatible loop, every request
 * crosses: part of workerd's figure is that proxy); bundles are built once
 * before timing. The load generator shares the machine's cores with the
 * server, the same for every host: read the ratios.
 */
import { readFileSync } from "node:fs";
import { buildWorkerBundle } from "../scripts/worker.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { nodeGatewayCommand, startInProcess } from "../test/helpers/gateway.ts";
import { startOn, type Runtime } from "../test/helpers/hosts.ts";
import { table } from "./lib/stats.ts";

const SECRET = "bench-runtimes-secret-0123456789";
const BBOX = "6.3,44.5,7.7,45.5";
const RECORDS = 2_000;
const ROUNDS = 5;
const HOSTS = (process.env.HOSTS?.split(",") ?? ["bun", "node", "workerd"]) as Runtime[];

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : Number.NaN;
}

/** Requests per second with `conns` loops fetching `url` for `ms`. */
async function rps(url: string, ms = 3000, conns = 16): Promise<number> {
  const end = performance.now() + ms;
  let n = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: conns }, async () => {
      while (performance.now() < end) {
        const r = await fetch(url);
        await r.arrayBuffer();
        if (r.ok) n++;
        else failed++;
      }
    }),
  );
  if (failed) throw new Error(`${failed} requests to ${url} failed`);
  return Math.round(n / (ms / 1000));
}

/**
 * The ceiling under this load generator: a server that answers /health's
 * JSON and does nothing else, on Bun.serve and on node:http (the runtime the
 * Node host runs on), each in its own process. A host cannot beat its bare
 * server, so a host's ratio is read against this one.
 */
const BARE_BODY = 'const body = JSON.stringify({ status: "ok", version: "0.1.0", uptimeS: 1 });';
const BARE: Record<"bun" | "node", string> = {
  bun: `${BARE_BODY} const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": "application/json" } }) }); console.log("PORT " + s.port);`,
  node: `${BARE_BODY} const s = require("node:http").createServer((q, r) => { r.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }); r.end(body); }); s.listen(0, "127.0.0.1", () => console.log("PORT " + s.address().port));`,
};

/** A bare server in its own process; its URL and how to stop it. */
async function startBare(runtime: "bun" | "node"): Promise<{ url: string; stop(): void }> {
  const exe = runtime === "bun" ? process.execPath : (await nodeGatewayCommand())[0]!;
  const proc = Bun.spawn([exe, "-e", BARE[runtime]], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!/PORT (\d+)/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the bare ${runtime} server did not start`);
    out += new TextDecoder().decode(value);
  }
  return { url: `http://127.0.0.1:${/PORT (\d+)/.exec(out)![1]}`, stop: () => proc.kill() };
}

/**
 * Requests per second of each URL, measured in turns (ROUNDS slices of
 * 600 ms, one URL after another), the median of each: what the other work on
 * a shared machine takes away falls on every server alike, not on whichever
 * one happened to run at the time.
 */
async function ratesInTurns(urls: Record<string, string>): Promise<Record<string, number>> {
  const seen: Record<string, number[]> = {};
  for (const url of Object.values(urls)) await rps(url, Number(process.env.WARM ?? 300));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, url] of Object.entries(urls)) (seen[name] ??= []).push(await rps(url, 600));
  }
  return Object.fromEntries(Object.entries(seen).map(([name, xs]) => [name, xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!]));
}

export async function run() {
  // A Bun peer holding 2,000 signed caches, which every host pulls.
  const upstream = await startInProcess({ INSTANCE: "bench-upstream", FED_PRIVATE_KEY: generateKeyPair().privateKey, INGEST_SECRET: SECRET });
  for (let i = 0; i < RECORDS; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, (_, k) =>
        upstream
          .post(
            "/api/caches",
            {
              name: `Bench cache ${i + k}`,
              type: "traditional",
              size: "small",
              difficulty: 2,
              terrain: 2,
              lat: 44.6 + ((i + k) % 80) / 100,
              lon: 6.4 + Math.floor((i + k) / 80) / 20,
              ownerCall: "N0BEN",
            },
            { headers: { "x-ingest-secret": SECRET } },
          )
          .then((r) => {
            if (r.status !== 201) throw new Error(`hiding a bench cache: ${r.status}`);
          }),
      ),
    );
  }
  await nodeGatewayCommand(); // the Node and worker bundles, built before any timing
  await buildWorkerBundle();
  const rows: Array<Record<string, string | number>> = [];
  const running: Array<{ host: Runtime; url: string; stop(): Promise<unknown> }> = [];
  const bares: Array<{ stop(): void }> = [];
  try {
    // one host at a time: cold start, idle memory, the pull; each stays up for the rates
    for (const host of HOSTS) {
      const t0 = performance.now();
      const g = await startOn(host, {
        INGEST_SECRET: SECRET,
        RATE_LIMIT_PER_MINUTE: "1000000",
        FED_PEERS: upstream.url,
        FED_LOOPBACK_PEERS: "on",
        LOG_LEVEL: "error",
      });
      running.push({ host, url: g.url, stop: g.stop });
      const coldStartMs = Math.round(performance.now() - t0);
      await Bun.sleep(2000);
      const idleMb = rssMb(g.pid());
      const t1 = performance.now();
      const pull = await fetch(`${g.url}/federation/sync`, { method: "POST", headers: { "x-ingest-secret": SECRET } });
      if (!pull.ok) throw new Error(`pull on ${host}: ${pull.status} ${await pull.text()}`);
      const applied = ((await pull.json()) as { peers: Array<{ applied?: number; received?: number }> }).peers.reduce((s, p) => s + (p.applied ?? 0), 0);
      const pullS = (performance.now() - t1) / 1000;
      const first = (await (await fetch(`${g.url}/api/caches?bbox=${BBOX}`)).json()) as { total: number; clustered: boolean };
      rows.push({
        host,
        coldStartMs,
        idleRssMb: idleMb,
        healthRps: 0,
        cachesBboxRps: 0,
        inView: `${first.total}${first.clustered ? " clustered" : ""}`,
        recordsApplied: applied,
        pullApplyPerS: Math.round(applied / pullS),
      });
    }
    // the rates, every host (and the bare servers) in turns
    const bare = { bun: await startBare("bun"), node: await startBare("node") };
    bares.push(bare.bun, bare.node);
    const health = await ratesInTurns({
      ...Object.fromEntries(running.map((g) => [g.host, `${g.url}/health`])),
      "bare-bun": `${bare.bun.url}/health`,
      "bare-node": `${bare.node.url}/health`,
    });
    const bbox = await ratesInTurns(Object.fromEntries(running.map((g) => [g.host, `${g.url}/api/caches?bbox=${BBOX}`])));
    for (const row of rows) {
      row.healthRps = health[row.host as string]!;
      row.cachesBboxRps = bbox[row.host as string]!;
    }
    console.log(
      `\nThe gateway on each host (workerd: miniflare, a Durable Object's SQLite), ${RECORDS} signed caches pulled from a Bun peer, 16 connections, rates the median of ${ROUNDS} turns of 600 ms`,
    );
    console.log(table(rows));
    console.log(
      `bare servers answering /health's JSON and nothing else: Bun.serve ${health["bare-bun"]}/s, node:http ${health["bare-node"]}/s: node/bun ${(health["bare-node"]! / health["bare-bun"]!).toFixed(2)}x, the most the Node host's /health can reach here`,
    );
  } finally {
    for (const b of bares) b.stop();
    for (const g of running) await g.stop();
    await upstream.stop();
  }
  const bun = rows.find((r) => r.host === "bun");
  for (const other of rows.filter((r) => r !== bun)) {
    if (!bun) break;
    const ratio = (k: string) => (Number(other[k]) / Number(bun[k])).toFixed(2);
    console.log(
      `${other.host}/bun: cold start ${ratio("coldStartMs")}x, idle memory ${ratio("idleRssMb")}x, /health ${ratio("healthRps")}x, bbox ${ratio("cachesBboxRps")}x, pull+apply ${ratio("pullApplyPerS")}x`,
    );
  }
}

if (import.meta.main) await run();
