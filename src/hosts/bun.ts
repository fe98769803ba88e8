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
import type { App, HttpHost, HttpServer } from "../http/host.ts";
import { createBunRouteHandler } from "elysia/adapter/bun/compose";
import { websocket as elysiaWebSocket } from "elysia/ws";
import { openFrontDoor } from "../tls/front-door.ts";
import { isCompiled } from "../lib/version.ts";

/** The methods Bun.serve's route table takes. */
const TABLE_METHODS = new Set(["GET", "HEAD", "OPTIONS", "DELETE", "PATCH", "POST", "PUT"]);

/** The private parts of Elysia's app that its Bun listen reads (elysia/adapter/bun). */
interface ElysiaInside {
  server: Server<unknown> | null;
  router: { history: Array<{ method: string; path: string; handler: unknown }> };
  routeTree: Record<string, number>;
}

/**
 * Elysia's Bun listen (elysia/adapter/bun), as the gateway needs it:
 * - Bun.serve's route table holds the app's routes mounted so far, and is
 *   rebuilt and reloaded once the rest are (app.ts: the routes a start does
 *   not need are mounted when first needed); each route's handler is composed
 *   at its first request, once;
 * - the general handler, the `fetch` for what the table does not hold (a route
 *   not mounted yet, an unknown path, the web app's pages), mounts the rest,
 *   then is composed at its first request (5-8 ms of a start otherwise);
 * - no second pass once lazily loaded plugins resolve (Elysia's listen then
 *   compiles the app again and reloads the server, about 20 ms before the
 *   first answer): the gateway loads no plugin lazily.
 */
function listenOn(
  app: App,
  options: { port: number; hostname: string; reusePort: boolean; maxRequestBodySize?: number; websocket?: object; tls?: object },
): void {
  const inside = app as unknown as ElysiaInside;
  const composed = new Map<object, (request: Request) => unknown>();
  const handlerOf = (route: ElysiaInside["router"]["history"][number]) => {
    let compiled: ((request: Request) => unknown) | undefined;
    return (request: Request) => (compiled ??= createBunRouteHandler(app, route as never) as (request: Request) => unknown)(request);
  };
  const table = () => {
    const routes: Record<string, Record<string, (request: Request) => unknown>> = {};
    for (const route of inside.router.history) {
      const { method, path } = route;
      // WebSocket routes, wildcards and methods the table does not take are the general handler's
      if (typeof route.handler !== "function" || !TABLE_METHODS.has(method) || path.endsWith("*") || (method === "GET" && `WS_${path}` in inside.routeTree))
        continue;
      let handler = composed.get(route);
      if (!handler) composed.set(route, (handler = handlerOf(route)));
      (routes[encodeURI(path)] ??= {})[method] ??= handler;
    }
    return routes;
  };
  const serve = {
    development: process.env.NODE_ENV !== "production",
    idleTimeout: 30,
    ...options,
    websocket: { ...elysiaWebSocket, ...options.websocket },
    routes: table(),
    fetch: (request: Request) => {
      app.mountRest();
      return app.fetch(request);
    },
  };
  const server = Bun.serve(serve as never) as Server<unknown>;
  inside.server = server;
  app.onRestMounted(() => {
    if (inside.server === server) server.reload({ ...serve, routes: table() } as never);
  });
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
    bunHost.shrink?.();
  },
  // (the heap governor asks for it again, every 10 minutes at most, once memory has grown: system/heap-governor.ts)
  shrink: isCompiled
    ? () => {
        const b = Bun as { shrink?: () => void };
        b.shrink?.();
        return typeof b.shrink === "function";
      }
    : undefined,
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
      listenOn(app, { port, hostname, reusePort: false, maxRequestBodySize: opts.maxRequestBodySize, websocket: opts.websocket, tls });
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
