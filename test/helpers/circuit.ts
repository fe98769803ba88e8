/**
 * Two circuits joined in memory, for testing line protocols (SVCL1) without
 * a radio: bytes sent on one arrive on the other on a later tick, in order.
 * The real carriers (AX.25 links, NET/ROM circuits) are tested elsewhere.
 */
import type { Circuit, CloseReason, LinkState } from "../../radio/index.ts";

class PipeEnd implements Circuit {
  readonly kind = "ax25" as const;
  state: LinkState = "connected";
  other!: PipeEnd;
  /** every chunk this end sent, as text */
  readonly sent: string[] = [];
  private listeners = new Set<(d: Uint8Array) => void>();
  private inbox: Uint8Array[] = [];
  private closeWaiters: Array<(r: CloseReason) => void> = [];
  private reason: CloseReason | null = null;

  constructor(readonly peer: string) {}

  send(data: Uint8Array | string): void {
    if (this.state !== "connected") throw new Error("not connected");
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data.slice();
    this.sent.push(new TextDecoder("latin1").decode(bytes));
    setTimeout(() => this.other.deliver(bytes), 0);
  }

  private deliver(d: Uint8Array) {
    if (this.state !== "connected") return;
    if (!this.listeners.size) this.inbox.push(d);
    for (const cb of [...this.listeners]) cb(d);
  }

  onData(cb: (d: Uint8Array) => void): () => void {
    this.listeners.add(cb);
    for (const d of this.inbox.splice(0)) cb(d);
    return () => this.listeners.delete(cb);
  }

  drained(): Promise<void> {
    return new Promise((r) => setTimeout(r, 1));
  }

  closed(): Promise<CloseReason> {
    if (this.reason) return Promise.resolve(this.reason);
    return new Promise((r) => this.closeWaiters.push(r));
  }

  end(reason: CloseReason) {
    if (this.state === "disconnected") return;
    this.state = "disconnected";
    this.reason = reason;
    for (const w of this.closeWaiters.splice(0)) w(reason);
  }

  async disconnect(): Promise<void> {
    setTimeout(() => this.other.end("remote"), 0);
    this.end("local");
  }
}

/** A connected pair: what `a` sends, `b` receives, and the other way. */
export function circuitPair(aName = "N0AAA", bName = "N0BBB"): { a: PipeEnd; b: PipeEnd } {
  const a = new PipeEnd(bName);
  const b = new PipeEnd(aName);
  a.other = b;
  b.other = a;
  return { a, b };
}
