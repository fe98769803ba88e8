/**
 * Migrations from schema.sql: numbered blocks applied in order, all pending ones
 * in one transaction, so a crash mid-upgrade leaves the old schema intact.
 */
import { sqliteDriver, type Database } from "./sqlite.ts";

export interface Migration {
  version: number;
  title: string;
  sql: string;
}

export class SchemaError extends Error {
  override name = "SchemaError";
}

const HEADER = /^-- migration (\d+): (.+)$/;

/** Splits schema.sql into its migrations; versions must run 1, 2, 3... */
export function parseMigrations(schema: string): Migration[] {
  const out: Migration[] = [];
  let current: Migration | null = null;
  for (const line of schema.split("\n")) {
    const m = HEADER.exec(line.trimEnd());
    if (m) {
      current = { version: Number(m[1]), title: m[2]!, sql: "" };
      if (current.version !== out.length + 1) {
        throw new SchemaError(`schema.sql: migration ${current.version} is out of order (expected ${out.length + 1})`);
      }
      out.push(current);
    } else if (current) {
      current.sql += line + "\n";
    }
  }
  return out;
}

/** Applies what is pending. Returns the versions applied. Throws SchemaError for a newer database. */
export function migrate(db: Database, migrations: Migration[], where: string): number[] {
  const latest = migrations.length;
  const driver = sqliteDriver();
  const current = driver.schemaVersion(db);
  if (current > latest) {
    throw new SchemaError(
      `The database ${where} was written by a newer svc-gateway (schema version ${current}; ` +
        `this one knows up to ${latest}). Upgrade svc-gateway, or start it with another --data directory.`,
    );
  }
  const pending = migrations.slice(current);
  if (pending.length === 0) return [];
  db.transaction(() => {
    for (const m of pending) db.run(driver.rtree ? m.sql : withoutRtree(m.sql));
    driver.setSchemaVersion(db, latest);
  })();
  return pending.map((m) => m.version);
}

const RTREE = /CREATE VIRTUAL TABLE (\w+) USING rtree\(([^)]*)\);/g;

/**
 * The SQL with each R*Tree table made a plain table of the same columns (the
 * id as its key, the bounds as REAL) with one index over the bounds, for a
 * SQLite without the R*Tree module. The triggers and queries that fill and
 * read the map indexes run on either unchanged; a box is then found through
 * that index rather than the tree.
 */
function withoutRtree(sql: string): string {
  return sql.replace(RTREE, (_, table: string, columns: string) => {
    const [id, ...bounds] = columns.split(",").map((c) => c.trim());
    return `CREATE TABLE ${table} (${id} INTEGER PRIMARY KEY, ${bounds.map((b) => `${b} REAL`).join(", ")});\nCREATE INDEX ${table}_bounds ON ${table} (${bounds.join(", ")});`;
  });
}
