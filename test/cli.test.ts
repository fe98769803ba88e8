import { describe, expect, test } from "bun:test";
import { createPublicKey, sign, verify } from "node:crypto";
import { writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { runCli, spawnGateway } from "./helpers/gateway.ts";
import { BUN, MAIN } from "./helpers/paths.ts";
import { tmpDir } from "./helpers/tmp.ts";
import { privateKeyObject } from "../src/lib/fed/keys.ts";
import { ENV_FILE_NAME } from "../src/core/config.ts";

describe("command line", () => {
  test("--help lists commands, flags and every setting", async () => {
    const r = await runCli(["--help"]);
    expect(r.code).toBe(0);
    for (const s of [
      "serve",
      "keygen",
      "check",
      "backup",
      "restore",
      "--data",
      "--port",
      "--host",
      "INGEST_SECRET",
      "ADMIN_CALLSIGNS",
      "FED_PEERS",
      "DOH_URL",
      "BACKUP_DIR",
      "BACKUP_KEEP",
    ]) {
      expect(r.stdout).toContain(s);
    }
  });

  test("--version prints the version", async () => {
    const r = await runCli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^svc-gateway \d+\.\d+\.\d+/);
  });

  test("keygen prints a working signing key and its public key", async () => {
    const r = await runCli(["keygen"]);
    expect(r.code).toBe(0);
    const priv = /^FED_PRIVATE_KEY=([A-Za-z0-9_-]{43})$/m.exec(r.stdout)?.[1];
    const pub = /^FED_PUBLIC_KEY=([A-Za-z0-9_-]{43})$/m.exec(r.stdout)?.[1];
    expect(priv).toBeDefined();
    expect(pub).toBeDefined();
    // The printed public key verifies what the printed private key signs.
    const msg = Buffer.from("svc-fed/1\nhello");
    const sig = sign(null, msg, privateKeyObject(priv!));
    const pubKey = createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: pub! }, format: "jwk" });
    expect(verify(null, msg, pubKey, sig)).toBe(true);
    // Two runs give two different keys.
    const again = await runCli(["keygen"]);
    expect(again.stdout).not.toBe(r.stdout);
  });

  test("check passes a good configuration", async () => {
    const dir = tmpDir();
    const r = await runCli(["check", "--data", dir], { env: { INGEST_SECRET: "x".repeat(20), ADMIN_CALLSIGNS: "N0CALL" } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("configuration OK");
    expect(r.stdout).toContain("N0CALL");
  });

  test("check exits non-zero with one message per bad setting, from env or env file", async () => {
    const dir = tmpDir();
    writeFileSync(join(dir, ENV_FILE_NAME), "PACKETS_TTL_HOURS=soon\n");
    const r = await runCli(["check", "--data", dir], { env: { PORT: "70000", ADMIN_CALLSIGNS: "??" } });
    expect(r.code).toBe(1);
    const errors = r.stderr.split("\n").filter((l) => l.startsWith("error: "));
    expect(errors).toHaveLength(3);
    expect(r.stderr).toContain("error: PORT 70000 is out of range");
    expect(r.stderr).toContain('error: PACKETS_TTL_HOURS "soon" is not a whole number of hours');
    expect(r.stderr).toContain('error: ADMIN_CALLSIGNS "??" is not a valid callsign');
  });

  test("serve refuses to start on bad settings and says why", async () => {
    const dir = tmpDir();
    const r = await runCli(["serve", "--data", dir, "--port", "0"], { env: { SPOTS_ENABLED: "perhaps" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: SPOTS_ENABLED");
    expect(existsSync(join(dir, "svc-gateway.db"))).toBe(false);
  });

  test("an unknown command or flag is a usage error", async () => {
    expect((await runCli(["frobnicate"])).code).toBe(2);
    expect((await runCli(["--bogus"])).code).toBe(2);
  });

  test("a failure no command expects is one line naming the command, not a stack trace", async () => {
    const file = join(tmpDir(), "a-file");
    writeFileSync(file, "not a directory");
    const r = await runCli(["serve", "--data", join(file, "svc-data"), "--port", "0"]);
    expect({ code: r.code, lines: r.stderr.trim().split("\n").length, stack: /\n\s+at /.test(r.stderr) }).toEqual({ code: 1, lines: 1, stack: false });
    expect(r.stderr).toStartWith("svc-gateway serve: ");
    expect(r.stderr).toContain("ENOTDIR");
  });

  test("a second gateway on a port already in use stops with the port message and a non-zero exit", async () => {
    const key = /^FED_PRIVATE_KEY=(\S+)$/m.exec((await runCli(["keygen"])).stdout)![1]!;
    const env = { FED_PRIVATE_KEY: key, INSTANCE: "gw-first.example" };
    const first = await spawnGateway({ env });
    try {
      const port = new URL(first.url).port;
      const proc = Bun.spawn([BUN, "--no-env-file", MAIN, "serve", "--data", tmpDir(), "--port", port, "--host", "127.0.0.1"], {
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: process.env.HOME ?? "/tmp",
          LOG_LEVEL: "warn",
          KISS_PORTS: "off",
          FED_PRIVATE_KEY: key,
          INSTANCE: "gw-second.example",
        },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      // A second gateway that binds beside the first keeps running: give it 20 s to stop.
      const code = await Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running" as const)]);
      if (code === "still running") proc.kill("SIGKILL");
      const stderr = await new Response(proc.stderr).text();
      const stdout = await new Response(proc.stdout).text();
      expect({ code, stderr, started: stdout.includes("is running") }).toEqual({
        code: 1,
        stderr: `svc-gateway: the web server on 127.0.0.1:${port} could not listen: the port is already in use; start with --port N to use another\n`,
        started: false,
      });
      // The first gateway is untouched and still the one answering.
      expect((await fetch(first.url + "/health?live")).status).toBe(200);
    } finally {
      await first.kill();
    }
  }, 60_000);
});
