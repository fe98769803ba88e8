/**
 * A NET/ROM node: enough of layers 3 and 4 to open a transport circuit to a
 * node through a neighbour, to accept one, and to forward packets for others.
 * Packets (netrom-l4.ts) travel in AX.25 I frames with PID 0xCF over
 * connected-mode links between neighbouring nodes; each hop is reliable, and
 * the circuit adds end-to-end sequencing, a window, acknowledgements and
 * retransmission on timeout.
 *
 *   const node = new NetRomNode({ call: "N0GW-7", alias: "GWNODE", route, link });
 *   station.listen((l) => l.local is the node's call && node.attach(l));
 *   node.listen((c) => c.onData(...));            // circuits to us
 *   const c = await node.connect("N0FAR-7");      // a Circuit (circuit.ts)
 *
 * Routing is the caller's: `route(dest)` names the neighbour (from the
 * NODES table), `link(neighbour)` gives a connected AX.25 link to it from the
 * node's call. A packet for another node is sent on with its TTL lowered.
 */
import { formatAddress, parseAddressLoose, sameAddress, type Ax25Address } from "./address.ts";
import type { Circuit } from "./circuit.ts";
import { systemClock, type Clock, type TimerHandle } from "./clock.ts";
import { PID_NETROM } from "./frame.ts";
import { LinkError, type Ax25Link, type CloseReason, type LinkState } from "./link.ts";
import { decodeNetRom, encodeNetRom, NR_MAX_INFO, type NetRomPacket, type NrTransport } from "./netrom-l4.ts";

export interface NetRomRoute {
  neighbour: Ax25Address;
  /** the radio port the neighbour is on, if the caller tracks ports */
  port?: string;
}

export interface NetRomNodeOptions {
  call: string | Ax25Address;
  alias: string;
  /** The neighbour to hand a destination's packets to; null when there is no route. */
  route(dest: Ax25Address): NetRomRoute | null;
  /** A connected AX.25 link from the node's call to a neighbour (it is attached for PID 0xCF traffic). */
  link(neighbour: Ax25Address, port?: string): Promise<Ax25Link>;
  clock?: Clock;
  /** Transport window offered (1-127). */
  window?: number;
  /** Time to live of the packets we originate. */
  ttl?: number;
  /** Wait for an acknowledgement (connect ack, info ack, disconnect ack) before resending. */
  timeoutMs?: number;
  /** Resends before a circuit is given up. */
  retries?: number;
  /** Delay before acknowledging info when we have nothing to send (the ack could ride on our info). */
  ackDelayMs?: number;
  log?: (message: string) => void;
}

const mod = (n: number) => ((n % 256) + 256) % 256;
const addr = (a: string | Ax25Address): Ax25Address => {
  if (typeof a !== "string") return { call: a.call, ssid: a.ssid };
  const r = parseAddressLoose(a);
  if (!r.ok) throw r.error;
  return r.value;
};

/** One NET/ROM transport circuit: a Circuit like an AX.25 link, end to end through the nodes between. */
export class NetRomCircuit implements Circuit {
  readonly kind = "netrom" as const;
  private s: LinkState = "connecting";
  yourIndex = 0;
  yourId = 0;
  window: number;
  private vs = 0;
  private va = 0;
  private vr = 0;
  private queue: Uint8Array[] = [];
  private unacked: Uint8Array[] = [];
  private peerBusy = false;
  private retries = 0;
  private t1: TimerHandle | null = null;
  private ackTimer: TimerHandle | null = null;
  private inbox: Uint8Array[] = [];
  private dataListeners = new Set<(d: Uint8Array) => void>();
  private stateListeners = new Set<(s: LinkState, r?: CloseReason) => void>();
  private drainWaiters: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  private closeReason: CloseReason | null = null;
  connectWaiter: { resolve: (c: NetRomCircuit) => void; reject: (e: Error) => void } | null = null;
  readonly stats = { infoSent: 0, infoResent: 0, infoReceived: 0, bytesSent: 0, bytesReceived: 0 };

  constructor(
    private node: NetRomNode,
    /** the far node */
    readonly remote: Ax25Address,
    /** the user the circuit speaks for (the caller's callsign) */
    readonly user: Ax25Address,
    readonly myIndex: number,
    readonly myId: number,
    window: number,
  ) {
    this.window = window;
  }

  get peer(): string {
    return formatAddress(this.remote);
  }

  get state(): LinkState {
    return this.s;
  }

  get reason(): CloseReason | null {
    return this.closeReason;
  }

  send(data: Uint8Array | string): void {
    if (this.s !== "connected") throw new LinkError(this.closeReason ?? "local", `the circuit to ${this.peer} is not connected`);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    for (let i = 0; i < bytes.length; i += NR_MAX_INFO) this.queue.push(bytes.slice(i, i + NR_MAX_INFO));
    this.pump();
  }

  onData(cb: (d: Uint8Array) => void): () => void {
    this.dataListeners.add(cb);
    for (const d of this.inbox.splice(0)) cb(d);
    return () => this.dataListeners.delete(cb);
  }

  onState(cb: (s: LinkState, r?: CloseReason) => void): () => void {
    this.stateListeners.add(cb);
    return () => this.stateListeners.delete(cb);
  }

  drained(): Promise<void> {
    if (!this.queue.length && !this.unacked.length) return Promise.resolve();
    if (this.s === "disconnected") return Promise.reject(new LinkError(this.closeReason ?? "local", `the circuit to ${this.peer} is closed`));
    return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  closed(): Promise<CloseReason> {
    if (this.s === "disconnected") return Promise.resolve(this.closeReason ?? "local");
    return new Promise((resolve) => {
      const off = this.onState((s, r) => {
        if (s !== "disconnected") return;
        off();
        resolve(r ?? "local");
      });
    });
  }

  disconnect(): Promise<void> {
    const done = this.closed().then(() => {});
    if (this.s === "connected") {
      this.retries = 0;
      this.queue = [];
      this.enter("disconnecting");
      this.sendDisc();
    } else if (this.s === "connecting") this.released("local");
    return done;
  }

  // ---- the node calls these ----

  /** Sends the connect request and waits for the ack. */
  start(): Promise<NetRomCircuit> {
    return new Promise((resolve, reject) => {
      this.connectWaiter = { resolve, reject };
      this.sendConnect();
    });
  }

  /** The circuit was accepted by us: connected at once. */
  accepted(yourIndex: number, yourId: number) {
    this.yourIndex = yourIndex;
    this.yourId = yourId;
    this.enter("connected");
  }

  receive(l4: NrTransport): void {
    switch (l4.op) {
      case "connect-ack":
        if (this.s !== "connecting") return;
        this.stopT1();
        if (l4.refused) return this.released("refused");
        this.yourIndex = l4.myIndex;
        this.yourId = l4.myId;
        this.window = Math.max(1, Math.min(this.window, l4.window));
        this.enter("connected");
        this.connectWaiter?.resolve(this);
        this.connectWaiter = null;
        this.pump();
        return;
      case "disconnect-request":
        this.node.sendL4(this.remote, { op: "disconnect-ack", index: this.yourIndex, id: this.yourId });
        return this.released("remote");
      case "disconnect-ack":
        if (this.s === "disconnecting") this.released("local");
        return;
      case "info":
        if (this.s !== "connected") return;
        this.peerBusy = l4.choke;
        this.acked(l4.rxSeq);
        if (l4.txSeq === this.vr) {
          this.vr = mod(this.vr + 1);
          this.stats.infoReceived++;
          this.stats.bytesReceived += l4.data.length;
          this.deliver(l4.data);
          // acknowledge soon, or on our next info
          if (!this.ackTimer) this.ackTimer = this.node.clock.after(this.node.ackDelayMs, () => this.sendAck(false));
        } else if (mod(this.vr - l4.txSeq) < 128) {
          this.sendAck(false); // a duplicate: our ack was lost
        } else {
          this.sendAck(true); // a gap: resend from vr
        }
        this.pump();
        return;
      case "info-ack":
        if (this.s !== "connected" && this.s !== "disconnecting") return;
        this.peerBusy = l4.choke;
        this.acked(l4.rxSeq);
        if (l4.nak) this.resend();
        this.pump();
        return;
    }
  }

  /** Stops without a word (the node is stopping). */
  abort(): void {
    if (this.s !== "disconnected") this.released("shutdown");
  }

  // ---- internals ----

  private sendConnect() {
    const n = this.node;
    n.sendL4(this.remote, {
      op: "connect-request",
      index: this.myIndex,
      id: this.myId,
      window: this.window,
      user: this.user,
      node: n.call,
      timeoutS: Math.round(n.timeoutMs / 1000),
    });
    this.startT1(() => {
      if (++this.retries > n.retries) return this.released("timeout");
      this.sendConnect();
    });
  }

  private sendDisc() {
    this.node.sendL4(this.remote, { op: "disconnect-request", index: this.yourIndex, id: this.yourId });
    this.startT1(() => {
      if (++this.retries > this.node.retries) return this.released("local");
      this.sendDisc();
    });
  }

  private sendAck(nak: boolean) {
    this.ackTimer?.cancel();
    this.ackTimer = null;
    this.node.sendL4(this.remote, { op: "info-ack", index: this.yourIndex, id: this.yourId, rxSeq: this.vr, choke: false, nak });
  }

  /** The peer acknowledged everything before `nr`. */
  private acked(nr: number) {
    const n = mod(nr - this.va);
    if (n === 0 || n > this.unacked.length) return;
    this.unacked.splice(0, n);
    this.va = nr;
    this.retries = 0;
    this.stopT1();
    if (this.unacked.length) this.startRetransmit();
    else if (!this.queue.length) {
      for (const w of this.drainWaiters.splice(0)) w.resolve();
    }
  }

  private pump() {
    if (this.s !== "connected") return;
    while (!this.peerBusy && this.unacked.length < this.window && this.queue.length) {
      const data = this.queue.shift()!;
      this.unacked.push(data);
      this.sendInfo(this.vs, data);
      this.vs = mod(this.vs + 1);
      this.stats.infoSent++;
      this.stats.bytesSent += data.length;
      if (!this.t1) this.startRetransmit();
    }
  }

  private sendInfo(seq: number, data: Uint8Array) {
    // the info carries our acknowledgement too
    this.ackTimer?.cancel();
    this.ackTimer = null;
    this.node.sendL4(this.remote, {
      op: "info",
      index: this.yourIndex,
      id: this.yourId,
      txSeq: seq,
      rxSeq: this.vr,
      choke: false,
      nak: false,
      more: false,
      data,
    });
  }

  private resend() {
    this.unacked.forEach((d, i) => {
      this.sendInfo(mod(this.va + i), d);
      this.stats.infoResent++;
    });
  }

  private startRetransmit() {
    this.startT1(() => {
      if (++this.retries > this.node.retries) {
        this.node.sendL4(this.remote, { op: "disconnect-request", index: this.yourIndex, id: this.yourId });
        return this.released("timeout");
      }
      this.resend();
      this.startRetransmit();
    });
  }

  private startT1(fn: () => void) {
    this.stopT1();
    this.t1 = this.node.clock.after(this.node.timeoutMs, () => {
      this.t1 = null;
      fn();
    });
  }

  private stopT1() {
    this.t1?.cancel();
    this.t1 = null;
  }

  private deliver(d: Uint8Array) {
    if (!this.dataListeners.size) this.inbox.push(d);
    for (const cb of [...this.dataListeners]) cb(d);
  }

  private enter(s: LinkState, reason?: CloseReason) {
    if (this.s === s) return;
    this.s = s;
    for (const cb of [...this.stateListeners]) cb(s, reason);
  }

  private released(reason: CloseReason) {
    this.stopT1();
    this.ackTimer?.cancel();
    this.ackTimer = null;
    this.closeReason = reason;
    this.queue = [];
    this.unacked = [];
    const err = new LinkError(reason, `circuit to ${this.peer} ended: ${reason}`);
    this.connectWaiter?.reject(err);
    this.connectWaiter = null;
    for (const w of this.drainWaiters.splice(0)) w.reject(err);
    this.node.released(this);
    this.enter("disconnected", reason);
  }
}

export interface NetRomStats {
  packetsIn: number;
  packetsOut: number;
  forwarded: number;
  /** packets dropped: no route, TTL run out, not decodable, no such circuit */
  dropped: number;
}

export class NetRomNode {
  readonly call: Ax25Address;
  readonly alias: string;
  readonly clock: Clock;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly ackDelayMs: number;
  readonly stats: NetRomStats = { packetsIn: 0, packetsOut: 0, forwarded: 0, dropped: 0 };
  private window: number;
  private ttl: number;
  private neighbours = new Map<string, Ax25Link>();
  private pending = new Map<string, Promise<Ax25Link>>();
  private circuits = new Map<number, NetRomCircuit>();
  private acceptors = new Set<(c: NetRomCircuit) => void>();
  private nextIndex = 0;
  private stopped = false;

  constructor(private opts: NetRomNodeOptions) {
    this.call = addr(opts.call);
    this.alias = opts.alias;
    this.clock = opts.clock ?? systemClock;
    this.window = Math.max(1, Math.min(127, opts.window ?? 4));
    this.ttl = opts.ttl ?? 16;
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.retries = opts.retries ?? 3;
    this.ackDelayMs = opts.ackDelayMs ?? 500;
  }

  /** Circuits to this node are handed to `cb` once accepted; without a listener they are refused. */
  listen(cb: (c: NetRomCircuit) => void): () => void {
    this.acceptors.add(cb);
    return () => this.acceptors.delete(cb);
  }

  /** Takes NET/ROM traffic (PID 0xCF) on a link with a neighbour node, whoever opened it. */
  attach(link: Ax25Link): void {
    const key = formatAddress(link.remote);
    this.neighbours.set(key, link);
    link.onData((d, pid) => {
      if (pid === PID_NETROM) this.receive(d);
    });
    link.onState((s) => {
      if (s === "disconnected" && this.neighbours.get(key) === link) this.neighbours.delete(key);
    });
  }

  /** The circuits that exist now. */
  active(): NetRomCircuit[] {
    return [...this.circuits.values()];
  }

  /** Opens a circuit to a node; resolves once it has accepted. `user` is whom it speaks for (default the node's call). */
  connect(dest: string | Ax25Address, opts: { user?: string | Ax25Address } = {}): Promise<NetRomCircuit> {
    try {
      if (this.stopped) throw new Error("the node is stopped");
      const to = addr(dest);
      const index = this.freeIndex();
      const c = new NetRomCircuit(this, to, opts.user ? addr(opts.user) : this.call, index, Math.floor(Math.random() * 256), this.window);
      this.circuits.set(index, c);
      return c.start();
    } catch (e) {
      return Promise.reject(e);
    }
  }

  stop(): void {
    this.stopped = true;
    for (const c of [...this.circuits.values()]) c.abort();
  }

  // ---- layer 3 ----

  /** Sends a transport packet to a node, by its route. */
  sendL4(dest: Ax25Address, l4: NrTransport): void {
    this.route({ origin: this.call, dest, ttl: this.ttl, l4 });
  }

  private route(p: NetRomPacket) {
    const direct = this.neighbours.get(formatAddress(p.dest));
    const r = direct ? { neighbour: p.dest } : this.opts.route(p.dest);
    if (!r) {
      this.stats.dropped++;
      this.opts.log?.(`no route to ${formatAddress(p.dest)}`);
      return;
    }
    const bytes = encodeNetRom(p);
    void this.linkTo(r)
      .then((l) => {
        l.send(bytes, { pid: PID_NETROM });
        this.stats.packetsOut++;
      })
      .catch((e) => {
        this.stats.dropped++;
        this.opts.log?.(`no link to ${formatAddress(r.neighbour)}: ${(e as Error).message}`);
      });
  }

  private linkTo(r: NetRomRoute): Promise<Ax25Link> {
    const key = formatAddress(r.neighbour);
    const l = this.neighbours.get(key);
    if (l && l.state === "connected") return Promise.resolve(l);
    let p = this.pending.get(key);
    if (!p) {
      p = this.opts.link(r.neighbour, r.port).then((link) => {
        this.attach(link);
        return link;
      });
      this.pending.set(key, p);
      void p.finally(() => this.pending.delete(key)).catch(() => {});
    }
    return p;
  }

  private receive(bytes: Uint8Array) {
    if (this.stopped) return;
    const r = decodeNetRom(bytes);
    if (!r.ok) {
      this.stats.dropped++;
      return;
    }
    const p = r.value;
    this.stats.packetsIn++;
    if (!sameAddress(p.dest, this.call)) {
      // for another node: send it on, one hop older
      if (p.ttl <= 1) {
        this.stats.dropped++;
        return;
      }
      this.stats.forwarded++;
      this.route({ ...p, ttl: p.ttl - 1 });
      return;
    }
    const l4 = p.l4;
    if (l4.op === "connect-request") return this.incoming(p.origin, l4);
    const c = this.circuits.get(l4.index);
    // a circuit's packets name our index and id; a stale one gets nothing (a disconnect request is still answered)
    if (!c || c.myId !== l4.id || !sameAddress(c.remote, p.origin)) {
      if (l4.op === "disconnect-request") this.sendL4(p.origin, { op: "disconnect-ack", index: l4.index, id: l4.id });
      else this.stats.dropped++;
      return;
    }
    c.receive(l4);
  }

  private incoming(origin: Ax25Address, req: Extract<NrTransport, { op: "connect-request" }>) {
    // the same request again (our ack was lost): ack it again
    for (const c of this.circuits.values()) {
      if (sameAddress(c.remote, origin) && c.yourIndex === req.index && c.yourId === req.id && c.state === "connected") {
        this.sendL4(origin, { op: "connect-ack", index: req.index, id: req.id, myIndex: c.myIndex, myId: c.myId, window: c.window, refused: false });
        return;
      }
    }
    if (!this.acceptors.size || this.stopped) {
      this.sendL4(origin, { op: "connect-ack", index: req.index, id: req.id, myIndex: 0, myId: 0, window: 0, refused: true });
      return;
    }
    const index = this.freeIndex();
    const window = Math.max(1, Math.min(this.window, req.window || 1));
    const c = new NetRomCircuit(this, origin, req.user, index, Math.floor(Math.random() * 256), window);
    this.circuits.set(index, c);
    c.accepted(req.index, req.id);
    this.sendL4(origin, { op: "connect-ack", index: req.index, id: req.id, myIndex: index, myId: c.myId, window, refused: false });
    for (const cb of [...this.acceptors]) cb(c);
  }

  private freeIndex(): number {
    for (let i = 0; i < 256; i++) {
      const n = (this.nextIndex + i) % 256;
      if (!this.circuits.has(n)) {
        this.nextIndex = (n + 1) % 256;
        return n;
      }
    }
    throw new LinkError("refused", "all 256 circuits are in use");
  }

  /** Called by a circuit that ended. */
  released(c: NetRomCircuit): void {
    if (this.circuits.get(c.myIndex) === c) this.circuits.delete(c.myIndex);
  }
}
