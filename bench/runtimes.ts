/**
 * The same gateway on each host, side by side in one run: cold start (spawn
 * until it prints its URL, fresh data directory, schema created), idle
 * memory (resident set 2 s after start), requests per second for `/health`
 * and for `/api/caches?bbox=` over the 2,000 pulled caches (a clustered answer) (16 connections in this
 * process, 3 s each), and federation records pulled, verified and applied
 * per second (the host pulls 2,000 signed caches from a Bun peer with
 * `POST /federation/sync`). The Node host runs the bundle `npm run start:node`
 * runs, workerd the one `npm run start:worker` runs, in miniflare (whose
 * front server, in this process's Node-compatible loop, every request
 * crosses: part of workerd's figure is that proxy); bundles are built once
 * before timing. The load generator shares the machine's cores with the
 * server, the same for every host: read the ratios.
 */
import { readFileSync } from "node:fs";
import { buildWorkerBundle } from "../scripts/worker.ts";
import { generateKeyPair } from "../src/fed/keys.ts";
import { nodeGatewayCommand, startInProcess } from "../test/helpers/gateway.ts";
import { startOn, type Runtime } from "../test/helpers/hosts.ts";
import { table } from "./lib/stats.ts";

const SECRET = "bench-runtimes-secret-0123456789";
const BBOX = "6.3,44.5,7.7,45.5";
const RECORDS = 2_000;
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
  try {
    for (const host of HOSTS) {
      const t0 = performance.now();
      const g = await startOn(host, {
        INGEST_SECRET: SECRET,
        RATE_LIMIT_PER_MINUTE: "1000000",
        FED_PEERS: upstream.url,
        FED_LOOPBACK_PEERS: "on",
        LOG_LEVEL: "error",
      });
      const coldStartMs = Math.round(performance.now() - t0);
      try {
        await Bun.sleep(2000);
        const idleMb = rssMb(g.pid());
        const health = await rps(`${g.url}/health`);
        const t1 = performance.now();
        const pull = await fetch(`${g.url}/federation/sync`, { method: "POST", headers: { "x-ingest-secret": SECRET } });
        if (!pull.ok) throw new Error(`pull on ${host}: ${pull.status} ${await pull.text()}`);
        const applied = ((await pull.json()) as { peers: Array<{ applied?: number; received?: number }> }).peers.reduce((s, p) => s + (p.applied ?? 0), 0);
        const pullS = (performance.now() - t1) / 1000;
        const bbox = `${g.url}/api/caches?bbox=${BBOX}`;
        const first = (await (await fetch(bbox)).json()) as { total: number; clustered: boolean };
        const caches = await rps(bbox);
        rows.push({
          host,
          coldStartMs,
          idleRssMb: idleMb,
          healthRps: health,
          cachesBboxRps: caches,
          inView: `${first.total}${first.clustered ? " clustered" : ""}`,
          recordsApplied: applied,
          pullApplyPerS: Math.round(applied / pullS),
        });
      } finally {
        await g.stop();
      }
    }
  } finally {
    await upstream.stop();
  }
  console.log(
    `\nThe gateway on each host (workerd: miniflare, a Durable Object's SQLite), ${RECORDS} signed caches pulled from a Bun peer, 16 connections, 3 s per rate`,
  );
  console.log(table(rows));
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
