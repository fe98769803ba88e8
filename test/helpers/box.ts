/**
 * `svc-gateway box --gateway URL` as an operator runs it beside a TNC: a real
 * process, started once its TNC link is up (a frame heard before then is lost
 * to it, as to any station that is off).
 */
import type { Subprocess } from "bun";
import { BUN, MAIN } from "./paths.ts";
import { waitFor } from "./wait.ts";

export interface BoxProcess {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /** everything it printed so far */
  output(): string;
}

export async function startBox(opts: { gateway: string; id: string; dataDir: string; kissPort: number; secret: string; call?: string }): Promise<BoxProcess> {
  const proc = Bun.spawn([BUN, "--no-env-file", MAIN, "box", "--gateway", opts.gateway, "--id", opts.id, "--data", opts.dataDir], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: process.env.HOME ?? "/tmp",
      LOG_LEVEL: "info",
      KISS_PORTS: `tcp://127.0.0.1:${opts.kissPort}`,
      RADIO_CALL: opts.call ?? "N0BOX-10",
      INGEST_SECRET: opts.secret,
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let out = "";
  for (const s of [proc.stdout, proc.stderr])
    void (async () => {
      for await (const c of s as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(c);
    })();
  await waitFor(
    () => /TNC \S+ connected/.test(out) || proc.exitCode !== null,
    () => `the box's TNC to connect:\n${out}`,
    { timeoutMs: 30_000 },
  );
  if (proc.exitCode !== null) throw new Error(`the box exited (${proc.exitCode}):\n${out}`);
  return { proc, output: () => out };
}
