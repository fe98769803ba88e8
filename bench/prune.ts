/**
 * Pruning a big table while the gateway serves: how long one batch holds the
 * database, what a /health request waits meanwhile, and how large the WAL
 * file grows.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { pruneAll } from "../src/jobs/prune.ts";
import { loadInChild } from "./lib/load.ts";
import { percentile, table } from "./lib/stats.ts";

export async function run(rows = 1_000_000) {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-prune-"));
  const gw = createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error" }), log: createLogger("error") });
  const url = await gw.listen();
  const now = Date.now();
  // 20,000 senders, as a feed has: deleting by time then scatters over the index on the sender
  const ins = gw.db.query("INSERT INTO packets (ts, src, raw, source) VALUES (?, ?, ?, 'aprsis')");
  const raw = new TextEncoder().encode("N0CALL-9>APRS,TCPIP*,qAC,T2TEST:!4903.50N/07201.75W-Test packet with a typical comment");
  const t0 = performance.now();
  gw.db.transaction(() => {
    for (let i = 0; i < rows; i++) ins.run(now - 3 * 24 * 3_600_000 - i, `N${(i * 7919) % 20_000}ABC`, raw);
  })();
  const fill = performance.now() - t0;

  // Idle reference: /health latency with nothing else going on.
  const idle = await loadInChild(url + "/health", 4, 3);

  // Measure each batch: wrap the statement loop by timing between yields.
  const batchTimes: number[] = [];
  let last = performance.now();
  const tick = () => {
    const t = performance.now();
    batchTimes.push(t - last);
    last = t;
    if (running) setImmediate(tick);
  };
  let running = true;
  setImmediate(tick);
  const loadP = loadInChild(url + "/health", 4, 6);
  await Bun.sleep(500);
  // the WAL file's size while pruning: each batch passes the write gate, which the checkpointer holds
  // while the WAL is over its cap
  let walMax = 0;
  const wal = setInterval(() => {
    try {
      walMax = Math.max(walMax, statSync(join(dir, "svc-gateway.db-wal")).size);
    } catch {}
  }, 20);
  const p0 = performance.now();
  const report = await pruneAll(gw.db, gw.config, now, { gate: gw.writeGate });
  const pruneMs = performance.now() - p0;
  clearInterval(wal);
  running = false;
  const during = await loadP;
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });

  console.log(`\n## prune (${rows.toLocaleString()} expired packets, batches of 500)\n`);
  console.log(
    table([
      { figure: "rows deleted", value: String(report.packets!.deleted) },
      { figure: "batches", value: String(report.packets!.batches) },
      {
        figure: "prune wall time",
        value: `${(pruneMs / 1000).toFixed(2)} s (${Math.round(report.packets!.deleted / (pruneMs / 1000)).toLocaleString()} rows/s)`,
      },
      {
        figure: "event-loop turn while pruning: p50 / p99 / max",
        value: `${percentile(batchTimes, 50)} / ${percentile(batchTimes, 99)} / ${batchTimes.reduce((m, t) => Math.max(m, t), 0).toFixed(2)} ms`,
      },
      { figure: "largest WAL file while pruning", value: `${(walMax / 1048576).toFixed(0)} MB` },
      { figure: "/health p50 / p99 idle (reference)", value: `${idle.p50Ms} / ${idle.p99Ms} ms` },
      { figure: "/health p50 / p99 while pruning", value: `${during.p50Ms} / ${during.p99Ms} ms` },
      { figure: "(fill time)", value: `${(fill / 1000).toFixed(1)} s` },
    ]),
  );
}

if (import.meta.main) await run(Number(process.argv[2] ?? 1_000_000));
