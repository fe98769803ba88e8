import type { Database } from "../../src/core/store/sqlite.ts";

/** The map indexes: R*Tree tables (with their shadow tables) where SQLite has the module, plain tables with an index where not. */
const GEO = /_geo(_node|_parent|_rowid|_bounds)?$/;

/**
 * The schema a store holds, comparable across drivers: every table, index,
 * trigger and view the gateway made, with its SQL (SQLite's and the runtime's
 * own left out), and apart from them the map indexes' columns.
 */
export function schemaObjects(db: Database): { objects: Array<{ type: string; name: string; sql: string | null }>; geo: Record<string, string[]> } {
  const all = db
    .query(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'svc_schema_version' ORDER BY type, name",
    )
    .all() as Array<{ type: string; name: string; sql: string | null }>;
  const geo: Record<string, string[]> = {};
  for (const o of all)
    if (o.type === "table" && /_geo$/.test(o.name))
      geo[o.name] = (db.query(`PRAGMA table_info(${o.name})`).all() as Array<{ name: string }>).map((c) => c.name);
  return { objects: all.filter((o) => !GEO.test(o.name)), geo };
}
