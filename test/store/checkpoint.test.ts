/**
 * A serving gateway checkpoints the WAL from a worker thread, not inside
 * commits: SQLite's automatic checkpoint is off, yet the WAL stays bounded
 * under a stream of writes (the writer reuses it once the worker caught up),
 * and everything written is there after a restart.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { captureLog, spawnGateway, startInProcess, type Running } from "../helpers/gateway.ts";
import { fakeTnc, tnc2Frame } from "../helpers/kiss-tnc.ts";
import { waitFor } from "../helpers/wait.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { DB_FILE_NAME } from "../../src/core/store/db.ts";
import { CHECKPOINT_INTERVAL_MS, WAL_CAP_BYTES, WAL_RESTART_BYTES, WORKER_START_BYTES, openShm, walState } from "../../src/core/store/checkpoint.ts";

const dataDir = tmpDir();
let g: Running;
afterAll(() => g?.stop());

const walBytes = () => statSync(join(dataDir, DB_FILE_NAME + "-wal")).size;

describe("WAL checkpoints", () => {
  test("off the event loop once writes come: no automatic checkpoint, yet the WAL stays bounded; the data survives a restart", async () => {
    // a gateway started on its data and left idle: no worker thread, SQLite checkpoints in commits as by default
    g = await startInProcess({}, { dataDir });
    await g.stop();
    g = await startInProcess({}, { dataDir });
    const autocheckpoint = () => (g!.gw.db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
    await Bun.sleep(CHECKPOINT_INTERVAL_MS * 1.5);
    expect(autocheckpoint()).toBe(1000);
    let round = 0;
    const write = () => {
      const lines = Array.from(
        { length: 2000 },
        (_, k) => `N${round}W${k}>APRS:!4230.${String(k % 100).padStart(2, "0")}N/07130.00W>round ${round} line ${k} ${"x".repeat(40)}`,
      );
      ingestLines(g.gw, lines, { source: "aprsis" });
      round++;
    };
    write();
    const oneRound = walBytes();
    expect(oneRound).toBeGreaterThan(WORKER_START_BYTES);
    // the worker takes the checkpoints over from the commits
    await waitFor(() => autocheckpoint() === 0, "the checkpoint worker started");
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

describe("WAL bound under flat-out HTTP writes", () => {
  test("the WAL file stays under 64 MB while 6 writers go flat out, and is emptied once they stop", async () => {
    const secret = "checkpoint-test-secret-0123456789";
    const s = await spawnGateway({ env: { INGEST_SECRET: secret } });
    const wal = join(s.dataDir, DB_FILE_NAME + "-wal");
    let stop = false;
    let acked = 0;
    const writer = async (w: number) => {
      for (let n = 0; !stop; n++) {
        const lines = Array.from(
          { length: 100 },
          (_, k) => `WB${w}N${k % 40}>APRS,TCPIP*:!4903.${String(k % 60).padStart(2, "0")}N/07201.75W-bound ${w} ${n} ${k} ${"w".repeat(60)}`,
        );
        const r = await fetch(s.url + "/ingest", {
          method: "POST",
          headers: { "x-ingest-secret": secret, "content-type": "text/plain" },
          body: lines.join("\n"),
        });
        await r.arrayBuffer();
        if (r.status === 200) acked++;
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map(writer);
    let peakFile = 0;
    let peakHeld = 0;
    const until = Date.now() + 8000;
    // (this process holds no lock on the database, so it may close this descriptor)
    const shm = openShm(join(s.dataDir, DB_FILE_NAME));
    try {
      while (Date.now() < until) {
        await Bun.sleep(10);
        peakFile = Math.max(peakFile, existsSync(wal) ? statSync(wal).size : 0);
        peakHeld = Math.max(peakHeld, walState(shm).bytes);
      }
    } finally {
      stop = true;
      await Promise.all(writers);
      if (shm !== null) closeSync(shm);
    }
    try {
      // The load was enough to need bounding: the WAL went past the point where a RESTART starts.
      expect(acked).toBeGreaterThan(100);
      expect(peakHeld).toBeGreaterThan(WAL_RESTART_BYTES);
      expect(peakFile).toBeLessThan(64 * 1024 * 1024);
      // Idle: emptied within a few seconds.
      const idleBy = Date.now() + 5000;
      while (Date.now() < idleBy && statSync(wal).size > 0) await Bun.sleep(100);
      expect(statSync(wal).size).toBe(0);
    } finally {
      await s.kill();
    }
  }, 60_000);
});

describe("the worker's wait", () => {
  test("a database closed under a gateway before its worker started (as /health's 503 test does): the wait ends quietly", async () => {
    // a first run: the new database leaves more than WORKER_START_BYTES in the WAL, so the worker is due at the next look
    const r = await startInProcess();
    expect(r.gw.db.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 1000 });
    const shm = openShm(join(r.gw.config.dataDir, DB_FILE_NAME));
    expect(walState(shm).bytes).toBeGreaterThan(WORKER_START_BYTES);
    closeSync(shm!);
    r.gw.db.close();
    // an error thrown from the checkpointer's timer fails this test
    await Bun.sleep(CHECKPOINT_INTERVAL_MS * 2.5);
    await r.gw.server?.stop(true);
  });
});

describe("one write gate for every writer", () => {
  test("radio frames heard through a forced RESTART checkpoint wait at the write gate: every frame is stored, and no SQLITE_BUSY", async () => {
    const tnc = fakeTnc();
    const { log, lines: logged } = captureLog("debug");
    const r = await startInProcess({ KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10" }, { log });
    try {
      await tnc.connected();
      // writes start the checkpoint worker (it turns SQLite's own checkpoint off)
      r.gw.db.run("CREATE TABLE fill (b BLOB)");
      r.gw.db.run(`INSERT INTO fill VALUES (zeroblob(${2 * WORKER_START_BYTES}))`);
      const autocheckpoint = () => (r.gw.db.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
      await waitFor(() => autocheckpoint() === 0, "the checkpoint worker started");
      const FRAMES = 1200;
      let sent = 0;
      // frames keep coming, a few at a time, while the WAL is pushed past the cap below
      const sender = (async () => {
        while (sent < FRAMES) {
          for (let k = 0; k < 6 && sent < FRAMES; k++, sent++)
            tnc.hear(tnc2Frame(`F${String(sent).padStart(4, "0")}>APRS,WIDE1-1:!4903.${String(sent % 60).padStart(2, "0")}N/07201.75W-frame ${sent}`));
          await Bun.sleep(2);
        }
      })();
      await waitFor(() => sent > 200, "the first frames");
      // Force a RESTART: one transaction leaves more than WAL_CAP_BYTES in the WAL, so writes are held at once
      // and the worker copies it back, then RESTARTs the WAL with them held.
      r.gw.db.run(`INSERT INTO fill VALUES (zeroblob(${WAL_CAP_BYTES + 4 * 1024 * 1024}))`);
      await sender;
      const stored = () => (r.gw.db.query("SELECT count(*) AS n FROM packets WHERE src LIKE 'F____'").get() as { n: number }).n;
      await waitFor(() => stored() === FRAMES, `all ${FRAMES} frames stored`, { timeoutMs: 20_000 });
      // the RESTART held writes, and radio frames (the only writer here) waited at the gate rather than in SQLite
      const restarts = logged.filter((l) => /a RESTART checkpoint held writes/.test(l));
      expect(restarts.some((l) => !/; 0 waited/.test(l))).toBe(true);
      expect(logged.filter((l) => /SQLITE_BUSY|database is locked/i.test(l))).toEqual([]);
      // a frame heard after it is stored at once again
      tnc.hear(tnc2Frame("F9999>APRS,WIDE1-1:!4903.50N/07201.75W-after"));
      await waitFor(() => stored() === FRAMES + 1, "the frame after");
      console.log(`forced RESTART: ${restarts.map((l) => l.replace(/^.*a RESTART/, "a RESTART")).join("; ")}`);
    } finally {
      await r.stop();
      tnc.stop();
    }
  }, 60_000);
});
