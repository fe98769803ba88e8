/** A clock the test moves by hand: the gateway reads `now()`, the test calls `advance(ms)`; it stands still otherwise. */
export function handClock(start = Date.now()): { now(): number; advance(ms: number): void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
  };
}
