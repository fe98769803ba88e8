/**
 * The shipped product: executables for four targets, the host one started the
 * way an operator double-clicks it, the Pi one under qemu-user.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, closeSync, copyFileSync, existsSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import type { Target } from "../../build.ts";
import { builtExecutables } from "../helpers/build.ts";
import { runCli, spawnGateway } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";

let exes: Record<Target, string>;
beforeAll(async () => {
  exes = await builtExecutables();
}, 240_000);

const head = Bun.spawnSync(["git", "rev-parse", "HEAD"]).stdout.toString().trim();

function magic(file: string, n = 20): Buffer {
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(n);
  readSync(fd, buf, 0, n, 0);
  closeSync(fd);
  return buf;
}

const portFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "0.0.0.0", () => s.close(() => resolve(true)));
  });

describe("build", () => {
  test("bun run build makes executables for linux-x64, linux-arm64, windows-x64 and darwin-arm64", () => {
    const elf = (f: string) => magic(f);
    const x64 = elf(exes["linux-x64"]);
    expect([...x64.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(x64.readUInt16LE(18)).toBe(62); // EM_X86_64
    const arm = elf(exes["linux-arm64"]);
    expect([...arm.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(arm.readUInt16LE(18)).toBe(183); // EM_AARCH64
    const win = magic(exes["windows-x64"], 2);
    expect(Buffer.from(win).toString("latin1")).toBe("MZ");
    const mac = magic(exes["darwin-arm64"], 8);
    expect(mac.readUInt32LE(0)).toBe(0xfeedfacf); // MH_MAGIC_64
    expect(mac.readUInt32LE(4)).toBe(0x0100000c); // CPU_TYPE_ARM64
    for (const f of Object.values(exes)) expect(statSync(f).size).toBeGreaterThan(10_000_000);
  });

  test("the executable carries its commit and the web app", async () => {
    const v = await runCli(["--version"], { cmd: [exes["linux-x64"]] });
    expect(v.stdout.trim()).toBe(`svc-gateway 0.1.0 (${head.slice(0, 12)})`);
    const gw = await spawnGateway({ cmd: [exes["linux-x64"]] });
    try {
      const src = (await (await fetch(gw.url + "/.well-known/source")).json()) as { commit: string };
      expect(src.commit).toBe(head);
      const html = await (await fetch(gw.url + "/", { headers: { accept: "text/html" } })).text();
      const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
      const res = await fetch(gw.url + js);
      expect(res.status).toBe(200);
      expect((await res.text()).length).toBeGreaterThan(10_000);
    } finally {
      await gw.kill();
    }
  });

  test("the executable's bytecode is laid out by a recorded start-up: what serving ran came from the profiled part", async () => {
    const secret = "release-ingest-secret-0123456789";
    const gw = await spawnGateway({ cmd: [exes["linux-x64"]], env: { INGEST_SECRET: secret } });
    try {
      expect((await fetch(gw.url + "/health")).status).toBe(200);
      const res = await fetch(gw.url + "/api/admin/runtime", { headers: { "x-ingest-secret": secret } });
      expect(res.status).toBe(200);
      const layout = ((await res.json()) as { bytecodeLayout: { hot: number; cold: number; unknown: number } | null }).bytecodeLayout;
      expect(layout).not.toBeNull();
      // start-up loads some 900 functions; those the recording did not run are the few this request added
      expect(layout!.hot).toBeGreaterThan(500);
      expect(layout!.cold).toBeLessThan(layout!.hot / 10);
      expect(layout!.unknown).toBe(0);
    } finally {
      await gw.kill();
    }
  });

  test("double-clicked with no configuration: port 8080, data beside the executable, a stray .env ignored", async () => {
    const home = tmpDir();
    const bin = join(home, "ham-shack");
    mkdirSync(bin);
    const exe = join(bin, "svc-gateway");
    copyFileSync(exes["linux-x64"], exe);
    chmodSync(exe, 0o755);
    // Started from another directory that holds a stray .env and bunfig.toml.
    const cwd = join(home, "elsewhere");
    mkdirSync(cwd);
    writeFileSync(join(cwd, ".env"), "PORT=9999\nINSTANCE=stray-env\nHOST=127.0.0.1\n");
    writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./nope.ts"]\n');
    if (!(await portFree(8080))) {
      // Someone else holds 8080: the operator gets a clear message, not a crash.
      const r = await runCli([], { cmd: [exe], cwd });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain("port 8080");
      return;
    }
    const gw = await spawnGateway({ cmd: [exe], args: [], cwd });
    try {
      expect(gw.url).toBe("http://localhost:8080");
      expect(gw.output()).toContain(`data: ${join(bin, "svc-data")}`);
      const cfg = (await (await fetch("http://127.0.0.1:8080/api/config")).json()) as { instance: string };
      expect(cfg.instance).toBe("local");
      expect(existsSync(join(bin, "svc-data", "svc-gateway.db"))).toBe(true);
      expect(existsSync(join(cwd, "svc-data"))).toBe(false);
    } finally {
      await gw.kill();
    }
  });

  test("the linux-arm64 (Raspberry Pi) executable answers /health under qemu-user", async () => {
    const secret = "release-ingest-secret-0123456789";
    const gw = await spawnGateway({
      cmd: ["qemu-aarch64-static", "-L", "/usr/aarch64-linux-gnu", exes["linux-arm64"]],
      env: { INGEST_SECRET: secret },
      timeoutMs: 90_000,
    });
    try {
      const res = await fetch(gw.url + "/health");
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe("ok");
      // the start-up profile recorded on x64 applies to the arm64 build of the same source
      const runtime = await fetch(gw.url + "/api/admin/runtime", { headers: { "x-ingest-secret": secret } });
      const layout = ((await runtime.json()) as { bytecodeLayout: { hot: number; unknown: number } | null }).bytecodeLayout;
      expect(layout!.hot).toBeGreaterThan(500);
      expect(layout!.unknown).toBe(0);
    } finally {
      await gw.kill("SIGKILL");
    }
  }, 120_000);
});
