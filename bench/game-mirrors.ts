/**
 * The cache map with mirrored caches: GET /api/caches?bbox= over HTTP at world
 * zoom (clustered) and at region zoom (listed, each mirror with its find
 * count), with 20,000 caches mirrored from a trusted peer (3 mirrored finds on
 * every tenth) and no native caches, beside GET /health on the same server.
 * Also prints how many SQL statements one world view runs (sqlite3_trace
 * would need a native hook: counted by wrapping Database#query in-process).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import { cachesInBox } from "../src/game/cache-map.ts";
import { percentile, table } from "./lib/stats.ts";
import { getTimer } from "./lib/load.ts";

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "bench-game-mirrors-"));
  const gw = createGateway({
    config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "1000000" }),
    log: createLogger("error"),
  });
  upsertPeer(gw, { instance: "gw-peer", trust: "trusted" });
  const N = 20_000;
  const now = Date.now();
  let s = 7;
  const rnd = () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const rec = gw.db.query("INSERT INTO mirror_records (gid, type, origin, v, at, frame, via, received_at) VALUES (?, ?, 'gw-peer', 1, ?, x'00', 'bench', ?)");
  const cache = gw.db.query(
    "INSERT INTO mirror_caches (gid, origin, name, type, size, difficulty, terrain, lat, lon, status, updated_at) VALUES (?, 'gw-peer', ?, 'traditional', 'small', 2, 2, ?, ?, 'active', ?)",
  );
  const find = gw.db.query("INSERT INTO mirror_finds (gid, origin, cache_gid, kind, call, logged_at) VALUES (?, 'gw-peer', ?, 'find', ?, ?)");
  gw.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const gid = `gw-peer:cache:${i}`;
      rec.run(gid, 1, now / 1000, now);
      // half in one region (40-43 N, 10-14 E), half over the world
      const [lat, lon] = i % 2 ? [40 + rnd() * 3, 10 + rnd() * 4] : [(rnd() - 0.5) * 140, (rnd() - 0.5) * 360];
      cache.run(gid, `Mirror ${i}`, lat, lon, now);
      if (i % 10 === 0) {
        for (let k = 0; k < 3; k++) {
          const fgid = `gw-peer:find:${i * 10 + k}`;
          rec.run(fgid, 2, now / 1000, now);
          find.run(fgid, gid, `N${k}FND`, now);
        }
      }
    }
  })();
  // Statements per world view, counted in-process.
  let statements = 0;
  const query = gw.db.query.bind(gw.db);
  (gw.db as { query: typeof gw.db.query }).query = ((sql: string) => {
    const st = query(sql);
    return new Proxy(st, {
      get(t, k) {
        const v = Reflect.get(t, k);
        if (typeof v === "function" && ["get", "all", "run", "values"].includes(String(k))) return (...a: unknown[]) => (statements++, v.apply(t, a));
        return typeof v === "function" ? v.bind(t) : v;
      },
    });
  }) as typeof gw.db.query;
  const world = { west: -180, south: -90, east: 180, north: 90 };
  const t0 = performance.now();
  const answer = cachesInBox(gw, world);
  const inProcessMs = performance.now() - t0;
  const worldStatements = statements;
  statements = 0;
  const region = cachesInBox(gw, { west: 12, south: 41, east: 12.5, north: 41.3 }, { limit: 2000 });
  const regionStatements = statements;
  (gw.db as { query: typeof gw.db.query }).query = query;

  const url = await gw.listen();
  const time = getTimer(url);
  const paths = { world: "/api/caches?bbox=-180,-90,180,90", region: "/api/caches?bbox=12,41,12.5,41.3&limit=2000" };
  const results: Record<string, number[]> = { world: [], region: [], health: [] };
  for (let i = 0; i < 5; i++) await time(paths.world);
  for (let i = 0; i < 40; i++) {
    results.world!.push(await time(paths.world));
    results.region!.push(await time(paths.region));
    results.health!.push(await time("/health"));
  }
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log(`\nGET /api/caches?bbox= over HTTP with ${N.toLocaleString("en")} mirrored caches (3 mirrored finds on every tenth), 40 requests each`);
  console.log(
    table([
      {
        view: `world (clustered: ${answer.clusters.length} clusters)`,
        p50Ms: percentile(results.world!, 50),
        p95Ms: percentile(results.world!, 95),
        statements: worldStatements,
      },
      {
        view: `region 0.5° × 0.3° (listed: ${region.caches.length} caches)`,
        p50Ms: percentile(results.region!, 50),
        p95Ms: percentile(results.region!, 95),
        statements: regionStatements,
      },
      { view: "GET /health (reference)", p50Ms: percentile(results.health!, 50), p95Ms: percentile(results.health!, 95), statements: "" },
    ]),
  );
  console.log(`one world view in-process: ${inProcessMs.toFixed(1)} ms of blocked event loop`);
}

if (import.meta.main) await run();
