/**
 * bun:sqlite's statement cache: `db.query(sql)` keeps the compiled statement
 * of the last Database.MAX_QUERY_CACHE_SIZE SQL strings (Bun's default: 20,
 * least recently used out); any other string is compiled again. The gateway
 * raises the size in openStore (src/core/store/db.ts). This bench runs one mixed
 * round of requests (map, cache page and logbook, stations, messages, BBS,
 * federation feeds, /api/v1, RSS, ingest of a packet...) against a real
 * gateway over HTTP, with Bun's default and with the gateway's size, and
 * prints the time per round and how many distinct SQL strings one round runs.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { STATEMENT_CACHE_SIZE } from "../src/core/store/db.ts";
import { percentile, table } from "./lib/stats.ts";

const INGEST = "bench-ingest-secret-0123";
const ROUTES = [
  "/api/caches?bbox=13,52,14,53",
  "/api/caches/1",
  "/api/caches/1/logs",
  "/api/caches/1/media",
  "/api/caches/1/stages",
  "/api/search?q=n0",
  "/api/leaderboard",
  "/api/activity",
  "/api/corroborators",
  "/api/stations?bbox=13,52,14,53",
  "/api/stations/N0BEN-9",
  "/api/messages?to=N0BEN",
  "/api/ports",
  "/api/node/nodes",
  "/api/node/mheard",
  "/federation/caches",
  "/federation/finds",
  "/.well-known/svc",
  "/api/bbs/wp?q=n0",
  "/api/bbs/bulletins",
  "/api/v1/caches?limit=10",
  "/feeds/activity.xml",
  "/api/admin/whoami",
  "/api/config",
  "/health",
];

async function rounds(size: number, n: number): Promise<{ ms: number[]; distinct: number }> {
  Database.MAX_QUERY_CACHE_SIZE = size;
  const dir = mkdtempSync(join(tmpdir(), "bench-sqlite-cache-"));
  const gw = createGateway({
    config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", INGEST_SECRET: INGEST, RATE_LIMIT_PER_MINUTE: "1000000" }),
    log: createLogger("error"),
  });
  // openStore raised the size; this run measures `size`.
  Database.MAX_QUERY_CACHE_SIZE = size;
  const now = Date.now();
  gw.db
    .query(
      "INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, placed_at, created_at, updated_at, search) VALUES ('N0BEN', 'Bench', 'traditional', 'small', 2, 2, 52.5, 13.4, 'active', ?1, ?1, ?1, 'bench')",
    )
    .run(now);
  const url = await gw.listen();
  const seen = new Set<string>();
  const query = gw.db.query.bind(gw.db);
  let k = 0;
  const round = async () => {
    const t = performance.now();
    for (const path of ROUTES) {
      const r = await fetch(url + path);
      await r.arrayBuffer();
      if (r.status >= 500) throw new Error(`${path}: ${r.status}`);
    }
    const line = `N0BEN-9>APRS,WIDE1-1,qAR,N0IG-10:!5230.${String(k++ % 100).padStart(2, "0")}N/01324.00E>bench`;
    const r = await fetch(url + "/ingest", { method: "POST", headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" }, body: line });
    await r.arrayBuffer();
    return performance.now() - t;
  };
  for (let i = 0; i < 5; i++) await round();
  // One round with the distinct SQL strings counted (in-process, this round only).
  (gw.db as { query: typeof gw.db.query }).query = ((sql: string) => (seen.add(sql), query(sql))) as typeof gw.db.query;
  await round();
  (gw.db as { query: typeof gw.db.query }).query = query;
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push(await round());
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
  return { ms, distinct: seen.size };
}

export async function run() {
  const bunDefault = 20;
  const a1 = await rounds(bunDefault, 150);
  const b1 = await rounds(STATEMENT_CACHE_SIZE, 150);
  const a2 = await rounds(bunDefault, 150);
  const b2 = await rounds(STATEMENT_CACHE_SIZE, 150);
  const a = [...a1.ms, ...a2.ms];
  const b = [...b1.ms, ...b2.ms];
  console.log(`\nOne round: ${ROUTES.length} GETs + 1 ingest over HTTP, ${a1.distinct} distinct SQL strings per round; 300 rounds each, interleaved`);
  console.log(
    table([
      { cache: `${bunDefault} statements (Bun's default)`, p50Ms: percentile(a, 50), p95Ms: percentile(a, 95) },
      { cache: `${STATEMENT_CACHE_SIZE} statements (the gateway's)`, p50Ms: percentile(b, 50), p95Ms: percentile(b, 95) },
      { cache: "ratio default / raised (p50)", p50Ms: (percentile(a, 50) / percentile(b, 50)).toFixed(2) + "x", p95Ms: "" },
    ]),
  );
}

if (import.meta.main) await run();
