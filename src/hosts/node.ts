/**
 * The Node host: node:http in front of the same Elysia app, built with
 * Elysia's Node adapter (`@elysiajs/node`: handlers' values become srvx's
 * FastResponse, written to the socket as they are, not through a web stream),
 * through `app.handle(Request)`. Each request is srvx's lazy NodeRequest (the
 * adapter's own conversion: headers, URL and body read only when asked for;
 * the app reads the body with its own cap after the gate), and a streamed
 * answer goes back with back-pressure, so the CoT event stream works as on
 * Bun. The adapter's own `listen` is not used: it has no client address
 * (requestIP), and the gateway's TLS (a certificate swapped in place, ACME
 * TLS-ALPN, a readable answer to plain http) and Bun's WebSocket limits live
 * on this listener (docs/architecture.md, "The Node host").
 *
 * WebSockets (the live rooms) upgrade through the `ws` package, with Bun's
 * limits (payload size, back-pressure, idle timeout with pings) and Bun's
 * topics (subscribe, publish) kept here.
 *
 * Not here yet (the gateway logs each one it is configured for and leaves it
 * off): the TCP servers written on Bun's Bun.listen (the KISS and APRS-IS
 * hub, the FBB listener) and serial TNCs. KISS TNCs over TCP run
 * (radio/port/tcp.ts is node:net), and so do the APRS-IS uplink and FBB
 * forwarding out (src/lib/net/tcp.ts, src/hosts/node-tcp.ts). The web app and the world basemap are served
 * from the files Bun built beside the bundle.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createServer, STATUS_CODES, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { node } from "@elysiajs/node";
import { NodeRequest, sendNodeResponse } from "srvx/node";
import { WebSocketServer, type WebSocket } from "ws";
import { TopicSocket } from "./topic-socket.ts";
import { answerTlsAlpn } from "../tls/alpn.ts";
import { answerPlainHttp } from "../tls/plain-on-tls.ts";
import type { HostSocket, HttpHost, HttpServer, ServeOptions, SocketRoute } from "../http/host.ts";
import type { App } from "../http/app.ts";
import { AppError } from "../lib/errors.ts";

/** The web app scripts/node.ts built beside the bundle: ui/index.json names each file and its type. */
export async function prebuiltUi(dir: string): Promise<Array<{ name: string; blob: Blob }>> {
  const files = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as Array<{ name: string; type: string }>;
  return files.map((f) => ({ name: f.name, blob: new Blob([readFileSync(join(dir, f.name))], { type: f.type }) }));
}

/** A lazy web Request over node:http's message (srvx's, as @elysiajs/node uses): headers, URL and body are read only when asked for. */
function requestOf(req: IncomingMessage, res?: ServerResponse, maxRequestBodySize?: number): Request {
  return new NodeRequest({ req, res, maxRequestBodySize }) as unknown as Request;
}

/** The node:http message a request came on. */
const messageOf = (request: Request) => (request as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;

/** srvx's FastResponse as node:http wants it: status, raw header pairs and its body (text, bytes or a stream). */
type NodeShaped = { _toNodeResponse(): { status: number; statusText?: string; headers: string[]; body?: unknown } };

/**
 * Writes an answer to node:http. A body that is whole (text or bytes) goes
 * with one writeHead and one end(), as a bare node:http server answers;
 * anything else (a stream with back-pressure, a web Response) through srvx,
 * handed the shape already taken (taking it empties a FastResponse).
 */
function send(res: ServerResponse, response: Response): Promise<void> | undefined {
  if (!("_toNodeResponse" in response)) return sendNodeResponse(res, response);
  const r = (response as unknown as NodeShaped)._toNodeResponse();
  const body = r.body;
  if (body !== undefined && body !== null && typeof body !== "string" && !(body instanceof Uint8Array)) {
    return sendNodeResponse(res, { _toNodeResponse: () => r } as unknown as Response);
  }
  res.writeHead(r.status, r.statusText, r.headers);
  res.end(body ?? undefined);
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

export const nodeHost: HttpHost = {
  name: "node",
  missing: new Set(["tcp-servers", "serial"]),
  adapter: node(),
  async serve(app: App, opts: ServeOptions): Promise<HttpServer> {
    const answer: RequestListener = async (req, res) => {
      let response: Response;
      try {
        response = await app.handle(requestOf(req, res, opts.maxRequestBodySize));
      } catch (e) {
        response = Response.json({ error: "internal", message: "the server failed to answer this request" }, { status: 500 });
        console.error(e);
      }
      // answered before the body was read (a refusal, 413): the connection closes after it, as on Bun; kept
      // alive, the client's next request would wait behind the unread body (a fetch stalls ~6 s)
      if (!req.complete) res.shouldKeepAlive = false;
      // a body Elysia made (srvx's FastResponse) is written as it is: text or bytes in one end(), a stream with
      // back-pressure; HEAD answers send none (node:http)
      await send(res, response)?.catch(() => res.destroy());
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
      const request = requestOf(req);
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
        const address = messageOf(request)?.socket.remoteAddress;
        return address ? { address: address.startsWith("::ffff:") ? address.slice(7) : address } : null;
      },
      timeout: (request, seconds) => void messageOf(request)?.socket.setTimeout(seconds * 1000),
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
    // a second listener's requests are answered there too (each request carries its own node:http message)
    if (!opts.secondary) (app as { server: unknown }).server = httpServer;
    return httpServer;
  },
};
