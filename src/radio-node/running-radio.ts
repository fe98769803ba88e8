/**
 * The gateway's running radio (started by radio.ts) and whether it may
 * transmit: what the radio's own services (SVCL1 sync, the local box, FBB
 * over AX.25, the hub, the iGate) look up, below radio.ts, which starts them.
 */
import type { Core } from "../core/core.ts";
import type { NetRomNode, PortStatus, Radio } from "../../radio/index.ts";
import { isVerifiedCall, type Transmitter } from "./tx.ts";
import type { Digipeater } from "./digipeater.ts";

/** A port's counters at a per-minute sample (heard.ts). */
export type PortCounters = Pick<PortStatus, "framesIn" | "framesOut" | "bytesIn" | "bytesOut" | "errors">;

/** Counters of the station since the radio started, as the telemetry reports them. */
export interface StationCounts {
  /** frames heard on every radio port */
  heard: number;
  /** APRS frames gated to APRS-IS */
  gated: number;
  /** APRS frames heard and not gated (any rule) */
  notGated: number;
  /** frames sent on every radio port */
  sent: number;
  /** frames the digipeater repeated */
  repeated: number;
  igate: boolean;
  digipeater: boolean;
}

/** The own beacons' schedule and counts (own-beacons.ts). */
export interface OwnBeaconsState {
  positionAt: number | null;
  statusAt: number | null;
  telemetryAt: number | null;
  definitionsAt: number | null;
  seq: number;
  /** frames sent */
  sent: number;
  /** the counts when the last telemetry report went out */
  last: StationCounts | null;
}

export interface GatewayRadio {
  radio: Radio;
  tx: Transmitter;
  /** the NET/ROM node (NODE_ALIAS), or null */
  netrom: NetRomNode | null;
  /** what the per-minute tick last did, and when scheduled sends last went out */
  schedule: { beaconAt: number | null; nodesAt: number | null; syncAt: number | null };
  /** the digipeater (DIGIPEAT, with RADIO_CALL), or null */
  digipeater: Digipeater | null;
  /** each port's counters at the last per-minute sample (heard.ts) */
  counterSamples: Map<string, PortCounters>;
  /** frames heard whole on each port but not stored (a full disk), for GET /api/ports */
  notStored: Map<string, number>;
  /** the last pull over the radio: the next waits for it (sync.ts) */
  pulls: Promise<unknown>;
  /** the own beacons' schedule and counts (own-beacons.ts) */
  beacons: OwnBeaconsState;
  stop(): Promise<void>;
}

declare module "../core/services.ts" {
  interface Services {
    /** the running radio (radio.ts starts it with a serving gateway), or null */
    radio: { running: GatewayRadio | null };
  }
}

/** The gateway's running radio, or null (no ports, or not started: CLI commands). */
export function radioOf(gw: Core): GatewayRadio | null {
  return gw.services.radio.running;
}

/** radio.ts: the radio started (`gr`) or stopped (null). */
export function setRadio(gw: Core, gr: GatewayRadio | null): void {
  gw.services.radio.running = gr;
}

/** Whether this station may transmit now: RADIO_CALL is set and verified. */
export function radioMayTransmit(gw: Core): boolean {
  return isVerifiedCall(gw, gw.config.radioCall);
}
