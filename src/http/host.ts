/**
 * What the gateway needs of the runtime that serves it: an HTTP server for
 * the app, and the few things routes ask of that server (the peer's address,
 * a long-lived response, WebSocket topics). Bun's `Server` is one as it is
 * (src/hosts/bun.ts); src/hosts/node.ts makes one on node:http. The host's
 * entry point picks the host (docs/architecture.md).
 */
import type { App } from "./app.ts";
import type { HttpServer } from "../net/http-server.ts";

export interface ServeOptions {
  port: number;
  hostname: string;
  maxRequestBodySize: number;
  /** Bun's server-wide WebSocket settings (the live rooms' limits) */
  websocket: Record<string, unknown>;
}

/** What a host cannot do yet: the gateway leaves that part off and says so in the log. */
export type Missing = "websockets" | "tcp" | "serial" | "ui-build";

export interface HttpHost {
  /** "bun", "node" */
  readonly name: string;
  readonly missing: ReadonlySet<Missing>;
  /** Listens; throws an error with code EADDRINUSE when the port is taken. */
  serve(app: App, opts: ServeOptions): Promise<HttpServer>;
}
