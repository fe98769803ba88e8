/**
 * The clients of the gateway's own servers (the KISS TCP server and the
 * APRS-IS server): one list per gateway's hub, for GET /api/ports and for a
 * sysop who disconnects one (DELETE /api/hub/clients/:id).
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

let next = 1;

/** The host part of a client's address:port (an IPv6 address in brackets loses them). */
const hostOf = (address: string) => address.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");

/** The clients of one gateway's hub servers; the hub holds it (index.ts) and hands it to both servers. */
export class HubClients {
  private readonly all = new Map<string, HubClient>();
  /** refusals by the cap since the last log line, per server */
  private readonly capped = new Map<HubServer, { at: number; count: number }>();

  constructor(private readonly gw: Core) {}

  /** Registers a client that just connected from `address`; the server fills in the rest as the connection goes on. */
  add(server: HubServer, address: string, close: (why: string) => void): HubClient {
    const client: HubClient = {
      id: `${server}-${next++}`,
      server,
      address,
      login: null,
      verified: false,
      filter: null,
      software: null,
      connectedAt: this.gw.clock.now(),
      rx: 0,
      tx: 0,
      refused: 0,
      dropped: 0,
      close,
    };
    this.all.set(client.id, client);
    return client;
  }

  /**
   * Whether a client that just connected (already listed) is one too many:
   * HUB_CLIENTS_PER_ADDRESS from its address, or HUB_CLIENTS_MAX in all, on
   * its server. Returns why, for the log and the client, or null.
   */
  overCap(c: HubClient): string | null {
    const cfg = this.gw.config;
    const all = this.of(c.server);
    if (all.length > cfg.hubClientsMax) return `the server has its ${cfg.hubClientsMax} connections (HUB_CLIENTS_MAX)`;
    const host = hostOf(c.address);
    const fromHost = all.filter((x) => hostOf(x.address) === host).length;
    if (fromHost > cfg.hubClientsPerAddress) return `${host} has its ${cfg.hubClientsPerAddress} connections (HUB_CLIENTS_PER_ADDRESS)`;
    return null;
  }

  /**
   * Logs a connection refused by the cap, at most once a minute per server
   * with how many were refused since (a flood of connections is not a flood
   * of log lines).
   */
  logCapped(server: HubServer, why: string): void {
    const now = this.gw.clock.now();
    const e = this.capped.get(server) ?? { at: -Infinity, count: 0 };
    e.count++;
    if (now - e.at >= 60_000) {
      this.gw.log.warn("hub", `${server === "kiss" ? "KISS" : "APRS-IS"} server: ${e.count} connection(s) refused since the last such line: ${why}`);
      e.at = now;
      e.count = 0;
    }
    this.capped.set(server, e);
  }

  remove(id: string): void {
    this.all.delete(id);
  }

  of(server: HubServer): HubClient[] {
    return [...this.all.values()].filter((c) => c.server === server);
  }

  /** Disconnects a client; false when there is none by that id. */
  disconnect(id: string, by: string): boolean {
    const c = this.all.get(id);
    if (!c) return false;
    c.close(`disconnected by ${by}`);
    this.all.delete(id);
    return true;
  }
}

export function clientView(c: HubClient): HubClientView {
  const { close: _close, ...view } = c;
  return { ...view };
}
