/**
 * The executable: cold start to the first 200 from /health, idle RSS, size,
 * and /health requests per second against a bare Bun.serve in the same run.
 */
import { mkdtempSync, rmSync, statSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { loadInChild } from "./lib/load.ts";
import { median, percentile, table } from "./lib/stats.ts";

const OUT = join(import.meta.dir, "out");

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const p = s.port!;
  s.stop(true);
  return p;
}

/** Spawns the executable and returns ms until /health first answers 200. */
async function coldStart(exe: string, dataDir: string) {
  const port = await freePort();
  const t0 = performance.now();
  const proc = Bun.spawn([exe, "serve", "--port", String(port), "--host", "127.0.0.1", "--data", dataDir], {
    stdout: "ignore",
    stderr: "ignore",
    env: { PATH: process.env.PATH!, LOG_LEVEL: "error" },
  });
  for (;;) {
    try {
      const r = await fetch(`http://127.0.0.1:${port}/health`);
      if (r.status === 200) break;
    } catch {}
    await Bun.sleep(1);
  }
  return { ms: performance.now() - t0, proc, port };
}

const rssMb = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Math.round(Number(m![1]) / 102.4) / 10;
};

export async function run() {
  const exes = await build({ targets: ["linux-x64"], outdir: OUT, log: () => {} });
  const exe = exes["linux-x64"];
  const size = statSync(exe).size;

  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < 10; i++) {
    const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
    const a = await coldStart(exe, dir);
    first.push(a.ms);
    a.proc.kill();
    await a.proc.exited;
    const b = await coldStart(exe, dir);
    again.push(b.ms);
    b.proc.kill();
    await b.proc.exited;
    rmSync(dir, { recursive: true, force: true });
  }

  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const gw = await coldStart(exe, dir);
  await Bun.sleep(3000);
  const idleRss = rssMb(gw.proc.pid);
  const healthLoad = await loadInChild(`http://127.0.0.1:${gw.port}/health`, 32, 5);
  const liveLoad = await loadInChild(`http://127.0.0.1:${gw.port}/health?live`, 32, 5);
  const loadedRss = rssMb(gw.proc.pid);
  gw.proc.kill();
  await gw.proc.exited;
  rmSync(dir, { recursive: true, force: true });

  // Reference: a bare Bun.serve answering the same JSON, in a child process.
  const refPort = await freePort();
  const ref = Bun.spawn([process.execPath, "-e", `Bun.serve({port:${refPort},hostname:"127.0.0.1",fetch:()=>Response.json({status:"ok"})})`], {
    stdout: "ignore",
  });
  await Bun.sleep(300);
  const refLoad = await loadInChild(`http://127.0.0.1:${refPort}/`, 32, 5);
  ref.kill();

  console.log("\n## startup (compiled linux-x64 executable)\n");
  console.log(
    table([
      { figure: "cold start, first run (creates the database) median", value: `${median(first).toFixed(1)} ms`, target: "< 150 ms" },
      { figure: "cold start, first run p90", value: `${percentile(first, 90).toFixed(1)} ms`, target: "" },
      { figure: "cold start, existing data median", value: `${median(again).toFixed(1)} ms`, target: "< 150 ms" },
      { figure: "cold start, existing data p90", value: `${percentile(again, 90).toFixed(1)} ms`, target: "" },
      { figure: "idle RSS (3 s after start)", value: `${idleRss} MB`, target: "< 80 MB" },
      { figure: "RSS after 10 s of load", value: `${loadedRss} MB`, target: "" },
      { figure: "executable size", value: `${(size / 1e6).toFixed(1)} MB`, target: "" },
      { figure: "/health req/s (32 conns, reads SQLite)", value: `${healthLoad.rps}`, target: "" },
      { figure: "/health?live req/s", value: `${liveLoad.rps}`, target: "" },
      { figure: "bare Bun.serve req/s (reference)", value: `${refLoad.rps}`, target: "" },
      { figure: "/health vs bare Bun.serve", value: `${((healthLoad.rps / refLoad.rps) * 100).toFixed(0)} %`, target: "" },
      { figure: "/health p50 / p99 latency", value: `${healthLoad.p50Ms} / ${healthLoad.p99Ms} ms`, target: "" },
    ]),
  );
  return { first, again, idleRss, size, healthLoad, refLoad };
}

if (import.meta.main) await run();
