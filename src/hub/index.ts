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

/** Starts the servers the settings ask for; the composition root holds the hub as `gw.hub` (src/hosts/gateway.ts). */
export function startHub(gw: Core): Hub {
  return {
    kiss: gw.config.kissServer ? startKissServer(gw, gw.config.kissServer) : null,
    aprsIs: gw.config.aprsIsListen ? startAprsIsServer(gw, gw.config.aprsIsListen) : null,
  };
}
