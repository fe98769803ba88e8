import { beforeAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Target } from "../../build.ts";
import { builtExecutables } from "../helpers/build.ts";
import { ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

let exes: Record<Target, string>;
beforeAll(async () => {
  exes = await builtExecutables();
}, 240_000);

function sh(cmd: string[]) {
  const r = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

test("install into a staging root: executable, service user in dialout, data dir, env file, a unit that verifies", () => {
  const root = tmpDir("stage-");
  const r = sh(["bash", join(ROOT, "install"), "--root", root, "--binary", exes["linux-x64"]]);
  expect(r.code).toBe(0);

  const exe = join(root, "usr/local/bin/svc-gateway");
  expect(statSync(exe).mode & 0o777).toBe(0o755);
  const passwd = readFileSync(join(root, "etc/passwd"), "utf8");
  const user = passwd.split("\n").find((l) => l.startsWith("svc-gateway:"))!;
  expect(user).toContain("/usr/sbin/nologin");
  const uid = Number(user.split(":")[2]);
  expect(readFileSync(join(root, "etc/group"), "utf8")).toMatch(/^dialout:x:\d+:svc-gateway$/m);

  const data = join(root, "var/lib/svc-gateway");
  expect(statSync(data).mode & 0o777).toBe(0o750);
  expect(statSync(data).uid).toBe(uid);
  const env = join(data, "svc-gateway.env");
  expect(statSync(env).mode & 0o777).toBe(0o600);
  expect(readFileSync(env, "utf8")).toMatch(/^INGEST_SECRET=[A-Za-z0-9_-]{32}$/m);

  const unit = readFileSync(join(root, "etc/systemd/system/svc-gateway.service"), "utf8");
  for (const line of [
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ReadWritePaths=/var/lib/svc-gateway",
    "SupplementaryGroups=dialout",
    "User=svc-gateway",
    "Environment=BUN_JSC_useFTLJIT=0",
  ]) {
    expect(unit).toContain(line);
  }

  // systemd-analyze needs systemd's own units inside the root to resolve dependencies.
  mkdirSync(join(root, "usr/lib/systemd"), { recursive: true });
  cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true });
  const verify = sh(["systemd-analyze", "verify", `--root=${root}`, "/etc/systemd/system/svc-gateway.service"]);
  expect(verify.out).toBe("");
  expect(verify.code).toBe(0);

  // Re-running keeps the operator's env file.
  const before = readFileSync(env, "utf8");
  expect(sh(["bash", join(ROOT, "install"), "--root", root, "--binary", exes["linux-x64"]]).code).toBe(0);
  expect(readFileSync(env, "utf8")).toBe(before);

  // And verify does catch a broken install: without the executable the unit fails.
  rmSync(exe);
  expect(sh(["systemd-analyze", "verify", `--root=${root}`, "/etc/systemd/system/svc-gateway.service"]).code).not.toBe(0);
});

test("install refuses a missing executable with a clear message", () => {
  const r = sh(["bash", join(ROOT, "install"), "--root", tmpDir(), "--binary", "/nonexistent/svc-gateway"]);
  expect(r.code).toBe(1);
  expect(r.out).toContain("is not an executable");
});
