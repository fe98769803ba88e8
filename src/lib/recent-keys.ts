/**
 * Key -> when it was last noted, for "have I seen this lately?" tables that
 * run for months: two generations of a Map, the older dropped whole when the
 * newer is a window old (or holds `max` keys, or the clock stepped back).
 * (RecentHashes below: the same for tens of thousands of numeric keys.)
 *
 * Memory stays at what two windows of traffic note, whatever the rate; noting
 * and looking up are O(1). (Evicting key by key walks a Map's deleted slots
 * from its start, slower the longer it runs; and a table swept only when it
 * is full keeps that many stale keys for good.) A key noted at `t` is kept at
 * least until `t + windowMs`.
 */
export class RecentKeys {
  private cur = new Map<string, number>();
  private old = new Map<string, number>();
  private since = Number.NEGATIVE_INFINITY;

  constructor(
    /** keys in a generation at most */
    private readonly max: number,
    /** how long a key must be kept at least (Infinity: generations turn only when full) */
    private readonly windowMs = Number.POSITIVE_INFINITY,
  ) {}

  /** When `k` was last noted, if it is still remembered. */
  get(k: string): number | undefined {
    return this.cur.get(k) ?? this.old.get(k);
  }

  /** Notes `k` at `at`; `now` (the clock, when `at` is a time from elsewhere) turns the generations. */
  set(k: string, at: number, now = at): void {
    if (this.cur.size >= this.max || now < this.since || now - this.since >= this.windowMs) {
      this.old = this.cur;
      this.cur = new Map();
      this.since = now;
    }
    this.cur.set(k, at);
  }

  delete(k: string): void {
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

/** Slots a RecentHashes generation starts with. */
const MIN_SLOTS = 1024;

/** One generation of RecentHashes: open addressing in typed arrays, a slot's time NaN while empty. */
class HashTable {
  keys: Float64Array;
  ats: Float64Array;
  n = 0;
  constructor(capacity: number) {
    this.keys = new Float64Array(capacity);
    this.ats = new Float64Array(capacity).fill(Number.NaN);
  }
  /** the slot holding `k`, or the empty one it would go in */
  slot(k: number): number {
    const mask = this.keys.length - 1;
    let i = k % this.keys.length;
    while (!Number.isNaN(this.ats[i]!) && this.keys[i] !== k) i = (i + 1) & mask;
    return i;
  }
  get(k: number): number | undefined {
    const at = this.ats[this.slot(k)]!;
    return Number.isNaN(at) ? undefined : at;
  }
  set(k: number, at: number): void {
    // at most half full: probes stay short
    if (2 * (this.n + 1) > this.keys.length) this.grow();
    const i = this.slot(k);
    if (Number.isNaN(this.ats[i]!)) this.n++;
    this.keys[i] = k;
    this.ats[i] = at;
  }
  private grow(): void {
    const { keys, ats } = this;
    this.keys = new Float64Array(keys.length * 2);
    this.ats = new Float64Array(keys.length * 2).fill(Number.NaN);
    this.n = 0;
    for (let i = 0; i < keys.length; i++) if (!Number.isNaN(ats[i]!)) this.set(keys[i]!, ats[i]!);
  }
}

/**
 * RecentKeys for whole-number keys below 2^53, such as hash53 values: the
 * same two generations, each an open-addressing table in two typed arrays
 * (16 bytes a slot, at most half full) instead of a Map (about 150 bytes a
 * key in JavaScriptCore). The ingest duplicate table holds ~45,000 keys at
 * three times the global APRS-IS rate: 2 MB here, 7 MB as Maps. No delete.
 */
export class RecentHashes {
  private cur = new HashTable(MIN_SLOTS);
  private old = new HashTable(MIN_SLOTS);
  private since = Number.NEGATIVE_INFINITY;

  constructor(
    /** keys in a generation at most */
    private readonly max: number,
    /** how long a key must be kept at least */
    private readonly windowMs: number,
  ) {}

  get(k: number): number | undefined {
    return this.cur.get(k) ?? this.old.get(k);
  }

  /** Notes `k` at `at`; `now` (the clock, when `at` is a time from elsewhere) turns the generations. */
  set(k: number, at: number, now = at): void {
    if (this.cur.n >= this.max || now < this.since || now - this.since >= this.windowMs) {
      this.old = this.cur;
      // sized for as many keys as the generation before: no growing on the way
      this.cur = new HashTable(Math.max(MIN_SLOTS, 2 ** Math.ceil(Math.log2(2 * this.old.n + 1))));
      this.since = now;
    }
    this.cur.set(k, at);
  }

  /** Keys remembered (both generations; a key in both counts twice). */
  get size(): number {
    return this.cur.n + this.old.n;
  }
}
