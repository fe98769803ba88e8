/** The lanes' secret start, this process's own: drawn at the first line (a Workers runtime refuses random values while a module loads). */
let seeded: Uint32Array | null = null;
const processSeed = () => (seeded ??= crypto.getRandomValues(new Uint32Array(2)));

/**
 * A 53-bit hash of a string, as a plain number: a key that fits a typed
 * array's slot instead of the string itself (the ingest duplicate table holds
 * tens of thousands of whole lines otherwise). Two 32-bit multiply-xor lanes over
 * the UTF-16 code units, each mixed with the other at the end. Both lanes
 * start from a secret drawn once per process, so a sender who cannot see it
 * cannot work out in advance a line that would share a value with another
 * (and have that one dropped as a duplicate); it is not cryptographic.
 *
 * Two different strings share a value with probability about 2^-53: among
 * the ~45,000 lines a 30 s window holds at three times the global APRS-IS
 * rate, a new line meets a false duplicate about once in eight years.
 */
export function hash53(s: string, seed: ArrayLike<number> = processSeed()): number {
  let a = (0x811c9dc5 ^ seed[0]! ^ s.length) | 0;
  let b = (0x9e3779b9 ^ seed[1]!) | 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  a = Math.imul(a ^ (a >>> 15), 0x85ebca6b);
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  a ^= Math.imul(b ^ (b >>> 16), 0x27d4eb2f);
  b ^= Math.imul(a ^ (a >>> 16), 0x165667b1);
  return ((b >>> 0) % 0x200000) * 0x100000000 + (a >>> 0);
}
