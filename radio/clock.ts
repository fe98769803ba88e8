/**
 * Time for the radio layer, injectable so timer behaviour (T1, T2, T3,
 * retries) is tested and benchmarked in virtual time: a 1200-baud transfer
 * that takes minutes on the air runs in milliseconds under a ManualClock.
 */

export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds. */
  now(): number;
  /** Calls `fn` once after `ms`. */
  after(ms: number, fn: () => void): TimerHandle;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  after(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    return { cancel: () => clearTimeout(t) };
  },
};

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
  live: boolean;
}

/** A clock that only moves when told to; timers run in time order, ties in the order they were set. */
export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private queue: Pending[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  after(ms: number, fn: () => void): TimerHandle {
    const p: Pending = { at: this.t + Math.max(0, ms), seq: this.seq++, fn, live: true };
    // keep the queue sorted; timers are few (a handful per link)
    let i = this.queue.length;
    while (i > 0 && (this.queue[i - 1]!.at > p.at || (this.queue[i - 1]!.at === p.at && this.queue[i - 1]!.seq > p.seq))) i--;
    this.queue.splice(i, 0, p);
    return {
      cancel: () => {
        p.live = false;
      },
    };
  }

  /** Time of the next live timer, or null. */
  next(): number | null {
    while (this.queue.length && !this.queue[0]!.live) this.queue.shift();
    return this.queue.length ? this.queue[0]!.at : null;
  }

  /** Runs the next timer (moving time to it); false when none is set. */
  step(): boolean {
    const at = this.next();
    if (at === null) return false;
    const p = this.queue.shift()!;
    this.t = Math.max(this.t, at);
    p.live = false;
    p.fn();
    return true;
  }

  /** Moves time forward by `ms`, running every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (let at = this.next(); at !== null && at <= end; at = this.next()) this.step();
    this.t = end;
  }

  /**
   * Steps through timers until `done()` holds; returns false if it never does
   * before `limitMs` of virtual time pass or no timer is left.
   */
  runUntil(done: () => boolean, limitMs = 24 * 3600_000): boolean {
    const end = this.t + limitMs;
    while (!done()) {
      const at = this.next();
      if (at === null || at > end) return false;
      this.step();
    }
    return true;
  }
}
