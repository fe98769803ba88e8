/**
 * The scheduled backup: when BACKUP_DIR is set, an online copy of the
 * database (store/backup.ts) goes there every BACKUP_INTERVAL_HOURS, and only
 * the newest BACKUP_KEEP copies stay. The job looks every hour and goes by
 * the newest copy in the directory, so a restart neither skips nor repeats one.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Core } from "../core/core.ts";
import { BACKUP_NAME, backupDatabase, backupFileName } from "../core/store/backup.ts";
import { DB_FILE_NAME } from "../core/store/db.ts";

/** A copy this much younger than the interval still counts (the hourly job does not drift by an hour). */
const SLACK_MS = 30 * 60_000;

export interface BackupReport {
  skipped?: string;
  file?: string;
  bytes?: number;
  removed?: string[];
}

export function backupDir(gw: Core): string | null {
  return gw.config.backupDir ? resolve(gw.config.dataDir, gw.config.backupDir) : null;
}

/** Our copies in `dir`, newest first. */
function copiesIn(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => BACKUP_NAME.test(f))
    .sort()
    .reverse();
}

export async function scheduledBackup(gw: Core, opts: { force?: boolean } = {}): Promise<BackupReport> {
  const dir = backupDir(gw);
  if (!dir) return { skipped: "BACKUP_DIR is not set" };
  mkdirSync(dir, { recursive: true });
  const now = gw.clock.now();
  const newest = copiesIn(dir)[0];
  if (!opts.force && newest && now - statSync(join(dir, newest)).mtimeMs < gw.config.backupIntervalHours * 3_600_000 - SLACK_MS) {
    return { skipped: `the newest copy, ${newest}, is recent` };
  }
  const file = join(dir, backupFileName(new Date(now)));
  const r = await backupDatabase(join(gw.config.dataDir, DB_FILE_NAME), file);
  const removed = copiesIn(dir).slice(gw.config.backupKeep);
  for (const f of removed) rmSync(join(dir, f), { force: true });
  gw.log.info("backup", `copied the database to ${file}`, { bytes: r.bytes, ms: Math.round(r.ms), removed });
  return { file, bytes: r.bytes, removed };
}
