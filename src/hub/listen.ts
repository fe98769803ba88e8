/**
 * Opening a hub server's listening socket, and how its address reads in
 * GET /api/ports and the log.
 */
import type { Core } from "../gateway.ts";

/** host:port as a client would dial it (IPv6 in brackets). */
export const hostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** Runs `open`; a port already taken is logged and reported as null (the gateway still starts). */
export function openListener<T>(gw: Core, what: string, open: () => T): T | null {
  try {
    return open();
  } catch (e) {
    gw.log.error("hub", `${what} could not listen: ${(e as Error).message}`);
    return null;
  }
}
