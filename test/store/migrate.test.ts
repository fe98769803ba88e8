import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/core/store/sqlite.ts";
import { join } from "node:path";
import { migrate, parseMigrations, SchemaError } from "../../src/core/store/migrate.ts";
import { MIGRATIONS, openStore, schemaVersion } from "../../src/core/store/db.ts";
import { runCli } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";

const V1 = `-- migration 1: base\nCREATE TABLE caches (id INTEGER PRIMARY KEY, name TEXT NOT NULL);\n`;
const V2 = V1 + `-- migration 2: difficulty\nALTER TABLE caches ADD COLUMN difficulty_x10 INTEGER NOT NULL DEFAULT 10;\n`;
const V3_BROKEN = V2 + `-- migration 3: broken\nCREATE TABLE ok_so_far (id INTEGER);\nTHIS IS NOT SQL;\n`;

describe("migrations", () => {
  test("schema.sql parses into contiguous numbered migrations and a new database gets all of them", () => {
    expect(MIGRATIONS.length).toBeGreaterThan(0);
    MIGRATIONS.forEach((m, i) => expect(m.version).toBe(i + 1));
    const db = openStore(":memory:");
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    const pragmas = ["foreign_keys", "busy_timeout"].map((p) => Object.values(db.query(`PRAGMA ${p}`).get() as object)[0]);
    expect(pragmas).toEqual([1, 5000]);
  });

  test("WAL journal on a file database", () => {
    const db = openStore(join(tmpDir(), "x.db"));
    expect((db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
  });

  test("an old database upgrades in place and keeps its rows", () => {
    const file = join(tmpDir(), "old.db");
    const old = openDatabase(file);
    migrate(old, parseMigrations(V1), file);
    old.run("INSERT INTO caches (name) VALUES ('Old Mill')");
    old.close();
    const db = openDatabase(file);
    expect(migrate(db, parseMigrations(V2), file)).toEqual([2]);
    expect(db.query("SELECT name, difficulty_x10 FROM caches").all()).toEqual([{ name: "Old Mill", difficulty_x10: 10 }]);
    expect(schemaVersion(db)).toBe(2);
    expect(migrate(db, parseMigrations(V2), file)).toEqual([]);
  });

  test("the real schema upgrades from every earlier version", () => {
    for (let from = 1; from < MIGRATIONS.length; from++) {
      const file = join(tmpDir(), `v${from}.db`);
      openStore(file, { upTo: from }).close();
      const db = openStore(file);
      expect(schemaVersion(db)).toBe(MIGRATIONS.length);
      db.close();
    }
  });

  test("a failing migration leaves the database exactly as it was", () => {
    const file = join(tmpDir(), "f.db");
    const db = openDatabase(file);
    migrate(db, parseMigrations(V2), file);
    db.run("INSERT INTO caches (name) VALUES ('Keep')");
    expect(() => migrate(db, parseMigrations(V3_BROKEN), file)).toThrow();
    expect(schemaVersion(db)).toBe(2);
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'ok_so_far'").get()).toBeNull();
    expect(db.query("SELECT count(*) AS n FROM caches").get()).toEqual({ n: 1 });
  });

  test("a database newer than this code refuses to open, with a clear message", () => {
    const file = join(tmpDir(), "new.db");
    const db = openDatabase(file);
    migrate(db, parseMigrations(V2), file);
    expect(() => migrate(db, parseMigrations(V1), file)).toThrow(SchemaError);
    expect(() => migrate(db, parseMigrations(V1), file)).toThrow(/newer svc-gateway \(schema version 2; this one knows up to 1\)/);
  });

  test("out-of-order migration numbers are a build error", () => {
    expect(() => parseMigrations(`-- migration 2: skipped one\nSELECT 1;`)).toThrow(/out of order/);
  });

  test("the gateway refuses to start on a newer database and exits non-zero", async () => {
    const dir = tmpDir();
    const db = openStore(join(dir, "svc-gateway.db"));
    db.run(`PRAGMA user_version = ${MIGRATIONS.length + 5}`);
    db.close();
    const r = await runCli(["serve", "--data", dir, "--port", "0", "--host", "127.0.0.1"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("was written by a newer svc-gateway");
  });

  test("every foreign-key column leads an index, so deleting the row it points to never scans the table", () => {
    const db = openStore(":memory:");
    const tables = (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>).map(
      (t) => t.name,
    );
    const unindexed: string[] = [];
    let checked = 0;
    for (const table of tables) {
      const leading = new Set<string>();
      for (const ix of db.query("SELECT name FROM pragma_index_list(?)").all(table) as Array<{ name: string }>) {
        const first = db.query("SELECT name FROM pragma_index_info(?) WHERE seqno = 0").get(ix.name) as { name: string } | null;
        if (first) leading.add(first.name);
      }
      // An INTEGER PRIMARY KEY is the rowid: looked up without an index.
      const rowid = (db.query("SELECT name, type, pk FROM pragma_table_info(?)").all(table) as Array<{ name: string; type: string; pk: number }>).filter(
        (c) => c.pk > 0,
      );
      if (rowid.length === 1 && rowid[0]!.type.toUpperCase() === "INTEGER") leading.add(rowid[0]!.name);
      for (const fk of db.query('SELECT "from" AS col, "table" AS parent FROM pragma_foreign_key_list(?) WHERE seq = 0').all(table) as Array<{
        col: string;
        parent: string;
      }>) {
        checked++;
        if (!leading.has(fk.col)) unindexed.push(`${table}.${fk.col} -> ${fk.parent}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(unindexed).toEqual([]);
  });

  test("the statement cache holds the gateway's few hundred SQL strings, not Bun's default 20", () => {
    const db = openStore(":memory:");
    const first = db.query("SELECT count(*) AS n FROM caches");
    // 300 other distinct statements in between (the gateway has about 450 query sites).
    for (let i = 0; i < 300; i++) db.query(`SELECT ${i} AS n`).get();
    expect(db.query("SELECT count(*) AS n FROM caches")).toBe(first);
    // Positive control: a string never seen is compiled anew.
    expect(db.query("SELECT count(*) AS n FROM logs")).not.toBe(first);
    db.close();
  });
});
