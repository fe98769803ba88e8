/**
 * Where HTTP writes wait while the store asks them to (src/store/checkpoint.ts
 * holds them during a RESTART checkpoint). A host without a checkpointer (a
 * Workers runtime) keeps one that never holds.
 */
/** Longest a write request waits for a RESTART checkpoint, ms. */
const HOLD_MAX_MS = 3000;

/**
 * Write requests wait here while a RESTART checkpoint runs. Their transactions
 * are synchronous on the one thread, so a RESTART waiting for the writer lock
 * only gets it when the thread stops starting new ones: holding them back (not
 * blocking in SQLite's busy handler) keeps reads, live traffic and the event
 * loop going meanwhile.
 */
export class WriteGate {
  private held: { promise: Promise<void>; release(): void } | null = null;
  private over: (() => boolean) | null = null;
  private lastLook = 0;
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
    return this.held?.promise;
  }
  hold(): void {
    if (this.held) return;
    const { promise, resolve } = Promise.withResolvers<void>();
    const timer = setTimeout(() => this.release(), HOLD_MAX_MS);
    this.held = { promise, release: () => (clearTimeout(timer), resolve()) };
  }
  release(): void {
    const h = this.held;
    this.held = null;
    h?.release();
  }
}
