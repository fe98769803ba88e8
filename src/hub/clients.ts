/**
 * The clients of the gateway's own servers (the KISS TCP server and the
 * APRS-IS server): one list per gateway, for GET /api/ports and for a sysop
 * who disconnects one (DELETE /api/hub/clients/:id).
 */
import type { Core } from "../core/core.ts";

export type HubServer = "kiss" | "aprs-is";

export interface HubClient {
  /** e.g. aprs-is-3; stable for the connection's life */
  id: string;
  server: HubServer;
  /** the peer's address:port */
  address: string;
  /** APRS-IS: the login callsign once logged in; KISS: null */
  login: string | null;
  /** APRS-IS: whether the passcode matched */
  verified: boolean;
  /** APRS-IS: the server-side filter in force */
  filter: string | null;
  /** APRS-IS: the client program's `vers` */
  software: string | null;
  connectedAt: number;
  /** packets or frames received from and sent to the client */
  rx: number;
  tx: number;
  /** frames or packets from the client that were refused (not verified, rate limit, bad) */
  refused: number;
  /** packets not sent to it (its queue was full) */
  dropped: number;
  /** Ends the connection; `why` goes to the log. */
  close(why: string): void;
}

/** A client's row in GET /api/ports (no close function). */
export type HubClientView = Omit<HubClient, "close">;

const lists = new WeakMap<Core, Map<string, HubClient>>();
let next = 1;

function list(gw: Core): Map<string, HubClient> {
  let m = lists.get(gw);
  if (!m) lists.set(gw, (m = new Map()));
  return m;
}

/** Registers a client that just connected from `address`; the server fills in the rest as the connection goes on. */
export function addClient(gw: Core, server: HubServer, address: string, close: (why: string) => void): HubClient {
  const client: HubClient = {
    id: `${server}-${next++}`,
    server,
    address,
    login: null,
    verified: false,
    filter: null,
    software: null,
    connectedAt: gw.clock.now(),
    rx: 0,
    tx: 0,
    refused: 0,
    dropped: 0,
    close,
  };
  list(gw).set(client.id, client);
  return client;
}

/** The host part of a client's address:port (an IPv6 address in brackets loses them). */
const hostOf = (address: string) => address.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");

/**
 * Whether a client that just connected (already listed) is one too many:
 * HUB_CLIENTS_PER_ADDRESS from its address, or HUB_CLIENTS_MAX in all, on
 * its server. Returns why, for the log and the client, or null.
 */
export function overCap(gw: Core, c: HubClient): string | null {
  const all = clientsOf(gw, c.server);
  if (all.length > gw.config.hubClientsMax) return `the server has its ${gw.config.hubClientsMax} connections (HUB_CLIENTS_MAX)`;
  const host = hostOf(c.address);
  const fromHost = all.filter((x) => hostOf(x.address) === host).length;
  if (fromHost > gw.config.hubClientsPerAddress) return `${host} has its ${gw.config.hubClientsPerAddress} connections (HUB_CLIENTS_PER_ADDRESS)`;
  return null;
}

const capLogs = new WeakMap<Core, Map<HubServer, { at: number; count: number }>>();

/**
 * Logs a connection refused by the cap, at most once a minute per server
 * with how many were refused since (a flood of connections is not a flood
 * of log lines).
 */
export function logCapped(gw: Core, server: HubServer, why: string): void {
  let m = capLogs.get(gw);
  if (!m) capLogs.set(gw, (m = new Map()));
  const now = gw.clock.now();
  const e = m.get(server) ?? { at: -Infinity, count: 0 };
  e.count++;
  if (now - e.at >= 60_000) {
    gw.log.warn("hub", `${server === "kiss" ? "KISS" : "APRS-IS"} server: ${e.count} connection(s) refused since the last such line: ${why}`);
    e.at = now;
    e.count = 0;
  }
  m.set(server, e);
}

export function removeClient(gw: Core, id: string): void {
  list(gw).delete(id);
}

export function clientsOf(gw: Core, server: HubServer): HubClient[] {
  return [...list(gw).values()].filter((c) => c.server === server);
}

export function clientView(c: HubClient): HubClientView {
  const { close: _close, ...view } = c;
  return { ...view };
}

/** Disconnects a client; false when there is none by that id. */
export function disconnectClient(gw: Core, id: string, by: string): boolean {
  const c = list(gw).get(id);
  if (!c) return false;
  c.close(`disconnected by ${by}`);
  list(gw).delete(id);
  return true;
}
