/**
 * The federation network's moving parts, started with each gateway: gossip
 * pings after writes, cross-instance corroboration of finds, the SVCFED
 * bulletin receiver (records carried over the BBS), and a clean stop
 * (running pulls finish before the database closes).
 */
import type { Core } from "../core/core.ts";
import { startGossip } from "./gossip.ts";
import { stopPulls } from "./sync.ts";
import { startCorroboration } from "./corroborate.ts";
import { startSvcfed } from "./transports/svcfed.ts";

export function initNetwork(gw: Core): void {
  startGossip(gw);
  startCorroboration(gw);
  startSvcfed(gw);
  gw.onStop(() => stopPulls(gw));
}
