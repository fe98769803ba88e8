export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const i = Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1));
  return Math.round(s[i]! * 100) / 100;
}

export const median = (v: number[]) => percentile(v, 50);

export function table(rows: Array<Record<string, string | number>>): string {
  const cols = Object.keys(rows[0] ?? {});
  const w = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(w[i]!)).join("  ");
  return [line(cols), line(w.map((n) => "-".repeat(n))), ...rows.map((r) => line(cols.map((c) => String(r[c]))))].join("\n");
}

/** The mean milliseconds one run of `fn` takes, run again and again for at least `minMs`. */
export function meanMs(fn: () => void, minMs = 300): number {
  let n = 0;
  const t = performance.now();
  while (performance.now() - t < minMs) {
    fn();
    n++;
  }
  return (performance.now() - t) / n;
}

/** Runs `fn` over `items` for about `ms`; items per second. */
export function perSecond<T>(items: T[], fn: (x: T) => unknown, ms = 1000): number {
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) for (const x of items) fn(x), n++;
  return Math.round(n / ((performance.now() - t0) / 1000));
}

/** Prints a heading and a table of what was measured and how many per second. */
export function printRates(heading: string, rates: Array<[what: string, perSecond: number]>): void {
  console.log(`\n${heading}`);
  console.log(table(rates.map(([what, n]) => ({ what, "per second": n.toLocaleString("en") }))));
}
