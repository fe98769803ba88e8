/** A small seeded PRNG (mulberry32): the simulator's only source of chance. */
export interface Rng {
  /** uniform in [0, 1) */
  next(): number;
  /** integer in [lo, hi] */
  int(lo: number, hi: number): number;
  chance(p: number): boolean;
  pick<T>(a: readonly T[]): T;
  shuffle<T>(a: T[]): T[];
  /** 32 bytes, for a key seed */
  bytes32(): Uint8Array;
}

export function rng(seed: number): Rng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    chance: (p) => next() < p,
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    shuffle(xs) {
      for (let i = xs.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [xs[i], xs[j]] = [xs[j]!, xs[i]!];
      }
      return xs;
    },
    bytes32() {
      const b = new Uint8Array(32);
      for (let i = 0; i < 32; i++) b[i] = Math.floor(next() * 256);
      return b;
    },
  };
  return r;
}
