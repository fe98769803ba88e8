/**
 * The SQLite driver on Node: node:sqlite's DatabaseSync (Node 22.16 or newer:
 * rows as arrays with their column names), shaped like bun:sqlite as sqlite.ts describes:
 * rows as plain objects, `get()` null when there is no row, booleans bound as
 * 1/0, a cache of compiled statements behind `query()`, transactions that nest
 * as savepoints, and SQLite's error names in `code`.
 */
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { sqlParameters } from "./sqlite.ts";
import type { Binding, Changes, Database, OpenDatabaseOptions, SqliteDriver, Statement, Transaction } from "./sqlite-types.ts";
import { pragmaSchemaVersion, setPragmaSchemaVersion } from "./sqlite-pragma.ts";

/** bun:sqlite keeps 20 compiled statements behind `query()` unless told otherwise. */
const DEFAULT_STATEMENT_CACHE = 20;

const PRIMARY = [
  "OK",
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "EMPTY",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "FORMAT",
  "RANGE",
  "NOTADB",
];
const EXTENDED: Record<number, string> = {
  261: "BUSY_RECOVERY",
  517: "BUSY_SNAPSHOT",
  773: "BUSY_TIMEOUT",
  262: "LOCKED_SHAREDCACHE",
  264: "READONLY_RECOVERY",
  520: "READONLY_CANTLOCK",
  275: "CONSTRAINT_CHECK",
  531: "CONSTRAINT_COMMITHOOK",
  787: "CONSTRAINT_FOREIGNKEY",
  1043: "CONSTRAINT_FUNCTION",
  1299: "CONSTRAINT_NOTNULL",
  1555: "CONSTRAINT_PRIMARYKEY",
  1811: "CONSTRAINT_TRIGGER",
  2067: "CONSTRAINT_UNIQUE",
  2323: "CONSTRAINT_VTAB",
  2579: "CONSTRAINT_ROWID",
};

/** node:sqlite throws ERR_SQLITE_ERROR with the number in `errcode`: give it bun:sqlite's `code` ("SQLITE_BUSY"...). */
function sqliteError(e: unknown): unknown {
  const err = e as { code?: string; errcode?: number; errno?: number };
  if (err && typeof err.errcode === "number") {
    const name = EXTENDED[err.errcode] ?? PRIMARY[err.errcode & 0xff];
    if (name) {
      err.code = `SQLITE_${name}`;
      err.errno = err.errcode;
    }
  }
  return e;
}

function value(v: unknown): SQLInputValue {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  return v as SQLInputValue;
}

/** Named parameters come as one object; everything else is positional. */
function bindings(params: Binding[]): SQLInputValue[] | [Record<string, SQLInputValue>] {
  if (params.length === 1) {
    const p = params[0];
    if (p !== null && typeof p === "object" && !ArrayBuffer.isView(p) && !(p instanceof ArrayBuffer)) {
      const named: Record<string, SQLInputValue> = {};
      for (const k in p) named[k] = value((p as Record<string, unknown>)[k]);
      return [named];
    }
  }
  const out = new Array<SQLInputValue>(params.length);
  for (let i = 0; i < params.length; i++) out[i] = value(params[i]);
  return out;
}

type Cell = string | bigint | number | Uint8Array | null;

/**
 * Rows come from node:sqlite as arrays and become plain objects here: its own
 * row objects have a null prototype (the gateway's code and Elysia's
 * responses expect plain ones), and building them from arrays costs a quarter
 * of making and then copying them (2,000 caches: 5 ms against 20 ms).
 */
class NodeStatement<Row, Params extends any[]> implements Statement<Row, Params> {
  #count: number | null = null;
  #names: string[] | null = null;
  constructor(
    private readonly s: StatementSync,
    private readonly sql: string,
  ) {
    s.setAllowUnknownNamedParameters?.(true);
    s.setReturnArrays(true);
  }
  /** The result's column names, read again if SQLite recompiled the statement with another width (a schema change). */
  private names(width: number): string[] {
    if (this.#names?.length !== width) this.#names = this.s.columns().map((c) => c.name);
    return this.#names;
  }
  private row(cells: Cell[]): Row {
    const names = this.names(cells.length);
    const o: Record<string, Cell> = {};
    for (let i = 0; i < names.length; i++) o[names[i]!] = cells[i]!;
    return o as Row;
  }
  all(...params: Params): Row[] {
    try {
      const rows = this.s.all(...(bindings(params) as SQLInputValue[])) as unknown as Cell[][];
      const out = new Array<Row>(rows.length);
      for (let i = 0; i < rows.length; i++) out[i] = this.row(rows[i]!);
      return out;
    } catch (e) {
      throw sqliteError(e);
    }
  }
  get(...params: Params): Row | null {
    try {
      const cells = this.s.get(...(bindings(params) as SQLInputValue[])) as unknown as Cell[] | undefined;
      return cells === undefined ? null : this.row(cells);
    } catch (e) {
      throw sqliteError(e);
    }
  }
  run(...params: Params): Changes {
    try {
      const r = this.s.run(...(bindings(params) as SQLInputValue[]));
      return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
    } catch (e) {
      throw sqliteError(e);
    }
  }
  values(...params: Params): Cell[][] {
    try {
      return this.s.all(...(bindings(params) as SQLInputValue[])) as unknown as Cell[][];
    } catch (e) {
      throw sqliteError(e);
    }
  }
  *iterate(...params: Params): IterableIterator<Row> {
    let it;
    try {
      it = this.s.iterate(...(bindings(params) as SQLInputValue[]));
    } catch (e) {
      throw sqliteError(e);
    }
    for (const cells of it) yield this.row(cells as unknown as Cell[]);
  }
  get paramsCount(): number {
    return (this.#count ??= sqlParameters(this.sql).count);
  }
  finalize(): void {
    // node:sqlite finalizes a statement when it is collected
  }
}

class NodeDatabase implements Database {
  private readonly cache = new Map<string, NodeStatement<unknown, any[]>>();
  private savepoints = 0;
  constructor(
    private readonly raw: DatabaseSync,
    private readonly cacheSize: number,
  ) {}

  query<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params> {
    let s = this.cache.get(sql);
    if (s) {
      // least recently used out: a hit moves to the back
      this.cache.delete(sql);
    } else {
      s = this.prepare(sql) as NodeStatement<unknown, any[]>;
      if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(sql, s);
    return s as unknown as Statement<Row, Params>;
  }

  prepare<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params> {
    try {
      return new NodeStatement<Row, Params>(this.raw.prepare(sql), sql);
    } catch (e) {
      throw sqliteError(e);
    }
  }

  run(sql: string, ...params: Binding[]): Changes {
    // a statement run with values is compiled once and kept, as query() keeps it
    if (params.length) return this.query(sql).run(...params);
    try {
      this.raw.exec(sql);
    } catch (e) {
      throw sqliteError(e);
    }
    return { changes: 0, lastInsertRowid: 0 };
  }

  exec(sql: string, ...params: Binding[]): Changes {
    return this.run(sql, ...params);
  }

  transaction<A extends any[], T>(fn: (...args: A) => T): Transaction<A, T> {
    const inside =
      (begin: string) =>
      (...args: A): T => {
        if (this.raw.isTransaction) {
          const name = `svc_sp${++this.savepoints}`;
          this.run(`SAVEPOINT ${name}`);
          try {
            const r = fn(...args);
            this.run(`RELEASE ${name}`);
            return r;
          } catch (e) {
            this.run(`ROLLBACK TO ${name}`);
            this.run(`RELEASE ${name}`);
            throw e;
          }
        }
        this.run(begin);
        try {
          const r = fn(...args);
          this.run("COMMIT");
          return r;
        } catch (e) {
          if (this.raw.isTransaction) this.run("ROLLBACK");
          throw e;
        }
      };
    // IMMEDIATE by default, as the Bun driver (sqlite-bun.ts says why)
    return Object.assign(inside("BEGIN IMMEDIATE"), {
      deferred: inside("BEGIN DEFERRED"),
      immediate: inside("BEGIN IMMEDIATE"),
      exclusive: inside("BEGIN EXCLUSIVE"),
    });
  }

  close(throwOnError = false): void {
    this.cache.clear();
    try {
      this.raw.close();
    } catch (e) {
      if (throwOnError) throw sqliteError(e);
    }
  }
}

export const nodeSqlite: SqliteDriver = {
  name: "node:sqlite",
  // Node has no blob Web Workers; the checkpointer and backups stay on the main thread.
  workerPrelude: null,
  files: true,
  rtree: true,
  schemaVersion: pragmaSchemaVersion,
  setSchemaVersion: setPragmaSchemaVersion,
  open(file: string, opts: OpenDatabaseOptions = {}): Database {
    try {
      const raw = new DatabaseSync(file, {
        readOnly: opts.readonly ?? false,
        // SQLite's own defaults, as bun:sqlite keeps them (the store turns foreign keys on itself)
        enableForeignKeyConstraints: false,
        enableDoubleQuotedStringLiterals: true,
      });
      return new NodeDatabase(raw, opts.statementCache ?? DEFAULT_STATEMENT_CACHE);
    } catch (e) {
      throw sqliteError(e);
    }
  },
};
