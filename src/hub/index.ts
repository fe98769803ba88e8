/**
 * The gateway as the hub of a station: its KISS TCP server (KISS_SERVER) and
 * its APRS-IS server (APRSIS_LISTEN), both off unless set. Started by a
 * serving gateway after its radio (the KISS server copies the radio's ports).
 */
import type { Core } from "../core/core.ts";
import { startKissServer, type KissServer } from "./kiss-server.ts";
import { startAprsIsServer, type AprsIsServer } from "./aprsis-server.ts";
import { HubClients } from "./clients.ts";

export interface Hub {
  kiss: KissServer | null;
  aprsIs: AprsIsServer | null;
  /** both servers' clients, for GET /api/ports and the sysop */
  clients: HubClients;
}

/** Starts the servers the settings ask for; the composition root holds the hub as `gw.hub` (src/hosts/gateway.ts). */
export function startHub(gw: Core): Hub {
  const clients = new HubClients(gw);
  return {
    kiss: gw.config.kissServer ? startKissServer(gw, gw.config.kissServer, clients) : null,
    aprsIs: gw.config.aprsIsListen ? startAprsIsServer(gw, gw.config.aprsIsListen, clients) : null,
    clients,
  };
}
