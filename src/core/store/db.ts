/**
 * The one SQLite store. WAL with synchronous=NORMAL: a committed transaction
 * survives the process being killed (it is in the WAL, handed to the OS);
 * only a power cut can roll back the last commits, never corrupt the file.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import schemaSql from "../../../schema.sql" with { type: "text" };
import { migrate, parseMigrations, SchemaError } from "./migrate.ts";
import { openDatabase, sqliteDriver, type Database } from "./sqlite.ts";

export type { Database, Statement } from "./sqlite.ts";

export const DB_FILE_NAME = "svc-gateway.db";

/**
 * When the WAL starts over from its beginning, a file larger than this is cut
 * back to it. It is above what the checkpointer lets the WAL reach
 * (checkpoint.ts), so that under load the file is reused in place rather than
 * cut and grown again (block allocation, and a file-system journal commit in
 * every fsync); the checkpointer empties it once writes stop.
 */
const JOURNAL_SIZE_LIMIT = 64 * 1024 * 1024;

export const MIGRATIONS = parseMigrations(schemaSql);

export interface OpenOptions {
  /** Apply only migrations up to this version (tests of upgrades). */
  upTo?: number;
}

/**
 * How many compiled statements `db.query(sql)` keeps (least recently used
 * out). Bun's default is 20, while the gateway runs a few hundred distinct SQL
 * strings: every other one was compiled again on each use (bench sqlite-cache).
 * Dynamic SQL (IN lists, filters) stays bounded by the same LRU.
 */
export const STATEMENT_CACHE_SIZE = 1000;

/** Opens (creating if needed) the database file and brings its schema up to date. */
export function openStore(file: string, opts: OpenOptions = {}): Database {
  // a driver without files of its own (a Durable Object) keeps the journal itself and refuses these pragmas
  const files = sqliteDriver().files;
  if (files && file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = openDatabase(file, { create: true, statementCache: STATEMENT_CACHE_SIZE });
  try {
    if (files) {
      db.run("PRAGMA busy_timeout = 5000");
      db.run("PRAGMA journal_mode = WAL");
      db.run("PRAGMA synchronous = NORMAL");
      db.run(`PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    }
    db.run("PRAGMA foreign_keys = ON");
    migrate(db, opts.upTo ? MIGRATIONS.slice(0, opts.upTo) : MIGRATIONS, file);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

/**
 * Opens the database to read only: what a command that only looks may do
 * while a gateway serves the directory (migrations are the gateway's). Null
 * when there is no database yet.
 */
export function openStoreReadOnly(file: string): Database | null {
  if (!existsSync(file)) return null;
  const db = openDatabase(file, { readonly: true, statementCache: 50 });
  try {
    db.run("PRAGMA busy_timeout = 5000");
    const version = schemaVersion(db);
    if (version !== MIGRATIONS.length) {
      throw new SchemaError(
        `The database ${file} has schema version ${version}, this svc-gateway reads ${MIGRATIONS.length}: start the gateway once to bring it up to date.`,
      );
    }
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}

export function schemaVersion(db: Database): number {
  return sqliteDriver().schemaVersion(db);
}

/** Instance-level key/value settings that the instance generates itself. */
export function getMeta(db: Database, key: string): string | null {
  const row = db.query("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | null;
  return row ? row.value : null;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.query("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, value);
}
