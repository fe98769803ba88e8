/**
 * Attribute filters over HTTP against a real gateway with 100,000 caches
 * (half around 40 hubs, half spread), each with a few Groundspeak attributes:
 * GET /api/caches?bbox= at region zoom (3° × 1.5°) and ?near= (limit 20),
 * each without a filter, with attr=1 (a common yes, about 1 cache in 8) and
 * with attr=1,-32 (about 1 in 65), p50/p95 of 200 queries, beside GET /health.
 * The filter is a condition of the query (a text match on caches.attributes);
 * near= checks it on the caches nearest the point first, a batch at a time
 * (src/game/near.ts), so a rare pair reads about limit / share rows: the
 * figure to watch (p50 43 ms, p95 193 ms before that, when near= widened its
 * box fourfold and filtered every cache in it; 16 ms and 33 ms after, run
 * back to back on the same shared 2-core machine).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { percentile, table } from "./lib/stats.ts";
import { getTimer } from "./lib/load.ts";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "bench-attributes-"));
  const gw = createGateway({
    config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "1000000" }),
    log: createLogger("error"),
  });
  const rnd = rng(7);
  const hubs = Array.from({ length: 40 }, () => [(rnd() - 0.5) * 120, (rnd() - 0.5) * 340] as const);
  const N = 100_000;
  const now = Date.now();
  const ins = gw.db.query(
    `INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, description, placed_at, created_at, updated_at, search, attributes)
     VALUES ('N0BEN', ?, 'traditional', 'small', 2, 2, ?, ?, 'active', '', ?, ?, ?, ?, ?)`,
  );
  const ids = [1, 6, 8, 13, 24, 25, 32, 40, 41, 53];
  let withDogs = 0;
  let dogsNoBikes = 0;
  gw.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const h = hubs[i % hubs.length]!;
      const [lat, lon] = i % 2 === 0 ? [h[0] + (rnd() - 0.5) * 3, h[1] + (rnd() - 0.5) * 4] : [(rnd() - 0.5) * 140, (rnd() - 0.5) * 360];
      const set = ids.filter(() => rnd() < 0.25).map((id) => (rnd() < 0.5 ? id : -id));
      if (set.includes(1)) withDogs++;
      if (set.includes(1) && set.includes(-32)) dogsNoBikes++;
      ins.run(`Cache ${i}`, lat, lon, now, now, now, `cache ${i}`, set.length ? JSON.stringify(set) : null);
    }
  })();
  const url = await gw.listen();
  const time = getTimer(url);
  const at = (i: number) => {
    const h = hubs[i % hubs.length]!;
    return [h[0] + (rnd() - 0.5) * 2, h[1] + (rnd() - 0.5) * 3] as const;
  };
  const box = (i: number) => {
    const [lat, lon] = at(i);
    return [lon - 1.5, lat - 0.75, lon + 1.5, lat + 0.75].map((v) => v.toFixed(4)).join(",");
  };
  const near = (i: number) =>
    at(i)
      .map((v) => v.toFixed(4))
      .join(",");
  const rows: Array<{ query: string; p50Ms: number; p95Ms: number }> = [];
  for (const [label, q] of [
    ["no filter", ""],
    ["attr=1", "&attr=1"],
    ["attr=1,-32", "&attr=1,-32"],
  ] as const) {
    for (const [kind, path] of [
      ["bbox (3° × 1.5°)", (i: number) => `/api/caches?bbox=${box(i)}${q}`],
      ["near, limit 20", (i: number) => `/api/caches?near=${near(i)}&limit=20${q}`],
    ] as const) {
      for (let i = 0; i < 20; i++) await time(path(i)); // warm up
      const ms: number[] = [];
      for (let i = 0; i < 200; i++) ms.push(await time(path(i)));
      rows.push({ query: `${kind}, ${label}`, p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95) });
    }
  }
  const health: number[] = [];
  for (let i = 0; i < 200; i++) health.push(await time("/health"));
  rows.push({ query: "GET /health (reference)", p50Ms: percentile(health, 50), p95Ms: percentile(health, 95) });
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `\nAttribute filters over HTTP, ${N.toLocaleString("en")} caches: ${withDogs.toLocaleString("en")} with attr 1 yes, ${dogsNoBikes.toLocaleString("en")} also with 32 no; 200 queries each`,
  );
  console.log(table(rows));
}

if (import.meta.main) await run();
