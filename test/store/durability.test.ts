/**
 * Killing the process with SIGKILL in the middle of writes loses no committed
 * transaction and leaves a database that passes integrity_check.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../src/store/db.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

const WRITER = `
import { openStore } from ${JSON.stringify(join(ROOT, "src/store/db.ts"))};
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
    const { maxTs, full } = db
      .query("SELECT max(ts) AS maxTs, count(*) FILTER (WHERE ts <= ?) AS full FROM packets")
      .get(acked) as { maxTs: number; full: number };
    // Every acknowledged batch is there, whole; and nothing half-written of a later one.
    expect(maxTs).toBeGreaterThanOrEqual(acked);
    const partial = db.query("SELECT ts, count(*) AS n FROM packets GROUP BY ts HAVING n != 50").all();
    expect(partial).toEqual([]);
    db.run("DELETE FROM packets");
    db.close();
    expect(full).toBeGreaterThanOrEqual(acked * 50);
  }
});
