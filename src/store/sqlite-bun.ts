/**
 * The SQLite driver on Bun: bun:sqlite itself, no wrapper, so the store runs
 * exactly as fast as before there was a driver interface (bench sqlite-cache).
 * bun:sqlite is required when a database opens, not imported: the Node build
 * bundles this file too and never runs it.
 */
import type { Database as BunDatabase } from "bun:sqlite";
import { pragmaSchemaVersion, setPragmaSchemaVersion, type Database, type OpenDatabaseOptions, type SqliteDriver } from "./sqlite.ts";

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
    return db as unknown as Database;
  },
};
