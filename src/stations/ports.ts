/**
 * Transport status for GET /api/ports. Each transport (APRS-IS client, the
 * ingest box, the radio's KISS ports) registers a function that reports its
 * state; the route lists them all.
 */
import type { Core } from "../core/core.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs } from "../lib/schema.ts";

/**
 * A transport's status. The members every transport has are declared; the
 * rest are each transport's own (the KISS and APRS-IS servers' clients, the
 * radio port's counters, federation's peers...), registered at run time by the
 * domain that runs it, so the schema leaves them open.
 */
export const PORT_STATUS = t.Object(
  {
    name: t.String(),
    kind: t.String({ description: "aprs-is, ingest, kiss-tcp, kiss-serial, kiss-server, aprsis-server, federation, digipeater, beacons, tls..." }),
    state: t.String({ description: "up, down, connecting, idle, failing, off" }),
    lastRxAt: t.Optional(nullable(unixMs(), "the last line or frame received, unix ms")),
    rx: t.Optional(t.Number({ description: "lines or frames received" })),
    tx: t.Optional(t.Number({ description: "lines or frames sent" })),
  },
  { additionalProperties: t.Unknown({ description: "the transport's own fields (clients, listen, peers, counters...)" }) },
);
export type PortStatus = Static<typeof PORT_STATUS> & { [k: string]: unknown };
/** The radio ports and hub servers (GET /api/ports). */
export const PORTS = closed({ ports: t.Array(PORT_STATUS) });

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
