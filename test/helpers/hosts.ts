/**
 * A gateway on any of its three hosts, as a real server on a port: Bun
 * (`bun src/main.ts serve`) and Node (`npm run start:node`'s bundle) as
 * subprocesses, workerd (`npm run start:worker`'s bundle) through miniflare.
 */
import { readdirSync, readFileSync } from "node:fs";
import { Miniflare } from "miniflare";
import { buildWorkerBundle, workerOptions } from "../../scripts/worker.ts";
import { spawnGateway } from "./gateway.ts";

export type Runtime = "bun" | "node" | "workerd";

export interface Hosted {
  url: string;
  /** the process that runs the gateway (workerd's own, under miniflare) */
  pid(): number;
  stop(): Promise<unknown>;
}

/** The workerd process miniflare started for this process (its child). */
function workerdPid(): number {
  const mine = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        return stat.includes("(workerd)") && Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  if (mine.length !== 1) throw new Error(`expected one workerd child, found ${mine.length}`);
  return mine[0]!;
}

/** A gateway on `runtime` with these settings; `port` 0 (the default) takes a free one. */
export async function startOn(runtime: Runtime, env: Record<string, string>, opts: { port?: number } = {}): Promise<Hosted> {
  if (runtime === "workerd") {
    const mf = new Miniflare(workerOptions(await buildWorkerBundle(), { port: opts.port ?? 0, env: { LOG_LEVEL: "warn", ...env } }));
    const url = (await mf.ready).origin;
    return { url, pid: workerdPid, stop: () => mf.dispose() };
  }
  const g = await spawnGateway({ runtime, port: opts.port, timeoutMs: 120_000, env });
  return { url: g.url, pid: () => g.proc.pid, stop: () => g.kill() };
}
