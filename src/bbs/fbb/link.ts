/**
 * The byte stream an FBB session runs over, and a buffered reader on top of
 * it. A TCP (telnet) connection, an AX.25 connected-mode circuit and the
 * ingest box's HTTP session relay each implement ByteLink; the session code
 * never knows which one carries it.
 */

export interface ByteLink {
  /** The next chunk of bytes, or null once the other side has closed. */
  read(): Promise<Uint8Array | null>;
  write(bytes: Uint8Array): void | Promise<void>;
  close(): void;
  /** e.g. "tcp 127.0.0.1:7000", "ax25 N0FBB-1", "box session 3" */
  readonly description: string;
  /**
   * True while bytes we wrote are still on their way to the other side (a
   * slow radio circuit): waiting for its answer does not time out meanwhile.
   */
  sending?(): boolean;
}

export class LinkClosed extends Error {
  override name = "LinkClosed";
  constructor(message = "the other side closed the connection") {
    super(message);
  }
}

export class LinkTimeout extends Error {
  override name = "LinkTimeout";
}

/** The input broke a rule of the protocol (too long a line, bad framing, ...). */
export class ProtocolError extends Error {
  override name = "ProtocolError";
}

const CR = 13;
const LF = 10;

/**
 * Buffered reads with a timeout on each wait. Lines end at CR, LF or CRLF
 * (a LF right after a CR that ended a line is dropped, even when it arrives
 * in the next chunk or before binary data).
 */
export class LinkReader {
  private buf = new Uint8Array(0);
  private pos = 0;
  private pending: Promise<Uint8Array | null> | null = null;
  private eof = false;
  private skipLf = false;
  /** bytes received so far */
  received = 0;

  constructor(
    private link: ByteLink,
    private timeoutMs: number,
  ) {}

  setTimeout(ms: number): void {
    this.timeoutMs = ms;
  }

  private available(): number {
    return this.buf.length - this.pos;
  }

  /** Waits for more input; false at end of stream. */
  private async fill(timeoutMs = this.timeoutMs): Promise<boolean> {
    if (this.eof) return false;
    this.pending ??= this.link.read();
    let got: Uint8Array | null | "timeout";
    do {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
      got = await Promise.race([this.pending, timeout]);
      clearTimeout(timer);
      // our own bytes still going out: the other side cannot have answered yet
    } while (got === "timeout" && this.link.sending?.());
    if (got === "timeout") throw new LinkTimeout(`nothing received for ${Math.round(timeoutMs / 1000)} s`);
    this.pending = null;
    if (got === null) {
      this.eof = true;
      return false;
    }
    this.received += got.length;
    const rest = this.buf.subarray(this.pos);
    const next = new Uint8Array(rest.length + got.length);
    next.set(rest);
    next.set(got, rest.length);
    this.buf = next;
    this.pos = 0;
    return true;
  }

  private async need(n: number): Promise<void> {
    while (this.available() < n) {
      if (!(await this.fill())) throw new LinkClosed();
    }
  }

  private async dropPendingLf(): Promise<void> {
    if (!this.skipLf) return;
    this.skipLf = false;
    if (this.available() === 0) {
      // A LF may be on its way right behind the CR; do not wait long for it.
      try {
        if (!(await this.fill(Math.min(this.timeoutMs, 2000)))) return;
      } catch (e) {
        if (e instanceof LinkTimeout) return;
        throw e;
      }
    }
    if (this.buf[this.pos] === LF) this.pos++;
  }

  async readByte(): Promise<number> {
    await this.dropPendingLf();
    await this.need(1);
    return this.buf[this.pos++]!;
  }

  async readExact(n: number): Promise<Uint8Array> {
    await this.dropPendingLf();
    await this.need(n);
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * One line without its terminator, as Latin-1 text. A line longer than
   * `max` bytes is a protocol error.
   */
  async readLine(max = 512): Promise<string> {
    await this.dropPendingLf();
    let scanned = 0;
    for (;;) {
      const b = this.buf;
      for (let i = this.pos + scanned; i < b.length; i++) {
        const c = b[i]!;
        if (c === CR || c === LF) {
          const line = latin1(b.subarray(this.pos, i));
          this.pos = i + 1;
          this.skipLf = c === CR;
          return line;
        }
        if (i - this.pos >= max) throw new ProtocolError(`a line longer than ${max} bytes`);
      }
      scanned = b.length - this.pos;
      if (!(await this.fill())) {
        if (this.available() > 0) {
          const line = latin1(this.buf.subarray(this.pos));
          this.pos = this.buf.length;
          return line;
        }
        throw new LinkClosed();
      }
    }
  }

  /** Bytes up to (not including) `stop`, which is consumed. More than `max` bytes is an error. */
  async readUntil(stop: number, max: number): Promise<Uint8Array> {
    await this.dropPendingLf();
    let scanned = 0;
    for (;;) {
      const b = this.buf;
      const idx = b.subarray(this.pos + scanned).indexOf(stop);
      if (idx >= 0) {
        const end = this.pos + scanned + idx;
        if (end - this.pos > max) throw new ProtocolError(`more than ${max} bytes before the end mark`);
        const out = b.slice(this.pos, end);
        this.pos = end + 1;
        return out;
      }
      scanned = b.length - this.pos;
      if (scanned > max) throw new ProtocolError(`more than ${max} bytes before the end mark`);
      if (!(await this.fill())) throw new LinkClosed("the connection closed in the middle of a message");
    }
  }

  /**
   * Text received until a quiet gap of `quietMs` after the first byte, or a
   * line end: how a telnet peer's unterminated identification line arrives.
   * Returns null when nothing at all arrives within `firstMs`.
   */
  async readGreeting(firstMs: number, quietMs: number, max = 256): Promise<string | null> {
    await this.dropPendingLf();
    try {
      if (this.available() === 0 && !(await this.fill(firstMs))) return null;
    } catch (e) {
      if (e instanceof LinkTimeout) return null;
      throw e;
    }
    for (;;) {
      const b = this.buf.subarray(this.pos);
      const end = b.findIndex((c) => c === CR || c === LF);
      if (end >= 0) return this.readLine(max);
      if (b.length > max) throw new ProtocolError(`an identification longer than ${max} bytes`);
      try {
        if (!(await this.fill(quietMs))) break;
      } catch (e) {
        if (e instanceof LinkTimeout) break;
        throw e;
      }
    }
    // (fill() compacts the buffer, so read from pos, which nothing advanced.)
    const text = latin1(this.buf.subarray(this.pos));
    this.pos = this.buf.length;
    return text;
  }
}

export function latin1(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 8192) s += String.fromCharCode(...b.subarray(i, i + 8192));
  return s;
}

export function fromLatin1(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}

/**
 * A link fed and drained by code rather than a socket: the ingest box's HTTP
 * session relay, and tests. `push` delivers input; `take` returns what the
 * session wrote; `onOutput` is called whenever something was written.
 */
export class MemoryLink implements ByteLink {
  private input: Uint8Array[] = [];
  private waiting: ((c: Uint8Array | null) => void) | null = null;
  private output: Uint8Array[] = [];
  private ended = false;
  closed = false;
  onOutput: (() => void) | null = null;
  onClose: (() => void) | null = null;

  constructor(readonly description: string) {}

  /** The session is waiting for input and has none queued. */
  get starving(): boolean {
    return this.waiting !== null;
  }

  push(bytes: Uint8Array): void {
    if (this.ended || bytes.length === 0) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(bytes);
    } else this.input.push(bytes);
    this.onOutput?.();
  }

  /** The other side hung up. */
  end(): void {
    this.ended = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
  }

  take(): Uint8Array {
    const total = this.output.reduce((n, c) => n + c.length, 0);
    const out = new Uint8Array(total);
    let off = 0;
    for (const c of this.output.splice(0)) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }

  read(): Promise<Uint8Array | null> {
    const c = this.input.shift();
    if (c) return Promise.resolve(c);
    if (this.ended) return Promise.resolve(null);
    return new Promise((r) => {
      this.waiting = r;
      this.onOutput?.();
    });
  }

  write(bytes: Uint8Array): void {
    if (this.closed) return;
    this.output.push(bytes.slice());
    this.onOutput?.();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.end();
    this.onOutput?.();
    this.onClose?.();
  }
}

/** Two links joined back to back: what one writes, the other reads. */
export function linkPair(): [ByteLink, ByteLink] {
  const a = new MemoryLink("pair a");
  const b = new MemoryLink("pair b");
  a.onOutput = () => {
    const out = a.take();
    if (out.length) b.push(out);
    if (a.closed) b.end();
  };
  b.onOutput = () => {
    const out = b.take();
    if (out.length) a.push(out);
    if (b.closed) a.end();
  };
  return [a, b];
}
