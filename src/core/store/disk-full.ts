/**
 * A full disk under the data directory. SQLite refuses the write (SQLITE_FULL)
 * and rolls it back; the database stays whole, reads go on from what is
 * committed, and writes work again by themselves once there is space: nothing
 * here has to be reset. This only recognises the error and tells the operator,
 * once a minute at most, what to do.
 */
import type { Logger } from "../../lib/log.ts";

export const DISK_FULL_MESSAGE = "the gateway's disk is full, so nothing was saved; reading works, and writing will again once the operator frees some space";

/** SQLite's "database or disk is full", or a file write that hit ENOSPC/EDQUOT. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === "SQLITE_FULL" || code === "ENOSPC" || code === "EDQUOT";
}

const LOG_EVERY_MS = 60_000;
const lastLogged = new WeakMap<Logger, number>();

/** Logs (at most once a minute per logger) that writes fail for want of space, and what to do. */
export function reportDiskFull(log: Logger, dataDir: string, where: string): void {
  const now = Date.now();
  if (now - (lastLogged.get(log) ?? 0) < LOG_EVERY_MS) return;
  lastLogged.set(log, now);
  log.error(
    "store",
    `the disk holding ${dataDir} is full: writes are refused (HTTP 507) and nothing is lost or damaged. ` +
      `Free space on that disk (old backups in BACKUP_DIR, logs: journalctl --vacuum-size=50M) or move the data directory ` +
      `to a larger disk (docs/operating.md); the gateway writes again by itself once there is room`,
    { where },
  );
}
