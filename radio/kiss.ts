/**
 * KISS framing (K3MC/KA9Q): FEND-delimited frames whose first byte holds the
 * TNC port in its high nibble and the command in its low nibble; FEND and FESC
 * inside a frame travel as FESC TFEND and FESC TFESC.
 */
import { fail, ok, RadioError, type Result } from "./errors.ts";

export const FEND = 0xc0;
export const FESC = 0xdb;
export const TFEND = 0xdc;
export const TFESC = 0xdd;

/** KISS command codes (the low nibble of the type byte); `return` is the whole byte 0xFF. */
export const KissCommand = {
  data: 0x00,
  txDelay: 0x01,
  persistence: 0x02,
  slotTime: 0x03,
  txTail: 0x04,
  fullDuplex: 0x05,
  setHardware: 0x06,
} as const;
export type KissCommandName = keyof typeof KissCommand | "return";

const COMMAND_NAMES = new Map<number, KissCommandName>(Object.entries(KissCommand).map(([k, v]) => [v, k as KissCommandName]));

/** One decoded KISS frame: `data` is an AX.25 frame for `command` "data", the value bytes otherwise. */
export interface KissFrame {
  /** TNC port, 0-15 (the high nibble). */
  port: number;
  command: KissCommandName;
  data: Uint8Array;
}

/** Escapes `data` and wraps it as one KISS frame for `port` (FEND type data FEND). */
export function encodeKiss(data: Uint8Array, port = 0, command: KissCommandName = "data"): Uint8Array {
  if (!Number.isInteger(port) || port < 0 || port > 15) throw new RadioError("kiss-bad-value", `KISS port ${port} is not 0-15`);
  // the type byte is escaped like the data: port 12 data frames start 0xC0
  const type = command === "return" ? 0xff : (port << 4) | KissCommand[command];
  let extra = type === FEND || type === FESC ? 1 : 0;
  for (const b of data) if (b === FEND || b === FESC) extra++;
  const out = new Uint8Array(data.length + extra + 3);
  out[0] = FEND;
  let i = 1;
  const put = (b: number) => {
    if (b === FEND) {
      out[i++] = FESC;
      out[i++] = TFEND;
    } else if (b === FESC) {
      out[i++] = FESC;
      out[i++] = TFESC;
    } else out[i++] = b;
  };
  put(type);
  for (const b of data) put(b);
  out[i] = FEND;
  return out;
}

/**
 * The TNC parameter commands, values in the units KISS uses on the wire:
 * txDelay, slotTime and txTail in 10 ms units, persistence as p*256-1,
 * fullDuplex 0 or 1.
 */
export interface KissParams {
  txDelay?: number;
  persistence?: number;
  slotTime?: number;
  txTail?: number;
  fullDuplex?: boolean;
}

/** The KISS frames that set `params` on `port`, in a fixed order. */
export function encodeKissParams(params: KissParams, port = 0): Uint8Array[] {
  const out: Uint8Array[] = [];
  const byte = (name: keyof KissParams, v: number) => {
    if (!Number.isInteger(v) || v < 0 || v > 255) throw new RadioError("kiss-bad-value", `KISS ${name} ${v} is not 0-255`);
    out.push(encodeKiss(Uint8Array.of(v), port, name));
  };
  if (params.txDelay !== undefined) byte("txDelay", params.txDelay);
  if (params.persistence !== undefined) byte("persistence", params.persistence);
  if (params.slotTime !== undefined) byte("slotTime", params.slotTime);
  if (params.txTail !== undefined) byte("txTail", params.txTail);
  if (params.fullDuplex !== undefined) out.push(encodeKiss(Uint8Array.of(params.fullDuplex ? 1 : 0), port, "fullDuplex"));
  return out;
}

/** Largest unescaped frame the decoder holds before giving up on it (AX.25 frames are ~330 bytes). */
export const DEFAULT_MAX_KISS_FRAME = 2048;

/**
 * A streaming decoder: feed it whatever the transport delivers (split, merged,
 * garbage before the first FEND) and it returns whole frames and errors.
 * Bytes before the first FEND are skipped; empty frames (FEND FEND) are the
 * usual idle fill and are not frames. A bad frame is dropped whole and
 * decoding resumes at the next FEND. Memory is bounded by `maxFrame`.
 */
export class KissDecoder {
  private buf: Uint8Array;
  private len = 0;
  private inFrame = false;
  private escaped = false;
  /** set when the current frame is already known bad: skip to the next FEND */
  private discarding: RadioError | null = null;
  /** bytes skipped before the first FEND */
  skipped = 0;

  constructor(readonly maxFrame = DEFAULT_MAX_KISS_FRAME) {
    this.buf = new Uint8Array(Math.min(maxFrame + 1, 512));
  }

  push(chunk: Uint8Array): Result<KissFrame>[] {
    const out: Result<KissFrame>[] = [];
    for (const b of chunk) {
      if (b === FEND) {
        if (this.discarding) out.push({ ok: false, error: this.discarding });
        else if (this.inFrame && (this.len > 0 || this.escaped)) out.push(this.finish());
        this.inFrame = true;
        this.len = 0;
        this.escaped = false;
        this.discarding = null;
        continue;
      }
      if (!this.inFrame) {
        this.skipped++;
        continue;
      }
      if (this.discarding) continue;
      let v = b;
      if (this.escaped) {
        this.escaped = false;
        if (b === TFEND) v = FEND;
        else if (b === TFESC) v = FESC;
        else {
          this.discarding = new RadioError("kiss-bad-escape", `FESC followed by 0x${b.toString(16).padStart(2, "0")}`);
          continue;
        }
      } else if (b === FESC) {
        this.escaped = true;
        continue;
      }
      if (this.len >= this.maxFrame + 1) {
        this.discarding = new RadioError("kiss-too-long", `KISS frame longer than ${this.maxFrame} bytes`);
        continue;
      }
      if (this.len === this.buf.length) {
        const bigger = new Uint8Array(Math.min(this.buf.length * 2, this.maxFrame + 1));
        bigger.set(this.buf);
        this.buf = bigger;
      }
      this.buf[this.len++] = v;
    }
    return out;
  }

  private finish(): Result<KissFrame> {
    if (this.escaped) return fail("kiss-bad-escape", "frame ends with FESC");
    const type = this.buf[0]!;
    const data = this.buf.slice(1, this.len);
    if (type === 0xff) return ok({ port: 0, command: "return", data });
    const command = COMMAND_NAMES.get(type & 0x0f);
    if (!command) return fail("kiss-bad-command", `unknown KISS command 0x${(type & 0x0f).toString(16)}`);
    return ok({ port: type >> 4, command, data });
  }
}
