/**
 * Outbound TCP connections with Bun's socket API (handlers for open, data,
 * drain, close, error; `write` answers how many bytes the socket took): Bun's
 * own `Bun.connect`, unless the host's entry point picks another (on Node,
 * src/hosts/node-tcp.ts over node:net). The APRS-IS uplink and FBB
 * forwarding call out through here.
 */
import type { Socket, TCPSocketConnectOptions } from "bun";
import type { TcpConnect } from "../../../radio/port/kiss-port.ts";

// one shape for both: the KISS TCP transport (radio/, which imports nothing of src/) takes it too
export type { TcpConnect };

let chosen: TcpConnect | null = null;

/** The entry point of a host without Bun.connect picks its own, once, before anything connects. */
export function useTcpConnect(connect: TcpConnect): void {
  chosen = connect;
}

export function tcpConnect<Data = undefined>(options: TCPSocketConnectOptions<Data>): Promise<Socket<Data>> {
  return chosen ? chosen(options) : Bun.connect(options);
}
