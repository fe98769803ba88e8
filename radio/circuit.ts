/**
 * A circuit: a reliable, ordered byte stream to a far station, whatever
 * carries it. An AX.25 connected-mode link (Ax25Link) is one; a NET/ROM
 * transport circuit routed through neighbour nodes (NetRomCircuit) is another.
 * Line protocols (SVCL1 sync, FBB forwarding) are written against this
 * interface only, so they run unchanged over either.
 *
 *   const c: Circuit = await radio.connect("N0PEER-5");        // or node.connect(...)
 *   const lines = new LineReader(4096);
 *   c.onData((d) => { for (const l of lines.push(d)) handle(l); });
 *   c.send("SVCL1 R ...\r"); await c.drained(); await c.disconnect();
 */
export type LinkState = "connecting" | "connected" | "disconnecting" | "disconnected";

/**
 * Why a link ended: we or the peer disconnected, the peer refused the
 * connection (DM), it stopped answering (N2 retries), it dropped the link
 * (DM while connected), or the station shut down.
 */
export type CloseReason = "local" | "remote" | "refused" | "timeout" | "lost" | "shutdown";

export interface Circuit {
  /** What carries it. */
  readonly kind: "ax25" | "netrom";
  /** The far end as text: `CALL-SSID` (AX.25) or the far node's call (NET/ROM). */
  readonly peer: string;
  readonly state: LinkState;
  /** Queues bytes; they arrive in order or the circuit ends. Throws LinkError once it has ended. */
  send(data: Uint8Array | string): void;
  /** Data as it arrives, in order; data that came before the first listener is delivered to it. */
  onData(cb: (d: Uint8Array) => void): () => void;
  /** Resolves once everything sent so far is acknowledged; rejects if the circuit ends first. */
  drained(): Promise<void>;
  /** Resolves with the reason once the circuit has ended. */
  closed(): Promise<CloseReason>;
  /** Ends the circuit politely; resolves once it has ended. */
  disconnect(): Promise<void>;
}

const CR = 0x0d;
const LF = 0x0a;

/** A line longer than the reader's limit. */
export class LineTooLong extends Error {
  constructor(readonly limit: number) {
    super(`a line longer than ${limit} bytes`);
    this.name = "LineTooLong";
  }
}

/**
 * Splits a byte stream into lines ended by CR, LF or CRLF (packet stations
 * send CR, telnet CRLF). Holds at most `maxLine` bytes of an unfinished line:
 * a longer one throws LineTooLong (and the reader starts over), so a peer
 * that never ends a line cannot grow memory without bound.
 */
export class LineReader {
  private parts: Uint8Array[] = [];
  private held = 0;
  private lastWasCr = false;

  constructor(public maxLine: number) {}

  /** Feeds bytes; returns the lines completed by them, without their ends. */
  push(chunk: Uint8Array): Uint8Array[] {
    const out: Uint8Array[] = [];
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b !== CR && b !== LF) continue;
      // the LF of a CRLF pair ends nothing new
      if (b === LF && this.lastWasCr && i === start && this.held === 0) {
        this.lastWasCr = false;
        start = i + 1;
        continue;
      }
      this.take(chunk.subarray(start, i));
      out.push(this.flush());
      this.lastWasCr = b === CR;
      start = i + 1;
    }
    if (start < chunk.length) {
      this.lastWasCr = false;
      this.take(chunk.subarray(start));
    }
    return out;
  }

  private take(bytes: Uint8Array) {
    if (!bytes.length) return;
    if (this.held + bytes.length > this.maxLine) {
      this.parts = [];
      this.held = 0;
      throw new LineTooLong(this.maxLine);
    }
    this.parts.push(bytes.slice());
    this.held += bytes.length;
  }

  private flush(): Uint8Array {
    const line = new Uint8Array(this.held);
    let at = 0;
    for (const p of this.parts) {
      line.set(p, at);
      at += p.length;
    }
    this.parts = [];
    this.held = 0;
    return line;
  }
}
