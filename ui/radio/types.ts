/**
 * What the radio page reads from the API (docs/api.md: "ports", "mheard",
 * "nodes", box commands): the server's own types, imported as types only
 * (nothing of src/ or radio/ is bundled by these imports).
 */
import type { PortStatus } from "../../radio/index.ts";
import type { MheardRow } from "../../src/node/heard.ts";
import type { NodeRoute } from "../../src/node/netrom.ts";
import type { BoxCommand } from "../../src/box/service.ts";
import type { HubClientView } from "../../src/hub/clients.ts";

export type { BoxCommand, NodeRoute };
export type Heard = MheardRow;

/** A radio port in GET /api/ports: the port's status under its KISS_PORTS id, with the station's call. */
export type RadioPort = Omit<PortStatus, "id" | "kind" | "state"> & {
  name: string;
  kind: string;
  /** up | down | connecting | idle | off, as every transport in GET /api/ports */
  state: string;
  portState: PortStatus["state"];
  /** RADIO_CALL */
  call: string | null;
  /** whether RADIO_CALL is verified (the station's own beacons and NODES go out) */
  transmit: boolean;
};

export interface NodesView {
  node: { alias: string; call: string; broadcastMinutes: number; lastBroadcastAt: number | null } | null;
  nodes: NodeRoute[];
  routes: NodeRoute[];
}

/** The box that is this gateway's own radio. */
export const LOCAL_BOX = "local";

/** Radio ports from GET /api/ports (the other transports listed there have no `portState`). */
export const radioPorts = (ports: Array<Record<string, unknown>>): RadioPort[] =>
  ports.filter((p) => typeof p.portState === "string") as unknown as RadioPort[];

/** A hub server in GET /api/ports (`kiss-server`, `aprsis-server`) with its clients. */
export interface HubPort {
  name: "kiss-server" | "aprsis-server";
  listen: string;
  clients: HubClientView[];
  sent?: number;
  refused?: number;
  rateLimited?: number;
  served?: number;
  uploaded?: number;
  gatedToRf?: number;
}

/** The hub servers from GET /api/ports. */
export const hubPorts = (ports: Array<Record<string, unknown>>): HubPort[] =>
  ports.filter((p) => p.name === "kiss-server" || p.name === "aprsis-server") as unknown as HubPort[];
