/**
 * One AX.25 connected-mode data link (v2.0 procedures, modulo 8), after the
 * AX.25 2.2 SDL: SABM/UA/DM/DISC, I frames with N(S)/N(R), RR/RNR/REJ, T1
 * retransmission with N2 retries (adaptive T1 from the smoothed round trip,
 * paused while the channel is busy), T3 keep-alive, window k, paclen.
 * Acknowledgements wait a moment (T2) so one RR answers a whole burst of
 * I frames, or ride on our own I frames.
 *
 * Ax25Station creates links (connect or accept) and feeds them frames; the
 * application sees connect/send/onData/disconnect.
 */
import type { Ax25Address } from "./address.ts";
import { formatAddress } from "./address.ts";
import { airtimeMs, type AirEstimator } from "./airtime.ts";
import type { Clock, TimerHandle } from "./clock.ts";
import type { Circuit, CloseReason, LinkState } from "./circuit.ts";

export type { CloseReason, LinkState };
import { PID_NONE, type Ax25Frame, type Digipeater, type FrameType } from "./frame.ts";

export interface LinkParams {
  /** N1: largest info field we send; data is split into I frames of this size. */
  paclen: number;
  /** k: I frames outstanding before we wait for an acknowledgement (1-7). */
  window: number;
  /** N2: retries of a poll or SABM/DISC before the link is given up. */
  retries: number;
  /**
   * Initial T1 (FRACK): wait for an acknowledgement. Adapts to the measured
   * round trip: twice the smoothed round trip (time the channel was busy left
   * out) plus the air time of one full-length frame from the peer, since over
   * KISS we cannot hear a frame until it has ended, and the acknowledgement
   * may ride at the end of the peer's longest I frame.
   */
  t1Ms: number;
  t1MinMs: number;
  t1MaxMs: number;
  /**
   * T2: delay before acknowledging received I frames (restarted by every frame
   * the peer sends). null = 100 ms when we have nothing to send (a half-duplex
   * TNC holds the RR until the peer's burst ends anyway), else 1.2x the
   * airtime of the frame just heard, hoping to ride on an I frame of ours
   * (bench/radio-link.ts measured both).
   */
  t2Ms: number | null;
  /** T3: idle time after which the link is checked with a poll. */
  t3Ms: number;
  /** Largest info field accepted from the peer (at least 256, the AX.25 default N1). */
  maxInfo: number;
}

export const DEFAULT_LINK_PARAMS: Readonly<LinkParams> = Object.freeze({
  paclen: 256,
  window: 4,
  retries: 10,
  t1Ms: 3000,
  t1MinMs: 1000,
  t1MaxMs: 60_000,
  t2Ms: null,
  t3Ms: 300_000,
  maxInfo: 256,
});

export class LinkError extends Error {
  constructor(
    readonly reason: CloseReason,
    message: string,
  ) {
    super(message);
    this.name = "LinkError";
  }
}

/** What a link needs from its station. */
export interface LinkHost {
  clock: Clock;
  air: AirEstimator;
  transmit(frame: Ax25Frame): void;
  released(link: Ax25Link): void;
}

export interface LinkStats {
  iFramesSent: number;
  iFramesResent: number;
  iFramesReceived: number;
  bytesSent: number;
  bytesAcked: number;
  bytesReceived: number;
  rejSent: number;
  rejReceived: number;
  polls: number;
  t1Expiries: number;
  /** Smoothed round-trip time and the current T1, ms. */
  srtMs: number;
  t1Ms: number;
}

enum S {
  Disconnected,
  AwaitingConnection,
  AwaitingRelease,
  Connected,
  TimerRecovery,
}

const EMPTY = new Uint8Array(0);
/** One I frame's worth of data and the layer-3 protocol it carries. */
interface Segment {
  data: Uint8Array;
  pid: number;
  /** when its latest transmission is (estimated to be) off the air: before that the peer cannot have heard it */
  airEnd?: number;
}
const mod8 = (n: number) => ((n % 8) + 8) % 8;
/**
 * An I frame up to this many behind V(R) is taken for a duplicate (a window
 * resent because our acknowledgement was late or lost): no REJ, just tell the
 * peer where we are. Modulo 8 cannot tell a duplicate from a frame after a gap
 * in general; for a peer window k <= 4 this split is exact (duplicates are 1..k
 * behind, frames after a gap 5..7), and for larger windows the first frame
 * after a gap of fewer than 4 lost frames is still rejected at once.
 */
const DUPLICATE_SPAN = 4;
/** Address, control and PID bytes around the largest info field: 2 addresses, 2 bytes. */
const FRAME_OVERHEAD = 16;

export class Ax25Link implements Circuit {
  readonly kind = "ax25" as const;
  private s = S.Disconnected;
  private vs = 0;
  private va = 0;
  private vr = 0;
  private rc = 0;
  private peerBusy = false;
  private ownBusy = false;
  private rejectException = false;
  /** V(A) when we last resent from it, until the peer acknowledges more (-1: none) */
  private resentFrom = -1;
  private ackPending = false;
  private srt: number;
  private t1v: number;
  private t1: TimerHandle | null = null;
  private t1Start = 0;
  private t1Credit = 0;
  /** no retransmission since T1 started: its round trip is a clean sample */
  private t1Clean = true;
  private t2: TimerHandle | null = null;
  private t3: TimerHandle | null = null;
  /** segments not yet sent (or pushed back for retransmission) */
  private queue: Segment[] = [];
  /** sent at least once and not yet acknowledged, in N(S) order from V(A) */
  private unacked: Segment[] = [];
  /** how many of `unacked` are in flight since the last retransmission point: V(S) = V(A) + inFlight */
  private inFlight = 0;
  private inbox: Segment[] = [];
  private dataListeners = new Set<(d: Uint8Array, pid: number) => void>();
  private stateListeners = new Set<(s: LinkState, reason?: CloseReason) => void>();
  private drainWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private closeReason: CloseReason | null = null;
  private connectWaiter: { resolve: (l: Ax25Link) => void; reject: (e: Error) => void } | null = null;
  readonly params: LinkParams;
  readonly st: Omit<LinkStats, "srtMs" | "t1Ms"> = {
    iFramesSent: 0,
    iFramesResent: 0,
    iFramesReceived: 0,
    bytesSent: 0,
    bytesAcked: 0,
    bytesReceived: 0,
    rejSent: 0,
    rejReceived: 0,
    polls: 0,
    t1Expiries: 0,
  };

  constructor(
    private host: LinkHost,
    readonly local: Ax25Address,
    readonly remote: Ax25Address,
    /** the digipeaters our frames go through */
    readonly path: Digipeater[],
    params: Partial<LinkParams> = {},
  ) {
    this.params = { ...DEFAULT_LINK_PARAMS, ...params };
    const p = this.params;
    if (!Number.isInteger(p.window) || p.window < 1 || p.window > 7) throw new RangeError(`window ${p.window} is not 1-7`);
    if (!Number.isInteger(p.paclen) || p.paclen < 1 || p.paclen > 2048) throw new RangeError(`paclen ${p.paclen} is not 1-2048`);
    // more digipeaters, longer round trip: FRACK x (2 x digis + 1), as TNCs do
    this.t1v = Math.min(p.t1MaxMs, p.t1Ms * (2 * path.length + 1));
    this.srt = this.t1v / 2;
  }

  /** `CALL-SSID` of the peer. */
  get peer(): string {
    return formatAddress(this.remote);
  }

  get state(): LinkState {
    switch (this.s) {
      case S.AwaitingConnection:
        return "connecting";
      case S.AwaitingRelease:
        return "disconnecting";
      case S.Connected:
      case S.TimerRecovery:
        return "connected";
      default:
        return "disconnected";
    }
  }

  /** Why the link ended, once it has. */
  get reason(): CloseReason | null {
    return this.closeReason;
  }

  stats(): LinkStats {
    return { ...this.st, srtMs: Math.round(this.srt), t1Ms: Math.round(this.t1v) };
  }

  /** Bytes queued or sent and not yet acknowledged. */
  get pending(): number {
    let n = 0;
    for (const q of this.queue) n += q.data.length;
    for (const q of this.unacked) n += q.data.length;
    return n;
  }

  /**
   * Queues data; it is split into I frames of at most paclen bytes, each
   * carrying `pid` (default 0xF0, no layer 3; 0xCF for NET/ROM packets, which
   * must then fit one frame each).
   */
  send(data: Uint8Array | string, opts: { pid?: number } = {}): void {
    if (this.s === S.Disconnected || this.s === S.AwaitingRelease)
      throw new LinkError(this.closeReason ?? "local", `the link to ${this.peer} is not connected`);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    const pid = opts.pid ?? PID_NONE;
    for (let i = 0; i < bytes.length; i += this.params.paclen) this.queue.push({ data: bytes.slice(i, i + this.params.paclen), pid });
    this.pump();
  }

  /**
   * Calls `cb` with the info field of each I frame as it arrives, in order,
   * with the frame's PID; data that came before the first listener is
   * delivered at once.
   */
  onData(cb: (d: Uint8Array, pid: number) => void): () => void {
    this.dataListeners.add(cb);
    const held = this.inbox;
    this.inbox = [];
    for (const s of held) cb(s.data, s.pid);
    return () => this.dataListeners.delete(cb);
  }

  onState(cb: (s: LinkState, reason?: CloseReason) => void): () => void {
    this.stateListeners.add(cb);
    return () => this.stateListeners.delete(cb);
  }

  /** Resolves once everything sent so far is acknowledged; rejects if the link ends first. */
  drained(): Promise<void> {
    if (!this.queue.length && !this.unacked.length) return Promise.resolve();
    if (this.s === S.Disconnected) return Promise.reject(new LinkError(this.closeReason ?? "local", `link to ${this.peer} is closed`));
    return new Promise((resolve, reject) => this.drainWaiters.push({ resolve, reject }));
  }

  /** Resolves when the link has ended (for any reason). */
  closed(): Promise<CloseReason> {
    if (this.s === S.Disconnected && this.closeReason) return Promise.resolve(this.closeReason);
    return new Promise((resolve) => {
      const off = this.onState((s, r) => {
        if (s === "disconnected") {
          off();
          resolve(r ?? "local");
        }
      });
    });
  }

  /**
   * Our receiver busy (RNR) or ready again (RR): the peer stops sending I
   * frames while we are busy.
   */
  setBusy(busy: boolean): void {
    if (busy === this.ownBusy) return;
    this.ownBusy = busy;
    if (this.linked) this.sendS(busy ? "RNR" : "RR", "response", false);
  }

  /** Sends DISC and resolves once the peer answered (or N2 retries ran out). */
  disconnect(): Promise<void> {
    const done = this.closed().then(() => {});
    switch (this.s) {
      case S.Disconnected:
        break;
      case S.AwaitingConnection:
        this.failQueue();
        this.stopT1();
        this.released("local");
        break;
      case S.AwaitingRelease:
        break;
      default:
        this.failQueue();
        this.rc = 0;
        this.transmitU("DISC", "command", true);
        this.stopT3();
        this.startT1();
        this.enter(S.AwaitingRelease);
    }
    return done;
  }

  // ---- called by the station ----

  /** DL-CONNECT request: SABM and wait for UA. */
  connect(): Promise<Ax25Link> {
    return new Promise((resolve, reject) => {
      this.connectWaiter = { resolve, reject };
      this.establish();
    });
  }

  /** A SABM for us while disconnected: accept it. */
  accept(sabm: Ax25Frame): void {
    this.transmitU("UA", "response", sabm.pf);
    this.resetVariables();
    this.clearExceptions();
    this.srt = this.t1v / 2;
    this.startT3();
    this.enter(S.Connected);
  }

  /** Stops everything without a word on the air (station shutting down). */
  abort(): void {
    if (this.s === S.Disconnected) return;
    this.failQueue();
    this.stopT1();
    this.stopT3();
    this.stopT2();
    this.released("shutdown");
  }

  /** A frame from the peer, addressed to us. */
  receive(f: Ax25Frame, wireLength: number): void {
    // the peer is still talking: hold our acknowledgement until it pauses
    if (this.ackPending && this.t2) this.startT2(wireLength);
    switch (f.type) {
      case "SABM":
        return this.onSabm(f);
      case "DISC":
        return this.onDisc(f);
      case "UA":
      case "DM":
        // either one answers our DISC
        if (this.s === S.AwaitingRelease) return this.onReleaseAnswer(f);
        return f.type === "UA" ? this.onUa(f) : this.onDm(f);
      case "FRMR":
        return this.onFrmr();
      case "RR":
      case "RNR":
      case "REJ":
      case "SREJ":
        return this.onS(f);
      case "I":
        return this.onI(f, wireLength);
      default:
        return; // UI, XID, TEST: not data-link business here
    }
  }

  // ---- state machine ----

  /**
   * A SABM or DISC while the link is being set up or released is only
   * answered: with `connecting` while we wait for the UA to our SABM, with
   * `releasing` while we wait for the answer to our DISC. False in the other
   * states, where the caller acts on it.
   */
  private answerInTransition(f: Ax25Frame, connecting: "UA" | "DM", releasing: "UA" | "DM"): boolean {
    if (this.s === S.AwaitingConnection) this.transmitU(connecting, "response", f.pf);
    else if (this.s === S.AwaitingRelease) this.transmitU(releasing, "response", f.pf);
    else return false;
    return true;
  }

  private get linked(): boolean {
    return this.s === S.Connected || this.s === S.TimerRecovery;
  }

  private onSabm(f: Ax25Frame) {
    // both sides called at once: answer, and wait for their UA as well; while releasing, refuse
    if (this.answerInTransition(f, "UA", "DM") || !this.linked) return;
    // the peer reset the link: start over from zero
    this.transmitU("UA", "response", f.pf);
    this.clearExceptions();
    if (this.vs !== this.va) this.failQueue();
    this.stopT1();
    this.startT3();
    this.resetVariables();
    this.enter(S.Connected);
  }

  private onDisc(f: Ax25Frame) {
    if (this.answerInTransition(f, "DM", "UA") || !this.linked) return;
    this.failQueue();
    this.transmitU("UA", "response", f.pf);
    this.stopT1();
    this.stopT3();
    this.released("remote");
  }

  /** A UA or DM while we wait for the answer to our DISC: with F=1, the link is released. */
  private onReleaseAnswer(f: Ax25Frame) {
    if (!f.pf) return;
    this.stopT1();
    this.released("local");
  }

  private onUa(f: Ax25Frame) {
    switch (this.s) {
      case S.AwaitingConnection:
        // F should be 1; some TNCs answer with F=0, which is harmless here
        this.stopT1();
        this.startT3();
        this.resetVariables();
        this.selectT1();
        this.enter(S.Connected);
        if (this.connectWaiter) {
          this.connectWaiter.resolve(this);
          this.connectWaiter = null;
        }
        this.pump();
        return;
      case S.Connected:
      case S.TimerRecovery:
        // a UA we did not ask for: re-establish
        this.establish();
        return;
    }
  }

  private onDm(f: Ax25Frame) {
    switch (this.s) {
      case S.AwaitingConnection:
        if (!f.pf) return;
        this.stopT1();
        this.failQueue();
        this.released("refused");
        return;
      case S.Connected:
      case S.TimerRecovery:
        this.failQueue();
        this.stopT1();
        this.stopT3();
        this.released("lost");
        return;
    }
  }

  private onFrmr() {
    if (this.linked) {
      this.establish();
    }
  }

  private onS(f: Ax25Frame) {
    if (this.s === S.AwaitingRelease) {
      if (f.cr === "command" && f.pf) this.transmitU("DM", "response", true);
      return;
    }
    if (this.s !== S.Connected && this.s !== S.TimerRecovery) return;
    const nr = f.nr!;
    if (f.type === "RNR") this.peerBusy = true;
    else this.peerBusy = false;
    if (f.type === "REJ") this.st.rejReceived++;
    const finalResponse = f.cr === "response" && f.pf;
    if (f.cr === "command" && f.pf) this.enquiryResponse(true);
    if (!this.nrValid(nr)) return this.nrErrorRecovery();

    if (this.s === S.TimerRecovery) {
      if (finalResponse) {
        this.stopT1();
        this.selectT1();
        this.setVa(nr);
        if (this.vs === this.va) return this.recovered();
        // back to normal sending, resending what the poll showed missing; rc counts on
        // (it renews only when the peer acknowledges something new)
        this.enter(S.Connected);
        this.stopT3();
        if (this.oldestHeard()) this.invokeRetransmission();
        else {
          // the answer left before our frames after the poll reached the peer: they are on their way
          this.startT1();
          this.pump();
        }
        return;
      }
      const again = nr === this.va && this.resentFrom === nr;
      this.setVa(nr);
      if (f.type === "REJ" && this.vs !== this.va && !again && this.oldestHeard()) this.invokeRetransmission();
      if (this.vs === this.va && !this.peerBusy) return this.recovered();
      this.pump();
      return;
    }
    // connected
    if (f.type === "REJ") {
      const again = nr === this.va && this.resentFrom === nr;
      this.setVa(nr);
      this.stopT1();
      this.stopT3();
      this.selectT1();
      // a REJ for frames we have just resent, or for frames not yet off the air (it crossed them)
      // is an acknowledgement only
      if (again || !this.oldestHeard()) this.pump();
      else this.invokeRetransmission();
      if (!this.t1 && this.inFlight) this.startT1();
      return;
    }
    this.checkIAcked(nr);
    this.pump();
  }

  private onI(f: Ax25Frame, wireLength: number) {
    if (this.s === S.AwaitingRelease) {
      if (f.pf) this.transmitU("DM", "response", true);
      return;
    }
    if (this.s !== S.Connected && this.s !== S.TimerRecovery) return;
    if (f.cr !== "command") return; // an I response is a protocol error: ignore it
    if (f.info.length > Math.max(this.params.maxInfo, 256)) {
      this.establish();
      return;
    }
    const nr = f.nr!;
    if (!this.nrValid(nr)) return this.nrErrorRecovery();
    if (this.s === S.TimerRecovery) {
      this.setVa(nr);
      if (this.vs === this.va && !this.peerBusy) this.recovered();
    } else this.checkIAcked(nr);

    if (this.ownBusy) {
      if (f.pf) this.enquiryResponse(true);
      return;
    }
    if (f.ns === this.vr) {
      this.vr = mod8(this.vr + 1);
      this.rejectException = false;
      this.st.iFramesReceived++;
      this.st.bytesReceived += f.info.length;
      this.deliver(f.info, f.pid ?? PID_NONE);
      if (f.pf) this.enquiryResponse(true);
      else {
        this.ackPending = true;
        this.startT2(wireLength);
      }
    } else if (this.rejectException) {
      if (f.pf) this.enquiryResponse(true);
    } else if (mod8(this.vr - f.ns!) <= DUPLICATE_SPAN) {
      // one of the last few frames again (our acknowledgement was lost, or the
      // peer retransmitted twice): not a gap, so no REJ; tell it where we are
      if (f.pf) this.enquiryResponse(true);
      else {
        this.ackPending = true;
        this.startT2(wireLength);
      }
    } else {
      this.rejectException = true;
      this.st.rejSent++;
      this.sendS("REJ", "response", f.pf);
    }
    this.pump();
  }

  /** Timer recovery is over: everything we sent is acknowledged. */
  private recovered() {
    this.stopT1();
    this.rc = 0;
    this.t1v = this.t1For(2 * this.srt);
    this.enter(S.Connected);
    // a busy peer is polled on T1 until it is ready again; an idle link waits for T3
    if (this.peerBusy) this.startT1();
    else this.startT3();
    this.pump();
  }

  private onT1Expiry() {
    this.st.t1Expiries++;
    this.t1Clean = false;
    switch (this.s) {
      case S.AwaitingConnection:
        if (this.rc >= this.params.retries) {
          this.failQueue();
          this.released("timeout");
          return;
        }
        this.rc++;
        this.transmitU("SABM", "command", true);
        this.startT1();
        return;
      case S.AwaitingRelease:
        if (this.rc >= this.params.retries) {
          this.released("local");
          return;
        }
        this.rc++;
        this.transmitU("DISC", "command", true);
        this.startT1();
        return;
      case S.Connected:
        this.rc++;
        this.backoffT1();
        this.transmitEnquiry();
        this.enter(S.TimerRecovery);
        return;
      case S.TimerRecovery:
        if (this.rc >= this.params.retries) {
          this.failQueue();
          this.transmitU("DM", "response", false);
          this.stopT3();
          this.released("timeout");
          return;
        }
        this.rc++;
        this.backoffT1();
        this.transmitEnquiry();
        return;
    }
  }

  private onT3Expiry() {
    this.t3 = null;
    if (this.s !== S.Connected) return;
    this.rc = 0;
    this.transmitEnquiry();
    this.enter(S.TimerRecovery);
  }

  // ---- procedures ----

  private establish() {
    this.clearExceptions();
    this.rc = 0;
    this.transmitU("SABM", "command", true);
    this.stopT3();
    this.startT1();
    this.enter(S.AwaitingConnection);
  }

  private resetVariables() {
    this.vs = this.va = this.vr = 0;
    this.unacked = [];
    this.inFlight = 0;
  }

  private clearExceptions() {
    this.peerBusy = false;
    this.rejectException = false;
    this.ownBusy = false;
    this.ackPending = false;
    this.stopT2();
  }

  private nrValid(nr: number): boolean {
    return mod8(nr - this.va) <= mod8(this.vs - this.va);
  }

  private nrErrorRecovery() {
    this.establish();
  }

  /** Marks I frames up to N(R)-1 acknowledged. */
  private setVa(nr: number) {
    // the peer acknowledged something new: it is alive, the retry budget renews
    if (nr !== this.va) {
      this.rc = 0;
      this.resentFrom = -1;
    }
    const n = Math.min(mod8(nr - this.va), this.inFlight);
    for (const seg of this.unacked.splice(0, n)) this.st.bytesAcked += seg.data.length;
    this.inFlight -= n;
    this.va = nr;
    if (!this.queue.length && !this.unacked.length) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const x of w) x.resolve();
    }
  }

  private checkIAcked(nr: number) {
    if (this.peerBusy) {
      this.setVa(nr);
      if (!this.t1) this.startT1();
    } else if (nr === this.vs) {
      this.setVa(nr);
      this.stopT1();
      this.startT3();
      this.selectT1();
    } else if (nr !== this.va) {
      this.setVa(nr);
      this.startT1();
    }
  }

  /** Resend everything not yet acknowledged, from V(A) on. */
  private invokeRetransmission() {
    this.resentFrom = this.va;
    this.st.iFramesResent += this.inFlight;
    this.inFlight = 0;
    this.vs = this.va;
    this.t1Clean = false;
    this.pump();
  }

  /** Can another I frame go out now? */
  private canSend(): boolean {
    return !this.peerBusy && this.inFlight < this.params.window && (this.inFlight < this.unacked.length || this.queue.length > 0);
  }

  /** Sends I frames (resent ones first, then new ones) while the window and the peer allow. */
  private pump() {
    if (this.s !== S.Connected && this.s !== S.TimerRecovery) return;
    while (this.canSend()) {
      let seg: Segment;
      if (this.inFlight < this.unacked.length) seg = this.unacked[this.inFlight]!;
      else {
        seg = this.queue.shift()!;
        this.unacked.push(seg);
        this.st.bytesSent += seg.data.length;
      }
      this.inFlight++;
      this.host.transmit(this.frame("I", "command", false, { ns: this.vs, nr: this.vr, pid: seg.pid, info: seg.data }));
      seg.airEnd = this.host.air.txDoneAt();
      this.st.iFramesSent++;
      this.vs = mod8(this.vs + 1);
      this.ackPending = false;
      this.stopT2();
      if (!this.t1) {
        this.stopT3();
        this.startT1();
      }
    }
  }

  private transmitEnquiry() {
    this.st.polls++;
    this.sendS(this.ownBusy ? "RNR" : "RR", "command", true);
    this.startT1();
  }

  private enquiryResponse(f: boolean) {
    this.sendS(this.ownBusy ? "RNR" : "RR", "response", f);
  }

  private sendS(type: "RR" | "RNR" | "REJ", cr: "command" | "response", pf: boolean) {
    this.ackPending = false;
    this.stopT2();
    this.host.transmit(this.frame(type, cr, pf, { nr: this.vr }));
  }

  private transmitU(type: FrameType, cr: "command" | "response", pf: boolean) {
    this.host.transmit(this.frame(type, cr, pf, {}));
  }

  private frame(type: FrameType, cr: "command" | "response", pf: boolean, x: { ns?: number; nr?: number; pid?: number; info?: Uint8Array }): Ax25Frame {
    return { dest: this.remote, src: this.local, path: this.path, cr, type, pf, ...x, info: x.info ?? EMPTY };
  }

  private deliver(data: Uint8Array, pid: number) {
    if (!this.dataListeners.size) {
      this.inbox.push({ data, pid });
      return;
    }
    for (const cb of [...this.dataListeners]) cb(data, pid);
  }

  // ---- timers ----

  private startT1() {
    this.stopT1();
    this.t1Start = this.host.clock.now();
    this.t1Credit = 0;
    this.t1Clean = this.rc === 0;
    this.t1 = this.host.clock.after(this.t1v, () => this.t1Check());
  }

  /** T1 ran out: first add back the time the channel was busy (it does not count), then expire. */
  private t1Check() {
    const now = this.host.clock.now();
    const busy = this.host.air.busyWithin(this.t1Start, now) + Math.max(0, this.host.air.txDoneAt() - now);
    const extra = busy - this.t1Credit;
    if (extra >= 1) {
      this.t1Credit = busy;
      this.t1 = this.host.clock.after(extra, () => this.t1Check());
      return;
    }
    this.t1 = null;
    this.onT1Expiry();
  }

  private stopT1() {
    this.t1?.cancel();
    this.t1 = null;
  }

  /** Adapts T1 to the round trip just measured (clean samples only, Karn's rule). */
  private selectT1() {
    if (this.rc === 0 && this.t1Clean && this.t1Start) {
      const now = this.host.clock.now();
      // the time the channel was busy is not round trip: T1 is paused then
      const rtt = Math.max(0, now - this.t1Start - this.host.air.busyWithin(this.t1Start, now));
      this.srt = (7 * this.srt + rtt) / 8;
      this.t1v = this.t1For(2 * this.srt);
    }
  }

  private backoffT1() {
    this.t1v = this.t1For(this.srt * 2 ** (this.rc + 1));
  }

  /** T1 for a wait of `ms`: plus one full-length frame from the peer (which we cannot hear begin), within bounds. */
  private t1For(ms: number): number {
    const longest = airtimeMs(Math.max(this.params.maxInfo, 256) + FRAME_OVERHEAD + 7 * this.path.length, this.host.air.opts.baud);
    return Math.min(this.params.t1MaxMs, Math.max(this.params.t1MinMs, ms + longest));
  }

  /**
   * Whether the peer can have heard I frame N(S) = V(A), the oldest not
   * acknowledged: it was sent and its latest transmission is off the air by
   * our estimate. A REJ or a poll's answer asking for a frame the peer cannot
   * have heard yet was sent before it arrived (it crossed our frames on a
   * half-duplex channel): it acknowledges, it asks for nothing.
   */
  private oldestHeard(): boolean {
    const seg = this.inFlight > 0 ? this.unacked[0] : undefined;
    return !!seg && (seg.airEnd ?? 0) <= this.host.clock.now();
  }

  private startT2(heardLength: number) {
    this.stopT2();
    const ms = this.params.t2Ms ?? (this.queue.length ? Math.min(3000, 1.2 * airtimeMs(heardLength, this.host.air.opts.baud) + 50) : 100);
    this.t2 = this.host.clock.after(ms, () => {
      this.t2 = null;
      if (this.ackPending && this.linked) {
        // an I frame of ours would carry the acknowledgement; otherwise RR
        if (this.canSend()) this.pump();
        else this.enquiryResponse(false);
      }
    });
  }

  private stopT2() {
    this.t2?.cancel();
    this.t2 = null;
  }

  private startT3() {
    this.stopT3();
    this.t3 = this.host.clock.after(this.params.t3Ms, () => this.onT3Expiry());
  }

  private stopT3() {
    this.t3?.cancel();
    this.t3 = null;
  }

  // ---- state changes ----

  private enter(s: S) {
    const before = this.state;
    this.s = s;
    const after = this.state;
    if (after !== before) for (const cb of [...this.stateListeners]) cb(after);
  }

  private failQueue() {
    this.queue = [];
    this.unacked = [];
    this.inFlight = 0;
  }

  private released(reason: CloseReason) {
    this.stopT1();
    this.stopT2();
    this.stopT3();
    this.closeReason = reason;
    this.s = S.Disconnected;
    const err = new LinkError(reason, `link to ${this.peer} ended: ${reason}`);
    if (this.connectWaiter) {
      this.connectWaiter.reject(err);
      this.connectWaiter = null;
    }
    const w = this.drainWaiters;
    this.drainWaiters = [];
    for (const x of w) x.reject(err);
    this.host.released(this);
    for (const cb of [...this.stateListeners]) cb("disconnected", reason);
  }
}
