/**
 * One gateway per data directory. The first thing `serve` (and every command
 * that writes) takes is an exclusive lock on svc-gateway.lock, a tiny SQLite
 * file locked the way SQLite locks: fcntl, which the kernel drops when the
 * process ends, however it ends, so a kill -9 or a power cut leaves no stale
 * lock to clean up. The holder's pid goes in svc-gateway.pid beside it, so a
 * refused process can name the one that holds the directory.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type Database } from "./sqlite.ts";

const RUN_LOCK_FILE = "svc-gateway.lock";
const PID_FILE = "svc-gateway.pid";

export interface RunLock {
  release(): void;
}

/** Another process holds the data directory: the message names it. */
export class RunLockHeldError extends Error {
  override name = "RunLockHeldError";
  constructor(
    readonly dataDir: string,
    readonly pid: number | null,
    doing = "serving",
  ) {
    super(`another svc-gateway${pid ? ` (pid ${pid})` : ""} is ${doing} ${dataDir}`);
  }
}

/** Takes the lock; null when another process (or another gateway of this one) holds it. */
export function holdRunLock(dataDir: string): RunLock | null {
  const file = join(dataDir, RUN_LOCK_FILE);
  let db = openDatabase(file, { create: true });
  try {
    lockExclusively(db);
  } catch (e) {
    db.close();
    if (heldElsewhere(e)) return null;
    // Not held but damaged: its write is not synced, and power may fail while it is made. It
    // holds nothing worth keeping, so a new one takes its place. Any other failure (a data
    // directory this user may not write) is the operator's to see as it is.
    if (!damaged(e)) throw e;
    rmSync(file, { force: true });
    rmSync(`${file}-journal`, { force: true });
    db = openDatabase(file, { create: true });
    try {
      lockExclusively(db);
    } catch {
      db.close();
      return null;
    }
  }
  try {
    const pidFile = join(dataDir, PID_FILE);
    writeFileSync(`${pidFile}.tmp`, `${process.pid}\n`, { mode: 0o600 });
    renameSync(`${pidFile}.tmp`, pidFile);
  } catch {
    // the pid only names the holder to a refused process; the lock is what counts
  }
  return { release: () => db.close() };
}

/** Writes this process in as the holder; in EXCLUSIVE locking mode the lock stays until the connection closes. */
function lockExclusively(db: Database): void {
  db.run("PRAGMA busy_timeout = 0");
  db.run("PRAGMA locking_mode = EXCLUSIVE");
  // the holder row only names this process: no fsync for it (six of them were 1-2 ms of each start)
  db.run("PRAGMA synchronous = OFF");
  db.run("BEGIN EXCLUSIVE");
  db.run("CREATE TABLE IF NOT EXISTS holder (pid INTEGER, since INTEGER)");
  db.run("DELETE FROM holder");
  db.query("INSERT INTO holder VALUES (?, ?)").run(process.pid, Date.now());
  db.run("COMMIT");
}

/** Whether SQLite found the file is not a whole database. */
function damaged(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? "";
  return code.startsWith("SQLITE_CORRUPT") || code.startsWith("SQLITE_NOTADB");
}

/** Whether SQLite refused because another connection holds the file. */
function heldElsewhere(e: unknown): boolean {
  const code = (e as { code?: string }).code ?? "";
  return code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED");
}

/** Takes the lock or throws RunLockHeldError naming the process that holds it. */
export function takeRunLock(dataDir: string, doing?: string): RunLock {
  const lock = holdRunLock(dataDir);
  if (!lock) throw new RunLockHeldError(dataDir, lockHolder(dataDir), doing);
  return lock;
}

/** The pid that last took the lock (the holder while it is held). */
function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, PID_FILE), "utf8"), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether a process holds the data directory's run lock now (without taking it). */
export function gatewayRunning(dataDir: string): boolean {
  const file = join(dataDir, RUN_LOCK_FILE);
  if (!existsSync(file)) return false;
  const db = openDatabase(file, { readonly: true });
  try {
    db.run("PRAGMA busy_timeout = 0");
    db.query("SELECT count(*) FROM sqlite_master").get();
    return false;
  } catch (e) {
    if (heldElsewhere(e)) return true;
    throw e;
  } finally {
    db.close();
  }
}
