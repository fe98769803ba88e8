/**
 * The SQLite drivers answer the same calls the same way: the same probe
 * (test/helpers/sqlite-probe.ts) runs with bun:sqlite here, with node:sqlite
 * in a real Node process and with a Durable Object's SQL storage in workerd
 * (through miniflare), and the answers must match each other and what
 * bun:sqlite is known to answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Miniflare } from "miniflare";
import { join } from "node:path";
import { bunSqlite } from "../../src/core/store/sqlite-bun.ts";
import { MIGRATIONS, openStore, schemaVersion } from "../../src/core/store/db.ts";
import { nodeRuntime } from "../../scripts/node.ts";
import { probe } from "../helpers/sqlite-probe.ts";
import { ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { schemaObjects } from "../helpers/sqlite-schema.ts";
import { bundleWorker, miniflareWith } from "../helpers/workerd.ts";

async function onNode(dir: string): Promise<Record<string, unknown>> {
  const outdir = tmpDir();
  const r = await Bun.build({ entrypoints: [join(ROOT, "test/helpers/sqlite-probe-node.ts")], target: "node", format: "esm", outdir });
  expect(r.success).toBe(true);
  const proc = Bun.spawn([nodeRuntime(), "--disable-warning=ExperimentalWarning", r.outputs[0]!.path, dir], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  return JSON.parse(out);
}

/** What bun:sqlite answers, and what it is known to answer (so that two equal wrong answers cannot pass). */
function onBun(): Record<string, unknown> {
  const bun = probe(bunSqlite, tmpDir());
  // what bun:sqlite answers (so that two equal wrong answers cannot pass)
  expect(bun).toMatchObject({
    insert: { changes: 1, lastInsertRowid: 1 },
    getNone: null,
    allNone: [],
    named: { proto: "Object", name: "a", n: 1 },
    values: [
      ["a", 1],
      ["b", 2],
      ["c", null],
    ],
    iterate: [
      { proto: "Object", name: "a" },
      { proto: "Object", name: "b" },
      { proto: "Object", name: "c" },
    ],
    paramsCount: [2, 3, 2, 1],
    unique: { error: "SQLITE_CONSTRAINT_UNIQUE" },
    syntax: { error: "SQLITE_ERROR" },
    txn: 1,
    rollback: { error: "OURS" },
    nested: { error: "SQLITE_CONSTRAINT_UNIQUE" },
    names: [["a"], ["b"], ["c"], ["d"], ["f"]],
    afterEviction: { proto: "Object", c: 5 },
    readonlyRead: { proto: "Object", c: 5 },
    readonlyWrite: { error: "SQLITE_READONLY" },
    version: [0, 7],
    bigint: { proto: "Object", x: 42 },
  });
  expect((bun.all as Array<Record<string, unknown>>)[0]).toEqual({ proto: "Object", id: 1, name: "a", n: 1, flag: 1, data: { bytes: [1, 2, 3] } });
  return bun;
}

test("node:sqlite through its driver answers every call as bun:sqlite does", async () => {
  const bun = onBun();
  const node = await onNode(tmpDir());
  expect(node).toEqual(bun);
});

describe("a Durable Object's SQL storage in workerd", () => {
  let mf: Miniflare;
  beforeAll(async () => {
    mf = miniflareWith(await bundleWorker(join(ROOT, "test/helpers/sqlite-probe-do.ts")), { binding: "PROBE", className: "Probe" });
    await mf.ready;
  }, 60_000);
  afterAll(() => mf?.dispose());

  test("through its driver answers every call as bun:sqlite does", async () => {
    const bun = onBun();
    const res = await mf.dispatchFetch("http://probe/probe");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(bun);
  });

  test("a bigint beyond 2^53 is refused with a RangeError, not rounded", async () => {
    const res = await mf.dispatchFetch("http://probe/bigint");
    expect(await res.json()).toEqual({
      error: "RangeError",
      message: "1152921504606846976 is beyond what a Durable Object's SQL storage binds (integers up to 2^53)",
    });
  });

  test("holds the whole schema, migrated as bun:sqlite holds it, and keeps its version", async () => {
    const res = await mf.dispatchFetch("http://probe/store");
    expect({ status: res.status, error: res.status === 200 ? "" : await res.text() }).toEqual({ status: 200, error: "" });
    const onDo = (await res.json()) as { version: number; latest: number; objects: unknown; reopened: number };
    const db = openStore(join(tmpDir(), "store.db"));
    const objects = schemaObjects(db);
    expect(schemaVersion(db)).toBe(MIGRATIONS.length);
    db.close();
    expect(objects.objects.length).toBeGreaterThan(50);
    // the map index is an R*Tree on Bun and a plain table there (no R*Tree module), with the same columns
    expect(objects.geo).toEqual({ caches_geo: ["id", "min_lat", "max_lat", "min_lon", "max_lon"] });
    expect(onDo).toEqual({ version: MIGRATIONS.length, latest: MIGRATIONS.length, objects, reopened: MIGRATIONS.length });
  });
});
