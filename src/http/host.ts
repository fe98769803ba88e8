/**
 * What the gateway needs of the runtime that serves it: an HTTP server for
 * the app, and the few things routes ask of that server (the peer's address,
 * a long-lived response, WebSocket topics). Bun's `Server` is one as it is
 * (src/hosts/bun.ts); src/hosts/node.ts makes one on node:http. The host's
 * entry point picks the host (docs/architecture.md).
 */
import type { AnyElysia, ElysiaAdapter } from "elysia";

/** What the gateway's app adds to Elysia's (app.ts): the routes mounted when first needed. */
export interface LaterRoutes {
  /** Mounts the routes not mounted yet, now (nothing when they are). */
  mountRest(): void;
  /** Runs `fn` once they are mounted (the Bun host rebuilds Bun.serve's route table); nothing once they are. */
  onRestMounted(fn: () => void): void;
}

/**
 * The app as hosts and the Gateway see it (app.ts createApp): any Elysia app
 * (its route types are not needed outside the HTTP layer, and naming
 * createApp's own type would tie every route's types to the hosts that serve
 * them), with its routes mounted when first needed.
 */
export type App = AnyElysia & LaterRoutes;

export interface HttpServer {
  readonly port: number | undefined;
  /** the address of the connection a request came on */
  requestIP(request: Request): { address: string } | null;
  /** seconds the connection may stay idle; 0 keeps it open (event streams) */
  timeout(request: Request, seconds: number): void;
  /** WebSocket topics (live rooms): send to every subscriber, count them */
  publish(topic: string, data: string): unknown;
  subscriberCount(topic: string): number;
  stop(closeActiveConnections?: boolean): Promise<void>;
  /** A TLS listener serves this certificate and key from now on (src/tls/): in place on Node, by binding the port again on Bun. */
  reloadTls?(pair: { cert: string; key: string }): Promise<void>;
}

/** A WebSocket as the gateway uses it (Bun's ServerWebSocket is one). */
export interface HostSocket {
  send(data: string): unknown;
  close(code?: number, reason?: string): void;
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

/** A WebSocket route for hosts whose app cannot upgrade by itself (Elysia's .ws() is Bun-only). */
export interface SocketRoute {
  /** Checks the upgrade request; throws an AppError to refuse it (its status and JSON body are the answer). What it returns goes to open(). */
  accept(request: Request, server: HttpServer): unknown;
  open(ws: HostSocket, accepted: unknown): void;
  /** a text message, parsed when it is JSON (as Elysia hands them over) */
  message(ws: HostSocket, message: unknown): void;
  close(ws: HostSocket): void;
}

export interface ServeOptions {
  port: number;
  hostname: string;
  maxRequestBodySize: number;
  /** Bun's server-wide WebSocket settings (the live rooms' limits): backpressureLimit, idleTimeout, maxPayloadLength... */
  websocket: {
    backpressureLimit: number;
    closeOnBackpressureLimit: boolean;
    idleTimeout: number;
    maxPayloadLength: number;
    sendPings: boolean;
    perMessageDeflate: boolean;
  };
  /** WebSocket routes by path, for a host that serves them itself; on Bun the app's own .ws() routes serve them */
  sockets?: Record<string, SocketRoute>;
  /** HTTPS with this certificate and key (PEM) */
  tls?: { cert: string; key: string };
  /**
   * A second listener beside the main one (plain http beside HTTPS): it
   * answers through the same app but is not the app's server (WebSocket
   * topics live on the main one) and upgrades no WebSocket.
   */
  secondary?: boolean;
  /** With `tls`: the ACME TLS-ALPN-01 certificate for a server name, offered to clients asking ALPN acme-tls/1 (src/tls/alpn.ts) */
  acmeTlsAlpn?: (servername: string) => { cert: string; key: string } | null;
}

/**
 * What a host cannot do (yet): the gateway leaves that part off and says so
 * in the log. "codegen": no code compiled from strings at run time (a Workers
 * runtime), so the app builds its handlers and validators without it.
 * "tls": no HTTPS listener of its own (the platform terminates TLS).
 */
export type Missing = "websockets" | "tcp-servers" | "serial" | "codegen" | "tls";

export interface HttpHost {
  /** "bun", "node", "workerd" */
  readonly name: string;
  readonly missing: ReadonlySet<Missing>;
  /** Elysia's adapter for this runtime (how handlers' values become responses); Elysia's web-standard one when absent */
  readonly adapter?: ElysiaAdapter;
  /** Listens; throws an error with code EADDRINUSE when the port is taken. */
  serve(app: App, opts: ServeOptions): Promise<HttpServer>;
  /**
   * Start-up is over: the gateway serves and its cron is armed, or a command
   * begins its work. The executable starts with JavaScriptCore's JIT
   * reluctant (build.ts, the start-up JIT policy); the Bun host sets the
   * normal policy back here.
   */
  startedUp?(): void;
  /**
   * Gives back what the process keeps only to run faster: the code the runtime
   * compiled (it compiles again as it runs), a full collection, the
   * allocator's free pages. Absent where the runtime has no such call, and
   * from source (the test suite's gateways share its process).
   */
  shrink?(): boolean;
}
