/**
 * FBB forwarding over the radio, answering: a station connected to
 * BBS_AX25_CALL (src/radio-node/radio.ts hands it here). Calling out is ax25.ts.
 */
import type { Core } from "../core/core.ts";
import type { Circuit } from "../../radio/index.ts";
import { CircuitLink } from "./fbb/circuit.ts";
import type { SessionReport } from "./fbb/session.ts";
import { refuseCall, runPartnerSession } from "./forwarding.ts";
import { partnerByAx25, partnerByCall } from "./partners.ts";

/**
 * A station connected to BBS_AX25_CALL: a known, enabled ax25 partner
 * connecting from its ax25Call gets our SID; anyone else gets `*** reason`
 * and is disconnected.
 */
export function answerAx25(gw: Core, circuit: Circuit): Promise<SessionReport> {
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
