/**
 * The SQLite driver in a Durable Object (a Workers runtime, workerd): its
 * synchronous SQL storage (`ctx.storage.sql`), shaped like bun:sqlite as
 * sqlite.ts describes. What that storage does differently, and what this
 * driver does about it:
 * - it binds booleans as the text 'true' and refuses BigInt: booleans bind as
 *   1/0, a bigint as the number when it is exact, else a RangeError;
 * - blobs come back as ArrayBuffer: they are handed on as Uint8Array;
 * - ?NNN and :name bind by position only: named parameters are put in the
 *   places SQLite numbers them (sqlParameters);
 * - BEGIN and SAVEPOINT are refused: transactions run in
 *   `storage.transactionSync`, which nests;
 * - PRAGMA user_version, journal_mode, busy_timeout and wal_checkpoint are
 *   refused: the schema version is kept in a table (`files` is false, so the
 *   store sets no journal pragmas and the gateway starts no checkpointer);
 * - the R*Tree module is refused (SQLITE_AUTH): `rtree` is false, and
 *   migrations make the map indexes plain tables (migrate.ts);
 * - errors carry SQLite's name in their message only: it becomes `code`.
 * There is one database per Durable Object: `open()` ignores the file name,
 * and a read-only handle refuses a statement that wrote (rolled back).
 */
import { sqlParameters } from "./sqlite.ts";
import type { Binding, Changes, Database, OpenDatabaseOptions, SqliteDriver, Statement, Transaction } from "./sqlite-types.ts";

/** The part of a Durable Object's storage the driver uses (workerd's SqlStorage). */
export interface DurableObjectSql {
  exec(sql: string, ...bindings: unknown[]): DurableObjectCursor;
}

export interface DurableObjectCursor extends Iterable<Record<string, unknown>> {
  toArray(): Record<string, unknown>[];
  raw(): Iterable<unknown[]> & { toArray(): unknown[][] };
  readonly rowsWritten: number;
}

export interface DurableObjectSqlStorage {
  readonly sql: DurableObjectSql;
  transactionSync<T>(fn: () => T): T;
}

/** The table that holds the schema version where PRAGMA user_version is refused. */
const VERSION_TABLE = "svc_schema_version";

/** "UNIQUE constraint failed: t.name: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)" */
const ERROR_NAME = /: (SQLITE_[A-Z_]+)(?: \(extended: (SQLITE_[A-Z_]+)\))?$/;

function sqliteError(e: unknown): unknown {
  if (e instanceof Error && !(e as { code?: string }).code) {
    const m = ERROR_NAME.exec(e.message);
    if (m) (e as { code?: string }).code = m[2] ?? m[1];
  }
  return e;
}

function value(v: unknown): unknown {
  if (v === undefined) return null;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "bigint") {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${v} is beyond what a Durable Object's SQL storage binds (integers up to 2^53)`);
    return n;
  }
  // a view binds its own bytes, not the rest of its buffer
  if (ArrayBuffer.isView(v))
    return v.byteOffset === 0 && v.byteLength === v.buffer.byteLength ? v : new Uint8Array(v.buffer, v.byteOffset, v.byteLength).slice();
  return v;
}

function bindings(sql: string, params: Binding[]): unknown[] {
  if (params.length === 1) {
    const p = params[0];
    if (p !== null && typeof p === "object" && !ArrayBuffer.isView(p) && !(p instanceof ArrayBuffer)) {
      const { count, names } = sqlParameters(sql);
      const out = new Array<unknown>(count).fill(null);
      for (const [name, at] of names) {
        if (!(name in p)) throw Object.assign(new Error(`missing parameter "${name}"`), { code: "SQLITE_RANGE" });
        out[at - 1] = value((p as Record<string, unknown>)[name]);
      }
      return out;
    }
  }
  return params.map(value);
}

function row<Row>(r: Record<string, unknown>): Row {
  for (const k in r) if (r[k] instanceof ArrayBuffer) r[k] = new Uint8Array(r[k] as ArrayBuffer);
  return r as Row;
}

function cells(r: unknown[]): Array<string | bigint | number | Uint8Array | null> {
  for (let i = 0; i < r.length; i++) if (r[i] instanceof ArrayBuffer) r[i] = new Uint8Array(r[i] as ArrayBuffer);
  return r as Array<string | bigint | number | Uint8Array | null>;
}

class DoDatabase implements Database {
  private readonly cache = new Map<string, DoStatement<unknown, any[]>>();
  constructor(
    readonly storage: DurableObjectSqlStorage,
    readonly readonly: boolean,
    private readonly cacheSize: number,
  ) {}

  query<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params> {
    let s = this.cache.get(sql);
    if (s) this.cache.delete(sql);
    else {
      s = new DoStatement(this, sql);
      if (this.cache.size >= this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(sql, s);
    return s as unknown as Statement<Row, Params>;
  }

  prepare<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params> {
    // the runtime compiles (and caches) a statement when it runs; a syntax error is found then
    return new DoStatement<Row, Params>(this, sql);
  }

  run(sql: string, ...params: Binding[]): Changes {
    return new DoStatement(this, sql).run(...params);
  }

  exec(sql: string, ...params: Binding[]): Changes {
    return this.run(sql, ...params);
  }

  /** Runs one statement to its end through `use`; on a read-only handle a statement that wrote is refused and rolled back. */
  execOne<T>(sql: string, params: Binding[], use: (c: DurableObjectCursor) => T): T {
    const once = () => {
      const c = this.storage.sql.exec(sql, ...bindings(sql, params));
      const out = use(c);
      if (this.readonly && c.rowsWritten > 0) throw Object.assign(new Error("attempt to write a readonly database"), { code: "SQLITE_READONLY" });
      return out;
    };
    try {
      return this.readonly ? this.storage.transactionSync(once) : once();
    } catch (e) {
      throw sqliteError(e);
    }
  }

  transaction<A extends any[], T>(fn: (...args: A) => T): Transaction<A, T> {
    // transactionSync commits when fn returns and rolls back when it throws; inside another one it is a savepoint
    const run = (...args: A): T => this.storage.transactionSync(() => fn(...args));
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run });
  }

  close(): void {
    // the storage belongs to the Durable Object; there is nothing to close
    this.cache.clear();
  }
}

class DoStatement<Row, Params extends any[]> implements Statement<Row, Params> {
  #count: number | null = null;
  constructor(
    private readonly db: DoDatabase,
    private readonly sql: string,
  ) {}
  all(...params: Params): Row[] {
    return this.db.execOne(this.sql, params, (c) => c.toArray().map(row<Row>));
  }
  get(...params: Params): Row | null {
    return this.db.execOne(this.sql, params, (c) => {
      const rows = c.toArray();
      return rows.length ? row<Row>(rows[0]!) : null;
    });
  }
  run(...params: Params): Changes {
    return this.db.execOne(this.sql, params, (c) => {
      for (const _ of c.raw());
      const r = this.db.storage.sql.exec("SELECT changes() AS changes, last_insert_rowid() AS id").toArray()[0] as { changes: number; id: number };
      return { changes: r.changes, lastInsertRowid: r.id };
    });
  }
  values(...params: Params): Array<Array<string | bigint | number | Uint8Array | null>> {
    return this.db.execOne(this.sql, params, (c) => c.raw().toArray().map(cells));
  }
  *iterate(...params: Params): IterableIterator<Row> {
    // the rows are read at once: a cursor left open across other statements would see their writes
    yield* this.all(...params);
  }
  get paramsCount(): number {
    return (this.#count ??= sqlParameters(this.sql).count);
  }
  finalize(): void {}
}

/** The driver over one Durable Object's storage (`ctx.storage`): what its worker entry hands to useSqliteDriver. */
export function durableObjectSqlite(storage: DurableObjectSqlStorage): SqliteDriver {
  return {
    name: "durable-object",
    workerPrelude: null,
    files: false,
    rtree: false,
    open(_file: string, opts: OpenDatabaseOptions = {}): Database {
      return new DoDatabase(storage, opts.readonly ?? false, opts.statementCache ?? 20);
    },
    schemaVersion(db: Database): number {
      const table = db.query(`SELECT 1 AS t FROM sqlite_master WHERE type = 'table' AND name = '${VERSION_TABLE}'`).get();
      if (!table) return 0;
      return (db.query(`SELECT version FROM ${VERSION_TABLE}`).get() as { version: number } | null)?.version ?? 0;
    },
    setSchemaVersion(db: Database, version: number): void {
      db.transaction(() => {
        db.run(`CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (version INTEGER NOT NULL)`);
        db.run(`DELETE FROM ${VERSION_TABLE}`);
        db.run(`INSERT INTO ${VERSION_TABLE} (version) VALUES (?)`, Math.trunc(version));
      })();
    },
  };
}
