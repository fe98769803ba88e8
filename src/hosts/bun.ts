/**
 * The Bun host: Elysia's own Bun adapter (Bun.serve), whose `Server` already
 * is an HttpServer. Everything runs here: WebSockets, TCP servers and
 * clients, serial TNCs, the web app built by Bun.
 *
 * With TLS on, the HTTPS listener is the app's server (WebSockets upgrade on
 * the server that received the request, and topics are per server), and plain
 * http is a second Bun.serve through the same app. Bun cannot swap a
 * listener's certificate in place (server.reload ignores `tls`: oven-sh/bun
 * issue 43815), so a new certificate binds the HTTPS port again: its open
 * connections close (every few weeks; the app's live rooms reconnect).
 */
import type { Server } from "bun";
import type { HttpHost, HttpServer } from "../http/host.ts";

export const bunHost: HttpHost = {
  name: "bun",
  // Bun.serve picks a certificate by server name only: no ACME TLS-ALPN-01 (src/tls/alpn.ts)
  missing: new Set(["tls-alpn"]),
  async serve(app, opts) {
    if (opts.secondary) {
      const plain = Bun.serve({
        port: opts.port,
        hostname: opts.hostname,
        reusePort: false,
        maxRequestBodySize: opts.maxRequestBodySize,
        fetch: (r) => app.handle(r),
      });
      return plain as Server<unknown> satisfies HttpServer;
    }
    // Elysia asks Bun for SO_REUSEPORT by default: on Linux a second gateway
    // would then bind the same port and the kernel split requests between two
    // databases. One port, one gateway: a taken port must fail to bind.
    const listen = (tls?: { cert: string; key: string }) =>
      app.listen({ port: opts.port, hostname: opts.hostname, reusePort: false, maxRequestBodySize: opts.maxRequestBodySize, websocket: opts.websocket, tls });
    listen(opts.tls);
    if (!opts.tls) return app.server as Server<unknown> satisfies HttpServer;
    const port = app.server!.port;
    const now = () => app.server as Server<unknown>;
    return {
      get port() {
        return port;
      },
      requestIP: (r) => now().requestIP(r),
      timeout: (r, s) => now().timeout(r, s),
      publish: (t, d) => now().publish(t, d),
      subscriberCount: (t) => now().subscriberCount(t),
      stop: async (closeActive) => {
        await now().stop(closeActive);
      },
      async reloadTls(pair) {
        await app.stop(true);
        app.listen({ port, hostname: opts.hostname, reusePort: false, maxRequestBodySize: opts.maxRequestBodySize, websocket: opts.websocket, tls: pair });
      },
    } satisfies HttpServer;
  },
};
