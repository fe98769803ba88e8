/**
 * The gateway's running radio (started by radio.ts) and whether it may
 * transmit: what the radio's own services (SVCL1 sync, the local box, FBB
 * over AX.25, the hub, the iGate) look up, below radio.ts, which starts them.
 */
import type { Core } from "../core/core.ts";
import type { NetRomNode, Radio } from "../../radio/index.ts";
import { isVerifiedCall, type Transmitter } from "./tx.ts";

export interface GatewayRadio {
  radio: Radio;
  tx: Transmitter;
  /** the NET/ROM node (NODE_ALIAS), or null */
  netrom: NetRomNode | null;
  /** what the per-minute tick last did, and when scheduled sends last went out */
  schedule: { beaconAt: number | null; nodesAt: number | null; syncAt: number | null };
  stop(): Promise<void>;
}

const radios = new WeakMap<Core, GatewayRadio>();

/** The gateway's running radio, or null (no ports, or not started: CLI commands). */
export function radioOf(gw: Core): GatewayRadio | null {
  return radios.get(gw) ?? null;
}

/** radio.ts: the radio started (`gr`) or stopped (null). */
export function setRadio(gw: Core, gr: GatewayRadio | null): void {
  if (gr) radios.set(gw, gr);
  else radios.delete(gw);
}

/** Whether this station may transmit now: RADIO_CALL is set and verified. */
export function radioMayTransmit(gw: Core): boolean {
  return isVerifiedCall(gw, gw.config.radioCall);
}
