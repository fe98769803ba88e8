/**
 * Migration 32 rebuilds `logs` to widen its kind CHECK: an upgraded database
 * keeps every log, its ids and AUTOINCREMENT counter (a deleted log's id is
 * part of a published gid and is never reused), the corroborations that
 * reference the logs, and every index.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { openStore, schemaVersion, MIGRATIONS } from "../../src/core/store/db.ts";
import { tmpDir } from "../helpers/tmp.ts";

const indexes = (db: ReturnType<typeof openStore>) =>
  (
    db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'logs' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);

test("upgrading to migration 32 keeps logs, ids, the id counter, corroborations and indexes; the new kinds are accepted", () => {
  const file = join(tmpDir(), "v31.db");
  const old = openStore(file, { upTo: 31 });
  const before = indexes(old);
  const add = old.query(
    "INSERT INTO logs (cache_gid, kind, call, base_call, found_at, created_at, updated_at, via, client_id) VALUES ('gw9:cache:1', ?, 'N0FND', 'N0FND', 1, 1, 1, 'web', ?)",
  );
  for (const [kind, cid] of [
    ["find", "client-0001"],
    ["dnf", null],
    ["note", null],
  ] as const)
    add.run(kind, cid);
  old.run("INSERT INTO corroborations (log_id, state, asked_at) VALUES (1, 'pending', 5)");
  old.run("INSERT INTO peers (id, instance, created_at, updated_at) VALUES (7, 'gw7', 1, 1)");
  old.run("INSERT INTO corroboration_answers (log_id, peer_id, heard, answered_at) VALUES (1, 7, 1, 6)");
  old.run("DELETE FROM logs WHERE id = 3");
  expect(() => add.run("needs-maintenance", null)).toThrow(/CHECK/);
  old.close();

  const db = openStore(file);
  expect(schemaVersion(db)).toBe(MIGRATIONS.length);
  expect(db.query("SELECT id, kind, client_id FROM logs ORDER BY id").all()).toEqual([
    { id: 1, kind: "find", client_id: "client-0001" },
    { id: 2, kind: "dnf", client_id: null },
  ]);
  expect(db.query("SELECT log_id, state FROM corroborations").all()).toEqual([{ log_id: 1, state: "pending" }]);
  expect(db.query("SELECT log_id, peer_id, heard FROM corroboration_answers").all()).toEqual([{ log_id: 1, peer_id: 7, heard: 1 }]);
  expect(indexes(db)).toEqual(before);
  expect(db.query("SELECT count(*) AS n FROM sqlite_master WHERE name LIKE 'm32_%' OR name = 'logs_new'").get()).toEqual({ n: 0 });
  // the foreign key still names logs: deleting a log removes its corroboration
  const fk = db.query("PRAGMA foreign_key_list(corroborations)").all() as Array<{ table: string }>;
  expect(fk.map((f) => f.table)).toContain("logs");
  const next = db
    .query("INSERT INTO logs (cache_gid, kind, found_at, created_at, updated_at, via) VALUES ('gw9:cache:1', 'needs-maintenance', 1, 1, 1, 'web')")
    .run();
  expect(Number(next.lastInsertRowid)).toBe(4);
  expect(() => db.query("INSERT INTO logs (cache_gid, kind, found_at, created_at, updated_at, via) VALUES ('x', 'bogus', 1, 1, 1, 'web')").run()).toThrow(
    /CHECK/,
  );
  db.run("DELETE FROM logs WHERE id = 1");
  expect(db.query("SELECT count(*) AS n FROM corroborations").get()).toEqual({ n: 0 });
  expect(db.query("SELECT count(*) AS n FROM corroboration_answers").get()).toEqual({ n: 0 });
  expect(db.query("PRAGMA foreign_key_check").all()).toEqual([]);
  db.close();
});
