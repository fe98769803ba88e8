/**
 * The Bun host: Elysia's own Bun adapter (Bun.serve), whose `Server` already
 * is an HttpServer. Everything runs here: WebSockets, TCP servers and
 * clients, serial TNCs, the web app built by Bun.
 */
import type { Server } from "bun";
import type { HttpHost, HttpServer } from "../http/host.ts";

export const bunHost: HttpHost = {
  name: "bun",
  missing: new Set(),
  async serve(app, opts) {
    // Elysia asks Bun for SO_REUSEPORT by default: on Linux a second gateway
    // would then bind the same port and the kernel split requests between two
    // databases. One port, one gateway: a taken port must fail to bind.
    app.listen({ port: opts.port, hostname: opts.hostname, reusePort: false, maxRequestBodySize: opts.maxRequestBodySize, websocket: opts.websocket });
    return app.server as Server<unknown> satisfies HttpServer;
  },
};
