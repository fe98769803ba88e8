/**
 * A KISS TNC reached over some byte transport (TCP or serial): keeps the
 * connection up (reconnecting with backoff), turns bytes into frames and
 * frames into bytes, and counts what it does for `/api/ports`.
 */
import type { Socket, TCPSocketConnectOptions } from "bun";
import { encodeKiss, encodeKissParams, KissDecoder, type KissParams } from "../kiss.ts";

/** What a station needs from a radio port: raw AX.25 frames out and in. */
export interface FrameIo {
  /** Queues one AX.25 frame for transmission; false when it could not be handed to the TNC. */
  sendFrame(frame: Uint8Array): boolean;
  /** Calls `cb` with every AX.25 frame heard; returns the unsubscribe function. */
  onFrame(cb: (frame: Uint8Array) => void): () => void;
}

/** An open byte connection to a TNC. */
export interface Connection {
  write(bytes: Uint8Array): void;
  close(): void;
}

/** Bun.connect's shape: how a host opens an outbound TCP connection. */
export type TcpConnect = <Data = undefined>(options: TCPSocketConnectOptions<Data>) => Promise<Socket<Data>>;

export interface TransportHandlers {
  data(chunk: Uint8Array): void;
  /** The connection ended; `err` says why when it was not our close(). */
  close(err?: Error): void;
}

/** How to reach a TNC: `open` resolves once bytes can flow, or rejects. */
export interface Transport {
  readonly kind: "tcp" | "serial";
  /** `tcp://HOST:PORT` or `serial:PATH@BAUD`, as KISS_PORTS writes it. */
  readonly id: string;
  open(handlers: TransportHandlers): Promise<Connection>;
}

export type PortState = "idle" | "connecting" | "connected" | "waiting" | "closed";

export interface PortStatus {
  id: string;
  kind: "tcp" | "serial" | "sim";
  state: PortState;
  connected: boolean;
  /** Started by default (no KISS_PORTS) rather than configured: absence is not an error. */
  auto: boolean;
  framesIn: number;
  framesOut: number;
  /** Wire bytes (KISS-escaped) read from and written to the TNC. */
  bytesIn: number;
  bytesOut: number;
  /** KISS decode errors, transport errors, and frames the station could not decode. */
  errors: number;
  /** Frames not sent because the TNC was not connected. */
  dropped: number;
  /** Connections made after the first. */
  reconnects: number;
  lastError: string | null;
  lastErrorAt: number | null;
  connectedAt: number | null;
  lastRxAt: number | null;
  lastTxAt: number | null;
  /** When the next connection attempt is due, while waiting. */
  retryAt: number | null;
}

export type LogFn = (level: "debug" | "info" | "warn", message: string, data?: Record<string, unknown>) => void;

export interface KissPortOptions {
  /** Parameters sent to the TNC after every (re)connection, per KISS channel. */
  params?: Record<number, KissParams>;
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** A connection that lasted this long resets the backoff. */
  stableMs?: number;
  auto?: boolean;
  now?: () => number;
  log?: LogFn;
  /** how a TCP TNC is reached (default Bun.connect; the Node host gives its own) */
  connect?: TcpConnect;
}

type FrameListener = (frame: Uint8Array, channel: number) => void;

export class KissPort implements FrameIo {
  private conn: Connection | null = null;
  private decoder = new KissDecoder();
  private frameListeners = new Set<FrameListener>();
  private stateListeners = new Set<(s: PortState) => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private backoff: number;
  private connections = 0;
  private readonly now: () => number;
  private readonly log: LogFn;
  private readonly s: Omit<PortStatus, "id" | "kind" | "connected" | "auto">;

  constructor(
    readonly transport: Transport,
    private readonly opts: KissPortOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.log = opts.log ?? (() => {});
    this.backoff = opts.minBackoffMs ?? 500;
    this.s = {
      state: "idle",
      framesIn: 0,
      framesOut: 0,
      bytesIn: 0,
      bytesOut: 0,
      errors: 0,
      dropped: 0,
      reconnects: 0,
      lastError: null,
      lastErrorAt: null,
      connectedAt: null,
      lastRxAt: null,
      lastTxAt: null,
      retryAt: null,
    };
  }

  get id() {
    return this.transport.id;
  }

  get state(): PortState {
    return this.s.state;
  }

  status(): PortStatus {
    return { id: this.id, kind: this.transport.kind, connected: this.s.state === "connected", auto: this.opts.auto ?? false, ...this.s };
  }

  /** Starts connecting; the port keeps itself connected until close(). */
  start(): this {
    if (this.s.state === "idle") void this.attempt();
    return this;
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const c = this.conn;
    this.conn = null;
    this.setState("closed");
    c?.close();
  }

  sendFrame(frame: Uint8Array): boolean {
    return this.send(frame, 0);
  }

  /** Sends one AX.25 frame on KISS channel `channel`. */
  send(frame: Uint8Array, channel = 0): boolean {
    return this.write(encodeKiss(frame, channel), true);
  }

  /** Sends TNC parameters now (they are also re-sent on every reconnection if given in the options). */
  setParams(params: KissParams, channel = 0): boolean {
    return encodeKissParams(params, channel).every((f) => this.write(f, false));
  }

  onFrame(cb: (frame: Uint8Array) => void): () => void {
    return this.onChannelFrame((f, ch) => ch === 0 && cb(f));
  }

  /** Every data frame with its KISS channel. */
  onChannelFrame(cb: FrameListener): () => void {
    this.frameListeners.add(cb);
    return () => this.frameListeners.delete(cb);
  }

  onState(cb: (s: PortState) => void): () => void {
    this.stateListeners.add(cb);
    return () => this.stateListeners.delete(cb);
  }

  /** The FrameIo of one KISS channel (multi-radio TNCs number them 0-15). */
  channel(n: number): FrameIo {
    return {
      sendFrame: (frame) => this.send(frame, n),
      onFrame: (cb) => this.onChannelFrame((f, ch) => ch === n && cb(f)),
    };
  }

  /**
   * Counts a frame the layer above could not use (an AX.25 decode error), or
   * KISS garbage: the log says so once a minute at most, with the count.
   */
  noteError(message: string, logged = false): void {
    this.s.errors++;
    this.s.lastError = message;
    this.s.lastErrorAt = this.now();
    if (logged || this.now() - this.errorLoggedAt < 60_000) return;
    this.errorLoggedAt = this.now();
    this.log("warn", `radio port ${this.id}: bad data from the TNC (${message}); ${this.s.errors} error(s) so far, the port stays up`);
  }
  private errorLoggedAt = Number.NEGATIVE_INFINITY;

  /** Resolves when connected; rejects after `timeoutMs` or when closed. */
  whenConnected(timeoutMs = 10_000): Promise<void> {
    if (this.s.state === "connected") return Promise.resolve();
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        off();
        reject(new Error(`${this.id}: not connected after ${timeoutMs} ms (${this.s.lastError ?? this.s.state})`));
      }, timeoutMs);
      const off = this.onState((s) => {
        if (s === "connected" || s === "closed") {
          clearTimeout(t);
          off();
          if (s === "connected") resolve();
          else reject(new Error(`${this.id} closed`));
        }
      });
    });
  }

  private write(bytes: Uint8Array, isFrame: boolean): boolean {
    if (!this.conn || this.s.state !== "connected") {
      if (isFrame) this.s.dropped++;
      return false;
    }
    try {
      this.conn.write(bytes);
    } catch (e) {
      this.noteError(`write failed: ${(e as Error).message}`);
      return false;
    }
    this.s.bytesOut += bytes.length;
    if (isFrame) {
      this.s.framesOut++;
      this.s.lastTxAt = this.now();
    }
    return true;
  }

  private setState(state: PortState) {
    if (this.s.state === state) return;
    this.s.state = state;
    for (const cb of [...this.stateListeners]) cb(state);
  }

  private async attempt() {
    if (this.s.state === "closed") return;
    this.timer = null;
    this.s.retryAt = null;
    this.setState("connecting");
    this.decoder = new KissDecoder();
    let conn: Connection;
    const openedAt = this.now();
    let closed = false;
    try {
      conn = await this.transport.open({
        data: (chunk) => {
          if (closed) return;
          this.onData(chunk);
        },
        close: (err) => {
          if (closed) return;
          closed = true;
          this.onClose(err, openedAt);
        },
      });
    } catch (e) {
      closed = true;
      this.failed((e as Error).message);
      return;
    }
    if ((this.s.state as PortState) === "closed") {
      closed = true;
      conn.close();
      return;
    }
    if (closed) return; // closed before open resolved; onClose scheduled the retry
    this.conn = conn;
    if (this.connections++ > 0) this.s.reconnects++;
    this.s.connectedAt = this.now();
    this.setState("connected");
    this.log("info", `radio port ${this.id} connected`);
    for (const [ch, p] of Object.entries(this.opts.params ?? {})) this.setParams(p, Number(ch));
  }

  private onData(chunk: Uint8Array) {
    this.s.bytesIn += chunk.length;
    for (const r of this.decoder.push(chunk)) {
      if (!r.ok) {
        this.noteError(r.error.message);
        continue;
      }
      if (r.value.command !== "data") continue; // parameter echoes from some TNCs
      this.s.framesIn++;
      this.s.lastRxAt = this.now();
      for (const cb of [...this.frameListeners]) {
        try {
          cb(r.value.data, r.value.port);
        } catch (e) {
          this.log("warn", `radio port ${this.id}: a frame listener failed: ${(e as Error).message}`);
        }
      }
    }
  }

  private onClose(err: Error | undefined, openedAt: number) {
    this.conn = null;
    if (this.s.state === "closed") return;
    if (this.now() - openedAt >= (this.opts.stableMs ?? 5000)) this.backoff = this.opts.minBackoffMs ?? 500;
    this.failed(err ? err.message : "connection closed by the TNC");
  }

  private failed(message: string) {
    if (this.s.state === "closed") return;
    // an auto port that finds nobody listening is simply absent, not failing
    const quiet = this.opts.auto && this.connections === 0;
    if (!quiet) {
      this.noteError(message, true);
      this.log("warn", `radio port ${this.id}: ${message}; retrying in ${Math.round(this.backoff / 100) / 10} s`);
    } else {
      this.s.lastError = message;
    }
    this.setState("waiting");
    const delay = this.backoff;
    this.backoff = Math.min(this.backoff * 2, this.opts.maxBackoffMs ?? 30_000);
    this.s.retryAt = this.now() + delay;
    this.timer = setTimeout(() => void this.attempt(), delay);
    (this.timer as { unref?: () => void }).unref?.();
  }
}
