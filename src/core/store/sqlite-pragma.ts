/**
 * The schema version in SQLite's own header field (PRAGMA user_version), as
 * the drivers of bun:sqlite and node:sqlite keep it. A module of its own so
 * that a driver needs nothing of sqlite.ts but its types (sqlite.ts picks
 * the Bun driver by default: a value import back would be a cycle).
 */
import type { Database } from "./sqlite-types.ts";

export function pragmaSchemaVersion(db: Database): number {
  return (db.query("PRAGMA user_version").get() as { user_version: number }).user_version;
}

export function setPragmaSchemaVersion(db: Database, version: number): void {
  db.run(`PRAGMA user_version = ${Math.trunc(version)}`);
}
