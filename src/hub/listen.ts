/**
 * A hub server's listening socket (the KISS and APRS-IS servers), and how
 * its address reads in GET /api/ports and the log.
 */
import type { Socket, TCPSocketListener } from "bun";
import type { HubClient, HubClients, HubServer } from "./clients.ts";
import { OutQueue } from "./outq.ts";
import { ListenError } from "../lib/errors.ts";

/** host:port as a client would dial it (IPv6 in brackets). */
export const hostPort = (host: string, port: number) => (host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`);

/** What every hub connection holds: its socket, its send queue and its entry in the client list. */
export interface ClientConn {
  socket: Socket<any>;
  out: OutQueue;
  client: HubClient;
}

export interface ClientHandlers<C extends ClientConn> {
  /** the server's own state for a new connection (socket, out and client are filled in) */
  make(): Omit<C, keyof ClientConn>;
  opened(c: C): void;
  data(c: C, chunk: Uint8Array): void;
  /** the connection ends: closed, failed, or disconnected by the sysop */
  drop(c: C, why: string): void;
}

/**
 * Listens at `at` for clients of `server`: each connection is registered in
 * the client list (so the sysop sees it and can disconnect it), fed its bytes,
 * paced by its send queue, and dropped once when it closes or fails. A port
 * it cannot bind is a named start-up error (ListenError): the gateway does not start.
 */
export function listenForClients<C extends ClientConn>(
  clients: HubClients,
  server: HubServer,
  what: string,
  at: { host: string; port: number },
  h: ClientHandlers<C>,
): TCPSocketListener<C> | null {
  try {
    return Bun.listen<C>({
      hostname: at.host,
      port: at.port,
      socket: {
        open(socket) {
          const c = { ...h.make(), socket, out: new OutQueue(socket as Socket<unknown>) } as C;
          const remote = hostPort(socket.remoteAddress, (socket as unknown as { remotePort?: number }).remotePort ?? 0);
          c.client = clients.add(server, remote, (why) => h.drop(c, why));
          socket.data = c;
          h.opened(c);
        },
        data(socket, chunk) {
          h.data(socket.data, chunk);
        },
        drain(socket) {
          socket.data.out.drain();
        },
        close(socket) {
          if (socket.data) h.drop(socket.data, "disconnected");
        },
        error(socket, e) {
          if (socket.data) h.drop(socket.data, `failed: ${e.message}`);
        },
      },
    });
  } catch (e) {
    throw new ListenError(`the ${server === "kiss" ? "KISS" : "APRS-IS"} server (${what})`, e);
  }
}
