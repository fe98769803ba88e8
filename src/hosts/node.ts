/**
 * The Node host: node:http in front of the same Elysia app, through
 * `app.handle(Request)` (Elysia's runtime-independent entry). Each request
 * becomes a web Request whose body streams from the socket (the app reads it
 * with its own cap after the gate), and the Response streams back with
 * back-pressure, so the CoT event stream works as on Bun.
 *
 * Not here yet (the gateway logs each one it is configured for and leaves it
 * off): WebSocket rooms (/ws), the TCP servers and clients (KISS and APRS-IS
 * hub, APRS-IS uplink, FBB forwarding), serial TNCs, and the web app, which
 * Bun builds (or the Bun executable carries).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { HttpHost, ServeOptions } from "../http/host.ts";
import type { HttpServer } from "../net/http-server.ts";
import type { App } from "../http/app.ts";

/** A request body as a web stream, failing once it passes `max` bytes (Bun's maxRequestBodySize). */
function bodyStream(req: IncomingMessage, max: number): ReadableStream<Uint8Array> {
  let seen = 0;
  const it = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await it.next();
      if (done) return controller.close();
      seen += value.length;
      if (seen > max) {
        req.destroy();
        return controller.error(new Error(`request body over ${max} bytes`));
      }
      controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
    },
    cancel() {
      req.destroy();
    },
  });
}

async function send(res: ServerResponse, response: Response, head: boolean): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [k, v] of response.headers) if (k !== "set-cookie") headers[k] = v;
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers["set-cookie"] = cookies;
  res.writeHead(response.status, response.statusText || undefined, headers);
  if (!response.body || head) {
    await response.body?.cancel();
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once("close", resolve));
  res.once("close", () => void reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (!res.write(value)) await Promise.race([new Promise((r) => res.once("drain", r)), closed]);
      if (res.destroyed) return;
    }
    res.end();
  } catch {
    // the client went away, or the body failed half-way: nothing more can be said on this response
    res.destroy();
  }
}

export const nodeHost: HttpHost = {
  name: "node",
  missing: new Set(["websockets", "tcp", "serial", "ui-build"]),
  async serve(app: App, opts: ServeOptions): Promise<HttpServer> {
    const sockets = new WeakMap<Request, IncomingMessage>();
    const server = createServer(async (req, res) => {
      const method = req.method ?? "GET";
      const headers = new Headers();
      for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
      const aborted = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) aborted.abort();
      });
      const hasBody = method !== "GET" && method !== "HEAD";
      const request = new Request(`http://${req.headers.host ?? `${opts.hostname}:${port()}`}${req.url ?? "/"}`, {
        method,
        headers,
        body: hasBody ? bodyStream(req, opts.maxRequestBodySize) : undefined,
        signal: aborted.signal,
        // @ts-expect-error: a streamed request body needs duplex "half" (not in every RequestInit type)
        duplex: "half",
      });
      sockets.set(request, req);
      let response: Response;
      try {
        response = await app.handle(request);
      } catch (e) {
        response = Response.json({ error: "internal", message: "the server failed to answer this request" }, { status: 500 });
        console.error(e);
      }
      await send(res, response, method === "HEAD");
    });
    // Bun's idle timeout is per request (timeout() below); node:http's request timeout would cut event streams
    server.requestTimeout = 0;
    const port = () => (server.address() as AddressInfo | null)?.port ?? opts.port;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ port: opts.port, host: opts.hostname, exclusive: true }, () => {
        server.off("error", reject);
        resolve();
      });
    });
    const httpServer: HttpServer = {
      get port() {
        return port();
      },
      requestIP: (request) => {
        const address = sockets.get(request)?.socket.remoteAddress;
        return address ? { address: address.startsWith("::ffff:") ? address.slice(7) : address } : null;
      },
      timeout: (request, seconds) => void sockets.get(request)?.socket.setTimeout(seconds * 1000),
      publish: () => 0,
      subscriberCount: () => 0,
      stop: (closeActive = false) =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if (closeActive) server.closeAllConnections();
          else server.closeIdleConnections();
        }),
    };
    // Elysia hands `server` to every handler's context from here (the client address, event streams)
    (app as { server: unknown }).server = httpServer;
    return httpServer;
  },
};
