/**
 * What the radio page reads from the API (docs/api.md: "ports", "mheard",
 * "nodes", box commands): the server's own types, imported as types only
 * (nothing of src/ or radio/ is bundled by these imports).
 */
import type { PortStatus } from "../../radio/index.ts";
import type { MheardRow } from "../../src/radio-node/heard.ts";
import type { NodeRoute } from "../../src/radio-node/netrom.ts";
import type { BoxCommand } from "../../src/box/service.ts";
import type { HubClientView } from "../../src/hub/clients.ts";
import type { OwnBeaconsStatus } from "../../src/radio-node/own-beacons.ts";
import type { IgateStatus } from "../../src/stations/igate.ts";
import type { DigipeaterStatus } from "../../src/radio-node/digipeater.ts";

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
  /** of the refused: KISS_SERVER_TX is off; the frame's source is not verified here */
  txOff?: number;
  notAllowed?: number;
  rateLimited?: number;
  served?: number;
  uploaded?: number;
  gatedToRf?: number;
}

/** The hub servers from GET /api/ports. */
export const hubPorts = (ports: Array<Record<string, unknown>>): HubPort[] =>
  ports.filter((p) => p.name === "kiss-server" || p.name === "aprsis-server") as unknown as HubPort[];

/** The station's own beacons in GET /api/ports (`beacons`, src/radio-node/own-beacons.ts). */
export type BeaconsPort = OwnBeaconsStatus;

/** The `beacons` entry of GET /api/ports, when the radio runs. */
export const beaconsPort = (ports: Array<Record<string, unknown>>): BeaconsPort | null =>
  (ports.find((p) => p.name === "beacons" && p.kind === "beacons") as unknown as BeaconsPort | undefined) ?? null;

/** The iGate's counters: the `igate` of GET /api/ports' `aprs-is` entry (src/stations/igate.ts). */
export type IgatePort = IgateStatus;

/** The `digipeater` entry of GET /api/ports (src/radio-node/digipeater.ts). */
export type DigipeaterPort = DigipeaterStatus & { transmit: boolean; state: string };

/** The iGate, from the `aprs-is` entry, when the gateway reports one. */
export const igatePort = (ports: Array<Record<string, unknown>>): IgatePort | null =>
  ((ports.find((p) => p.name === "aprs-is") as { igate?: IgatePort } | undefined)?.igate as IgatePort | undefined) ?? null;

/** The digipeater entry, when the gateway reports one. */
export const digipeaterPort = (ports: Array<Record<string, unknown>>): DigipeaterPort | null =>
  (ports.find((p) => p.name === "digipeater" && p.kind === "digipeater") as unknown as DigipeaterPort | undefined) ?? null;
