/**
 * Online backups and restore. A backup is `VACUUM INTO` from its own
 * connection on a worker thread: one read transaction, so the copy is the
 * database as of one moment (every write committed before it started is in
 * it), compacted, while the gateway goes on serving and writing. The copy is
 * written beside its final name, checked, synced and then renamed, so a
 * backup file is never half-written.
 *
 * Restore swaps a copy in for the database of a gateway that is not running
 * (run-lock.ts); the database it replaces is kept beside it.
 */
import { closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { DB_FILE_NAME, MIGRATIONS } from "./db.ts";
import { takeRunLock } from "./run-lock.ts";
import { openDatabase, sqliteDriver, type Database } from "./sqlite.ts";

/** The copy itself, from its own connection (in the worker, the same lines with the driver's `Database`). */
function vacuumInto(file: string, out: string): void {
  const db = openDatabase(file);
  try {
    db.run("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(out);
  } finally {
    db.close();
  }
}

// After the driver's prelude, which gives it Database.
const WORKER = `
self.onmessage = (e) => {
  const { file, out } = e.data;
  try {
    const db = new Database(file);
    try {
      db.run("PRAGMA busy_timeout = 5000");
      db.query("VACUUM INTO ?").run(out);
    } finally {
      db.close();
    }
    postMessage({ ok: true });
  } catch (err) {
    postMessage({ ok: false, message: String(err && err.message || err) });
  }
};
`;

function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function inline(file: string, out: string): { ok: boolean; message?: string } {
  try {
    vacuumInto(file, out);
    return { ok: true };
  } catch (e) {
    return { ok: false, message: (e as Error).message };
  }
}

/** Why `file` cannot be restored, or null: a whole SQLite database of a schema this version knows. */
function checkCopy(file: string): { problem: string } | { version: number } {
  let db: Database;
  try {
    db = openDatabase(file, { readonly: true });
  } catch (e) {
    return { problem: `${file} cannot be opened: ${(e as Error).message}` };
  }
  try {
    const check = db.query("PRAGMA integrity_check").all() as Array<{ integrity_check: string }>;
    if (check[0]?.integrity_check !== "ok")
      return {
        problem: `${file} is damaged: ${check
          .map((r) => r.integrity_check)
          .slice(0, 3)
          .join("; ")}`,
      };
    const version = (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
    const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
    if (version < 1 || !hasMeta) return { problem: `${file} is not an svc-gateway database` };
    if (version > MIGRATIONS.length)
      return { problem: `${file} was written by a newer svc-gateway (schema ${version}; this one knows up to ${MIGRATIONS.length})` };
    return { version };
  } catch (e) {
    return { problem: `${file} is not a database: ${(e as Error).message}` };
  } finally {
    db.close();
  }
}

/** Copies the database at `dbFile` to `dest` (which must not exist) without stopping its writers. */
export async function backupDatabase(dbFile: string, dest: string): Promise<{ bytes: number; ms: number }> {
  if (existsSync(dest)) throw new Error(`${dest} already exists; choose another name or remove it first`);
  if (!existsSync(dbFile)) throw new Error(`there is no database at ${dbFile}`);
  const partial = join(dirname(dest), `.${basename(dest)}.partial`);
  rmSync(partial, { force: true });
  const t0 = performance.now();
  // Without a worker thread for SQLite on this host (Node), the copy runs here and holds the event loop while it lasts.
  const prelude = sqliteDriver().workerPrelude;
  const worker = prelude === null ? null : new Worker(URL.createObjectURL(new Blob([prelude + WORKER], { type: "application/javascript" })));
  try {
    const r = worker
      ? await new Promise<{ ok: boolean; message?: string }>((resolve) => {
          worker.onmessage = (e: MessageEvent) => resolve(e.data);
          worker.onerror = (e) => resolve({ ok: false, message: String((e as ErrorEvent).message ?? e) });
          worker.postMessage({ file: dbFile, out: partial });
        })
      : inline(dbFile, partial);
    if (!r.ok) throw new Error(`the backup failed: ${r.message}`);
    const checked = checkCopy(partial);
    if ("problem" in checked) throw new Error(`the backup failed its check: ${checked.problem}`);
    fsyncPath(partial);
    renameSync(partial, dest);
    fsyncPath(dirname(dest));
  } catch (e) {
    rmSync(partial, { force: true });
    throw e;
  } finally {
    worker?.terminate();
  }
  return { bytes: statSync(dest).size, ms: performance.now() - t0 };
}

export interface Restored {
  version: number;
  bytes: number;
  /** where the database it replaced went, if there was one */
  previous: string | null;
}

/**
 * Puts the copy `src` in place as the data directory's database, holding the
 * run lock throughout: it refuses while a gateway serves the directory, and no
 * gateway starts on it halfway. The database it replaces is kept beside it as
 * svc-gateway.db.before-restore-<time>, one per restore.
 */
export function restoreDatabase(src: string, dataDir: string): Restored {
  const lock = takeRunLock(dataDir);
  try {
    return restoreLocked(src, dataDir);
  } finally {
    lock.release();
  }
}

function restoreLocked(src: string, dataDir: string): Restored {
  const checked = checkCopy(src);
  if ("problem" in checked) throw new Error(`not restoring: ${checked.problem}`);
  const target = join(dataDir, DB_FILE_NAME);
  const incoming = `${target}.restoring`;
  copyFileSync(src, incoming);
  fsyncPath(incoming);
  let previous: string | null = null;
  if (existsSync(target)) {
    // The old database goes aside with its WAL (a kill -9 may have left writes only there).
    previous = `${target}.before-restore-${backupFileName(new Date()).slice("svc-gateway-".length, -".db".length)}`;
    while (existsSync(previous)) previous += "-1"; // one copy per restore, never over an earlier one
    for (const suffix of ["", "-wal", "-shm"]) {
      rmSync(previous + suffix, { force: true });
      if (existsSync(target + suffix)) renameSync(target + suffix, previous + suffix);
    }
  }
  renameSync(incoming, target);
  fsyncPath(dataDir);
  return { version: checked.version, bytes: statSync(target).size, previous };
}

/** svc-gateway-YYYYMMDD-HHMMSS-mmm.db: sorts by time. */
export function backupFileName(at: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return `svc-gateway-${at.getUTCFullYear()}${p(at.getUTCMonth() + 1)}${p(at.getUTCDate())}-${p(at.getUTCHours())}${p(at.getUTCMinutes())}${p(at.getUTCSeconds())}-${p(at.getUTCMilliseconds(), 3)}.db`;
}
export const BACKUP_NAME = /^svc-gateway-\d{8}-\d{6}-\d{3}\.db$/;
