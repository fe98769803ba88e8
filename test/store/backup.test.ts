/**
 * `svc-gateway backup FILE` copies a running gateway's database while writes
 * go on: every write acknowledged before the backup started is in the copy,
 * and the copy passes integrity_check. `svc-gateway restore FILE` refuses
 * while the gateway runs and puts the copy back once it is stopped.
 */
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnGateway } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";

const SECRET = "backup-test-secret-0123456789";

const rawLines = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    expect(db.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    return new Set((db.query("SELECT CAST(raw AS TEXT) AS raw FROM packets").all() as Array<{ raw: string }>).map((r) => r.raw));
  } finally {
    db.close();
  }
};

test("backup during a write burst holds every acknowledged write; restore refuses while running, then puts it back", async () => {
  const dataDir = tmpDir();
  const copy = join(tmpDir(), "copy.db");
  const g = await spawnGateway({ dataDir, env: { INGEST_SECRET: SECRET } });
  const acked: string[] = [];
  const failures: string[] = [];
  let stop = false;
  const writer = async (w: number) => {
    for (let n = 0; !stop; n++) {
      const lines = Array.from({ length: 20 }, (_, k) => `BK${w}N${k}>APRS,TCPIP*:>burst ${w} ${n} ${k} ${"x".repeat(60)}`);
      try {
        const r = await fetch(g.url + "/ingest", {
          method: "POST",
          headers: { "x-ingest-secret": SECRET, "content-type": "text/plain" },
          body: lines.join("\n"),
        });
        await r.arrayBuffer();
        if (r.status === 200) acked.push(...lines);
        else failures.push(`HTTP ${r.status}`);
      } catch (e) {
        failures.push(String(e));
        return;
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  try {
    while (acked.length < 2000) await Bun.sleep(20);
    const before = [...acked];
    const backup = await runCli(["backup", copy, "--data", dataDir]);
    const duringBackup = acked.length - before.length;
    stop = true;
    await Promise.all(writers);
    // The gateway went on serving every write while another process read its database.
    expect(failures).toEqual([]);
    expect(g.proc.exitCode).toBeNull();
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain(`to ${copy}`);
    // The burst went on while the backup ran (an online copy).
    expect(duringBackup).toBeGreaterThan(0);

    const inCopy = rawLines(copy);
    expect(before.filter((l) => !inCopy.has(l))).toEqual([]);
    // ... and the live database has writes the copy has not (a positive control for the restore below)
    const later = acked.filter((l) => !inCopy.has(l));
    expect(later.length).toBeGreaterThan(0);

    // Not over the running gateway's database.
    const refused = await runCli(["restore", copy, "--data", dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`another svc-gateway (pid ${g.proc.pid}) is serving ${dataDir}; stop it first`);
    expect(beforeRestore(dataDir)).toEqual([]);
    const live = await fetch(`${g.url}/api/stations/${later.at(-1)!.split(">")[0]}`);
    expect(live.status).toBe(200);
  } finally {
    stop = true;
    await Promise.all(writers);
    await g.kill();
  }

  const restored = await runCli(["restore", copy, "--data", dataDir]);
  expect(restored.stderr).toBe("");
  expect(restored.code).toBe(0);
  expect(restored.stdout).toContain("svc-gateway.db.before-restore-");
  expect(rawLines(join(dataDir, "svc-gateway.db"))).toEqual(rawLines(copy));
  // The replaced database is kept, with the writes the copy does not have.
  const [first] = beforeRestore(dataDir);
  expect(rawLines(join(dataDir, first!)).size).toBeGreaterThan(rawLines(copy).size);
  // A second restore keeps the first one's copy and adds its own.
  const second = await runCli(["restore", copy, "--data", dataDir]);
  expect(second.code).toBe(0);
  expect(beforeRestore(dataDir)).toHaveLength(2);
  expect(rawLines(join(dataDir, first!)).size).toBeGreaterThan(rawLines(copy).size);
  // The gateway serves the restored database.
  const again = await spawnGateway({ dataDir, env: { INGEST_SECRET: SECRET } });
  try {
    expect((await fetch(`${again.url}/api/stations/BK0N0`)).status).toBe(200);
  } finally {
    await again.kill();
  }
}, 120_000);

test("backup refuses to overwrite a file; restore refuses a file that is not a gateway database", async () => {
  const dataDir = tmpDir();
  const g = await spawnGateway({ dataDir });
  await g.kill();
  const dir = tmpDir();
  const existing = join(dir, "existing.db");
  writeFileSync(existing, "keep me");
  const over = await runCli(["backup", existing, "--data", dataDir]);
  expect(over.code).toBe(1);
  expect(over.stderr).toContain("already exists");
  expect(readFileSync(existing, "utf8")).toBe("keep me");

  const before = readFileSync(join(dataDir, "svc-gateway.db"));
  const bad = await runCli(["restore", existing, "--data", dataDir]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("not restoring");
  expect(readFileSync(join(dataDir, "svc-gateway.db")).equals(before)).toBe(true);
  // Positive control: a real backup of the same directory restores.
  const good = join(dir, "good.db");
  expect((await runCli(["backup", good, "--data", dataDir])).code).toBe(0);
  expect((await runCli(["restore", good, "--data", dataDir])).code).toBe(0);
}, 60_000);

/** The databases restores replaced, oldest first. */
function beforeRestore(dataDir: string): string[] {
  return readdirSync(dataDir)
    .filter((f) => /^svc-gateway\.db\.before-restore-[\d-]+$/.test(f))
    .sort();
}
