import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
process.on("exit", () => {
  if (process.env.KEEP_TEST_DIRS) return;
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A fresh directory under the system temp dir, removed when the test process exits. */
export function tmpDir(prefix = "svc-test-"): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
