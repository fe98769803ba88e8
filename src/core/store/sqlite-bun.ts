/**
 * The SQLite driver on Bun: bun:sqlite itself, no wrapper, so the store runs
 * exactly as fast as before there was a driver interface (bench sqlite-cache).
 * bun:sqlite is required when a database opens, not imported: the Node build
 * bundles this file too and never runs it.
 */
import type { Database as BunDatabase } from "bun:sqlite";
import type { Database, OpenDatabaseOptions, SqliteDriver } from "./sqlite-types.ts";
import { pragmaSchemaVersion, setPragmaSchemaVersion } from "./sqlite-pragma.ts";

export const bunSqlite: SqliteDriver = {
  name: "bun:sqlite",
  workerPrelude: `import { Database } from "bun:sqlite";`,
  files: true,
  rtree: true,
  schemaVersion: pragmaSchemaVersion,
  setSchemaVersion: setPragmaSchemaVersion,
  open(file: string, opts: OpenDatabaseOptions = {}): Database {
    const { Database: Bun } = require("bun:sqlite") as { Database: typeof BunDatabase };
    // A static of bun:sqlite's Database: it applies to every database of the process.
    if (opts.statementCache && Bun.MAX_QUERY_CACHE_SIZE < opts.statementCache) Bun.MAX_QUERY_CACHE_SIZE = opts.statementCache;
    const db = opts.readonly ? new Bun(file, { readonly: true, strict: true }) : new Bun(file, { create: opts.create ?? true, strict: true });
    if (!opts.readonly) {
      // A transaction takes the write lock when it begins (IMMEDIATE), waiting on busy_timeout: a
      // deferred one that reads first and then writes gets SQLITE_BUSY at once, with no wait, when a
      // checkpoint restarted the WAL in between (store/checkpoint.ts truncates it when writes pause).
      const deferred = db.transaction.bind(db);
      db.transaction = ((fn: (...args: any[]) => unknown) => {
        const t = deferred(fn);
        return Object.assign((...args: any[]) => t.immediate(...args), { deferred: t.deferred, immediate: t.immediate, exclusive: t.exclusive });
      }) as typeof db.transaction;
    }
    return db as unknown as Database;
  },
};
