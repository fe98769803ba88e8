/**
 * FBB forwarding over this instance's own radio: AX.25 connected-mode
 * circuits between BBS_AX25_CALL and the partners with transport `ax25`.
 *
 *   calling   connectAx25(): the radio's one way of opening a circuit
 *             (openCircuit, as SVCL1 sync does), from BBS_AX25_CALL to the
 *             partner's ax25Call through its `via` digipeaters; the session
 *             runs with us as caller (forwarding.ts callPartner)
 *   answering the radio hands connections to BBS_AX25_CALL here
 *             (src/node/radio.ts); the caller's call-SSID names the partner,
 *             as FBB does on the air, and the session runs with us as answerer
 */
import type { Gateway } from "../gateway.ts";
import type { Circuit } from "../../radio/index.ts";
import { radioOf } from "../node/radio.ts";
import { openCircuit } from "../node/sync.ts";
import { CircuitLink } from "./fbb/circuit.ts";
import type { SessionReport } from "./fbb/session.ts";
import { refuseCall, runPartnerSession } from "./forwarding.ts";
import { ax25Address, partnerByAx25, partnerByCall, type PartnerRow } from "./partners.ts";

/** Why ax25 partners cannot be called from here at all (settings), or null. */
export function ax25Unavailable(gw: Gateway): string | null {
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
export async function connectAx25(gw: Gateway, p: PartnerRow): Promise<CircuitLink> {
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

/**
 * A station connected to BBS_AX25_CALL: a known, enabled ax25 partner
 * connecting from its ax25Call gets our SID; anyone else gets `*** reason`
 * and is disconnected.
 */
export function answerAx25(gw: Gateway, circuit: Circuit): Promise<SessionReport> {
  const link = new CircuitLink(circuit);
  const who = circuit.peer;
  const partner = partnerByAx25(gw, who);
  if (!partner) {
    const other = partnerByCall(gw, who);
    return refuseCall(
      gw,
      link,
      other
        ? `${who} is not set up here for forwarding over the radio (its transport is ${other.transport})`
        : `${who} is not a forwarding partner of this BBS`,
    );
  }
  if (!partner.enabled) return refuseCall(gw, link, `forwarding with ${partner.call} is switched off here`);
  return runPartnerSession(gw, partner, link, "answerer");
}
