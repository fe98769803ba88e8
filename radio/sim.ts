/**
 * A simulated radio channel for tests and benchmarks: byte-timed (frames take
 * their HDLC bit time at the channel's baud, after a key-up delay), half
 * duplex with carrier sense and p-persistence like a KISS TNC, broadcast to
 * every other endpoint, and lossy on request (seeded, reproducible). Runs on
 * any Clock; with a ManualClock minutes of air time pass in milliseconds.
 */
import { hdlcBits } from "./airtime.ts";
import type { Clock } from "./clock.ts";
import type { FrameIo, PortState, PortStatus } from "./port/kiss-port.ts";
import type { PortDriver } from "./radio.ts";

export interface SimOptions {
  clock: Clock;
  baud?: number;
  /** Key-up delay (TXDELAY) before each transmission. */
  txDelayMs?: number;
  /** Carrier stays up this long after the last frame (TXTAIL). */
  txTailMs?: number;
  /** CSMA: after the channel clears, each slot a waiting station sends with probability `persist`. */
  slotMs?: number;
  persist?: number;
  /** Probability that a frame is lost (per receiver, independently). */
  loss?: number;
  /** Drop frames for which this returns true (deterministic loss for tests). */
  drop?: (frame: Uint8Array, from: string, to: string) => boolean;
  /** false: every endpoint has its own channel (no waiting, no collisions). */
  halfDuplex?: boolean;
  seed?: number;
}

export interface SimStats {
  transmissions: number;
  framesSent: number;
  framesLost: number;
  collisions: number;
  /** Milliseconds the channel carried a signal (key-up, frames, tail). */
  busyMs: number;
  /** Bytes of AX.25 frames put on the air (no FCS, no flags). */
  bytesOnAir: number;
}

/** mulberry32: small, seeded, good enough for loss patterns */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Carrier detect delay: how long after a key-up other stations notice it. */
const DCD_MS = 10;

interface Endpoint {
  name: string;
  queue: Uint8Array[];
  listeners: Set<(f: Uint8Array) => void>;
  /** the current (or last) transmission: keyed at txStart, carrier until txUntil */
  txStart: number;
  txUntil: number;
  /** a CSMA attempt is scheduled */
  waiting: boolean;
  /** the frames of the current transmission collided */
  collided: boolean;
}

export class SimChannel {
  readonly stats: SimStats = { transmissions: 0, framesSent: 0, framesLost: 0, collisions: 0, busyMs: 0, bytesOnAir: 0 };
  private endpoints: Endpoint[] = [];
  private random: () => number;
  private o: Required<Omit<SimOptions, "drop">> & Pick<SimOptions, "drop">;

  constructor(opts: SimOptions) {
    this.o = { baud: 1200, txDelayMs: 300, txTailMs: 30, slotMs: 100, persist: 0.25, loss: 0, halfDuplex: true, seed: 1, ...opts };
    this.random = rng(this.o.seed);
  }

  /** Raw capacity of the channel in bytes per second (baud / 8). */
  get capacity(): number {
    return this.o.baud / 8;
  }

  /** A station's radio: frames it sends go on the air; frames others send reach it. */
  endpoint(name: string): FrameIo {
    const ep: Endpoint = { name, queue: [], listeners: new Set(), txStart: 0, txUntil: 0, waiting: false, collided: false };
    this.endpoints.push(ep);
    return {
      sendFrame: (frame) => {
        ep.queue.push(frame.slice());
        this.schedule(ep, 0);
        return true;
      },
      onFrame: (cb) => {
        ep.listeners.add(cb);
        return () => ep.listeners.delete(cb);
      },
    };
  }

  private now() {
    return this.o.clock.now();
  }

  /**
   * When the channel, as `ep` hears it, is free again. A carrier is only
   * detected `dcdMs` after it keys up: two stations keying within that window
   * (the same CSMA slot) both transmit, and collide.
   */
  private busyUntil(ep: Endpoint): number {
    if (!this.o.halfDuplex) return ep.txUntil;
    const now = this.now();
    let t = ep.txUntil;
    for (const e of this.endpoints) if (e !== ep && e.txUntil > now && now - e.txStart >= DCD_MS) t = Math.max(t, e.txUntil);
    return t;
  }

  private schedule(ep: Endpoint, delay: number) {
    if (ep.waiting || ep.txUntil > this.now()) return;
    ep.waiting = true;
    this.o.clock.after(delay, () => this.attempt(ep));
  }

  private attempt(ep: Endpoint) {
    ep.waiting = false;
    if (!ep.queue.length) return;
    const now = this.now();
    const busy = this.busyUntil(ep);
    if (busy > now) {
      // carrier detected: wait for it to drop, then contend
      ep.waiting = true;
      this.o.clock.after(busy - now, () => this.attempt(ep));
      return;
    }
    if (this.o.halfDuplex && this.random() >= this.o.persist) {
      ep.waiting = true;
      this.o.clock.after(this.o.slotMs, () => this.attempt(ep));
      return;
    }
    this.key(ep);
  }

  /** Key up and send everything queued, back to back. */
  private key(ep: Endpoint) {
    const start = this.now();
    const frames = ep.queue;
    ep.queue = [];
    ep.collided = false;
    // someone else keyed too recently to be heard: both transmissions are lost
    if (this.o.halfDuplex)
      for (const other of this.endpoints)
        if (other !== ep && other.txUntil > start) {
          other.collided = ep.collided = true;
          this.stats.collisions++;
        }
    ep.txStart = start;
    let t = start + this.o.txDelayMs;
    const ends: [Uint8Array, number][] = [];
    for (const f of frames) {
      t += (hdlcBits(f) * 1000) / this.o.baud;
      ends.push([f, t]);
      this.stats.framesSent++;
      this.stats.bytesOnAir += f.length;
    }
    // opening flag is in txDelay; tail keeps the carrier a moment longer
    ep.txUntil = t + this.o.txTailMs;
    this.stats.transmissions++;
    this.stats.busyMs += ep.txUntil - start;
    for (const [f, end] of ends) this.o.clock.after(end - start, () => this.deliver(ep, f));
    this.o.clock.after(ep.txUntil - start, () => {
      if (ep.queue.length) this.schedule(ep, 0);
      for (const e of this.endpoints) if (e !== ep && e.queue.length) this.schedule(e, 0);
    });
  }

  private deliver(from: Endpoint, f: Uint8Array) {
    for (const to of this.endpoints) {
      if (to === from) continue;
      // a collided transmission reaches nobody; a half-duplex radio hears nothing while it transmits
      const deaf = this.o.halfDuplex && to.txUntil > this.now() && to.txStart < this.now();
      const lost = from.collided || deaf || this.random() < this.o.loss || (this.o.drop?.(f, from.name, to.name) ?? false);
      if (lost) {
        this.stats.framesLost++;
        continue;
      }
      for (const cb of [...to.listeners]) cb(f.slice());
    }
  }
}

/**
 * A port on a simulated channel, shaped like a KISS port (status and
 * counters), for a Radio (and so a whole gateway) in tests and benchmarks.
 */
export function simPort(channel: SimChannel, name: string, clock: { now(): number } = { now: () => Date.now() }): PortDriver {
  const io = channel.endpoint(name);
  const id = `sim:${name}`;
  const s = {
    framesIn: 0,
    framesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    errors: 0,
    lastError: null as string | null,
    lastErrorAt: null as number | null,
    lastRxAt: null as number | null,
    lastTxAt: null as number | null,
  };
  let state: PortState = "idle";
  let connectedAt: number | null = null;
  return {
    id,
    start() {
      if (state === "idle") {
        state = "connected";
        connectedAt = clock.now();
      }
    },
    async close() {
      state = "closed";
    },
    whenConnected: () => (state === "connected" ? Promise.resolve() : Promise.reject(new Error(`${id} is ${state}`))),
    sendFrame(frame) {
      if (state !== "connected") return false;
      s.framesOut++;
      s.bytesOut += frame.length;
      s.lastTxAt = clock.now();
      return io.sendFrame(frame);
    },
    onFrame(cb) {
      return io.onFrame((f) => {
        if (state !== "connected") return;
        s.framesIn++;
        s.bytesIn += f.length;
        s.lastRxAt = clock.now();
        cb(f);
      });
    },
    noteError(message) {
      s.errors++;
      s.lastError = message;
      s.lastErrorAt = clock.now();
    },
    status: (): PortStatus => ({
      id,
      kind: "sim",
      state,
      connected: state === "connected",
      auto: false,
      ...s,
      dropped: 0,
      reconnects: 0,
      connectedAt,
      retryAt: null,
    }),
  };
}
