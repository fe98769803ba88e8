/**
 * The two SQLite drivers answer the same calls the same way: the same probe
 * (test/helpers/sqlite-probe.ts) runs with bun:sqlite here and with
 * node:sqlite in a real Node process, and the answers must match each other
 * and what bun:sqlite is known to answer.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { bunSqlite } from "../../src/store/sqlite-bun.ts";
import { nodeRuntime } from "../../scripts/node.ts";
import { probe } from "../helpers/sqlite-probe.ts";
import { ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

async function onNode(dir: string): Promise<Record<string, unknown>> {
  const outdir = tmpDir();
  const r = await Bun.build({ entrypoints: [join(ROOT, "test/helpers/sqlite-probe.ts")], target: "node", format: "esm", outdir });
  expect(r.success).toBe(true);
  const proc = Bun.spawn([nodeRuntime(), "--disable-warning=ExperimentalWarning", r.outputs[0]!.path, dir], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
  return JSON.parse(out);
}

test("node:sqlite through its driver answers every call as bun:sqlite does", async () => {
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
  });
  expect((bun.all as Array<Record<string, unknown>>)[0]).toEqual({ proto: "Object", id: 1, name: "a", n: 1, flag: 1, data: { bytes: [1, 2, 3] } });
  const node = await onNode(tmpDir());
  expect(node).toEqual(bun);
});
