/**
 * FBB over a radio circuit (an AX.25 connected-mode link, or a NET/ROM
 * circuit): the bytes go as they are, no telnet stuffing, CR line ends; B1
 * compressed blocks are binary and the circuit carries them intact.
 *
 * What the session writes in one turn (a proposal block, a message and its
 * end mark) is gathered and handed to the circuit at once, so it goes out
 * in full I frames rather than one short frame per write. The link counts
 * as `sending` until the far station has acknowledged everything: at
 * 1200 baud a 64 KB message takes minutes to go, and waiting for the
 * partner's answer must not time out meanwhile.
 */
import type { Circuit } from "../../../radio/index.ts";
import type { ByteLink } from "./link.ts";

export class CircuitLink implements ByteLink {
  readonly description: string;
  private chunks: Uint8Array[] = [];
  private waiting: ((c: Uint8Array | null) => void) | null = null;
  private ended = false;
  private closing = false;
  private out: Uint8Array[] = [];
  private flushTimer: ReturnType<typeof setImmediate> | null = null;
  /** hand-overs to the circuit not yet acknowledged by the far station */
  private unacked = 0;

  constructor(readonly circuit: Circuit) {
    this.description = `${circuit.kind} ${circuit.peer}`;
    circuit.onData((d) => this.deliver(d.slice()));
    void circuit.closed().then(() => this.end());
  }

  private deliver(d: Uint8Array): void {
    if (this.ended || d.length === 0) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(d);
    } else this.chunks.push(d);
  }

  private end(): void {
    this.ended = true;
    this.out = [];
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
  }

  read(): Promise<Uint8Array | null> {
    const c = this.chunks.shift();
    if (c) return Promise.resolve(c);
    if (this.ended) return Promise.resolve(null);
    return new Promise((r) => (this.waiting = r));
  }

  write(bytes: Uint8Array): void {
    if (this.ended || this.closing || bytes.length === 0) return;
    this.out.push(bytes.slice());
    this.flushTimer ??= setImmediate(() => this.flush());
  }

  private flush(): void {
    if (this.flushTimer) clearImmediate(this.flushTimer);
    this.flushTimer = null;
    if (this.ended || this.out.length === 0) return;
    const total = this.out.reduce((n, c) => n + c.length, 0);
    const data = new Uint8Array(total);
    let at = 0;
    for (const c of this.out.splice(0)) {
      data.set(c, at);
      at += c.length;
    }
    try {
      this.circuit.send(data);
    } catch {
      // the circuit has ended: the reader sees the end
      return;
    }
    this.unacked++;
    this.circuit.drained().then(
      () => this.unacked--,
      () => this.unacked--,
    );
  }

  sending(): boolean {
    return !this.ended && (this.out.length > 0 || this.unacked > 0);
  }

  /** Sends what was written (a final `*** reason`, FQ), then disconnects. */
  close(): void {
    if (this.closing) return;
    this.closing = true;
    this.flush();
    void this.circuit
      .drained()
      .catch(() => {})
      .then(() => this.circuit.disconnect())
      .catch(() => {});
  }
}
