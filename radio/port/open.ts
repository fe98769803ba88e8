import type { KissPortConfig } from "./config.ts";
import { KissPort, type KissPortOptions } from "./kiss-port.ts";
import { serialTransport } from "./serial.ts";
import { tcpTransport } from "./tcp.ts";

/** A KissPort for a configured entry (not started). */
export function openKissPort(c: KissPortConfig, opts: KissPortOptions = {}): KissPort {
  const transport = c.kind === "tcp" ? tcpTransport(c.host, c.port, { connect: opts.connect }) : serialTransport(c.path, c.baud);
  return new KissPort(transport, { auto: c.kind === "tcp" && c.auto === true, ...opts });
}
