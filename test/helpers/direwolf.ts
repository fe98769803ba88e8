/**
 * Two real Direwolf TNCs joined by "audio" through FIFOs, as the radio lab
 * recipe says (../../../shared/radio-lab.md): each instance's transmit audio
 * goes through an ALSA `file` pcm (null slave) into a FIFO the other reads as
 * its stdin, `FULLDUP ON`, free ports, HOME in the test dir for .asoundrc,
 * and stdout read for the whole run (direwolf dies of SIGPIPE otherwise).
 * Start one pair per test file; frames take about a second each.
 */
import type { Subprocess } from "bun";
import { closeSync, existsSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ptyToTcp, type Socat } from "./socat.ts";
import { tmpDir } from "./tmp.ts";
import { decodeFrame, formatTnc2, KissPort, tcpTransport } from "../../radio/index.ts";
import { freePorts } from "./ports.ts";

export interface Direwolf {
  /** MYCALL of this instance. */
  call: string;
  kissPort: number;
  agwPort: number;
  proc: Subprocess;
  /** Everything it printed so far, one char per byte (latin1), so binary info survives. */
  log(): string;
  /**
   * Resolves with the first match of `pattern` printed at or after log offset
   * `from` (default: anywhere); rejects after `timeoutMs` with the log tail.
   */
  waitForLog(pattern: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<RegExpExecArray>;
}

export interface DirewolfPair {
  dir: string;
  a: Direwolf;
  b: Direwolf;
  /** A pty at `<dir>/<name>` bridged to `dw`'s KISS TCP port: a serial TNC. */
  serialTnc(dw: Direwolf, name?: string): Promise<Socat & { path: string }>;
  stop(): Promise<void>;
}

export const direwolfInstalled = () => existsSync("/usr/bin/direwolf") && existsSync("/usr/bin/socat");

function watch(proc: Subprocess<"ignore" | number, "pipe", "pipe">) {
  let out = "";
  const waiters = new Set<() => void>();
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder("latin1");
    for await (const chunk of s as unknown as AsyncIterable<Uint8Array>) {
      out += dec.decode(chunk, { stream: true });
      for (const w of [...waiters]) w();
    }
    for (const w of [...waiters]) w();
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return {
    log: () => out,
    waitForLog(pattern: RegExp, opts: { from?: number; timeoutMs?: number } = {}): Promise<RegExpExecArray> {
      const re = new RegExp(pattern.source, pattern.flags.replace("g", ""));
      const from = opts.from ?? 0;
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out.slice(from));
          if (m) {
            done();
            resolve(m);
          } else if (proc.exitCode !== null) {
            done();
            reject(new Error(`direwolf exited (${proc.exitCode}) before printing ${pattern}:\n${out.slice(-2000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`direwolf did not print ${pattern} in ${opts.timeoutMs ?? 20_000} ms:\n${out.slice(-2000)}`));
        }, opts.timeoutMs ?? 20_000);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export interface PairOptions {
  /** MYCALL of the two instances. */
  calls?: [string, string];
  /** Extra direwolf.conf lines for each instance (e.g. PACLEN, MAXFRAME). */
  extra?: [string[], string[]];
}

export async function startDirewolfPair(opts: PairOptions = {}): Promise<DirewolfPair> {
  const dir = tmpDir("svc-dw-");
  const [k1, a1, k2, a2] = await freePorts(4);
  const calls = opts.calls ?? ["N0DW-1", "N0DW-2"];
  // short ALSA device names: direwolf copies them into 30-byte buffers
  writeFileSync(
    join(dir, ".asoundrc"),
    `pcm.tx1 { type file slave.pcm null file "${join(dir, "ch1to2")}" format raw }\n` +
      `pcm.tx2 { type file slave.pcm null file "${join(dir, "ch2to1")}" format raw }\n`,
  );
  const conf = (n: 1 | 2, kiss: number, agw: number) => {
    const path = join(dir, `dw${n}.conf`);
    const lines = [
      `ADEVICE stdin tx${n}`,
      "ARATE 48000",
      "CHANNEL 0",
      `MYCALL ${calls[n - 1]}`,
      "MODEM 1200",
      "FULLDUP ON",
      `AGWPORT ${agw}`,
      `KISSPORT ${kiss}`,
      ...(opts.extra?.[n - 1] ?? []),
    ];
    writeFileSync(path, lines.join("\n") + "\n");
    return path;
  };
  for (const f of ["ch1to2", "ch2to1"]) {
    const r = Bun.spawnSync(["mkfifo", join(dir, f)]);
    if (r.exitCode !== 0) throw new Error(`mkfifo failed: ${r.stderr}`);
  }
  const start = (n: 1 | 2, kiss: number, agw: number, input: string): Direwolf => {
    // read-write, like the shell's `<>`: a read-only open would wait for a writer forever
    const fd = openSync(join(dir, input), "r+");
    const proc = Bun.spawn(["direwolf", "-t", "0", "-q", "hd", "-c", conf(n, kiss, agw)], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
      stdin: fd,
      stdout: "pipe",
      stderr: "pipe",
    });
    closeSync(fd);
    const w = watch(proc as Subprocess<number, "pipe", "pipe">);
    return { call: calls[n - 1]!, kissPort: kiss, agwPort: agw, proc, log: w.log, waitForLog: w.waitForLog };
  };
  const a = start(1, k1!, a1!, "ch2to1");
  const b = start(2, k2!, a2!, "ch1to2");
  const bridges: Socat[] = [];
  const stop = async () => {
    await Promise.all(bridges.map((s) => s.stop()));
    for (const p of [a.proc, b.proc]) if (p.exitCode === null) p.kill();
    await Promise.all([a.proc.exited, b.proc.exited]);
  };
  try {
    await Promise.all([
      a.waitForLog(new RegExp(`Ready to accept KISS TCP client application 0 on port ${k1}`)),
      b.waitForLog(new RegExp(`Ready to accept KISS TCP client application 0 on port ${k2}`)),
      a.waitForLog(new RegExp(`Ready to accept AGW client application 0 on port ${a1}`)),
      b.waitForLog(new RegExp(`Ready to accept AGW client application 0 on port ${a2}`)),
    ]);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    dir,
    a,
    b,
    serialTnc: async (dw, name = `tnc-${dw.call}`) => {
      const s = await ptyToTcp(dw.kissPort, dir, name);
      bridges.push(s);
      return s;
    },
    stop,
  };
}

/** A KISS client on a Direwolf's port, once connected; every frame it hears goes to `onLine` as TNC2 text. */
export async function tnc2Listener(kissPort: number, onLine: (line: string) => void): Promise<KissPort> {
  const port = new KissPort(tcpTransport("127.0.0.1", kissPort)).start();
  await port.whenConnected();
  port.onFrame((bytes) => {
    const f = decodeFrame(bytes);
    if (!f.ok) return;
    const t = formatTnc2(f.value);
    if (t.ok) onLine(new TextDecoder().decode(t.value));
  });
  return port;
}
