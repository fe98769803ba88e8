/** hash53: the number the ingest duplicate table keys lines by. */
import { describe, expect, test } from "bun:test";
import { hash53 } from "../../src/lib/hash53.ts";

describe("hash53", () => {
  test("a whole safe integer, the same for the same string", () => {
    const h = hash53("N0CALL-9\u0000!4237.14N/07120.83W>088/036\u0000rf\u0000W1AW-10");
    expect(Number.isSafeInteger(h)).toBe(true);
    expect(h).toBeGreaterThanOrEqual(0);
    expect(hash53("N0CALL-9\u0000!4237.14N/07120.83W>088/036\u0000rf\u0000W1AW-10")).toBe(h);
  });

  test("lines a character apart, or the same parts split differently, hash apart", () => {
    const base = "N0CALL-9\u0000!4237.14N/07120.83W>088/036\u0000aprsis\u0000";
    const seen = new Set([hash53(base)]);
    for (let i = 0; i < base.length; i++) {
      for (const c of [1, 2, 32, 256]) {
        const s = base.slice(0, i) + String.fromCharCode(base.charCodeAt(i) ^ c) + base.slice(i + 1);
        seen.add(hash53(s));
      }
    }
    expect(seen.size).toBe(1 + base.length * 4);
    expect(hash53("AB\u0000C")).not.toBe(hash53("A\u0000BC"));
    expect(hash53("")).not.toBe(hash53("\u0000"));
  });

  test("no two of 300,000 APRS-like lines share a value, and the top bits are used", () => {
    const seen = new Set<number>();
    let high = 0;
    for (let i = 0; i < 300_000; i++) {
      const h = hash53(
        `N${i % 10}${String.fromCharCode(65 + (i % 26))}${i}-${i % 16}\u0000!${4000 + (i % 5000)}.00N/0${7000 + (i % 9000)}.00W-\u0000aprsis\u0000`,
      );
      seen.add(h);
      if (h >= 2 ** 52) high++;
    }
    expect(seen.size).toBe(300_000);
    // a uniform 53-bit value is at least 2^52 half the time
    expect(high / 300_000).toBeGreaterThan(0.45);
    expect(high / 300_000).toBeLessThan(0.55);
  });
});

describe("hash53's secret start", () => {
  const line = "N0CALL-9\u0000!4237.14N/07120.83W>088/036\u0000aprsis\u0000";

  test("the same line keys apart under two secrets, and alike under one", () => {
    expect(hash53(line, [1, 2])).not.toBe(hash53(line, [3, 4]));
    expect(hash53(line, [1, 2])).not.toBe(hash53(line, [1, 5]));
    expect(hash53(line, [7, 9])).toBe(hash53(line, [7, 9]));
  });

  test("each process draws its own: a line's key cannot be worked out from outside", () => {
    const keyIn = () =>
      Bun.spawnSync([
        process.execPath,
        "-e",
        `import { hash53 } from ${JSON.stringify(`${import.meta.dir}/../../src/lib/hash53.ts`)}; console.log(hash53(${JSON.stringify(line)}))`,
      ])
        .stdout.toString()
        .trim();
    const [a, b] = [keyIn(), keyIn()];
    expect(Number.isSafeInteger(Number(a))).toBe(true);
    expect(a).not.toBe(b);
  });
});
