/**
 * The compiled executables, built once per test run (bun test runs every file
 * in one process, so the promise is shared) into a temporary directory.
 */
import { build, TARGETS, type Target } from "../../build.ts";
import { tmpDir } from "./tmp.ts";

let built: Promise<Record<Target, string>> | null = null;

export function builtExecutables(): Promise<Record<Target, string>> {
  built ??= build({ targets: Object.keys(TARGETS) as Target[], outdir: tmpDir("svc-dist-"), log: () => {} });
  return built;
}
