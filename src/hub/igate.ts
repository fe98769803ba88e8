/**
 * The IGate's internet-to-RF rule for packets that verified clients of the
 * gateway's APRS-IS server send (the upstream APRS-IS feed is never gated):
 * a message, ack or reject (not a bulletin) goes on the air when
 *
 *   - its addressee was heard on this gateway's own radio (MHeard) in the last
 *     IGATE_HEARD_MS, and not heard on APRS-IS since (the station registry's
 *     last packet of that call came from RF);
 *   - the same message was not gated in the last IGATE_DUPE_MS;
 *   - the transmitter allows it: RADIO_CALL verified, a token of
 *     RADIO_TX_PER_MINUTE (src/radio-node/tx.ts sendFrame).
 *
 * It goes as a third-party packet from RADIO_CALL, RADIO_PATH as its path:
 * `RADIO_CALL>APZSVC,WIDE1-1,WIDE2-1:}SRC>DST,TCPIP,RADIO_CALL*::ADDRESSEE:text`.
 */
import type { Core } from "../core/core.ts";
import type { AprsPacket } from "../lib/aprs/types.ts";
import { TOCALL } from "../lib/aprs/encode.ts";
import { radioOf } from "../radio-node/running-radio.ts";
import type { FrameTxResult } from "../radio-node/tx.ts";
import { parseAddressLoose, uiFrame } from "../../radio/index.ts";
import type { Header } from "./qconstruct.ts";

const IGATE_HEARD_MS = 30 * 60_000;
const IGATE_DUPE_MS = 30_000;

const GATED_KINDS = new Set(["message", "ack", "rej"]);

export type GateResult = FrameTxResult | "not-a-message" | "not-heard-on-rf" | "heard-on-aprs-is" | "duplicate" | "no-radio";

/** Why `addressee` may not be reached on RF from here, or null when it may. */
function reachableOnRf(gw: Core, addressee: string, now: number): GateResult | null {
  const heard = gw.db.query("SELECT max(last_ts) AS at FROM mheard WHERE call = ? COLLATE NOCASE").get(addressee) as { at: number | null };
  if (heard.at === null || now - heard.at > IGATE_HEARD_MS) return "not-heard-on-rf";
  const st = gw.db.query("SELECT source, last_heard FROM stations WHERE call = ?").get(addressee) as { source: string | null; last_heard: number } | null;
  if (st && st.source !== "rf" && st.last_heard > heard.at) return "heard-on-aprs-is";
  return null;
}

/**
 * Gates one uploaded packet to RF if the rule above allows; says what became
 * of it. `seen`: what this server gated lately (its own, kept by the caller),
 * so a client's retry within IGATE_DUPE_MS does not go out twice.
 */
export function gateToRf(gw: Core, h: Header, p: AprsPacket | null, seen: Map<string, number>): GateResult {
  if (!p || !GATED_KINDS.has(p.type) || !p.addressee) return "not-a-message";
  const gr = radioOf(gw);
  const call = gw.config.radioCall;
  if (!gr || !call) return "no-radio";
  const now = gw.clock.now();
  const why = reachableOnRf(gw, p.addressee.trim(), now);
  if (why) return why;
  const key = `${h.src}>${h.info}`;
  const last = seen.get(key);
  if (last !== undefined && now - last < IGATE_DUPE_MS) return "duplicate";
  for (const [k, t] of seen) if (now - t >= IGATE_DUPE_MS) seen.delete(k);
  const src = parseAddressLoose(call);
  const dest = parseAddressLoose(TOCALL);
  if (!src.ok || !dest.ok) return "no-radio";
  const via = gw.config.radioPath.map((v) => parseAddressLoose(v)).flatMap((r) => (r.ok ? [{ ...r.value, repeated: false }] : []));
  const info = new TextEncoder().encode(`}${h.src}>${h.dst},TCPIP,${call}*:${h.info}`);
  const result = gr.tx.sendFrame(uiFrame({ src: src.value, dest: dest.value, path: via, info }));
  if (result === "sent") seen.set(key, now);
  return result;
}
