/**
 * The one gate every write on the main thread passes while the store asks it
 * to wait (src/core/store/checkpoint.ts holds it during a RESTART checkpoint): HTTP
 * write requests (src/http/app.ts awaits `wait()`), and everything that writes
 * without a request (`run(fn)`): radio frames and the radio's own work, the
 * APRS-IS feed and the APRS-IS server's clients, live WebSocket messages,
 * scheduled jobs, federation pulls, BBS forwarding, each write batch of a
 * catalog import. A host without a checkpointer (a Workers runtime) keeps one
 * that never holds.
 *
 * The composition root makes one per gateway, beside its store, and every
 * service reaches it as `gw.writeGate` (src/core/core.ts).
 */
/** Longest a write waits for a RESTART checkpoint, ms. */
const HOLD_MAX_MS = 3000;

/**
 * Writes wait here while a RESTART checkpoint runs. They are synchronous on
 * the one thread, so a RESTART waiting for the writer lock only gets it when
 * the thread stops starting new ones: holding them back (not blocking in
 * SQLite's busy handler) keeps reads, live traffic and the event loop going
 * meanwhile, and no writer meets SQLITE_BUSY.
 */
export class WriteGate {
  private held: { promise: Promise<void>; release(): void; at: number; waited: number } | null = null;
  private over: (() => boolean) | null = null;
  private lastLook = 0;
  /** writes that came while held, run in arrival order once the hold lifts */
  private queue: Array<() => void> = [];
  private counts = { holds: 0, waited: 0 };
  /**
   * Also hold writes by itself while `over()` says the WAL holds too much not
   * yet copied back: the worker may not get the CPU for a while on a busy machine.
   */
  watch(over: (() => boolean) | null): void {
    this.over = over;
  }
  /** a promise to await before a write, or undefined when writes may go ahead */
  wait(): Promise<void> | undefined {
    if (!this.held && this.over !== null && performance.now() - this.lastLook >= 2) {
      this.lastLook = performance.now();
      if (this.over()) this.hold();
    }
    if (this.held) this.counts.waited++;
    return this.held?.promise;
  }
  /**
   * Runs a write that has no request to hold: now when writes may go ahead
   * (its result, or its exception, as fn gives them), else once the hold lifts,
   * after the writes that came before it (a promise of its result).
   */
  run<T>(fn: () => T): T | Promise<T> {
    if (this.wait() === undefined && this.queue.length === 0) return fn();
    const { promise, resolve, reject } = Promise.withResolvers<T>();
    this.queue.push(() => {
      try {
        resolve(fn());
      } catch (e) {
        reject(e);
      }
    });
    return promise;
  }
  hold(): void {
    if (this.held) return;
    this.counts.holds++;
    const { promise, resolve } = Promise.withResolvers<void>();
    const timer = setTimeout(() => this.release(), HOLD_MAX_MS);
    this.held = { promise, release: () => (clearTimeout(timer), resolve()), at: performance.now(), waited: this.counts.waited };
  }
  /** Lets writes go ahead; answers how long the hold it ends lasted and how many writes waited in it. */
  release(): { ms: number; waited: number } | null {
    const h = this.held;
    this.held = null;
    h?.release();
    // the writes without a request that waited, in order (one that holds the gate again stops the rest)
    while (this.queue.length > 0 && !this.held) this.queue.shift()!();
    return h ? { ms: Math.round(performance.now() - h.at), waited: this.counts.waited - h.waited } : null;
  }
  /** holds so far, and the writes that waited in them (for status and tests) */
  stats(): { holds: number; waited: number; queued: number; holding: boolean } {
    return { ...this.counts, queued: this.queue.length, holding: this.held !== null };
  }
}
