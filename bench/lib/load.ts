/**
 * A small HTTP load generator, run in its own process so it does not share
 * the event loop with the server it measures:
 *   bun bench/lib/load.ts URL CONNECTIONS SECONDS [HEADERS_JSON [CA_FILE]]  -> prints JSON {requests, rps, p50Ms, p99Ms, errors}
 * An https URL is trusted through CA_FILE (a PEM), e.g. the gateway's local CA.
 */
import { readFileSync } from "node:fs";
import { percentile } from "./stats.ts";

export async function load(url: string, connections: number, seconds: number, headers: Record<string, string> = {}, caFile = "") {
  const init: RequestInit & { tls?: { ca: string } } = { headers, ...(caFile ? { tls: { ca: readFileSync(caFile, "utf8") } } : {}) };
  const end = performance.now() + seconds * 1000;
  const lat: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const r = await fetch(url, init);
          await r.arrayBuffer();
          if (r.status !== 200) errors++;
        } catch {
          errors++;
        }
        lat.push(performance.now() - t0);
      }
    }),
  );
  return { requests: lat.length, rps: Math.round(lat.length / seconds), p50Ms: percentile(lat, 50), p99Ms: percentile(lat, 99), errors };
}

/** Runs `load` in a separate process (optionally with request headers, e.g. a session cookie, and a CA file for https). */
export async function loadInChild(url: string, connections: number, seconds: number, headers: Record<string, string> = {}, caFile = "") {
  const p = Bun.spawn([process.execPath, import.meta.path, url, String(connections), String(seconds), JSON.stringify(headers), caFile], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return JSON.parse(out) as Awaited<ReturnType<typeof load>>;
}

/** Times GETs against `url`: each call fetches a path, reads the whole body and answers the milliseconds it took (throws unless 200). */
export function getTimer(url: string): (path: string) => Promise<number> {
  return async (path) => {
    const t = performance.now();
    const r = await fetch(url + path);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    return performance.now() - t;
  };
}

if (import.meta.main) {
  const [url, c, s, h, ca] = process.argv.slice(2);
  console.log(JSON.stringify(await load(url!, Number(c), Number(s), h ? JSON.parse(h) : {}, ca ?? "")));
}
