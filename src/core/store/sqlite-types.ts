/**
 * The types of the SQLite driver interface (src/core/store/sqlite.ts says
 * what every driver keeps), apart so that the drivers name them without
 * importing the module that picks the default driver.
 */
export type SqlValue = string | bigint | number | boolean | null | Uint8Array | ArrayBufferLike | NodeJS.TypedArray;
export type Binding = SqlValue | Record<string, SqlValue>;

export interface Changes {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface Statement<Row = unknown, Params extends any[] = any[]> {
  all(...params: Params): Row[];
  get(...params: Params): Row | null;
  run(...params: Params): Changes;
  values(...params: Params): Array<Array<string | bigint | number | Uint8Array | null>>;
  iterate(...params: Params): IterableIterator<Row>;
  /** how many parameters the statement takes */
  readonly paramsCount: number;
  finalize(): void;
}

export interface Transaction<A extends any[], T> {
  (...args: A): T;
  deferred: (...args: A) => T;
  immediate: (...args: A) => T;
  exclusive: (...args: A) => T;
}

export interface Database {
  query<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params>;
  prepare<Row = unknown, Params extends any[] = any[]>(sql: string): Statement<Row, Params>;
  run(sql: string, ...params: Binding[]): Changes;
  exec(sql: string, ...params: Binding[]): Changes;
  transaction<A extends any[], T>(fn: (...args: A) => T): Transaction<A, T>;
  close(throwOnError?: boolean): void;
}

export interface OpenDatabaseOptions {
  readonly?: boolean;
  /** create the file if it is missing (default true unless readonly) */
  create?: boolean;
  /** how many statements `query(sql)` keeps compiled */
  statementCache?: number;
}

export interface SqliteDriver {
  /** "bun:sqlite", "node:sqlite" */
  readonly name: string;
  open(file: string, opts?: OpenDatabaseOptions): Database;
  /**
   * The first line of a worker thread's script that gives it `Database` (the
   * checkpoint and backup workers run their own connection), or null when
   * this host has no such workers: the work then stays on the main thread.
   */
  readonly workerPrelude: string | null;
  /**
   * true when a database is a file of its own (a directory to create, WAL,
   * a busy timeout and checkpoints to set); false for a Durable Object's
   * storage, whose runtime keeps the journal and refuses those pragmas.
   */
  readonly files: boolean;
  /** false where SQLite's R*Tree module is refused (a Durable Object): migrations make its tables plain ones */
  readonly rtree: boolean;
  /** The schema version migrations keep: PRAGMA user_version, or a table where that pragma is refused. */
  schemaVersion(db: Database): number;
  setSchemaVersion(db: Database, version: number): void;
}
