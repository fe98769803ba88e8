/** Debian's aprx (/usr/sbin/aprx) as a KISS client of a gateway's hub port, for the hub and iGate reference tests. */
import type { Subprocess } from "bun";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

export const APRX = "/usr/sbin/aprx";

/**
 * Writes `dir`/aprx.conf (its pid file and logs beside it) for `call` on a
 * KISS TCP interface to 127.0.0.1:`kissPort`, with `before` (after mycall)
 * and `after` (after the interface) sections, and starts aprx in the
 * foreground; what it prints goes to `onOutput` (latin1).
 */
export function startAprx(
  dir: string,
  o: { call: string; kissPort: number; txOk: boolean; before?: string[]; after?: string[] },
  onOutput: (text: string) => void,
): Subprocess<"ignore", "pipe", "pipe"> {
  const conf = join(dir, "aprx.conf");
  const lines = [
    `mycall ${o.call}`,
    ...(o.before ?? []),
    "<logging>",
    `  pidfile ${join(dir, "aprx.pid")}`,
    `  rflog ${join(dir, "aprx-rf.log")}`,
    `  aprxlog ${join(dir, "aprx.log")}`,
    "</logging>",
    "<interface>",
    `  tcp-device 127.0.0.1 ${o.kissPort} KISS`,
    `  callsign ${o.call}`,
    `  tx-ok ${o.txOk}`,
    "</interface>",
    ...(o.after ?? []),
    "",
  ];
  writeFileSync(conf, lines.join("\n"));
  const proc = Bun.spawn([APRX, "-i", "-v", "-f", conf], { cwd: dir, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const pump = async (s: ReadableStream<Uint8Array>) => {
    for await (const c of s as unknown as AsyncIterable<Uint8Array>) onOutput(new TextDecoder("latin1").decode(c));
  };
  void pump(proc.stdout);
  void pump(proc.stderr);
  return proc;
}
