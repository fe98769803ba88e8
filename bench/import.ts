/**
 * Catalog import under load: a verified account imports a 20,000-cache GPX
 * file while a prober asks GET /health back to back; prints the longest
 * /health answer (the largest stall the import caused), the longest gap
 * between timer ticks, and caches imported per second.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { signedInUser } from "../test/helpers/accounts.ts";
import { catalogGpx } from "../test/helpers/catalog.ts";
import { percentile, table } from "./lib/stats.ts";

/** A serving gateway on a temp directory, and a verified account that imports. */
async function importingGateway() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-import-"));
  const gw = createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off" }), log: createLogger("error") });
  const url = await gw.listen();
  return { dir, gw, url, user: signedInUser(gw, "N0IMP", { verified: true }) };
}

export async function run(n = 20_000) {
  // first: the large imports below grow the process's heap, and a small import's garbage then fits in it
  const rise = await residentRise();
  const { dir, gw, url, user } = await importingGateway();
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const [label, file] of [
      // The first import of a process loads the XML parser (once, not sliced): shown on its own.
      ["first import (loads parser), 10 caches", catalogGpx(10, { prefix: "GCW" })],
      ["20k caches, new", catalogGpx(n, { prefix: "GCA" })],
      ["20k caches, same again", catalogGpx(n, { prefix: "GCA" })],
      ["5k caches, 1 KiB descriptions", catalogGpx(n / 4, { prefix: "GCD", pad: 1024 })],
    ] as const) {
      // Warm the routes and the parser.
      await fetch(url + "/health");
      const health: number[] = [];
      const ticks: number[] = [];
      let done = false;
      const prober = (async () => {
        while (!done) {
          const t = performance.now();
          await (await fetch(url + "/health")).arrayBuffer();
          health.push(performance.now() - t);
        }
      })();
      // A gap between timer ticks is the loop being held, or this process not being scheduled (a busy
      // shared machine): the CPU time this process used in the gap tells them apart.
      const cpuTicks: number[] = [];
      let last = performance.now();
      let lastCpu = process.cpuUsage();
      const timer = setInterval(() => {
        const now = performance.now();
        const cpu = process.cpuUsage();
        ticks.push(now - last);
        cpuTicks.push(Math.min(now - last, (cpu.user - lastCpu.user + cpu.system - lastCpu.system) / 1000));
        last = now;
        lastCpu = cpu;
      }, 5);
      const t0 = performance.now();
      const r = await fetch(url + "/api/import/gpx", { method: "POST", body: file, headers: { cookie: user.cookie, "content-type": "application/gpx+xml" } });
      const answer = (await r.json()) as { caches?: number; error?: string };
      const ms = performance.now() - t0;
      done = true;
      clearInterval(timer);
      await prober;
      if (r.status !== 200) throw new Error(`import answered ${r.status}: ${JSON.stringify(answer)}`);
      rows.push({
        import: label,
        MB: (file.length / 1e6).toFixed(1),
        caches: answer.caches ?? 0,
        "total s": (ms / 1000).toFixed(2),
        "caches/s": Math.round((answer.caches ?? 0) / (ms / 1000)),
        "/health probes": health.length,
        "/health p50 ms": percentile(health, 50),
        "/health max ms": Math.round(Math.max(...health)),
        "timer gap max ms": Math.round(Math.max(...ticks) - 5),
        "of it on CPU ms": Math.round(Math.max(...cpuTicks)),
      });
    }
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("\nimport: POST /api/import/gpx while GET /health is probed back to back (target: no stall over 50 ms)");
  console.log(
    `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} on ${cpus().length} cores (a loaded machine adds gaps the import does not cause: see "of it on CPU")\n`,
  );
  console.log(table(rows));
  console.log(rise);
}

/**
 * The resident size a soak-sized import (300 caches, about 90 KiB) adds while it runs: eight
 * imports, each after a full collection, the anonymous resident size read every few milliseconds
 * from /proc by a child process (Linux only).
 */
async function residentRise(imports = 8): Promise<string> {
  if (process.platform !== "linux") return "";
  const { dir, gw, url, user } = await importingGateway();
  const reader = Bun.spawn(["bash", "-c", `while grep '^RssAnon' /proc/${process.pid}/status; do sleep 0.003; done`], { stdout: "pipe" });
  const reads: number[] = [];
  void (async () => {
    for await (const chunk of reader.stdout) for (const m of new TextDecoder().decode(chunk).matchAll(/RssAnon:\s+(\d+)/g)) reads.push(Number(m[1]) / 1024);
  })();
  const highest = () => Math.max(0, ...reads.splice(0));
  const post = (gpx: string) =>
    fetch(url + "/api/import/gpx", { method: "POST", body: gpx, headers: { cookie: user.cookie, "content-type": "application/gpx+xml" } });
  const rises: number[] = [];
  try {
    await (await post(catalogGpx(10, { prefix: "GCW" }))).arrayBuffer(); // loads the parser
    for (let i = 0; i < imports; i++) {
      const gpx = catalogGpx(300, { prefix: `GS${"ABCDEFGHIJ"[i]}` });
      Bun.gc(true);
      await Bun.sleep(1000);
      const before = highest();
      const r = await post(gpx);
      if (r.status !== 200) throw new Error(`import answered ${r.status}: ${await r.text()}`);
      await r.arrayBuffer();
      await Bun.sleep(30);
      rises.push(highest() - before);
    }
  } finally {
    reader.kill();
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const sorted = [...rises].sort((a, b) => a - b);
  return `\nresident size a 300-cache import adds while it runs, in a fresh process (${imports} imports): median ${sorted[sorted.length >> 1]!.toFixed(1)} MB, highest ${sorted[sorted.length - 1]!.toFixed(1)} MB`;
}
