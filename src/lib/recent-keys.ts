/**
 * Key (a string, or a number such as a hash53 of one) -> when it was last noted, for "have I seen this lately?" tables that
 * run for months: two generations of a Map, the older dropped whole when the
 * newer is a window old (or holds `max` keys, or the clock stepped back).
 *
 * Memory stays at what two windows of traffic note, whatever the rate; noting
 * and looking up are O(1). (Evicting key by key walks a Map's deleted slots
 * from its start, slower the longer it runs; and a table swept only when it
 * is full keeps that many stale keys for good.) A key noted at `t` is kept at
 * least until `t + windowMs`.
 */
export class RecentKeys<K = string> {
  private cur = new Map<K, number>();
  private old = new Map<K, number>();
  private since = Number.NEGATIVE_INFINITY;

  constructor(
    /** keys in a generation at most */
    private readonly max: number,
    /** how long a key must be kept at least (Infinity: generations turn only when full) */
    private readonly windowMs = Number.POSITIVE_INFINITY,
  ) {}

  /** When `k` was last noted, if it is still remembered. */
  get(k: K): number | undefined {
    return this.cur.get(k) ?? this.old.get(k);
  }

  /** Notes `k` at `at`; `now` (the clock, when `at` is a time from elsewhere) turns the generations. */
  set(k: K, at: number, now = at): void {
    if (this.cur.size >= this.max || now < this.since || now - this.since >= this.windowMs) {
      this.old = this.cur;
      this.cur = new Map();
      this.since = now;
    }
    this.cur.set(k, at);
  }

  delete(k: K): void {
    this.cur.delete(k);
    this.old.delete(k);
  }

  /** How many keys were noted within `ms` before `now`. */
  countWithin(now: number, ms: number): number {
    let n = 0;
    for (const at of this.cur.values()) if (now - at < ms) n++;
    for (const [k, at] of this.old) if (now - at < ms && !this.cur.has(k)) n++;
    return n;
  }

  /** Keys remembered (both generations; a key in both counts twice). */
  get size(): number {
    return this.cur.size + this.old.size;
  }
}
