/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs
 * inside whichever commit crosses 1,000 WAL pages, and a checkpoint ends in
 * an fsync: on a busy or slow disk (an SD card) that stalls the one thread
 * every request, ingest and live message waits for, for tens to hundreds of
 * milliseconds. A serving gateway turns the automatic checkpoint off and
 * checkpoints from a worker thread with its own connection instead (PASSIVE:
 * it never blocks the writer, and the writer reuses the WAL from its start
 * once a checkpoint has caught up). Should the worker fail, the automatic
 * checkpoint comes back.
 *
 *   const cp = startCheckpointer(db, file, log);   // in listen()
 *   await cp.stop();                               // before db.close()
 */
import type { Database } from "bun:sqlite";
import type { Logger } from "../log.ts";

/** How often the worker checkpoints, ms. */
export const CHECKPOINT_INTERVAL_MS = 1000;
const AUTOCHECKPOINT_PAGES = 1000; // SQLite's default

// The worker's code as a string: a blob worker needs no file of its own inside the compiled executable.
const WORKER = `
import { Database } from "bun:sqlite";
let db = null;
let timer = null;
const tick = () => {
  try {
    const r = db.query("PRAGMA wal_checkpoint(PASSIVE)").get();
    postMessage({ type: "tick", log: r.log, checkpointed: r.checkpointed });
  } catch (e) {
    postMessage({ type: "error", message: String(e && e.message || e) });
  }
};
self.onmessage = (e) => {
  const m = e.data;
  if (m.type === "start") {
    try {
      db = new Database(m.file);
      db.run("PRAGMA busy_timeout = 1000");
      timer = setInterval(tick, m.intervalMs);
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
  /** checkpoints the worker has run, and the last one's WAL frames (for tests and status) */
  stats(): { ticks: number; log: number; checkpointed: number; running: boolean };
  stop(): Promise<void>;
}

export function startCheckpointer(db: Database, file: string, log: Logger, intervalMs = CHECKPOINT_INTERVAL_MS): Checkpointer {
  let ticks = 0;
  let last = { log: 0, checkpointed: 0 };
  let running = false;
  const inactive: Checkpointer = { stats: () => ({ ticks, ...last, running }), stop: async () => {} };
  if (file === ":memory:") return inactive;
  let worker: Worker;
  try {
    worker = new Worker(URL.createObjectURL(new Blob([WORKER], { type: "application/javascript" })));
  } catch (e) {
    log.warn("store", "WAL checkpoints stay in commits: no worker thread", { error: String(e) });
    return inactive;
  }
  const fallBack = (why: string) => {
    if (!running) return;
    running = false;
    log.warn("store", "WAL checkpoint worker failed; SQLite checkpoints in commits again", { error: why });
    try {
      db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    } catch {
      // the database is closing
    }
    worker.terminate();
  };
  let stopped: (() => void) | null = null;
  worker.onmessage = (e: MessageEvent) => {
    const m = e.data as { type: string; log?: number; checkpointed?: number; message?: string };
    if (m.type === "tick") {
      ticks++;
      last = { log: m.log!, checkpointed: m.checkpointed! };
    } else if (m.type === "error") fallBack(m.message ?? "unknown error");
    else if (m.type === "stopped") stopped?.();
  };
  worker.onerror = (e) => fallBack(String((e as ErrorEvent).message ?? e));
  (worker as Worker & { unref(): void }).unref();
  db.run("PRAGMA wal_autocheckpoint = 0");
  running = true;
  worker.postMessage({ type: "start", file, intervalMs });
  return {
    stats: () => ({ ticks, ...last, running }),
    async stop() {
      if (!running) return;
      running = false;
      await Promise.race([new Promise<void>((resolve) => ((stopped = resolve), worker.postMessage({ type: "stop" }))), Bun.sleep(2000)]);
      worker.terminate();
      try {
        db.run(`PRAGMA wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
      } catch {
        // already closed
      }
    },
  };
}
