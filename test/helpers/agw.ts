/**
 * A small AGWPE client for Direwolf's AGW port: the way to drive Direwolf's
 * own AX.25 data link as the far station of a connected-mode test.
 * Frames are a 36-byte header (port, kind, PID, call from, call to, data
 * length) and data. Used here: `X` register a callsign, `C` connect, `D` data,
 * `d` disconnect; Direwolf answers `X` (1 = registered), `C` (connected, in
 * either direction), `D` (data), `d` (disconnected).
 */
import { connect, type Socket } from "node:net";

export interface AgwFrame {
  port: number;
  kind: string;
  pid: number;
  from: string;
  to: string;
  data: Buffer;
}

function encode(kind: string, from = "", to = "", data: Uint8Array = new Uint8Array(), pid = 0, port = 0): Buffer {
  const h = Buffer.alloc(36);
  h[0] = port;
  h[4] = kind.charCodeAt(0);
  h[6] = pid;
  h.write(from, 8, 10, "latin1");
  h.write(to, 18, 10, "latin1");
  h.writeUInt32LE(data.length, 28);
  return Buffer.concat([h, data]);
}

const cstr = (b: Buffer) => b.toString("latin1").replace(/\0.*$/s, "");

export class AgwClient {
  /** Every frame Direwolf sent us, in order. */
  readonly frames: AgwFrame[] = [];
  private buf = Buffer.alloc(0);
  private waiters = new Set<() => void>();

  private constructor(private sock: Socket) {
    sock.on("data", (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      while (this.buf.length >= 36) {
        const len = this.buf.readUInt32LE(28);
        if (this.buf.length < 36 + len) break;
        const f = this.buf.subarray(0, 36 + len);
        this.buf = this.buf.subarray(36 + len);
        this.frames.push({
          port: f[0]!,
          kind: String.fromCharCode(f[4]!),
          pid: f[6]!,
          from: cstr(f.subarray(8, 18)),
          to: cstr(f.subarray(18, 28)),
          data: Buffer.from(f.subarray(36)),
        });
      }
      for (const w of [...this.waiters]) w();
    });
  }

  static open(port: number): Promise<AgwClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: "127.0.0.1", port });
      s.once("connect", () => resolve(new AgwClient(s)));
      s.once("error", reject);
    });
  }

  /** Resolves with the first frame at index >= `from` that matches. */
  waitFor(match: (f: AgwFrame) => boolean, opts: { from?: number; timeoutMs?: number } = {}): Promise<AgwFrame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const f = this.frames.slice(opts.from ?? 0).find(match);
        if (f) {
          done();
          resolve(f);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no matching AGW frame in ${opts.timeoutMs ?? 30_000} ms; got ${this.frames.map((f) => `${f.kind} ${f.from}>${f.to} ${JSON.stringify(f.data.toString("latin1").slice(0, 40))}`).join(" | ")}`,
          ),
        );
      }, opts.timeoutMs ?? 30_000);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Collects connected-mode data from `from` until `n` bytes have arrived. */
  async receive(from: string, n: number, opts: { since?: number; timeoutMs?: number } = {}): Promise<Buffer> {
    const since = opts.since ?? 0;
    const total = () =>
      Buffer.concat(
        this.frames
          .slice(since)
          .filter((f) => f.kind === "D" && f.from === from)
          .map((f) => f.data),
      );
    const deadline = Date.now() + (opts.timeoutMs ?? 60_000);
    while (total().length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`got ${total().length} of ${n} bytes from ${from}`);
      await this.waitFor((f) => f.kind === "D" && f.from === from, { from: this.frames.length, timeoutMs: left }).catch(() => {});
    }
    return total();
  }

  /** Registers `call` so Direwolf's data link answers connections to it. */
  async register(call: string): Promise<void> {
    const from = this.frames.length;
    this.sock.write(encode("X", call));
    const r = await this.waitFor((f) => f.kind === "X" && f.from === call, { from, timeoutMs: 5000 });
    if (r.data[0] !== 1) throw new Error(`direwolf refused to register ${call}`);
  }

  connect(from: string, to: string): void {
    this.sock.write(encode("C", from, to));
  }

  send(from: string, to: string, data: Uint8Array | string): void {
    this.sock.write(encode("D", from, to, typeof data === "string" ? Buffer.from(data, "latin1") : data, 0xf0));
  }

  disconnect(from: string, to: string): void {
    this.sock.write(encode("d", from, to));
  }

  close(): void {
    this.sock.destroy();
  }
}
