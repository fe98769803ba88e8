/**
 * An AX.25 station on one radio port: our callsign(s), the connected-mode
 * links to and from them, and everything heard (UI frames for APRS and NODES,
 * a monitor of every frame for MHeard).
 *
 *   const st = new Ax25Station(kissPort, { calls: ["N0GW-1"] });
 *   st.listen((link) => link.onData((d) => link.send(d)));   // echo server
 *   const link = await st.connect("N0AGW-2");
 *   link.send("hello\r"); await link.drained(); await link.disconnect();
 */
import { formatAddress, parseAddressLoose, sameAddress, type Ax25Address } from "./address.ts";
import { AirEstimator } from "./airtime.ts";
import { systemClock, type Clock } from "./clock.ts";
import { RadioError } from "./errors.ts";
import { decodeFrame, encodeFrame, fullyRepeated, replyPath, uiFrame, type Ax25Frame, type Digipeater } from "./frame.ts";
import { Ax25Link, type LinkHost, type LinkParams } from "./link.ts";
import type { FrameIo } from "./port/kiss-port.ts";

export interface StationOptions {
  /** The callsigns this station answers to (connections, DMs). */
  calls: (string | Ax25Address)[];
  clock?: Clock;
  /** Link parameters for every link unless connect() says otherwise. */
  link?: Partial<LinkParams>;
  /** Radio bit rate and key-up delay, for airtime estimates (T1 pauses, T2). */
  baud?: number;
  txDelayMs?: number;
  /** Told about each frame that does not decode (count it on the port). */
  onBadFrame?: (error: RadioError, bytes: Uint8Array) => void;
  /**
   * Asked before a connection request to `local` from `remote` is accepted
   * (while someone listens); false refuses it with DM. Default: accept.
   */
  accept?: (local: Ax25Address, remote: Ax25Address) => boolean;
}

export interface MonitorEvent {
  dir: "rx" | "tx";
  frame: Ax25Frame;
  /** Encoded length (no FCS). */
  length: number;
  at: number;
}

export interface ConnectOptions {
  /** Digipeaters to go through, e.g. ["RELAY", "WIDE2-1"]. */
  via?: (string | Ax25Address)[];
  /** Which of our calls to connect from (default the first). */
  from?: string | Ax25Address;
  params?: Partial<LinkParams>;
}

const key = (local: Ax25Address, remote: Ax25Address) => `${formatAddress(local)}|${formatAddress(remote)}`;

function address(a: string | Ax25Address): Ax25Address {
  if (typeof a !== "string") return { call: a.call, ssid: a.ssid };
  const r = parseAddressLoose(a);
  if (!r.ok) throw r.error;
  return r.value;
}

export class Ax25Station {
  readonly calls: Ax25Address[];
  readonly clock: Clock;
  readonly air: AirEstimator;
  private links = new Map<string, Ax25Link>();
  private acceptors = new Set<(link: Ax25Link) => void>();
  private uiListeners = new Set<(f: Ax25Frame) => void>();
  private monitors = new Set<(e: MonitorEvent) => void>();
  private offIo: () => void;
  private linkParams: Partial<LinkParams>;
  private stopped = false;
  private host: LinkHost;

  constructor(
    private io: FrameIo,
    private opts: StationOptions,
  ) {
    // no calls: a receive-only station (no RADIO_CALL): it hears, it never answers
    this.calls = opts.calls.map(address);
    this.clock = opts.clock ?? systemClock;
    this.air = new AirEstimator(this.clock, { baud: opts.baud ?? 1200, txDelayMs: opts.txDelayMs ?? 300 });
    this.linkParams = opts.link ?? {};
    this.host = {
      clock: this.clock,
      air: this.air,
      transmit: (f) => void this.transmit(f),
      released: (l) => {
        const k = key(l.local, l.remote);
        if (this.links.get(k) === l) this.links.delete(k);
      },
    };
    this.offIo = io.onFrame((bytes) => this.heard(bytes));
  }

  /** Connects to `remote`; resolves with the link once the peer answered UA, rejects with LinkError (refused, timeout). */
  connect(remote: string | Ax25Address, opts: ConnectOptions = {}): Promise<Ax25Link> {
    try {
      if (this.stopped) throw new Error("station stopped");
      if (!this.calls.length) throw new RadioError("config-bad-call", "this station has no callsign (set RADIO_CALL) and cannot transmit");
      const local = opts.from ? address(opts.from) : this.calls[0]!;
      if (!this.calls.some((c) => sameAddress(c, local))) throw new RadioError("config-bad-call", `${formatAddress(local)} is not one of this station's calls`);
      const peer = address(remote);
      const k = key(local, peer);
      if (this.links.has(k)) throw new Error(`already linked with ${formatAddress(peer)}`);
      const path: Digipeater[] = (opts.via ?? []).map((v) => ({ ...address(v), repeated: false }));
      const link = new Ax25Link(this.host, local, peer, path, { ...this.linkParams, ...opts.params });
      this.links.set(k, link);
      return link.connect();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /**
   * Accepts connections to our calls: `onLink` gets each new link, already
   * connected. Without a listener, connection requests are refused with DM.
   */
  listen(onLink: (link: Ax25Link) => void): () => void {
    this.acceptors.add(onLink);
    return () => this.acceptors.delete(onLink);
  }

  /** Every UI frame heard, whoever it is for (APRS, NODES, beacons). */
  onUi(cb: (f: Ax25Frame) => void): () => void {
    this.uiListeners.add(cb);
    return () => this.uiListeners.delete(cb);
  }

  /** Every frame heard or sent, decoded. */
  onMonitor(cb: (e: MonitorEvent) => void): () => void {
    this.monitors.add(cb);
    return () => this.monitors.delete(cb);
  }

  /** Sends a UI frame from our first call unless `src` is given. */
  sendUi(opts: { dest: string | Ax25Address; info: Uint8Array | string; via?: (string | Ax25Address)[]; pid?: number; src?: string | Ax25Address }): boolean {
    const src = opts.src ? address(opts.src) : this.calls[0];
    if (!src) throw new RadioError("config-bad-call", "this station has no callsign (set RADIO_CALL) and cannot transmit");
    const f = uiFrame({
      dest: address(opts.dest),
      src,
      path: (opts.via ?? []).map((v) => ({ ...address(v), repeated: false })),
      info: typeof opts.info === "string" ? new TextEncoder().encode(opts.info) : opts.info,
      pid: opts.pid,
    });
    return this.transmit(f);
  }

  /** Sends any frame as is. */
  transmit(f: Ax25Frame): boolean {
    const bytes = encodeFrame(f);
    this.air.noteTx(bytes.length);
    this.emit({ dir: "tx", frame: f, length: bytes.length, at: this.clock.now() });
    return this.io.sendFrame(bytes);
  }

  /** The links that exist now (connecting, connected or disconnecting). */
  activeLinks(): Ax25Link[] {
    return [...this.links.values()];
  }

  /** Drops every link without a word on the air and stops listening to the port. */
  stop(): void {
    this.stopped = true;
    for (const l of [...this.links.values()]) l.abort();
    this.offIo();
  }

  private emit(e: MonitorEvent) {
    for (const cb of [...this.monitors]) cb(e);
  }

  private heard(bytes: Uint8Array) {
    if (this.stopped) return;
    const r = decodeFrame(bytes);
    if (!r.ok) {
      this.opts.onBadFrame?.(r.error, bytes);
      return;
    }
    const f = r.value;
    this.air.noteRx(bytes.length);
    this.emit({ dir: "rx", frame: f, length: bytes.length, at: this.clock.now() });
    if (f.type === "UI") {
      for (const cb of [...this.uiListeners]) cb(f);
      return;
    }
    // still on its way through a digipeater, or not for us
    if (!fullyRepeated(f)) return;
    const local = this.calls.find((c) => sameAddress(c, f.dest));
    if (!local) return;
    const link = this.links.get(key(local, f.src));
    if (link) return link.receive(f, bytes.length);
    this.unlinked(local, f);
  }

  /** A frame for one of our calls from a station we have no link with (AX.25 state 0). */
  private unlinked(local: Ax25Address, f: Ax25Frame) {
    const dm = () => this.transmit({ dest: f.src, src: local, path: replyPath(f.path), cr: "response", type: "DM", pf: f.pf, info: new Uint8Array(0) });
    if (f.type === "SABM" && this.acceptors.size && (this.opts.accept?.(local, f.src) ?? true)) {
      const link = new Ax25Link(this.host, local, f.src, replyPath(f.path), this.linkParams);
      this.links.set(key(local, f.src), link);
      link.accept(f);
      for (const cb of [...this.acceptors]) cb(link);
      return;
    }
    // SABME: we speak v2.0, and DM makes a v2.2 caller fall back to SABM
    if (f.type === "SABM" || f.type === "SABME" || f.type === "DISC") return void dm();
    // other commands get DM too; stray responses (UA, DM, RR F=1 ...) are ignored
    if (f.cr === "command") dm();
  }
}
