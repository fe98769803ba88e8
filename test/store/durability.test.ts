/**
 * Killing the process with SIGKILL in the middle of writes loses no committed
 * transaction and leaves a database that passes integrity_check: a bare
 * writer, and a serving gateway whose WAL is being checkpointed and started over.
 */
import { expect, test } from "bun:test";
import { closeSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/core/store/db.ts";
import { WAL_RESTART_BYTES, openShm, walState } from "../../src/core/store/checkpoint.ts";
import { spawnGateway } from "../helpers/gateway.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

const WRITER = `
import { openStore } from ${JSON.stringify(join(ROOT, "src/core/store/db.ts"))};
const db = openStore(process.argv[2]);
const ins = db.query("INSERT INTO packets (ts, src, raw, source) VALUES (?, ?, ?, 'ingest')");
const batch = db.transaction((n) => { for (let i = 0; i < 50; i++) ins.run(n, "N0CALL-" + (i % 16), new Uint8Array(200).fill(65)); });
for (let n = 1; ; n++) {
  batch(n);
  process.stdout.write(n + "\\n");  // printed only after the commit returned
}
`;

test("SIGKILL during writes loses no committed transaction", async () => {
  const dir = tmpDir();
  const file = join(dir, "svc-gateway.db");
  openStore(file).close();
  const script = join(dir, "writer.ts");
  await Bun.write(script, WRITER);
  for (let round = 0; round < 3; round++) {
    const proc = Bun.spawn([BUN, script, file], { stdout: "pipe", stderr: "inherit" });
    let text = "";
    const reader = proc.stdout.getReader();
    const dec = new TextDecoder();
    while ((text.match(/\n/g)?.length ?? 0) < 200 + round * 50) {
      const { value, done } = await reader.read();
      if (done) break;
      text += dec.decode(value);
    }
    proc.kill("SIGKILL");
    await proc.exited;
    const acked = Math.max(...text.trim().split("\n").map(Number));
    const db = openStore(file);
    expect((db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    const { maxTs, full } = db.query("SELECT max(ts) AS maxTs, count(*) FILTER (WHERE ts <= ?) AS full FROM packets").get(acked) as {
      maxTs: number;
      full: number;
    };
    // Every acknowledged batch is there, whole; and nothing half-written of a later one.
    expect(maxTs).toBeGreaterThanOrEqual(acked);
    const partial = db.query("SELECT ts, count(*) AS n FROM packets GROUP BY ts HAVING n != 50").all();
    expect(partial).toEqual([]);
    db.run("DELETE FROM packets");
    db.close();
    expect(full).toBeGreaterThanOrEqual(acked * 50);
  }
});

test("SIGKILL of a serving gateway while the WAL is checkpointed and started over under flat-out writes loses no acknowledged write", async () => {
  const secret = "durability-test-secret-0123456789";
  const g = await spawnGateway({ env: { INGEST_SECRET: secret } });
  const acked: string[] = [];
  let stop = false;
  const writer = async (w: number) => {
    for (let n = 0; !stop; n++) {
      const lines = Array.from(
        { length: 100 },
        (_, k) => `KL${w}N${k % 40}>APRS,TCPIP*:!4903.${String(k % 60).padStart(2, "0")}N/07201.75W-kill ${w} ${n} ${k} ${"z".repeat(60)}`,
      );
      try {
        const r = await fetch(g.url + "/ingest", {
          method: "POST",
          headers: { "x-ingest-secret": secret, "content-type": "text/plain" },
          body: lines.join("\n"),
        });
        await r.arrayBuffer();
        if (r.status === 200) acked.push(...lines);
      } catch {
        return; // the process is gone
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  // Until the WAL has started over at least once (its frame count went down) with writes going on.
  // (this process holds no lock on the database until it opens it below, so it may close this descriptor)
  const shm = openShm(join(g.dataDir, "svc-gateway.db"));
  const until = Date.now() + 30_000;
  let restarted = false;
  let last = 0;
  while (Date.now() < until && !restarted) {
    await Bun.sleep(10);
    const now = walState(shm).bytes;
    restarted = now < last && last > WAL_RESTART_BYTES;
    last = now;
  }
  if (shm !== null) closeSync(shm);
  expect(restarted).toBe(true);
  await Bun.sleep(300);
  g.proc.kill("SIGKILL");
  await g.proc.exited;
  stop = true;
  await Promise.all(writers);
  const db = openStore(join(g.dataDir, "svc-gateway.db"));
  try {
    expect((db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
    const stored = new Set((db.query("SELECT CAST(raw AS TEXT) AS raw FROM packets").all() as Array<{ raw: string }>).map((r) => r.raw));
    expect(acked.length).toBeGreaterThan(1000);
    expect(acked.filter((l) => !stored.has(l))).toEqual([]);
  } finally {
    db.close();
  }
}, 60_000);
