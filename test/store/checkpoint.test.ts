/**
 * A serving gateway checkpoints the WAL from a worker thread, not inside
 * commits: SQLite's automatic checkpoint is off, yet the WAL stays bounded
 * under a stream of writes (the writer reuses it once the worker caught up),
 * and everything written is there after a restart.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { DB_FILE_NAME } from "../../src/store/db.ts";
import { CHECKPOINT_INTERVAL_MS } from "../../src/store/checkpoint.ts";

const dataDir = tmpDir();
let g: Running;
afterAll(() => g?.stop());

const walBytes = () => statSync(join(dataDir, DB_FILE_NAME + "-wal")).size;

describe("WAL checkpoints", () => {
  test("off the event loop: no automatic checkpoint, yet the WAL stays bounded; the data survives a restart", async () => {
    g = await startInProcess({}, { dataDir });
    expect(g.gw.db.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 0 });
    let round = 0;
    const write = () => {
      const lines = Array.from({ length: 2000 }, (_, k) => `N${round}W${k}>APRS:!4230.${String(k % 100).padStart(2, "0")}N/07130.00W>round ${round} line ${k} ${"x".repeat(40)}`);
      ingestLines(g.gw, lines, { source: "aprsis" });
      round++;
    };
    write();
    const oneRound = walBytes();
    expect(oneRound).toBeGreaterThan(1_000_000);
    for (let i = 0; i < 6; i++) {
      // Give the worker a checkpoint, then write again: the WAL starts over instead of growing.
      await Bun.sleep(CHECKPOINT_INTERVAL_MS * 2.5);
      write();
    }
    expect(walBytes()).toBeLessThan(oneRound * 2.5);
    await g.stop();
    g = await startInProcess({}, { dataDir });
    expect(g.gw.db.query("SELECT count(*) AS n FROM positions").get()).toEqual({ n: 7 * 2000 });
  }, 60_000);
});
