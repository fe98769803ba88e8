import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made: string[] = [];
process.on("exit", () => {
  if (process.env.KEEP_TEST_DIRS) return;
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

const STALE_MS = 3 * 3_600_000;
let swept = false;

/** Removes test directories that killed runs left behind (hours old; no run lasts that long). */
function sweepStale(): void {
  swept = true;
  const now = Date.now();
  for (const name of readdirSync(tmpdir())) {
    if (!/^svc-(test|dist|bench)-/.test(name)) continue;
    const p = join(tmpdir(), name);
    try {
      if (now - statSync(p).mtimeMs > STALE_MS) rmSync(p, { recursive: true, force: true });
    } catch {
      // another run removed it first
    }
  }
}

/** A fresh directory under the system temp dir, removed when the test process exits. */
export function tmpDir(prefix = "svc-test-"): string {
  if (!swept) sweepStale();
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
