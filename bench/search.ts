/**
 * The header search (GET /api/search) with 31,000 caches (names of three
 * words, a code, an owner and a 200-character description each), over HTTP
 * against a real gateway, beside GET /health on the same server (the
 * reference: what any request costs here). Before the word index
 * (caches_text) every search scanned every cache: about 14 ms a search.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { percentile, table } from "./lib/stats.ts";
import { getTimer } from "./lib/load.ts";

const WORDS = (
  "old mill river bridge oak hill stone lake forest view church tower castle park meadow creek rock cave " +
  "fountain garden harbor island lookout marsh orchard pine quarry ridge spring trail valley well windmill"
).split(" ");

export async function run(n = 31_000, rounds = 60) {
  const dir = mkdtempSync(join(tmpdir(), "bench-search-"));
  const gw = createGateway({
    config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off", RATE_LIMIT_PER_MINUTE: "1000000" }),
    log: createLogger("error"),
  });
  let s = 7;
  const rnd = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const word = () => WORDS[Math.floor(rnd() * WORDS.length)]!;
  const now = Date.now();
  const ins = gw.db.query(
    `INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, description, placed_at, created_at, updated_at, search)
     VALUES (?, ?, 'traditional', 'small', 2, 2, ?, ?, 'active', ?, ?, ?, ?, ?)`,
  );
  const t0 = performance.now();
  gw.db.transaction(() => {
    for (let i = 0; i < n; i++) {
      const name = `${word()} ${word()} ${word()} ${i}`;
      const owner = `N${i % 10}OWN`;
      const description = Array.from({ length: 30 }, word).join(" ").slice(0, 200);
      const code = `SVC${i.toString(36).toUpperCase()}`;
      ins.run(owner, name, (rnd() - 0.5) * 120, (rnd() - 0.5) * 340, description, now, now, now + i, `${name} ${code} ${owner}`.toLowerCase());
    }
  })();
  const loadMs = performance.now() - t0;
  const url = await gw.listen();
  const time = getTimer(url);
  const queries: Array<[string, string]> = [
    ["reference: GET /health?live", "/health?live"],
    ["a word in thousands of caches", "/api/search?q=windmill&limit=50"],
    ["two words", "/api/search?q=castle%20spring&limit=50"],
    ["a cache code", `/api/search?q=svc${(n - 5).toString(36)}&limit=50`],
    ["no match", "/api/search?q=zzqx&limit=50"],
    ["a filter only (no words)", "/api/search?type=traditional&difficulty=2&limit=50"],
  ];
  const rows: Array<Record<string, string | number>> = [];
  try {
    for (const [, path] of queries) for (let i = 0; i < 5; i++) await time(path);
    for (const [label, path] of queries) {
      const ms: number[] = [];
      for (let i = 0; i < rounds; i++) ms.push(await time(path));
      rows.push({ search: label, "p50 ms": percentile(ms, 50), "p95 ms": percentile(ms, 95) });
    }
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\nsearch: GET /api/search over ${n.toLocaleString("en")} caches (loaded in ${Math.round(loadMs)} ms, ${rounds} rounds each)\n`);
  console.log(table(rows));
}

if (import.meta.main) await run();
