/**
 * Which of the station's calls an APRS message is a command for, and so the
 * path its answer (and its ack) takes: RADIO_CALL heard on our own radio is
 * answered on RF; APRSIS_CALL or FED_APRS_CALL over APRS-IS is answered there.
 * Null: not a command for us. The outbox asks this too, so a message the
 * commands service acks is not acked a second time.
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";

/** The two ways a radio player's answer goes out (senders.ts keeps who sends on each). */
export type Path = "rf" | "aprsis";

const eq = (a: string | null | undefined, b: string) => !!a && a.toUpperCase() === b.toUpperCase();

export function commandRoute(gw: Core, m: GatewayEvents["aprsMessage"]): { path: Path; call: string } | null {
  const c = gw.config;
  if (m.source === "rf" && m.proof === "radio" && c.radioCall && eq(c.radioCall, m.addressee)) return { path: "rf", call: c.radioCall.toUpperCase() };
  if (m.source === "aprsis") {
    for (const call of [c.aprsIsCall, c.fedAprsCall]) if (call && eq(call, m.addressee)) return { path: "aprsis", call: call.toUpperCase() };
  }
  return null;
}
