/**
 * FBB over TCP is FBB over telnet: a 0xFF byte travels doubled (IAC IAC), and
 * the peer may send telnet commands (FBB greets with IAC WONT ECHO). This
 * link undoes both on the way in and doubles 0xFF on the way out, so the
 * session sees the same bytes it would see on an AX.25 circuit.
 */
import type { Socket, TCPSocketListener } from "bun";
import { setTimeout as sleep } from "node:timers/promises";
import type { ByteLink } from "./link.ts";
import { tcpConnect } from "../../lib/net/tcp.ts";
import { ListenError } from "../../lib/errors.ts";

const IAC = 0xff;
const SB = 0xfa;
const SE = 0xf0;

/** Telnet receive state machine: data bytes out, commands dropped. */
export class TelnetDecoder {
  private state: "data" | "iac" | "opt" | "sb" | "sbIac" = "data";

  decode(chunk: Uint8Array): Uint8Array {
    const out = new Uint8Array(chunk.length);
    let n = 0;
    for (const b of chunk) {
      switch (this.state) {
        case "data":
          if (b === IAC) this.state = "iac";
          else out[n++] = b;
          break;
        case "iac":
          if (b === IAC) {
            out[n++] = IAC;
            this.state = "data";
          } else if (b >= 0xfb && b <= 0xfe)
            this.state = "opt"; // WILL WONT DO DONT <option>
          else if (b === SB) this.state = "sb";
          else this.state = "data"; // NOP, GA, ...
          break;
        case "opt":
          this.state = "data";
          break;
        case "sb":
          if (b === IAC) this.state = "sbIac";
          break;
        case "sbIac":
          this.state = b === SE ? "data" : "sb";
          break;
      }
    }
    return out.subarray(0, n);
  }
}

/** Doubles every 0xFF. */
export function telnetEncode(bytes: Uint8Array): Uint8Array {
  let count = 0;
  for (const b of bytes) if (b === IAC) count++;
  if (count === 0) return bytes;
  const out = new Uint8Array(bytes.length + count);
  let n = 0;
  for (const b of bytes) {
    out[n++] = b;
    if (b === IAC) out[n++] = IAC;
  }
  return out;
}

interface SocketData {
  link: TcpLink;
}

class TcpLink implements ByteLink {
  private chunks: Uint8Array[] = [];
  private waiting: ((c: Uint8Array | null) => void) | null = null;
  private closed = false;
  private decoder = new TelnetDecoder();
  private outQueue: Uint8Array[] = [];
  private drainWaiters: Array<() => void> = [];
  socket: Socket<SocketData> | null = null;

  constructor(readonly description: string) {}

  /** Called by the socket handlers. */
  onData(chunk: Uint8Array): void {
    const data = this.decoder.decode(chunk);
    if (data.length === 0) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(data.slice());
    } else this.chunks.push(data.slice());
  }

  onClose(): void {
    this.closed = true;
    this.socket = null;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
    for (const d of this.drainWaiters.splice(0)) d();
  }

  onDrain(): void {
    this.flush();
  }

  private flush(): void {
    const s = this.socket;
    while (s && this.outQueue.length) {
      const head = this.outQueue[0]!;
      const n = s.write(head);
      if (n < head.length) {
        this.outQueue[0] = head.subarray(Math.max(n, 0));
        return;
      }
      this.outQueue.shift();
    }
    if (this.outQueue.length === 0) for (const d of this.drainWaiters.splice(0)) d();
  }

  read(): Promise<Uint8Array | null> {
    const c = this.chunks.shift();
    if (c) return Promise.resolve(c);
    if (this.closed) return Promise.resolve(null);
    return new Promise((r) => (this.waiting = r));
  }

  write(bytes: Uint8Array): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.outQueue.push(telnetEncode(bytes));
    this.flush();
    if (this.outQueue.length === 0) return Promise.resolve();
    return new Promise((r) => this.drainWaiters.push(r));
  }

  close(): void {
    if (this.closed) return;
    const s = this.socket;
    if (s) {
      // Let queued bytes (e.g. a final "*** reason") go out first.
      if (this.outQueue.length) void Promise.race([new Promise<void>((r) => this.drainWaiters.push(r)), sleep(2000)]).then(() => s.end());
      else s.end();
    }
    this.closed = true;
  }
}

const handlers = {
  data(s: Socket<SocketData>, d: Uint8Array) {
    s.data.link.onData(d);
  },
  close(s: Socket<SocketData>) {
    s.data.link.onClose();
  },
  error(s: Socket<SocketData>) {
    s.data.link.onClose();
  },
  drain(s: Socket<SocketData>) {
    s.data.link.onDrain();
  },
};

/** Calls host:port; rejects when the connection cannot be made within `timeoutMs`. */
export async function connectTcp(host: string, port: number, timeoutMs: number): Promise<TcpLink> {
  const link = new TcpLink(`tcp ${host}:${port}`);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const socket = await Promise.race([
    tcpConnect<SocketData>({ hostname: host, port, data: { link }, socket: handlers }),
    new Promise<never>(
      (_, rej) => (timer = setTimeout(() => rej(new Error(`no connection to ${host}:${port} within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)),
    ),
  ]).finally(() => clearTimeout(timer));
  link.socket = socket;
  return link;
}

export interface TcpListener {
  port: number;
  stop(): void;
}

/** Listens for partner BBSes; every connection becomes a link handed to `onLink`. */
export function listenTcp(host: string, port: number, onLink: (link: TcpLink, remote: string) => void): TcpListener {
  let server: TCPSocketListener<SocketData>;
  try {
    server = listenOn(host, port, onLink);
  } catch (e) {
    throw new ListenError(`the FBB forwarding listener (BBS_FBB_PORT ${host.includes(":") ? `[${host}]` : host}:${port})`, e);
  }
  return { port: server.port, stop: () => server.stop(true) };
}

function listenOn(host: string, port: number, onLink: (link: TcpLink, remote: string) => void): TCPSocketListener<SocketData> {
  return Bun.listen<SocketData>({
    hostname: host,
    port,
    socket: {
      ...handlers,
      open(s) {
        const link = new TcpLink(`tcp ${s.remoteAddress}`);
        link.socket = s;
        s.data = { link };
        onLink(link, s.remoteAddress);
      },
    },
  });
}
