/**
 * A transaction of the store takes the write lock when it begins: one that
 * reads and then writes commits even when another connection (the WAL
 * checkpointer, a backup, a CLI command on the same file) wrote or restarted
 * the WAL in between. With SQLite's default (DEFERRED) its write fails at once
 * with SQLITE_BUSY, without waiting, because its snapshot is no longer the latest.
 */
import { describe, expect, test } from "bun:test";
import { Database as BunDatabase } from "bun:sqlite";
import { join } from "node:path";
import { openStore } from "../../src/core/store/db.ts";
import { tmpDir } from "../helpers/tmp.ts";

describe("store transactions", () => {
  test("a transaction that reads, then writes, commits; another connection's write waits its turn", () => {
    const file = join(tmpDir("svc-tx-"), "store.db");
    const db = openStore(file);
    const other = new BunDatabase(file);
    other.run("PRAGMA busy_timeout = 0");
    let otherWrite = "not tried";
    const tx = db.transaction(() => {
      db.query("SELECT count(*) AS n FROM meta").get();
      try {
        other.run("INSERT INTO meta (key, value) VALUES ('other', '1')");
        otherWrite = "written";
      } catch (e) {
        otherWrite = (e as { code?: string }).code ?? String(e);
      }
      db.run("INSERT INTO meta (key, value) VALUES ('ours', '1')");
    });
    tx();
    // the other connection found the write lock taken (it would wait busy_timeout; here 0)
    expect(otherWrite).toBe("SQLITE_BUSY");
    expect(db.query("SELECT value FROM meta WHERE key = 'ours'").get()).toEqual({ value: "1" });
    // and once the transaction is over, it writes
    other.run("INSERT INTO meta (key, value) VALUES ('other', '1')");
    expect(db.query("SELECT count(*) AS n FROM meta WHERE key IN ('ours', 'other')").get()).toEqual({ n: 2 });
    other.close();
    db.close();
  });
});
