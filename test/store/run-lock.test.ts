/**
 * One gateway per data directory, with two real processes: a second `serve`
 * is refused before it touches anything (the first one's signed identity
 * stays as it was), commands that read keep working, commands that write go
 * through the running gateway or refuse, a listener that cannot bind is a
 * named start-up error, and what the gateway writes is its operator's alone.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnGateway } from "../helpers/gateway.ts";
import { BUN, MAIN } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { CONTROL_FILE, readControl } from "../../src/core/store/control.ts";

const keygen = async () => /^FED_PRIVATE_KEY=(\S+)$/m.exec((await runCli(["keygen"])).stdout)![1]!;

/** `svc-gateway serve` as an operator runs it, under the usual umask 022; resolves when it exits (or after 20 s). */
async function serveOnce(dataDir: string, env: Record<string, string>, port = "0") {
  const t0 = performance.now();
  const proc = Bun.spawn(
    ["sh", "-c", 'umask 022; exec "$@"', "sh", BUN, "--no-env-file", MAIN, "serve", "--data", dataDir, "--port", port, "--host", "127.0.0.1"],
    {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", LOG_LEVEL: "warn", KISS_PORTS: "off", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running" as const)]);
  if (code === "still running") proc.kill("SIGKILL");
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr, ms: Math.round(performance.now() - t0) };
}

const descriptorRecord = async (url: string) =>
  ((await (await fetch(`${url}/.well-known/svc`)).json()) as { record: string | null; endpoints: unknown }).record;

describe("one gateway per data directory", () => {
  test("a second serve on the same directory exits at once naming the first, and the first one's signed identity is untouched", async () => {
    const key = await keygen();
    const dataDir = tmpDir();
    const first = await spawnGateway({ dataDir, env: { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example", FED_ENDPOINTS: "https:https://first.example;10" } });
    try {
      const record = await descriptorRecord(first.url);
      expect(record).not.toBeNull();
      // another port, other endpoints: before the lock, this one re-signed peer:self with its own endpoints
      const second = await serveOnce(dataDir, { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example", FED_ENDPOINTS: "https:https://second.example;10" });
      console.log(`second serve refused in ${second.ms} ms (bun start-up included)`);
      expect({ code: second.code, started: second.stdout.includes("is running"), stderr: second.stderr }).toEqual({
        code: 1,
        started: false,
        stderr: `svc-gateway: another svc-gateway (pid ${first.proc.pid}) is serving ${dataDir}; not starting a second gateway on it (stop that one, or give this one another --data DIR)\n`,
      });
      expect(await descriptorRecord(first.url)).toBe(record);
      expect((await fetch(`${first.url}/health?live`)).status).toBe(200);

      // Commands that read work while it runs ...
      const shown = await runCli(["key", "show", "--data", dataDir], { env: { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example" } });
      expect({ code: shown.code, stderr: shown.stderr }).toEqual({ code: 0, stderr: "" });
      expect(shown.stdout).toContain("active");
      expect(shown.stdout).toContain("(signing)");
      const list = await runCli(["callsign", "list", "--data", dataDir]);
      expect({ code: list.code, stdout: list.stdout, stderr: list.stderr }).toEqual({ code: 0, stdout: "no accounts yet\n", stderr: "" });
      // ... one that writes refuses, naming the gateway, and changes nothing.
      const rotate = await runCli(["key", "rotate", "--data", dataDir], { env: { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example" } });
      expect({ code: rotate.code, stderr: rotate.stderr }).toEqual({
        code: 1,
        stderr: `svc-gateway key: another svc-gateway (pid ${first.proc.pid}) is serving ${dataDir}; stop it first (e.g. systemctl stop svc-gateway), then run this again\n`,
      });
      const after = await runCli(["key", "show", "--data", dataDir], { env: { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example" } });
      expect(after.stdout).toBe(shown.stdout);
      expect(await descriptorRecord(first.url)).toBe(record);
    } finally {
      await first.kill();
    }
    // Stopped, the directory is free: the control file is gone and a new gateway starts on it.
    expect(readControl(dataDir)).toBeNull();
    const again = await spawnGateway({ dataDir, env: { FED_PRIVATE_KEY: key, INSTANCE: "gw-lock.example", FED_ENDPOINTS: "https:https://first.example;10" } });
    await again.kill();
  }, 90_000);

  test("the control route takes only the token of the serving gateway's control file", async () => {
    const g = await spawnGateway({});
    try {
      const control = readControl(g.dataDir)!;
      expect(control.pid).toBe(g.proc.pid!);
      expect(statSync(join(g.dataDir, CONTROL_FILE)).mode & 0o777).toBe(0o600);
      const post = (token?: string) =>
        fetch(`${g.url}/api/local/callsign-verify`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(token ? { "x-control-token": token } : {}) },
          body: JSON.stringify({ account: 1, call: "N0CTL" }),
        });
      expect((await post()).status).toBe(401);
      expect((await post(control.token.replace(/.$/, (c) => (c === "A" ? "B" : "A")))).status).toBe(401);
      // the right token is admitted: no such account yet
      const r = await post(control.token);
      expect({ status: r.status, error: ((await r.json()) as { error: string }).error }).toEqual({ status: 404, error: "not_found" });
    } finally {
      await g.kill();
    }
  }, 60_000);

  test("a listener that cannot bind stops the start with a line naming it", async () => {
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const taken = String(holder.port);
      const fbb = await serveOnce(tmpDir(), { BBS_FBB_PORT: taken, HOST: "127.0.0.1" });
      expect({ code: fbb.code, stderr: fbb.stderr.trim() }).toEqual({
        code: 1,
        stderr: `svc-gateway: the FBB forwarding listener (BBS_FBB_PORT 127.0.0.1:${taken}) could not listen: the port is already in use`,
      });
      const kiss = await serveOnce(tmpDir(), { KISS_SERVER: `127.0.0.1:${taken}` });
      expect(kiss.code).toBe(1);
      expect(kiss.stderr).toContain(`the KISS server (KISS_SERVER 127.0.0.1:${taken}) could not listen: the port is already in use`);
      const aprsis = await serveOnce(tmpDir(), { APRSIS_LISTEN: `127.0.0.1:${taken}` });
      expect(aprsis.code).toBe(1);
      expect(aprsis.stderr).toContain(`the APRS-IS server (APRSIS_LISTEN 127.0.0.1:${taken}) could not listen: the port is already in use`);
      const http = await serveOnce(tmpDir(), {}, taken);
      expect(http.stderr).toBe(
        `svc-gateway: the web server on 127.0.0.1:${taken} could not listen: the port is already in use; start with --port N to use another\n`,
      );
    } finally {
      holder.stop(true);
    }
  }, 90_000);

  test("whatever the umask, the gateway's files are 0600 and its folders 0700: database, WAL, backups, lock", async () => {
    const dataDir = tmpDir();
    const backups = join(tmpDir(), "usb", "svc-backups");
    const secret = "umask-test-secret";
    const g = await spawnGateway({
      dataDir,
      env: { BACKUP_DIR: backups, INGEST_SECRET: secret },
      args: undefined,
      cmd: ["sh", "-c", 'umask 022; exec "$@"', "sh", BUN, "--no-env-file", MAIN],
    });
    try {
      const run = await fetch(`${g.url}/api/admin/jobs/backup/run`, {
        method: "POST",
        headers: { "x-ingest-secret": secret, "content-type": "application/json" },
        body: "{}",
      });
      expect(run.status).toBe(200);
      const copy = join(tmpDir(), "by-hand.db");
      const byHand = await runCli(["backup", copy, "--data", dataDir]);
      expect(byHand.code).toBe(0);
      const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
      const files = readdirSync(dataDir).filter((f) => statSync(join(dataDir, f)).isFile());
      expect(files).toContain("svc-gateway.db");
      expect(files).toContain("svc-gateway.db-wal");
      expect(files).toContain("svc-gateway.lock");
      const modes = Object.fromEntries(
        [dataDir, ...files.map((f) => join(dataDir, f)), backups, ...readdirSync(backups).map((f) => join(backups, f)), copy].map((p) => [p, mode(p)]),
      );
      const want = Object.fromEntries(Object.keys(modes).map((p) => [p, p === dataDir || p === backups ? "700" : "600"]));
      expect(modes).toEqual(want);
      expect(readdirSync(backups).length).toBe(1);
    } finally {
      await g.kill();
    }
  }, 60_000);

  test("a lock file damaged by a power cut (its write is not synced) is replaced at start, and the new one still refuses a second serve", async () => {
    const dataDir = tmpDir();
    const g = await spawnGateway({ dataDir });
    await g.kill();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(dataDir, "svc-gateway.lock"), "SQLite format 3\0 torn by a power cut ".repeat(200));
    const again = await spawnGateway({ dataDir });
    try {
      expect((await fetch(`${again.url}/health`)).status).toBe(200);
      const second = await serveOnce(dataDir, {});
      expect({ code: second.code, refused: second.stderr.includes(`another svc-gateway (pid ${again.proc.pid}) is serving`) }).toEqual({
        code: 1,
        refused: true,
      });
    } finally {
      await again.kill();
    }
  }, 60_000);

  test("a data directory an older version left readable is tightened at start", async () => {
    const dataDir = tmpDir();
    const g = await spawnGateway({ dataDir });
    await g.kill();
    const { chmodSync } = await import("node:fs");
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "svc-gateway.db"), 0o644);
    mkdirSync(join(dataDir, "old-backups"), { mode: 0o755 });
    chmodSync(join(dataDir, "old-backups"), 0o755);
    const again = await spawnGateway({ dataDir });
    try {
      expect((statSync(dataDir).mode & 0o777).toString(8)).toBe("700");
      expect((statSync(join(dataDir, "svc-gateway.db")).mode & 0o777).toString(8)).toBe("600");
      expect((statSync(join(dataDir, "old-backups")).mode & 0o777).toString(8)).toBe("700");
    } finally {
      await again.kill();
    }
  }, 60_000);
});
