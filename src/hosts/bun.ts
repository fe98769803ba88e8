/**
 * The Bun host: Elysia's own Bun adapter (Bun.serve), whose `Server` already
 * is an HttpServer. Everything runs here: WebSockets, TCP servers and
 * clients, serial TNCs, the web app built by Bun.
 *
 * With TLS on, the HTTPS listener is the app's server (WebSockets upgrade on
 * the server that received the request, and topics are per server), and plain
 * http is a second Bun.serve through the same app. The HTTPS Bun.serve listens
 * on a loopback port behind the HTTPS port's front door (src/tls/front-door.ts:
 * the ACME TLS-ALPN-01 answer, a readable answer to plain http, the clients'
 * addresses). Bun cannot swap a listener's certificate in place
 * (server.reload ignores `tls`: oven-sh/bun issue 43815), so a new
 * certificate binds a new loopback port: the connections open on the old one
 * close (every few weeks; the app's live rooms reconnect).
 */
import type { Server } from "bun";
import type { HttpHost, HttpServer } from "../http/host.ts";
import type { App } from "../http/app.ts";
import { openFrontDoor } from "../tls/front-door.ts";
import { isCompiled } from "../lib/version.ts";

/**
 * Elysia's Bun listen, without its second pass and with its general handler
 * composed when first needed.
 * - Once the app's lazily loaded plugins resolve, Elysia's listen compiles the
 *   app again, rebuilds Bun.serve's route table and reloads the server with
 *   it, then asks for a collection: all before the first request is answered
 *   (about 20 ms of the executable's cold start). The gateway loads no plugin
 *   lazily, so that pass changed nothing; it still runs if one ever does.
 * - Its first step composes the general handler: every route in one generated
 *   function, the `fetch` for what Bun.serve's route table does not take (an
 *   unknown path, the web app's pages). The routes go to the table
 *   regardless, so it is composed on the first such request instead (5-8 ms
 *   of every start).
 */
function listenOnce(app: App, options: Parameters<App["listen"]>[0]): void {
  // (private members of Elysia's types: the plugins still loading, the general handler)
  const own = app as unknown as { promisedModules?: { size: number }; compile?: () => unknown; fetch: (request: Request, server: unknown) => unknown };
  if (own.promisedModules!.size > 0) return void app.listen(options);
  // own properties over Elysia's, for the length of the call: a promise that never settles, a compile
  // that leaves the handler to its first request
  Object.defineProperty(app, "promisedModules", { value: Object.assign(new Promise(() => {}), { size: 0 }), configurable: true });
  Object.defineProperty(app, "compile", { value: () => app, configurable: true });
  let general: ((request: Request, server: unknown) => unknown) | undefined;
  const composed = () => {
    // Elysia's own getter composes it and keeps it as the app's `fetch` from then on
    delete (own as { fetch?: unknown }).fetch;
    return own.fetch.bind(app);
  };
  Object.defineProperty(app, "fetch", {
    value: (request: Request, server: unknown) => (general ??= composed())(request, server),
    configurable: true,
    writable: true,
  });
  try {
    app.listen(options);
  } finally {
    delete own.promisedModules;
    delete own.compile;
  }
}

export const bunHost: HttpHost = {
  name: "bun",
  missing: new Set(),
  startedUp() {
    // the normal JIT policy, after the executable's start-up one (build.ts); from source it already is
    Bun.unsafe.setJITPolicy(1);
    // the executable's start-up code ran once and will not run again: JavaScriptCore drops what it
    // compiled for it (about 1.2 MB of an idle gateway's 19 MB of its own memory) once it is next idle;
    // from source (the test suite's gateways in its own process) the code is kept
    if (isCompiled) (Bun as { shrink?: () => void }).shrink?.();
  },
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
    const listen = (port: number, hostname: string, tls?: { cert: string; key: string }) =>
      listenOnce(app, { port, hostname, reusePort: false, maxRequestBodySize: opts.maxRequestBodySize, websocket: opts.websocket, tls });
    if (!opts.tls) {
      listen(opts.port, opts.hostname);
      return app.server as Server<unknown> satisfies HttpServer;
    }
    listen(0, "127.0.0.1", opts.tls);
    const now = () => app.server as Server<unknown>;
    const door = await openFrontDoor({ port: opts.port, hostname: opts.hostname, inner: () => now().port!, challenge: opts.acmeTlsAlpn });
    return {
      get port() {
        return door.port;
      },
      requestIP: (r) => {
        const ip = now().requestIP(r);
        const client = ip && door.clientOf(ip.port);
        return client ? { ...ip!, address: client } : ip;
      },
      timeout: (r, s) => now().timeout(r, s),
      publish: (t, d) => now().publish(t, d),
      subscriberCount: (t) => now().subscriberCount(t),
      stop: async (closeActive) => {
        await door.stop();
        await now().stop(closeActive);
      },
      async reloadTls(pair) {
        await app.stop(true);
        listen(0, "127.0.0.1", pair);
      },
    } satisfies HttpServer;
  },
};
