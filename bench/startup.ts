/**
 * The executable: cold start to the first 200 from /health, idle RSS, size,
 * and /health requests per second, each beside a Bun hello-world executable
 * (Bun.serve answering the same JSON, compiled with the same flags) measured
 * in the same run: what the Bun runtime costs by itself on this machine.
 */
import { mkdtempSync, rmSync, statSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "../build.ts";
import { loadInChild } from "./lib/load.ts";
import { median, percentile, table } from "./lib/stats.ts";
import { freePort } from "../test/helpers/ports.ts";
import { evictFromPageCache } from "./lib/page-cache.ts";

const OUT = join(import.meta.dir, "out");

/** A Bun hello-world executable: Bun.serve answering {status: "ok"}, compiled as build.ts compiles the gateway. */
function buildHello(): string {
  const src = join(OUT, "hello.ts");
  const exe = join(OUT, "hello-world");
  writeFileSync(
    src,
    `Bun.serve({ port: Number(process.argv[process.argv.indexOf("--port") + 1]), hostname: "127.0.0.1", fetch: () => Response.json({ status: "ok" }) });\n`,
  );
  const r = Bun.spawnSync(
    [process.execPath, "build", "--compile", "--minify", "--bytecode", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", src, `--outfile=${exe}`],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  if (r.exitCode !== 0) throw new Error(`compiling the hello-world executable failed:\n${r.stderr}`);
  return exe;
}

/** Spawns the executable (`serve --port N ...`) and returns ms until /health first answers 200. */
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

  const hello = buildHello();

  const first: number[] = [];
  const again: number[] = [];
  const helloStart: number[] = [];
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
    const h = await coldStart(hello, dir);
    helloStart.push(h.ms);
    h.proc.kill();
    await h.proc.exited;
  }

  // idle: 3 s after a first run (which makes the database), then after a start on that data, as every later start is
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-"));
  const fresh = await coldStart(exe, dir);
  await Bun.sleep(3000);
  const idleRssFirstRun = rssMb(fresh.proc.pid);
  fresh.proc.kill();
  await fresh.proc.exited;
  // (the median of three starts: one sample moves by a few MB with what the machine does meanwhile)
  const idleSamples: number[] = [];
  for (let i = 0; i < 2; i++) {
    const again = await coldStart(exe, dir);
    await Bun.sleep(3000);
    idleSamples.push(rssMb(again.proc.pid));
    again.proc.kill();
    await again.proc.exited;
  }
  const gw = await coldStart(exe, dir);
  await Bun.sleep(3000);
  idleSamples.push(rssMb(gw.proc.pid));
  const idleRss = median(idleSamples);
  const healthLoad = await loadInChild(`http://127.0.0.1:${gw.port}/health`, 32, 5);
  const liveLoad = await loadInChild(`http://127.0.0.1:${gw.port}/health?live`, 32, 5);
  const loadedRss = rssMb(gw.proc.pid);
  gw.proc.kill();
  await gw.proc.exited;
  // the idle figure again, each start on an executable not in the page cache (evictFromPageCache)
  const bootSamples: number[] = [];
  for (let i = 0; i < 3; i++) {
    evictFromPageCache(exe);
    const afterBoot = await coldStart(exe, dir);
    await Bun.sleep(3000);
    bootSamples.push(rssMb(afterBoot.proc.pid));
    afterBoot.proc.kill();
    await afterBoot.proc.exited;
  }
  const idleRssBoot = median(bootSamples);
  rmSync(dir, { recursive: true, force: true });

  // The reference: the hello-world executable answering the same JSON.
  const ref = await coldStart(hello, dir);
  await Bun.sleep(3000);
  const refIdleRss = rssMb(ref.proc.pid);
  const refLoad = await loadInChild(`http://127.0.0.1:${ref.port}/health`, 32, 5);
  const refLoadedRss = rssMb(ref.proc.pid);
  ref.proc.kill();
  await ref.proc.exited;
  evictFromPageCache(hello);
  const refBoot = await coldStart(hello, dir);
  await Bun.sleep(3000);
  const refIdleRssBoot = rssMb(refBoot.proc.pid);
  refBoot.proc.kill();
  await refBoot.proc.exited;

  const ms = (v: number) => `${v.toFixed(1)} ms`;
  console.log("\n## startup (compiled linux-x64 executable, beside a Bun hello-world executable)\n");
  console.log(
    table([
      {
        figure: "cold start, first run (creates the database) median",
        "svc-gateway": ms(median(first)),
        "hello-world": ms(median(helloStart)),
        target: "< 150 ms",
      },
      { figure: "cold start, first run p90", "svc-gateway": ms(percentile(first, 90)), "hello-world": ms(percentile(helloStart, 90)), target: "" },
      { figure: "cold start, existing data median", "svc-gateway": ms(median(again)), "hello-world": ms(median(helloStart)), target: "< 60 ms" },
      { figure: "cold start, existing data p90", "svc-gateway": ms(percentile(again, 90)), "hello-world": ms(percentile(helloStart, 90)), target: "" },
      {
        figure: "idle RSS, existing data, executable read as it runs (after a boot)",
        "svc-gateway": `${idleRssBoot} MB`,
        "hello-world": `${refIdleRssBoot} MB`,
        target: "< 64 MB",
      },
      {
        figure: "idle RSS, existing data, whole executable in the page cache (just built)",
        "svc-gateway": `${idleRss} MB`,
        "hello-world": `${refIdleRss} MB`,
        target: "",
      },
      { figure: "idle RSS, first run (3 s after start)", "svc-gateway": `${idleRssFirstRun} MB`, "hello-world": "", target: "" },
      { figure: "RSS after 10 s of load", "svc-gateway": `${loadedRss} MB`, "hello-world": `${refLoadedRss} MB`, target: "" },
      { figure: "executable size", "svc-gateway": `${(size / 1e6).toFixed(1)} MB`, "hello-world": `${(statSync(hello).size / 1e6).toFixed(1)} MB`, target: "" },
      { figure: "/health req/s (32 conns, reads SQLite)", "svc-gateway": `${healthLoad.rps}`, "hello-world": `${refLoad.rps}`, target: "" },
      { figure: "/health?live req/s", "svc-gateway": `${liveLoad.rps}`, "hello-world": "", target: "" },
      { figure: "/health vs hello-world", "svc-gateway": `${((healthLoad.rps / refLoad.rps) * 100).toFixed(0)} %`, "hello-world": "100 %", target: "" },
      {
        figure: "/health p50 / p99 latency",
        "svc-gateway": `${healthLoad.p50Ms} / ${healthLoad.p99Ms} ms`,
        "hello-world": `${refLoad.p50Ms} / ${refLoad.p99Ms} ms`,
        target: "",
      },
    ]),
  );
  return { first, again, helloStart, idleRss, idleRssBoot, idleRssFirstRun, refIdleRss, refIdleRssBoot, size, healthLoad, refLoad };
}

if (import.meta.main) await run();
