/**
 * Serial devices for tests, made by socat: a pty pair (two ends of a null
 * modem), or a pty bridged to a TCP port (a "serial TNC" in front of
 * Direwolf's KISS TCP port).
 */
import type { Subprocess } from "bun";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpDir } from "./tmp.ts";

export interface Socat {
  proc: Subprocess;
  stop(): Promise<void>;
}

async function waitForLinks(proc: Subprocess, links: string[], what: string) {
  const deadline = Date.now() + 5000;
  while (!links.every((l) => existsSync(l))) {
    if (proc.exitCode !== null) throw new Error(`socat for ${what} exited with ${proc.exitCode}`);
    if (Date.now() > deadline) throw new Error(`socat did not make ${links.join(", ")}`);
    await Bun.sleep(10);
  }
}

function stopper(proc: Subprocess, links: string[]) {
  return async () => {
    if (proc.exitCode === null) {
      proc.kill();
      await proc.exited;
    }
    for (const l of links) rmSync(l, { force: true });
  };
}

/** Two ptys joined back to back: bytes written to `a` are read from `b` and the other way round. */
export async function ptyPair(dir = tmpDir("svc-pty-")): Promise<Socat & { a: string; b: string }> {
  const a = join(dir, "ttyA");
  const b = join(dir, "ttyB");
  const proc = Bun.spawn(["socat", `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], { stdout: "ignore", stderr: "ignore" });
  await waitForLinks(proc, [a, b], "a pty pair");
  return { proc, a, b, stop: stopper(proc, [a, b]) };
}

/** A pty at `<dir>/<name>` whose bytes go to and come from TCP `port` on loopback. */
export async function ptyToTcp(port: number, dir = tmpDir("svc-pty-"), name = "tnc"): Promise<Socat & { path: string }> {
  const path = join(dir, name);
  const proc = Bun.spawn(["socat", `pty,raw,echo=0,link=${path}`, `TCP:127.0.0.1:${port}`], { stdout: "ignore", stderr: "ignore" });
  await waitForLinks(proc, [path], `a pty to TCP ${port}`);
  return { proc, path, stop: stopper(proc, [path]) };
}
