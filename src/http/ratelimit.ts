/**
 * Per-IP fixed-window counters, in memory only and gone after one window
 * (the only visitor data besides the session cookie, see /privacy).
 */
import { FIXED } from "../core/config.ts";

const WINDOW_MS = FIXED.rateCounterSeconds * 1000;
const MAX_KEYS = 100_000;

export interface RateResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the window resets */
  resetS: number;
}

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  hit(key: string, limit: number, now: number): RateResult {
    let w = this.windows.get(key);
    // a clock stepped back (NTP) starts a new window rather than holding the old one for the step's length
    if (!w || now - w.start >= WINDOW_MS || now < w.start) {
      if (this.windows.size >= MAX_KEYS) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
    const resetS = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    return { allowed: w.count <= limit, limit, remaining: Math.max(0, limit - w.count), resetS };
  }

  /** Drops expired windows; under a flood of new keys, drops them all (they reset anyway). */
  sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= WINDOW_MS || now < w.start) this.windows.delete(k);
    if (this.windows.size >= MAX_KEYS) this.windows.clear();
  }

  get size(): number {
    return this.windows.size;
  }
}
