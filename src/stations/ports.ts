/**
 * Transport status for GET /api/ports. Each transport (APRS-IS client, the
 * ingest box, the radio's KISS ports) registers a function that reports its
 * state; the route lists them all.
 */
import type { Core } from "../core/core.ts";

export interface PortStatus {
  name: string;
  /** aprs-is | ingest | kiss-tcp | kiss-serial | ... */
  kind: string;
  /** up | down | connecting | idle | off */
  state: string;
  /** unix ms of the last line or frame received */
  lastRxAt?: number | null;
  rx?: number;
  tx?: number;
  [k: string]: unknown;
}

declare module "../core/services.ts" {
  interface Services {
    /** each transport's status function, by name, for GET /api/ports */
    ports: Map<string, () => PortStatus>;
  }
}

/** Registers (or replaces) a transport's status function under its name. */
export function registerPort(gw: Core, name: string, status: () => PortStatus): () => void {
  const m = gw.services.ports;
  m.set(name, status);
  return () => m.delete(name);
}

export function listPorts(gw: Core): PortStatus[] {
  return [...gw.services.ports.values()].map((f) => f());
}

/** The ingest box as a port: when it last posted and how much. */
export function ingestPort(gw: Core) {
  const s = { lastRxAt: null as number | null, rx: 0, lastPollAt: null as number | null };
  registerPort(gw, "ingest", () => ({
    name: "ingest",
    kind: "ingest",
    state: gw.config.ingestSecret ? (s.lastRxAt || s.lastPollAt ? "up" : "idle") : "off",
    ...s,
  }));
  return s;
}
