/**
 * The cache map and the GPX export, over HTTP against a real gateway:
 *  1. GET /api/caches?bbox= p50/p95 with 100,000 caches (half around 40
 *     population hubs, half spread over the land and sea), at city
 *     (0.1° × 0.05°), region (3° × 1.5°) and world zoom, beside GET /health
 *     on the same server (the reference: what any request costs here);
 *  2. GET /api/v1/caches.gpx of 10,000 caches (with their latest logs),
 *     beside GET /api/v1/caches?limit=1000 ×10 (the same caches as JSON pages).
 * Targets: bbox p95 < 15 ms at city and region zoom; world zoom bounded and
 * clustered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { percentile, table } from "./lib/stats.ts";

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "bench-game-"));
  const gw = createGateway({
    config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", RATE_LIMIT_PER_MINUTE: "1000000" }),
    log: createLogger("error"),
  });
  const rnd = rng(42);
  const hubs = Array.from({ length: 40 }, () => [(rnd() - 0.5) * 120, (rnd() - 0.5) * 340] as const);
  const N = 100_000;
  const t0 = performance.now();
  const now = Date.now();
  const ins = gw.db.query(
    `INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, hint, description, placed_at, created_at, updated_at, search)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', 'under the stone', 'A box near the path.', ?, ?, ?, ?)`,
  );
  const types = ["traditional", "multi", "mystery", "letterbox"];
  const sizes = ["micro", "small", "regular", "large"];
  gw.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      let lat: number, lon: number;
      if (i % 2 === 0) {
        const h = hubs[i % hubs.length]!;
        lat = h[0] + (rnd() - 0.5) * 3;
        lon = h[1] + (rnd() - 0.5) * 4;
      } else {
        lat = (rnd() - 0.5) * 140;
        lon = (rnd() - 0.5) * 360;
      }
      const name = `Cache ${i}`;
      ins.run(`N${i % 10}BEN`, name, types[i % 4]!, sizes[i % 4]!, 1 + (i % 9) / 2, 1 + ((i >> 3) % 9) / 2, lat, lon, now, now, now, name.toLowerCase());
    }
  })();
  // A few logs per cache in the first 10,000 (what the GPX carries).
  const log = gw.db.query(
    "INSERT INTO logs (cache_id, cache_gid, kind, call, base_call, text, found_at, created_at, updated_at, tier, via) VALUES (?, ?, 'find', ?, ?, 'TFTC', ?, ?, ?, 'b', 'web')",
  );
  gw.db.transaction(() => {
    for (let id = 1; id <= 10_000; id++) for (let k = 0; k < 3; k++) log.run(id, `local:cache:${id}`, `N${k}LOG`, `N${k}LOG`, now - k, now - k, now - k);
  })();
  const loadMs = performance.now() - t0;
  const url = await gw.listen();

  const time = async (path: string) => {
    const t = performance.now();
    const r = await fetch(url + path);
    const body = await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    return { ms: performance.now() - t, bytes: body.byteLength, body };
  };
  const zooms = {
    city: { w: 0.1, h: 0.05 },
    region: { w: 3, h: 1.5 },
    world: { w: 360, h: 180 },
  } as const;
  const results: Record<string, number[]> = { city: [], region: [], world: [] };
  const answers: Record<string, { caches: number; clusters: number; maxBytes: number }> = {};
  const boxOf = (z: keyof typeof zooms, i: number) => {
    const { w, h } = zooms[z];
    if (z === "world") return "-180,-90,180,90";
    const hub = hubs[i % hubs.length]!;
    const cLat = hub[0] + (rnd() - 0.5) * 2;
    const cLon = hub[1] + (rnd() - 0.5) * 3;
    return [cLon - w / 2, cLat - h / 2, cLon + w / 2, cLat + h / 2].map((v) => v.toFixed(4)).join(",");
  };
  for (let i = 0; i < 30; i++) for (const z of Object.keys(zooms) as Array<keyof typeof zooms>) await time(`/api/caches?bbox=${boxOf(z, i)}`); // warm up
  for (let i = 0; i < 300; i++) {
    for (const z of Object.keys(zooms) as Array<keyof typeof zooms>) {
      const r = await time(`/api/caches?bbox=${boxOf(z, i)}`);
      results[z]!.push(r.ms);
      const a = JSON.parse(new TextDecoder().decode(r.body)) as { caches: unknown[]; clusters: unknown[] };
      const prev = answers[z] ?? { caches: 0, clusters: 0, maxBytes: 0 };
      answers[z] = {
        caches: Math.max(prev.caches, a.caches.length),
        clusters: Math.max(prev.clusters, a.clusters.length),
        maxBytes: Math.max(prev.maxBytes, r.bytes),
      };
    }
  }
  const health: number[] = [];
  for (let i = 0; i < 300; i++) health.push((await time("/health")).ms);

  const gpx: number[] = [];
  const json: number[] = [];
  let gpxBytes = 0;
  for (let r = 0; r < 3; r++) {
    const g = await time("/api/v1/caches.gpx?limit=10000");
    gpx.push(g.ms);
    gpxBytes = g.bytes;
    const t = performance.now();
    let after = 0;
    for (let p = 0; p < 10; p++) {
      const page = JSON.parse(new TextDecoder().decode((await time(`/api/v1/caches?limit=1000&after=${after}`)).body)) as { next: number };
      after = page.next;
    }
    json.push(performance.now() - t);
  }
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });

  console.log(`\nGET /api/caches?bbox= over HTTP, ${N.toLocaleString("en")} caches (loaded in ${Math.round(loadMs)} ms), 300 boxes per zoom`);
  console.log(
    table([
      ...(Object.keys(zooms) as Array<keyof typeof zooms>).map((z) => ({
        zoom: `${z} (${zooms[z].w}° × ${zooms[z].h}°)`,
        p50Ms: percentile(results[z]!, 50),
        p95Ms: percentile(results[z]!, 95),
        answer: `≤ ${answers[z]!.caches} caches, ≤ ${answers[z]!.clusters} clusters, ≤ ${Math.round(answers[z]!.maxBytes / 1024)} KiB`,
      })),
      { zoom: "GET /health (reference)", p50Ms: percentile(health, 50), p95Ms: percentile(health, 95), answer: "" },
    ]),
  );
  const ok = percentile(results.city!, 95) < 15 && percentile(results.region!, 95) < 15;
  console.log(
    `target p95 < 15 ms at city and region zoom: ${ok ? "met" : "NOT met"}; world zoom: clustered, at most ${answers.world!.clusters} clusters (bounded by 24 × 24)`,
  );
  console.log(`\nExport of 10,000 caches (3 logs each), best of 3`);
  console.log(
    table([
      { what: "GET /api/v1/caches.gpx?limit=10000", ms: Math.round(Math.min(...gpx)), note: `${(gpxBytes / 1e6).toFixed(1)} MB GPX 1.0 + Groundspeak` },
      { what: "GET /api/v1/caches?limit=1000 ×10 (reference: same caches as JSON)", ms: Math.round(Math.min(...json)), note: "" },
      { what: "ratio GPX / JSON", ms: (Math.min(...gpx) / Math.min(...json)).toFixed(2) + "x", note: "" },
    ]),
  );
}

if (import.meta.main) await run();
