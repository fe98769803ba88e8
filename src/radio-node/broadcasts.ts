/**
 * What the radio sends on its schedules and on a box command: the NODES
 * broadcast and the SVCB1 beacon (with its have-list). radio.ts's per-minute
 * tick and the local box (box.ts) both send them.
 */
import type { Core } from "../core/core.ts";
import { ownBeacon, ownHaveList } from "../fed/beacon.ts";
import { instanceSigner } from "../fed/feed.ts";
import { broadcastFrames } from "./netrom.ts";
import { radioMayTransmit, type GatewayRadio } from "./running-radio.ts";

/**
 * Sends our NODES broadcast on every port now (NODE_ALIAS set, RADIO_CALL
 * verified, tokens in the transmit bucket for every frame). Returns the
 * frames sent: 0 when it could not go.
 */
export function broadcastNodes(gw: Core, gr: GatewayRadio): number {
  if (!gr.netrom || !radioMayTransmit(gw)) return 0;
  const frames = broadcastFrames(gw);
  if (gr.tx.bucket.available(gw.clock.now()) < frames.length) return 0;
  let sent = 0;
  for (const f of frames) {
    gr.tx.bucket.take(gw.clock.now());
    if (gr.radio.sendUi({ src: f.src, dest: f.dest, info: f.info, pid: f.pid }) > 0) sent++;
  }
  return sent;
}

/** The UI frame destination of SVCB1 beacons (monitors and IGates can tell them from APRS by it). */
const BEACON_DEST = "SVCB1";

/**
 * Sends this instance's SVCB1 beacon on every port now, from RADIO_CALL to
 * SVCB1, no digipeater path (RADIO_CALL verified, the instance signed, a
 * token in the transmit bucket), then its have-list when a second token is
 * there. Returns what went out, or null.
 */
export function sendBeacon(gw: Core, gr: GatewayRadio): { bytes: number; endpoints: string[]; ports: number; haveBytes: number | null } | null {
  if (!radioMayTransmit(gw) || !instanceSigner(gw)) return null;
  const b = ownBeacon(gw);
  if (!gr.tx.bucket.take(gw.clock.now())) return null;
  const ports = gr.radio.sendUi({ dest: BEACON_DEST, info: b.datagram });
  if (!ports) return null;
  // the have-list follows when the transmit budget has room for a second frame
  let haveBytes: number | null = null;
  let h: ReturnType<typeof ownHaveList> | null = null;
  try {
    h = ownHaveList(gw);
  } catch (e) {
    gw.log.warn("radio", `no have-list beacon: ${(e as Error).message}`);
  }
  if (h && gr.tx.bucket.take(gw.clock.now()) && gr.radio.sendUi({ dest: BEACON_DEST, info: h.datagram })) haveBytes = h.datagram.length;
  return { bytes: b.datagram.length, endpoints: b.endpoints, ports, haveBytes };
}
