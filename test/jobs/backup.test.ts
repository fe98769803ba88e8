/**
 * The scheduled backup: with BACKUP_DIR set, the job writes a whole copy of
 * the database there and keeps only the newest BACKUP_KEEP; a copy younger
 * than BACKUP_INTERVAL_HOURS means no new one; without BACKUP_DIR nothing is written.
 */
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { scheduledBackup } from "../../src/jobs/backup.ts";

let g: Running | null = null;
afterEach(async () => {
  await g?.stop();
  g = null;
});

test("copies to BACKUP_DIR on schedule and keeps the newest BACKUP_KEEP", async () => {
  const dataDir = tmpDir();
  g = await startInProcess({ BACKUP_DIR: "backups", BACKUP_KEEP: "2", BACKUP_INTERVAL_HOURS: "6" }, { dataDir });
  const dir = join(dataDir, "backups");
  const files: string[] = [];
  for (let i = 0; i < 3; i++) {
    g.gw.db.query("INSERT INTO meta (key, value) VALUES (?, 'x')").run(`backup-test-${i}`);
    const r = (await g.gw.scheduler.runNow("backup")) as { file?: string; skipped?: string };
    if (i === 0) expect(r.file).toBeDefined();
    else expect(r.skipped).toContain("recent"); // within BACKUP_INTERVAL_HOURS of the last one
    const forced = i === 0 ? r : await scheduledBackup(g.gw, { force: true });
    files.push(forced.file!);
    await Bun.sleep(5);
  }
  expect(readdirSync(dir).sort()).toEqual(
    files
      .slice(1)
      .map((f) => f.split("/").at(-1)!)
      .sort(),
  );
  expect(existsSync(files[0]!)).toBe(false);
  // The newest copy is a whole database with the write made just before it.
  const copy = new Database(files[2]!, { readonly: true });
  expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  expect(copy.query("SELECT count(*) AS n FROM meta WHERE key LIKE 'backup-test-%'").get()).toEqual({ n: 3 });
  copy.close();
});

test("without BACKUP_DIR the job writes nothing", async () => {
  const dataDir = tmpDir();
  g = await startInProcess({}, { dataDir });
  const before = readdirSync(dataDir).sort();
  expect(await g.gw.scheduler.runNow("backup")).toEqual({ skipped: "BACKUP_DIR is not set" });
  expect(readdirSync(dataDir).sort()).toEqual(before);
  // Positive control: the same data directory, with BACKUP_DIR set, gets a copy from the same job.
  await g.stop();
  g = await startInProcess({ BACKUP_DIR: "backups" }, { dataDir });
  const r = (await g.gw.scheduler.runNow("backup")) as { file: string };
  expect(readdirSync(join(dataDir, "backups"))).toEqual([r.file.split("/").at(-1)!]);
});
