/**
 * One sequence of calls through the SQLite driver interface, answered as
 * JSON: test/store/sqlite-drivers.test.ts runs it with bun:sqlite in Bun,
 * with node:sqlite in a real Node (sqlite-probe-node.ts) and with a Durable
 * Object's SQL storage in workerd (sqlite-probe-do.ts), and the answers must
 * be the same.
 */
import { join } from "node:path";
import type { SqliteDriver } from "../../src/core/store/sqlite.ts";

const plain = (v: unknown): unknown =>
  v instanceof Uint8Array
    ? { bytes: [...v] }
    : typeof v === "bigint"
      ? { bigint: String(v) }
      : Array.isArray(v)
        ? v.map(plain)
        : v && typeof v === "object"
          ? {
              proto: Object.getPrototypeOf(v) === Object.prototype ? "Object" : String(Object.getPrototypeOf(v)),
              ...Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])),
            }
          : v;

function attempt(f: () => unknown): unknown {
  try {
    return { ok: plain(f()) };
  } catch (e) {
    return { error: (e as { code?: string }).code ?? "no code" };
  }
}

export function probe(driver: SqliteDriver, dir: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const file = join(dir, "probe.db");
  const db = driver.open(file, { create: true, statementCache: 4 });
  // several statements in one string, as migrations run them
  db.run("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, n INTEGER, flag INTEGER, data BLOB); CREATE INDEX t_n ON t (n);");
  const ins = db.query("INSERT INTO t (name, n, flag, data) VALUES (?, ?, ?, ?)");
  out.insert = plain(ins.run("a", 1, true, new Uint8Array([1, 2, 3])));
  out.insert2 = plain(ins.run("b", 2, false, null));
  out.insertUndefined = attempt(() => db.query("INSERT INTO t (name, n) VALUES (?, ?)").run("c", undefined as unknown as null));
  out.named = plain(db.query("SELECT name, n FROM t WHERE name = $name AND n = :n").get({ name: "a", n: 1 }));
  out.all = plain(db.query("SELECT id, name, n, flag, data FROM t ORDER BY id").all());
  out.getNone = plain(db.query("SELECT * FROM t WHERE name = ?").get("nobody"));
  out.allNone = plain(db.query("SELECT * FROM t WHERE name = ?").all("nobody"));
  out.values = plain(db.query("SELECT name, n FROM t ORDER BY id").values());
  out.iterate = plain([...db.query("SELECT name FROM t ORDER BY id").iterate()]);
  out.paramsCount = [
    db.query("SELECT ?, ?").paramsCount,
    db.query("SELECT ?3").paramsCount,
    db.query("SELECT :a, :b, :a").paramsCount,
    db.query("SELECT '?', ? -- ?\n").paramsCount,
  ];
  out.unique = attempt(() => ins.run("a", 9, 0, null));
  out.syntax = attempt(() => db.query("SELEKT 1").all());
  out.update = plain(db.query("UPDATE t SET n = n + 10 WHERE n < ?").run(100));
  // a bigint binds as its integer (a Durable Object's storage refuses BigInt: its driver converts an exact one)
  out.bigint = plain(db.query("SELECT ? + 1 AS x").get(41n));
  // a transaction commits; one that throws rolls back; a nested one that throws rolls back only itself
  const txn = db.transaction((name: string) => {
    ins.run(name, 5, 0, null);
    return name.length;
  });
  out.txn = txn("d");
  out.rollback = attempt(() =>
    db.transaction(() => {
      ins.run("e", 6, 0, null);
      throw Object.assign(new Error("no"), { code: "OURS" });
    })(),
  );
  db.transaction(() => {
    ins.run("f", 7, 0, null);
    out.nested = attempt(() =>
      db.transaction(() => {
        ins.run("g", 8, 0, null);
        ins.run("a", 0, 0, null); // unique: throws
      })(),
    );
  }).immediate();
  out.names = plain(db.query("SELECT name FROM t ORDER BY id").values());
  // more distinct SQL strings than the cache holds, then the first one again
  for (let i = 0; i < 10; i++) db.query(`SELECT ${i} AS i`).get();
  out.afterEviction = plain(db.query("SELECT count(*) AS c FROM t").get());
  // the schema version migrations keep, wherever the driver keeps it
  out.version = [driver.schemaVersion(db), (driver.setSchemaVersion(db, 7), driver.schemaVersion(db))];
  db.close();
  const ro = driver.open(file, { readonly: true });
  out.readonlyRead = plain(ro.query("SELECT count(*) AS c FROM t").get());
  out.readonlyWrite = attempt(() => ro.run("DELETE FROM t"));
  ro.close();
  return out;
}
