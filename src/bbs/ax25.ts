/**
 * FBB forwarding over this instance's own radio: AX.25 connected-mode
 * circuits between BBS_AX25_CALL and the partners with transport `ax25`.
 *
 *   calling   connectAx25(): the radio's one way of opening a circuit
 *             (openCircuit, as SVCL1 sync does), from BBS_AX25_CALL to the
 *             partner's ax25Call through its `via` digipeaters; the session
 *             runs with us as caller (forwarding.ts callPartner)
 *   answering the radio hands connections to BBS_AX25_CALL to
 *             answerAx25 (ax25-answer.ts, above forwarding.ts, which calls
 *             out through this file); the caller's call-SSID names the
 *             partner, as FBB does on the air, and the session runs with us
 *             as answerer
 */
import type { Core } from "../core/core.ts";
import { radioOf } from "../radio-node/running-radio.ts";
import { openCircuit } from "../radio-node/sync.ts";
import { CircuitLink } from "./fbb/circuit.ts";
import { ax25Address, type PartnerRow } from "./partners.ts";

/** Why ax25 partners cannot be called from here at all (settings), or null. */
export function ax25Unavailable(gw: Core): string | null {
  if (!gw.config.bbsAx25Call) return "set BBS_AX25_CALL (the call-SSID this BBS uses on the air) to forward over the radio";
  if (!radioOf(gw)) return "this gateway has no radio port (KISS_PORTS)";
  return null;
}

/** Where an ax25 partner is called, for messages: `N0BBS-1 via RELAY`. */
export function ax25Target(p: PartnerRow): string {
  const via = JSON.parse(p.via) as string[];
  return `${ax25Address(p)}${via.length ? ` via ${via.join(",")}` : ""}`;
}

/** Connects to an ax25 partner; throws with the reason when the circuit cannot be made. */
export async function connectAx25(gw: Core, p: PartnerRow): Promise<CircuitLink> {
  const why = ax25Unavailable(gw);
  if (why) throw new Error(why);
  const circuit = await openCircuit(
    gw,
    radioOf(gw)!,
    { transport: "ax25", address: ax25Address(p) },
    { from: gw.config.bbsAx25Call!, via: JSON.parse(p.via) as string[] },
  );
  return new CircuitLink(circuit);
}
