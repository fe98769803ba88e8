/**
 * How long frames occupy the channel. Over KISS we cannot see the TNC's PTT
 * or carrier detect, so the data link estimates them: its own frames are on
 * the air after a key-up delay, one after another; a frame it heard was on the
 * air for its length just before it arrived. T1 does not run while the channel
 * is (estimated) busy, as AX.25 2.2 asks.
 */
import type { Clock } from "./clock.ts";

/** CRC-16/X.25, the AX.25 frame check sequence. */
export function fcs16(bytes: Uint8Array): number {
  let crc = 0xffff;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0x8408 : crc >>> 1;
  }
  return ~crc & 0xffff;
}

/** Bits one HDLC frame puts on the air: data and FCS with bit stuffing, plus one flag. */
export function hdlcBits(frame: Uint8Array): number {
  const fcs = fcs16(frame);
  let bits = 8;
  let ones = 0;
  const put = (b: number) => {
    for (let i = 0; i < 8; i++) {
      bits++;
      if ((b >> i) & 1) {
        if (++ones === 5) {
          bits++;
          ones = 0;
        }
      } else ones = 0;
    }
  };
  for (const b of frame) put(b);
  put(fcs & 0xff);
  put(fcs >> 8);
  return bits;
}

/** Milliseconds a frame of `len` bytes takes at `baud`, estimated (stuffing ~1 bit in 62). */
export function airtimeMs(len: number, baud: number): number {
  return (((len + 2) * 8 * 63) / 62 + 8) * (1000 / baud);
}

export interface AirOptions {
  baud: number;
  /** Key-up delay before the first frame of a transmission (TXDELAY). */
  txDelayMs: number;
}

/** Busy intervals of the channel, as this station can estimate them. */
export class AirEstimator {
  private busy: [number, number][] = [];
  private txUntil = 0;

  constructor(
    private clock: Clock,
    readonly opts: AirOptions,
  ) {}

  /** Our frame of `len` bytes was handed to the TNC now. */
  noteTx(len: number): void {
    const now = this.clock.now();
    // a new transmission keys up first; a frame queued behind another follows it directly
    const fresh = this.txUntil <= now;
    const start = fresh ? now : this.txUntil;
    this.txUntil = start + (fresh ? this.opts.txDelayMs : 0) + airtimeMs(len, this.opts.baud);
    this.add(start, this.txUntil);
  }

  /** A frame of `len` bytes was heard now. */
  noteRx(len: number): void {
    const now = this.clock.now();
    const air = airtimeMs(len, this.opts.baud);
    // a half-duplex TNC does not send while it hears someone: our queued frames waited
    if (this.txUntil > now - air) this.txUntil += air;
    this.add(now - air, now);
  }

  /** When our queued frames will have been sent. */
  txDoneAt(): number {
    return Math.max(this.txUntil, this.clock.now());
  }

  /** Milliseconds of [from, to] during which the channel was (estimated) busy. */
  busyWithin(from: number, to: number): number {
    let ms = 0;
    for (const [a, b] of this.busy) {
      const lo = Math.max(a, from);
      const hi = Math.min(b, to);
      if (hi > lo) ms += hi - lo;
    }
    return ms;
  }

  private add(a: number, b: number) {
    const last = this.busy[this.busy.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else this.busy.push([a, b]);
    // keep ten minutes: longer than any T1
    const horizon = this.clock.now() - 600_000;
    while (this.busy.length && this.busy[0]![1] < horizon) this.busy.shift();
    if (this.busy.length > 1024) this.busy.splice(0, this.busy.length - 1024);
  }
}
