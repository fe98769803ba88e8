/** The whole tree type-checks: a type error anywhere fails the suite. */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "./helpers/paths.ts";

test("tsc --noEmit finds no type errors", () => {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", ROOT], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = r.stdout.toString() + r.stderr.toString();
  expect(out).toBe("");
  expect(r.exitCode).toBe(0);
}, 180_000);
