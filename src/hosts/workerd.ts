/**
 * The host on a Workers runtime (workerd): the gateway runs in one Durable
 * Object, whose `fetch` hands each request to the same Elysia app through
 * `app.handle(Request)`. There is no server to listen: `serve()` keeps the
 * app and answers with an HttpServer whose requests are the ones the Durable
 * Object is given (`handle`).
 *
 * - the client address is the runtime's `CF-Connecting-IP` header;
 * - WebSockets (the live rooms) are the Durable Object's own
 *   (`WebSocketPair`, accepted in the object, so it stays in memory while
 *   one is open), with Bun's topics kept here;
 * - a response streams as it is written (the CoT event stream);
 * - no code compiled from strings, no TCP servers, no serial ports: `missing`.
 */
import { TopicSocket } from "./topic-socket.ts";
import { AppError } from "../lib/errors.ts";
import type { App } from "../http/app.ts";
import type { HostSocket, HttpHost, HttpServer, ServeOptions, SocketRoute } from "../http/host.ts";

/** The runtime's WebSocket, as much of it as this host uses. */
interface RuntimeSocket {
  accept(): void;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: "message", fn: (e: { data: unknown }) => void): void;
  addEventListener(type: "close", fn: (e: { code: number; reason: string }) => void): void;
  addEventListener(type: "error", fn: () => void): void;
}

declare const WebSocketPair: { new (): { 0: RuntimeSocket; 1: RuntimeSocket } };

class DoSocket extends TopicSocket<DoSocket> implements HostSocket {
  open = true;
  constructor(
    readonly ws: RuntimeSocket,
    all: Map<string, Set<DoSocket>>,
  ) {
    super(all);
  }
  send(data: string): number {
    if (!this.open) return 0;
    try {
      this.ws.send(data);
      return data.length;
    } catch {
      return 0;
    }
  }
  close(code?: number, reason?: string): void {
    this.open = false;
    try {
      this.ws.close(code, reason);
    } catch {
      // already closed
    }
  }
  override drop(): void {
    this.open = false;
    super.drop();
  }
}

function refusal(e: unknown): Response {
  const err = e instanceof AppError ? e : new AppError(500, "internal", "the server failed to answer this request");
  return Response.json({ error: err.code, message: err.message }, { status: err.status, headers: { "access-control-allow-origin": "*" } });
}

/** The most of an unread request body that is read to keep the connection; past it the connection may close. */
const UNREAD_BODY_MAX = 1024 * 1024;

async function drain(body: ReadableStream<Uint8Array>, max: number): Promise<void> {
  const reader = body.getReader();
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > max) return void (await reader.cancel());
    }
  } catch {
    // the client went away
  }
}

export interface WorkerdHost extends HttpHost {
  /** Answers one request the Durable Object was given (after `serve()`). */
  handle(request: Request): Promise<Response>;
}

export function workerdHost(): WorkerdHost {
  let app: App | null = null;
  let sockets: Record<string, SocketRoute> = {};
  const topics = new Map<string, Set<DoSocket>>();
  const open = new Set<DoSocket>();
  const server: HttpServer = {
    port: undefined,
    requestIP: (request) => {
      const ip = request.headers.get("cf-connecting-ip");
      return ip ? { address: ip } : null;
    },
    // the runtime keeps a response open as long as it streams
    timeout: () => {},
    publish(topic, data) {
      const set = topics.get(topic);
      if (set) for (const s of set) s.send(data);
      return set?.size ?? 0;
    },
    subscriberCount: (topic) => topics.get(topic)?.size ?? 0,
    async stop() {
      for (const s of open) s.close(1001, "the gateway is stopping");
      open.clear();
    },
  };

  function upgrade(request: Request, route: SocketRoute): Response {
    let accepted: unknown;
    try {
      accepted = route.accept(request, server);
    } catch (e) {
      return refusal(e);
    }
    const pair = new WebSocketPair();
    const ws = pair[1];
    ws.accept();
    const s = new DoSocket(ws, topics);
    open.add(s);
    ws.addEventListener("message", (e) => {
      let msg: unknown = e.data;
      try {
        if (typeof msg === "string") msg = JSON.parse(msg);
      } catch {
        // not JSON: the route gets the text, as from Elysia
      }
      route.message(s, msg);
    });
    const closed = () => {
      if (!open.delete(s)) return;
      s.drop();
      route.close(s);
    };
    ws.addEventListener("close", (e) => {
      closed();
      // the close handshake: the runtime leaves the answer to the object (the client waits for it)
      try {
        ws.close(e.code === 1005 || e.code === 1006 ? 1000 : e.code, e.reason);
      } catch {
        // already closed
      }
    });
    ws.addEventListener("error", closed);
    route.open(s, accepted);
    return new Response(null, { status: 101, webSocket: pair[0] } as ResponseInit);
  }

  return {
    name: "workerd",
    missing: new Set(["tcp-servers", "serial", "codegen", "tls"]),
    async serve(a: App, opts: ServeOptions): Promise<HttpServer> {
      app = a;
      sockets = opts.sockets ?? {};
      // Elysia hands `server` to every handler's context from here (the client address, event streams)
      (a as { server: unknown }).server = server;
      return server;
    },
    async handle(request: Request): Promise<Response> {
      if (!app) throw new Error("the gateway is not serving yet");
      if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
        const route = sockets[new URL(request.url).pathname];
        return route ? upgrade(request, route) : refusal(new AppError(404, "not_found", "no WebSocket here"));
      }
      let response: Response;
      try {
        response = await app.handle(request);
      } catch (e) {
        console.error(e);
        response = refusal(e);
      }
      // A body the app did not read (a gate refused first) is read here: the runtime resets the
      // client's connection under a body left unread, and the client's next request on it fails.
      if (request.body && !request.bodyUsed) await drain(request.body, UNREAD_BODY_MAX);
      // A body the app compressed (Content-Encoding set) goes out as it is: the runtime would otherwise encode it again.
      if (response.headers.has("content-encoding"))
        return new Response(response.body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
          encodeBody: "manual",
        } as ResponseInit);
      return response;
    },
  };
}
