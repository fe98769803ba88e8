/**
 * Starting real gateways for tests: in this process (fast; the test can reach
 * the Gateway object) or as a subprocess (what an operator runs; can be killed).
 */
import type { Subprocess } from "bun";
import { configFor } from "../../src/core/config.ts";
import { createGateway, type Clock, type Gateway } from "../../src/hosts/gateway.ts";
import { createLogger, type Logger } from "../../src/lib/log.ts";
import { BUN, MAIN } from "./paths.ts";
import { tmpDir } from "./tmp.ts";
import { buildNodeBundle, nodeCommand, nodeRuntime } from "../../scripts/node.ts";

export interface Running {
  gw: Gateway;
  url: string;
  dataDir: string;
  /** fetch relative to the gateway's URL */
  get(path: string, init?: RequestInit): Promise<Response>;
  post(path: string, body: unknown, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** A real gateway listening on a free loopback port, in this process. */
export async function startInProcess(env: Record<string, string> = {}, opts: { dataDir?: string; log?: Logger; clock?: Clock } = {}): Promise<Running> {
  const dataDir = opts.dataDir ?? tmpDir();
  // No radio unless a test asks for one: never a TNC that happens to run on this machine.
  const config = configFor(dataDir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off", ...env });
  const gw = createGateway({ config, log: opts.log ?? createLogger(config.logLevel), clock: opts.clock });
  const url = await gw.listen();
  return {
    gw,
    url,
    dataDir,
    get: (path, init) => fetch(url + path, init),
    post: (path, body, init) =>
      fetch(url + path, {
        method: "POST",
        ...init,
        headers: { "content-type": "application/json", ...(init?.headers as Record<string, string>) },
        body: typeof body === "string" || body instanceof Uint8Array ? (body as BodyInit) : JSON.stringify(body),
      }),
    stop: () => gw.stop(),
  };
}

/**
 * A test file's afterAll: closes or stops, in the order given, each of what
 * its beforeAll got to start (a browser, gateways, fake TNCs); what was never
 * started (undefined or null) is passed over.
 */
export async function stopAll(...things: Array<{ close(): unknown } | { stop(): unknown } | null | undefined>): Promise<void> {
  for (const x of things) {
    if (x == null) continue;
    await ("close" in x ? x.close() : x.stop());
  }
}

/** A logger that keeps every line (at `level` and above) for the test to read. */
export function captureLog(level: "debug" | "info" | "warn" | "error" = "info"): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  return { log: createLogger(level, (l) => lines.push(l)), lines };
}

export interface Spawned {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  url: string;
  dataDir: string;
  /** everything printed so far on stdout and stderr */
  output(): string;
  kill(signal?: NodeJS.Signals | number): Promise<number>;
}

let nodeBundle: Promise<string> | null = null;

/** The command that runs the gateway on Node, as `npm run start:node` does (the bundle is built once per test run). */
export async function nodeGatewayCommand(): Promise<string[]> {
  nodeBundle ??= buildNodeBundle();
  return nodeCommand(nodeRuntime(), await nodeBundle);
}

/** What a subprocess writes on stdout and stderr, collected as it comes: read it with the function returned. */
export function collectOutput(proc: { stdout: ReadableStream<Uint8Array>; stderr: ReadableStream<Uint8Array> }): () => string {
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of s as unknown as AsyncIterable<Uint8Array>) out += dec.decode(chunk, { stream: true });
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return () => out;
}

/**
 * Spawns `svc-gateway serve` (from source, or an executable) and waits for the
 * line that prints its URL.
 */
/** The suite's answer check (test/preload.ts), passed on to the gateways it spawns. */
const checkedAnswers = (): Record<string, string> => (process.env.SVC_CHECK_ANSWERS ? { SVC_CHECK_ANSWERS: process.env.SVC_CHECK_ANSWERS } : {});

export async function spawnGateway(opts: {
  env?: Record<string, string>;
  dataDir?: string;
  /** "node": the gateway on Node (node:sqlite, node:http), from the bundle `npm run start:node` runs; default bun */
  runtime?: "bun" | "node";
  /** command that runs svc-gateway, e.g. [exe] or [qemu, exe]; default: bun src/main.ts (or the runtime's) */
  cmd?: string[];
  args?: string[];
  cwd?: string;
  port?: number;
  timeoutMs?: number;
}): Promise<Spawned> {
  const dataDir = opts.dataDir ?? tmpDir();
  const cmd = opts.cmd ?? (opts.runtime === "node" ? await nodeGatewayCommand() : [BUN, "--no-env-file", MAIN]);
  const args = opts.args ?? ["serve", "--data", dataDir, "--port", String(opts.port ?? 0), "--host", "127.0.0.1"];
  const proc = Bun.spawn([...cmd, ...args], {
    cwd: opts.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      LOG_LEVEL: "warn",
      KISS_PORTS: "off",
      ...checkedAnswers(),
      ...opts.env,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = collectOutput(proc);
  const deadline = Date.now() + (opts.timeoutMs ?? 20_000);
  for (;;) {
    const m = /Open (https?:\/\/\S+?)\/ in your browser/.exec(output());
    // The start-up lines after the URL (LAN addresses, data directory) may arrive in a later chunk.
    if (m && output().includes("  data: ")) {
      return {
        proc,
        url: m[1]!,
        dataDir,
        output,
        kill: async (signal = "SIGTERM") => {
          proc.kill(signal);
          return proc.exited;
        },
      };
    }
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`gateway did not start (exit ${proc.exitCode}):\n${output()}`);
    }
    await Bun.sleep(20);
  }
}

/** Runs a CLI command to completion: `svc-gateway ...args`. */
export async function runCli(
  args: string[],
  opts: { env?: Record<string, string>; runtime?: "bun" | "node"; cmd?: string[]; cwd?: string; stdin?: Uint8Array } = {},
) {
  const cmd = opts.cmd ?? (opts.runtime === "node" ? await nodeGatewayCommand() : [BUN, "--no-env-file", MAIN]);
  const proc = Bun.spawn([...cmd, ...args], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", ...opts.env },
    stdin: opts.stdin ? new Blob([opts.stdin as Uint8Array<ArrayBuffer>]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}
