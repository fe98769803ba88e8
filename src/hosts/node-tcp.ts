/**
 * Bun.connect on node:net, for the code written on Bun's socket API (the
 * APRS-IS uplink, FBB forwarding): the same handlers, called with a socket
 * whose `write` answers how many bytes it took. Node's socket takes
 * everything and buffers it; past HIGH_WATER bytes waiting this one answers 0
 * instead, so the caller keeps the rest in its own bounded queue and writes it
 * from `drain`, as it does on Bun when the kernel's buffer is full.
 */
import { connect as netConnect, type Socket as NetSocket } from "node:net";
import type { Socket, SocketHandler, TCPSocketConnectOptions } from "bun";
import type { TcpConnect } from "../lib/net/tcp.ts";

const HIGH_WATER = 64 * 1024;

class NodeTcpSocket<Data> {
  constructor(
    private readonly s: NetSocket,
    public data: Data,
  ) {}
  get remoteAddress(): string {
    const a = this.s.remoteAddress ?? "";
    return a.startsWith("::ffff:") ? a.slice(7) : a;
  }
  get remotePort(): number {
    return this.s.remotePort ?? 0;
  }
  get localPort(): number {
    return this.s.localPort ?? 0;
  }
  /** bytes taken: all of them, 0 while too much waits (drain follows), -1 once closed */
  write(data: string | Uint8Array): number {
    if (this.s.destroyed || !this.s.writable) return -1;
    if (this.s.writableLength >= HIGH_WATER) return 0;
    const bytes = typeof data === "string" ? Buffer.from(data) : data;
    this.s.write(bytes);
    return bytes.length;
  }
  end(data?: string | Uint8Array): number {
    const n = data === undefined ? 0 : this.write(data);
    this.s.end();
    return n;
  }
  terminate(): void {
    this.s.destroy();
  }
  flush(): void {
    // node:net sends as soon as it can
  }
  setNoDelay(noDelay = true): boolean {
    this.s.setNoDelay(noDelay);
    return true;
  }
  setKeepAlive(enable = false, initialDelay = 0): boolean {
    this.s.setKeepAlive(enable, initialDelay);
    return true;
  }
  timeout(seconds: number): void {
    this.s.setTimeout(seconds * 1000);
  }
  ref(): void {
    this.s.ref();
  }
  unref(): void {
    this.s.unref();
  }
}

export const nodeTcpConnect: TcpConnect = <Data>(o: TCPSocketConnectOptions<Data>) =>
  new Promise<Socket<Data>>((resolve, reject) => {
    const h = o.socket as SocketHandler<Data>;
    const s = netConnect({ host: o.hostname, port: o.port });
    s.setNoDelay(true);
    const sock = new NodeTcpSocket<Data>(s, o.data as Data) as unknown as Socket<Data>;
    let open = false;
    s.once("connect", () => {
      open = true;
      void h.open?.(sock);
      resolve(sock);
    });
    s.on("data", (d: Buffer) => void h.data?.(sock, d));
    s.on("drain", () => void h.drain?.(sock));
    s.on("end", () => void h.end?.(sock));
    s.on("timeout", () => void h.timeout?.(sock));
    s.on("error", (e) => {
      if (!open) {
        void h.connectError?.(sock, e);
        reject(e);
      } else void h.error?.(sock, e);
    });
    s.on("close", () => {
      if (open) void h.close?.(sock, undefined);
    });
  });
