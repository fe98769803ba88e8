/**
 * The Node host: node:http in front of the same Elysia app, through
 * `app.handle(Request)` (Elysia's runtime-independent entry). Each request
 * becomes a web Request whose body streams from the socket (the app reads it
 * with its own cap after the gate), and the Response streams back with
 * back-pressure, so the CoT event stream works as on Bun.
 *
 * WebSockets (the live rooms) upgrade through the `ws` package, with Bun's
 * limits (payload size, back-pressure, idle timeout with pings) and Bun's
 * topics (subscribe, publish) kept here.
 *
 * Not here yet (the gateway logs each one it is configured for and leaves it
 * off): the TCP servers written on Bun's Bun.listen (the KISS and APRS-IS
 * hub, the FBB listener) and serial TNCs. KISS TNCs over TCP run
 * (radio/port/tcp.ts is node:net), and so do the APRS-IS uplink and FBB
 * forwarding out (src/net/tcp.ts, src/hosts/node-tcp.ts). The web app and the world basemap are served
 * from the files Bun built beside the bundle.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer, type WebSocket } from "ws";
import { TopicSocket } from "./topic-socket.ts";
import { answerTlsAlpn } from "../tls/alpn.ts";
import { answerPlainHttp } from "../tls/plain-on-tls.ts";
import type { HostSocket, HttpHost, HttpServer, ServeOptions, SocketRoute } from "../http/host.ts";
import type { App } from "../http/app.ts";
import { AppError } from "../errors.ts";

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

/** The web app scripts/node.ts built beside the bundle: ui/index.json names each file and its type. */
export async function prebuiltUi(dir: string): Promise<Array<{ name: string; blob: Blob }>> {
  const files = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as Array<{ name: string; type: string }>;
  return files.map((f) => ({ name: f.name, blob: new Blob([readFileSync(join(dir, f.name))], { type: f.type }) }));
}

function requestOf(req: IncomingMessage, base: string, body?: ReadableStream<Uint8Array>, signal?: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  const scheme = (req.socket as Socket & { encrypted?: boolean }).encrypted ? "https" : "http";
  return new Request(`${scheme}://${req.headers.host ?? base}${req.url ?? "/"}`, {
    method: req.method ?? "GET",
    headers,
    body,
    signal,
    // @ts-expect-error: a streamed request body needs duplex "half" (not in every RequestInit type)
    duplex: "half",
  });
}

/** A refused upgrade: the gateway's error shape on the raw socket, then closed. */
function refuse(socket: Socket, e: unknown): void {
  const err = e instanceof AppError ? e : new AppError(500, "internal", "the server failed to answer this request");
  const body = JSON.stringify({ error: err.code, message: err.message });
  socket.end(
    `HTTP/1.1 ${err.status} ${STATUS_CODES[err.status] ?? ""}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `access-control-allow-origin: *\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** Bun's ServerWebSocket, as much of it as the gateway uses, on a `ws` socket; topics as Bun keeps them. */
class NodeSocket extends TopicSocket<NodeSocket> implements HostSocket {
  alive = true;
  constructor(
    readonly ws: WebSocket,
    all: Map<string, Set<NodeSocket>>,
    private readonly limit: { bytes: number; close: boolean },
  ) {
    super(all);
  }
  send(data: string): number {
    if (this.ws.readyState !== this.ws.OPEN) return 0;
    // a client that stops reading is dropped once this much waits for it (Bun's closeOnBackpressureLimit)
    if (this.ws.bufferedAmount > this.limit.bytes) {
      if (this.limit.close) this.ws.terminate();
      return 0;
    }
    this.ws.send(data);
    return data.length;
  }
  close(code?: number, reason?: string): void {
    this.ws.close(code, reason);
  }
}

/** Each request's node:http message, for every listener (plain http's requests are answered through the HTTPS listener's server). */
const sockets = new WeakMap<Request, IncomingMessage>();

export const nodeHost: HttpHost = {
  name: "node",
  missing: new Set(["tcp-servers", "serial"]),
  async serve(app: App, opts: ServeOptions): Promise<HttpServer> {
    const base = () => `${opts.hostname}:${port()}`;
    const answer: RequestListener = async (req, res) => {
      const method = req.method ?? "GET";
      const aborted = new AbortController();
      res.once("close", () => {
        if (!res.writableFinished) aborted.abort();
      });
      const hasBody = method !== "GET" && method !== "HEAD";
      const request = requestOf(req, base(), hasBody ? bodyStream(req, opts.maxRequestBodySize) : undefined, aborted.signal);
      sockets.set(request, req);
      let response: Response;
      try {
        response = await app.handle(request);
      } catch (e) {
        response = Response.json({ error: "internal", message: "the server failed to answer this request" }, { status: 500 });
        console.error(e);
      }
      await send(res, response, method === "HEAD");
    };
    // HTTPS when given a certificate (src/tls/); setSecureContext swaps it in place
    const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, answer) : createServer(answer);
    // plain http on the HTTPS port gets a readable answer, not a closed connection
    if (opts.tls) answerPlainHttp(server, () => port());
    if (opts.tls && opts.acmeTlsAlpn) answerTlsAlpn(server, opts.acmeTlsAlpn);
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
    // WebSockets: the routes the gateway hands over (opts.sockets), with Bun's limits
    const topics = new Map<string, Set<NodeSocket>>();
    const open = new Set<NodeSocket>();
    const ws = opts.websocket;
    const wss = new WebSocketServer({ noServer: true, maxPayload: ws.maxPayloadLength, perMessageDeflate: ws.perMessageDeflate });
    server.on("upgrade", (req: IncomingMessage, socket: Socket, head: Buffer) => {
      const route: SocketRoute | undefined = opts.secondary ? undefined : opts.sockets?.[new URL(req.url ?? "/", "http://host").pathname];
      if (!route) return refuse(socket, new AppError(404, "not_found", "no WebSocket here"));
      const request = requestOf(req, base());
      sockets.set(request, req);
      let accepted: unknown;
      try {
        accepted = route.accept(request, httpServer);
      } catch (e) {
        return refuse(socket, e);
      }
      wss.handleUpgrade(req, socket, head, (raw) => {
        const s = new NodeSocket(raw, topics, { bytes: ws.backpressureLimit, close: ws.closeOnBackpressureLimit });
        open.add(s);
        raw.on("pong", () => (s.alive = true));
        raw.on("message", (data, binary) => {
          s.alive = true;
          const text = binary ? data : String(data);
          let msg: unknown = text;
          try {
            if (typeof text === "string") msg = JSON.parse(text);
          } catch {
            // not JSON: the route gets the text, as from Elysia
          }
          route.message(s, msg);
        });
        raw.on("close", () => {
          open.delete(s);
          s.drop();
          route.close(s);
        });
        raw.on("error", () => raw.terminate());
        route.open(s, accepted);
      });
    });
    // Bun's idleTimeout with sendPings: a client that answers nothing for that long is closed
    const pings = ws.sendPings
      ? setInterval(
          () => {
            for (const s of open) {
              if (!s.alive) s.ws.terminate();
              else {
                s.alive = false;
                s.ws.ping();
              }
            }
          },
          (ws.idleTimeout * 1000) / 2,
        )
      : null;
    pings?.unref();
    const httpServer: HttpServer = {
      get port() {
        return port();
      },
      requestIP: (request) => {
        const address = sockets.get(request)?.socket.remoteAddress;
        return address ? { address: address.startsWith("::ffff:") ? address.slice(7) : address } : null;
      },
      timeout: (request, seconds) => void sockets.get(request)?.socket.setTimeout(seconds * 1000),
      publish(topic, data) {
        const set = topics.get(topic);
        if (set) for (const s of set) s.send(data);
        return set?.size ?? 0;
      },
      subscriberCount: (topic) => topics.get(topic)?.size ?? 0,
      stop: (closeActive = false) =>
        new Promise<void>((resolve) => {
          if (pings) clearInterval(pings);
          for (const s of open) closeActive ? s.ws.terminate() : s.ws.close(1001, "the gateway is stopping");
          server.close(() => resolve());
          if (closeActive) server.closeAllConnections();
          else server.closeIdleConnections();
        }),
      reloadTls: opts.tls ? async (pair) => void (server as ReturnType<typeof createHttpsServer>).setSecureContext(pair) : undefined,
    };
    // Elysia hands `server` to every handler's context from here (the client address, event streams);
    // a second listener's requests are answered there too (`sockets` holds every listener's requests)
    if (!opts.secondary) (app as { server: unknown }).server = httpServer;
    return httpServer;
  },
};
