/**
 * Clients of the gateway's live feeds for tests: a WebSocket in region rooms
 * that queues every message in order, and a client that connects and then
 * stops reading (a raw TCP socket that did the upgrade or the SSE request and
 * pauses), as a stuck phone on a bad link does.
 */
import type { Socket } from "bun";

export interface LiveClient {
  ws: WebSocket;
  /** every message so far, parsed */
  received: any[];
  /** the next message not yet taken (in order) */
  next(timeoutMs?: number): Promise<any>;
  send(msg: unknown): void;
  /** resolves with the close code */
  closed: Promise<number>;
  close(): Promise<number>;
}

export async function liveClient(base: string, region: string, headers?: Record<string, string>): Promise<LiveClient> {
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/ws?region=${encodeURIComponent(region)}`, { headers } as never);
  const received: any[] = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  ws.onmessage = (e) => {
    received.push(JSON.parse(String(e.data)));
    waiters.splice(0).forEach((w) => w());
  };
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => (resolve(e.code), waiters.splice(0).forEach((w) => w()))));
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`WebSocket to region ${region} failed`));
  });
  return {
    ws,
    received,
    async next(timeoutMs = 5000) {
      const end = Date.now() + timeoutMs;
      while (received.length <= taken) {
        if (ws.readyState === WebSocket.CLOSED) throw new Error("closed while waiting for a message");
        const left = end - Date.now();
        if (left <= 0) throw new Error(`no message within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => (clearTimeout(t), resolve()));
        });
      }
      return received[taken++];
    },
    send: (msg) => ws.send(typeof msg === "string" ? msg : JSON.stringify(msg)),
    closed,
    close() {
      ws.close();
      return closed;
    },
  };
}

export interface StuckClient {
  /** bytes received before it stopped reading */
  bytes(): number;
  /** starts reading again; resolves when the server has closed the connection */
  drainUntilClosed(timeoutMs?: number): Promise<number>;
  destroy(): void;
}

/** Sends `request` (raw HTTP/1.1) and stops reading after the first bytes of the answer. */
export async function stuckClient(port: number, request: string): Promise<StuckClient> {
  let bytes = 0;
  let reading = false;
  let onClose: (() => void) | null = null;
  let isClosed = false;
  const sock: Socket<undefined> = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(s, d) {
        bytes += d.length;
        if (!reading) s.pause();
      },
      close() {
        isClosed = true;
        onClose?.();
      },
    },
  });
  sock.write(request);
  return {
    bytes: () => bytes,
    drainUntilClosed(timeoutMs = 20_000) {
      reading = true;
      sock.resume();
      if (isClosed) return Promise.resolve(bytes);
      return new Promise((resolve, reject) => {
        const t = setTimeout(() => reject(new Error("the server kept the stuck client's connection open")), timeoutMs);
        onClose = () => (clearTimeout(t), resolve(bytes));
      });
    },
    destroy: () => sock.terminate(),
  };
}

/** The raw upgrade request of `GET /ws?region=`. */
export const wsUpgrade = (port: number, region: string) =>
  `GET /ws?region=${region} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
