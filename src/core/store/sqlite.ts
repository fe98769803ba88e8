/**
 * The SQLite driver interface: the part of a synchronous SQLite API the
 * gateway uses, so the same store code runs on Bun (bun:sqlite,
 * sqlite-bun.ts), on Node (node:sqlite, sqlite-node.ts) and in a Durable
 * Object on a Workers runtime (its SQL storage, sqlite-do.ts). Every module
 * names these types; only a driver names its runtime's module.
 *
 * The entry point of a host picks the driver (`useSqliteDriver`); on Bun,
 * without one picked (tests, benches, scripts), it is bun:sqlite.
 *
 * Semantics every driver keeps (they are bun:sqlite's, with `strict: true`):
 * - `get()` answers `null` when there is no row; rows are plain objects.
 * - named parameters bind without their prefix (`{ call }` for `$call`), and
 *   a missing one is an error; booleans bind as 1/0, `undefined` as NULL.
 * - `query(sql)` caches the compiled statement (least recently used out);
 *   `prepare(sql)` compiles a new one.
 * - `run(sql)` / `exec(sql)` run every statement of a multi-statement string.
 * - `transaction(fn)` returns a function that runs fn in BEGIN IMMEDIATE...
 *   COMMIT (ROLLBACK when it throws), in a SAVEPOINT when already inside
 *   one: the write lock is taken first, so a transaction that reads and then
 *   writes never fails with SQLITE_BUSY for a snapshot a checkpoint moved.
 * - an error of SQLite has `code` "SQLITE_BUSY", "SQLITE_FULL",
 *   "SQLITE_CONSTRAINT_UNIQUE"...
 *
 * What a driver's SQLite does not allow, the store asks the driver about
 * (`files`, `rtree`, `schemaVersion`) rather than testing the runtime.
 */
import { bunSqlite } from "./sqlite-bun.ts";

export type {
  Binding,
  Changes,
  Database,
  OpenDatabaseOptions,
  SqliteDriver,
  SqlValue,
  Statement,
  Transaction,
} from "./sqlite-types.ts";
import type { OpenDatabaseOptions, SqliteDriver, Database } from "./sqlite-types.ts";

/**
 * The parameters of a statement as SQLite numbers them: ?NNN is NNN, ? and
 * each new :name/@name/$name the highest so far plus one. `count` is the
 * highest; `names` maps each name (without its prefix) to its number.
 * Quotes and comments are skipped.
 */
export function sqlParameters(sql: string): { count: number; names: Map<string, number> } {
  const names = new Map<string, number>();
  let highest = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === "`") {
      const end = sql.indexOf(c, i + 1);
      i = end < 0 ? sql.length : end;
    } else if (c === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
    } else if (c === "?") {
      const m = /^\?(\d*)/.exec(sql.slice(i))!;
      highest = m[1] ? Math.max(highest, Number(m[1])) : highest + 1;
      i += m[0].length - 1;
    } else if ((c === ":" || c === "@" || c === "$") && /[A-Za-z_]/.test(sql[i + 1] ?? "")) {
      const m = /^[:@$][A-Za-z_0-9]+/.exec(sql.slice(i))!;
      const name = m[0].slice(1);
      if (!names.has(name)) names.set(name, ++highest);
      i += m[0].length - 1;
    }
  }
  return { count: highest, names };
}

let chosen: SqliteDriver | null = null;

/** The entry point of a host picks its driver once, before the store opens. */
export function useSqliteDriver(driver: SqliteDriver): void {
  chosen = driver;
}

export function sqliteDriver(): SqliteDriver {
  if (chosen) return chosen;
  if (process.versions.bun) return (chosen = bunSqlite);
  throw new Error("no SQLite driver: start the gateway through its entry point (src/main.ts on Bun, src/hosts/node-main.ts on Node)");
}

/** Opens a database with the host's driver. */
export function openDatabase(file: string, opts?: OpenDatabaseOptions): Database {
  return sqliteDriver().open(file, opts);
}
