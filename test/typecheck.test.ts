/**
 * The whole tree type-checks: a type error anywhere fails the suite. The check
 * runs TypeScript's native compiler (tsgo, @typescript/native-preview, pinned):
 * the same answers as `tsc` here, in a third of the time.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "./helpers/paths.ts";

test("the type checker finds no type errors", () => {
  const r = Bun.spawnSync([join(ROOT, "node_modules/.bin/tsgo"), "--noEmit", "-p", ROOT], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString() + r.stderr.toString();
  expect(out).toBe("");
  expect(r.exitCode).toBe(0);
}, 180_000);
