/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs
 * inside whichever commit crosses 1,000 WAL pages, and a checkpoint ends in
 * an fsync: on a busy or slow disk (an SD card) that stalls the one thread
 * every request, ingest and live message waits for, for tens to hundreds of
 * milliseconds. Once writes come (the WAL first holds WORKER_START_BYTES), a
 * serving gateway turns the automatic checkpoint off and checkpoints from a
 * worker thread with its own connection instead: PASSIVE
 * once a second (it never blocks the writer, and the writer reuses the WAL
 * from its start once a checkpoint has caught up); RESTART when writes come
 * so fast that the WAL outgrows WAL_RESTART_BYTES (every write waits for it in
 * the WriteGate, HTTP requests and radio, feeds, jobs, pulls and forwarding
 * alike: the back-pressure that bounds the file); TRUNCATE once
 * writes have stopped. docs/operating.md has the measurements behind this.
 * A checkpoint that fails (a full disk) is tried again; should the worker
 * itself fail, the automatic checkpoint comes back.
 *
 *   const cp = startCheckpointer(db, file, log, gate);   // in listen()
 *   await cp.stop();                                     // before db.close()
 *   cp.closeShm();                                       // after it (see openShm)
 */
import { closeSync, openSync, readSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { Logger } from "../../lib/log.ts";
import { sqliteDriver, type Database } from "./sqlite.ts";
import { WriteGate } from "./write-gate.ts";

export { WriteGate };

/** How often the worker copies the WAL back (PASSIVE), ms. */
export const CHECKPOINT_INTERVAL_MS = 1000;
/** How often the worker looks at the WAL's size, ms. */
const WAL_WATCH_MS = 50;
/**
 * A WAL holding more than this is copied back at once (PASSIVE passes while
 * writes go on), then by a RESTART checkpoint with write requests held, so
 * that the next commit starts the WAL over from the beginning of its file.
 * A PASSIVE checkpoint alone never catches up while writes go on flat out,
 * and the WAL only starts over once one has.
 */
export const WAL_RESTART_BYTES = 32 * 1024 * 1024;
const AUTOCHECKPOINT_PAGES = 1000; // SQLite's default
/** Write requests wait, whatever the worker is doing, while the WAL holds more than this not yet copied back. */
export const WAL_CAP_BYTES = 48 * 1024 * 1024;
/**
 * The worker starts once the WAL first holds this much: a gateway nobody
 * writes to runs no checkpoint thread (it costs about 5 MB resident and 6 ms
 * of start-up), and SQLite checkpoints in commits, as by default, until then.
 */
export const WORKER_START_BYTES = 1024 * 1024;
/**
 * What the WAL holds now and whether part of it is not yet copied back, from
 * the wal-index header in the -shm file (SQLite's "WAL-mode file format":
 * page size at byte 14, mxFrame at 16, nBackfill at 96, native byte order).
 * The -wal file's size is no measure: it keeps its high-water mark. JavaScript
 * in a string, because the worker needs it too; it reads through a descriptor
 * it is given and never closes (see openShm).
 */
const WAL_STATE = `
const walHeader = new Uint8Array(100);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
function walState(fd) {
  try {
    if (fd === null || readSync(fd, walHeader, 0, 100, 0) < 100) return { bytes: 0, pending: false };
  } catch {
    return { bytes: 0, pending: false };
  }
  const v = new DataView(walHeader.buffer);
  const size = v.getUint16(14, littleEndian);
  const frames = v.getUint32(16, littleEndian);
  return { bytes: frames * ((size === 1 ? 65536 : size) + 24), pending: v.getUint32(96, littleEndian) < frames };
}
`;
export const walState = new Function("readSync", `${WAL_STATE}; return walState;`)(readSync) as (fd: number | null) => { bytes: number; pending: boolean };

/**
 * A descriptor of the database's -shm file for walState. Closing any
 * descriptor of a file drops every POSIX lock this process holds on it,
 * SQLite's included: another process opening the database would then take
 * the wal-index for its own and rebuild it under this one's feet (which dies
 * of SIGBUS). So it stays open until every connection of this process to the
 * database is closed, and only then may it be closed.
 */
export function openShm(dbFile: string): number | null {
  try {
    return openSync(dbFile + "-shm", "r");
  } catch {
    return null;
  }
}

// The worker's code as a string: a blob worker needs no file of its own inside the compiled executable.
// The driver's prelude gives it Database.
const WORKER = `
import { readSync } from "node:fs";
let db = null;
let timer = null;
let cfg = null;
let sincePassive = 0;
let lastLog = -1;
let restartAfter = 0;
${WAL_STATE}
const checkpoint = (mode) => {
  const r = db.query("PRAGMA wal_checkpoint(" + mode + ")").get();
  postMessage({ type: "tick", mode, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  return r;
};
const tick = () => {
  try {
    const wal = walState(cfg.shmFd);
    // (once all of it is copied back, the next commit starts the WAL over by itself)
    if (wal.bytes > cfg.restartBytes && wal.pending && Date.now() >= restartAfter) {
      // Copy the bulk back while writes go on (up to four passes, until one takes under 10 ms or the
      // WAL nears the cap); then hold write requests (WriteGate) only for what they added meanwhile.
      // A reader that holds an old snapshot (a backup) makes the RESTART give up: let writers on then.
      for (let pass = 0; pass < 4; pass++) {
        const t0 = Date.now();
        checkpoint("PASSIVE");
        if (Date.now() - t0 < cfg.holdPassMs || walState(cfg.shmFd).bytes > cfg.capBytes - 8 * 1024 * 1024) break;
      }
      postMessage({ type: "hold" });
      let r;
      try {
        // SQLite's busy handler sleeps 1, 2, 5, 10, 15 ms... between tries: far longer than the
        // write in flight takes to finish. Retry every millisecond instead, up to busyMs.
        const giveUp = Date.now() + cfg.busyMs;
        for (;;) {
          r = checkpoint("RESTART");
          if (!r.busy || Date.now() > giveUp) break;
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        }
      } catch (e) {
        restartAfter = Date.now() + cfg.backoffMs;
        throw e;
      } finally {
        postMessage({ type: "release" });
      }
      if (r.busy) restartAfter = Date.now() + cfg.backoffMs;
      sincePassive = 0;
      return;
    }
    sincePassive += cfg.watchMs;
    if (sincePassive < cfg.passiveMs) return;
    sincePassive = 0;
    const r = checkpoint("PASSIVE");
    // Idle: nothing written since the last pass and all of it copied back: give the space back.
    if (r.log > 0 && r.log === lastLog && r.checkpointed === r.log) checkpoint("TRUNCATE");
    lastLog = r.log;
  } catch (e) {
    // e.g. the disk is full: the database file cannot grow. Try again next time.
    postMessage({ type: "failed", message: String(e && e.message || e) });
  }
};
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "start") {
    try {
      cfg = m;
      db = new Database(m.file);
      db.run("PRAGMA busy_timeout = 0");
      timer = setInterval(tick, m.watchMs);
      postMessage({ type: "started" });
    } catch (err) {
      postMessage({ type: "error", message: String(err && err.message || err) });
    }
  } else if (m.type === "stop") {
    if (timer) clearInterval(timer);
    try { db && db.close(); } catch {}
    postMessage({ type: "stopped" });
  }
};
`;

export interface Checkpointer {
  /** checkpoints the worker has run, of each mode, and the last one's WAL frames (for tests and status) */
  stats(): { ticks: number; restarts: number; truncates: number; failures: number; log: number; checkpointed: number; running: boolean };
  stop(): Promise<void>;
  /** Closes the -shm descriptor (openShm): only once the database is closed too. */
  closeShm(): void;
}

export function startCheckpointer(db: Database, file: string, log: Logger, gate = new WriteGate(), intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  const counts = { ticks: 0, restarts: 0, truncates: 0, failures: 0 };
  let last = { log: 0, checkpointed: 0 };
  let running = false;
  let failing = false;
  const stats = () => ({ ...counts, ...last, running });
  const inactive: Checkpointer = { stats, stop: async () => {}, closeShm: () => {} };
  if (file === ":memory:") return inactive;
  const prelude = sqliteDriver().workerPrelude;
  if (prelude === null) {
    log.warn("store", "WAL checkpoints stay in commits: no worker thread", { error: `${sqliteDriver().name} has no checkpoint worker on this host` });
    return inactive;
  }
  const shmFd = openShm(file);
  let shmClosed = false;
  let worker: Worker | null = null;
  let stopped: (() => void) | null = null;
  const fallBack = (why: string) => {
    if (!running) return;
    running = false;
    log.warn("store", "WAL checkpoint worker failed; SQLite checkpoints in commits again", { error: why });
    gate.watch(null);
    gate.release();
    try {
      db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the database is closing
    }
    worker?.terminate();
  };
  const onMessage = (e: MessageEvent) => {
    const m = e.data as { type: string; mode?: string; log?: number; checkpointed?: number; message?: string };
    if (m.type === "tick") {
      counts.ticks++;
      if (m.mode === "RESTART") counts.restarts++;
      if (m.mode === "TRUNCATE") counts.truncates++;
      last = { log: m.log!, checkpointed: m.checkpointed! };
      if (failing) log.info("store", "WAL checkpoints work again");
      failing = false;
    } else if (m.type === "hold") gate.hold();
    else if (m.type === "release") {
      const h = gate.release();
      if (h) log.debug("store", `a RESTART checkpoint held writes for ${h.ms} ms; ${h.waited} waited at the write gate`);
    } else if (m.type === "failed") {
      counts.failures++;
      if (!failing) log.warn("store", "a WAL checkpoint failed; the worker tries again", { error: m.message });
      failing = true;
    } else if (m.type === "error") fallBack(m.message ?? "unknown error");
    else if (m.type === "stopped") stopped?.();
  };
  /** The worker takes the checkpoints over from the commits. */
  const begin = () => {
    try {
      db.run("PRAGMA wal_autocheckpoint = 0");
    } catch {
      return; // the database is closed: its gateway stopped without stopping this
    }
    try {
      worker = new Worker(URL.createObjectURL(new Blob([prelude + WORKER], { type: "application/javascript" })));
    } catch (e) {
      log.warn("store", "WAL checkpoints stay in commits: no worker thread", { error: String(e) });
      db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      return;
    }
    worker.onmessage = onMessage;
    worker.onerror = (e) => fallBack(String((e as ErrorEvent).message ?? e));
    (worker as Worker & { unref(): void }).unref();
    // writes wait, whatever the worker is doing, once the WAL holds more than WAL_CAP_BYTES not yet copied back
    gate.watch(
      shmFd === null
        ? null
        : () => {
            const wal = walState(shmFd);
            return wal.pending && wal.bytes > WAL_CAP_BYTES;
          },
    );
    running = true;
    worker.postMessage({
      type: "start",
      file,
      shmFd,
      passiveMs: intervalMs,
      watchMs: WAL_WATCH_MS,
      restartBytes: WAL_RESTART_BYTES,
      busyMs: 1000,
      backoffMs: 5000,
      holdPassMs: 10,
      capBytes: WAL_CAP_BYTES,
    });
  };
  // the worker starts once writes come (WORKER_START_BYTES); until then SQLite checkpoints in commits, as by default
  const waiting = setInterval(() => {
    if (shmClosed || walState(shmFd).bytes < WORKER_START_BYTES) return;
    clearInterval(waiting);
    begin();
  }, intervalMs);
  (waiting as { unref?: () => void }).unref?.();
  return {
    stats,
    closeShm() {
      clearInterval(waiting);
      if (shmFd !== null && !shmClosed) closeSync(shmFd);
      shmClosed = true;
    },
    async stop() {
      clearInterval(waiting);
      if (!running || !worker) return;
      running = false;
      const w = worker;
      await Promise.race([new Promise<void>((resolve) => ((stopped = resolve), w.postMessage({ type: "stop" }))), sleep(2000)]);
      w.terminate();
      gate.watch(null);
      gate.release();
      try {
        db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      } catch {
        // already closed
      }
    },
  };
}
