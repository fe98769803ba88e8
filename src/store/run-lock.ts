/**
 * "Is a gateway serving this data directory?" A serving gateway holds an
 * exclusive lock on svc-gateway.lock (a tiny SQLite file, locked the way
 * SQLite locks: fcntl, which the kernel drops when the process ends, however
 * it ends, so a kill -9 or a power cut leaves no stale lock to clean up).
 * `svc-gateway restore` refuses while the lock is held.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "./sqlite.ts";

export const RUN_LOCK_FILE = "svc-gateway.lock";

export interface RunLock {
  release(): void;
}

/** Takes the lock; null when another process (or gateway) holds it. */
export function holdRunLock(dataDir: string): RunLock | null {
  const db = openDatabase(join(dataDir, RUN_LOCK_FILE), { create: true });
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.run("PRAGMA locking_mode = EXCLUSIVE");
    db.run("BEGIN EXCLUSIVE");
    db.run("CREATE TABLE IF NOT EXISTS holder (pid INTEGER, since INTEGER)");
    db.run("DELETE FROM holder");
    db.query("INSERT INTO holder VALUES (?, ?)").run(process.pid, Date.now());
    db.run("COMMIT"); // in EXCLUSIVE locking mode the lock stays until the connection closes
  } catch {
    db.close();
    return null;
  }
  return { release: () => db.close() };
}

/** Whether a process holds the data directory's run lock now. */
export function gatewayRunning(dataDir: string): boolean {
  const file = join(dataDir, RUN_LOCK_FILE);
  if (!existsSync(file)) return false;
  const db = openDatabase(file, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.query("SELECT count(*) FROM sqlite_master").get();
    return false;
  } catch (e) {
    if ((e as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw e;
  } finally {
    db.close();
  }
}
