/**
 * The gateway as the hub of a station: its KISS TCP server (KISS_SERVER) and
 * its APRS-IS server (APRSIS_LISTEN), both off unless set. Started by a
 * serving gateway after its radio (the KISS server copies the radio's ports).
 */
import type { Core } from "../core/core.ts";
import { startKissServer, type KissServer } from "./kiss-server.ts";
import { startAprsIsServer, type AprsIsServer } from "./aprsis-server.ts";

export interface Hub {
  kiss: KissServer | null;
  aprsIs: AprsIsServer | null;
}

const hubs = new WeakMap<Core, Hub>();

export function hubOf(gw: Core): Hub | null {
  return hubs.get(gw) ?? null;
}

export function startHub(gw: Core): Hub {
  const existing = hubs.get(gw);
  if (existing) return existing;
  const hub: Hub = {
    kiss: gw.config.kissServer ? startKissServer(gw, gw.config.kissServer) : null,
    aprsIs: gw.config.aprsIsListen ? startAprsIsServer(gw, gw.config.aprsIsListen) : null,
  };
  hubs.set(gw, hub);
  gw.onStop(() => void hubs.delete(gw));
  return hub;
}
