/**
 * HTTPS (issue 26): GET /health requests per second over https against plain
 * http to the same gateway process in the same run (keep-alive connections,
 * the load in its own process), and full TLS handshakes per second (a new
 * connection each, ECDSA P-256 from the local CA, no session resumption).
 * `bun run bench tls`
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { percentile, table } from "./lib/stats.ts";
import { spawnTls } from "../test/helpers/tls.ts";

const CONNECTIONS = 16;
const SECONDS = 5;

/** GET `url` on `connections` keep-alive connections for `seconds`, trusting `caFile` (bench/lib/load.ts with a CA). */
async function load(url: string, connections: number, seconds: number, caFile: string) {
  const ca = caFile ? readFileSync(caFile, "utf8") : undefined;
  const end = performance.now() + seconds * 1000;
  const lat: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const r = await fetch(url, ca ? { tls: { ca } } : {});
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

/** `load` in a process of its own, so it does not share an event loop with the handshakes or the gateway. */
async function loadInChild(url: string, connections: number, seconds: number, caFile = "") {
  const p = Bun.spawn([process.execPath, import.meta.path, "--load", url, String(connections), String(seconds), caFile], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  return JSON.parse(out) as Awaited<ReturnType<typeof load>>;
}

/** Full handshakes, `parallel` at a time, for `seconds`: each connection ends once its handshake is done. */
async function handshakes(port: number, ca: string, parallel: number, seconds: number): Promise<{ n: number; errors: number }> {
  const end = performance.now() + seconds * 1000;
  let n = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (performance.now() < end) {
        await new Promise<void>((resolve) => {
          const s = connect({ host: "127.0.0.1", port, servername: "localhost", ca, session: undefined }, () => {
            n++;
            s.destroy();
            resolve();
          });
          s.once("error", () => {
            errors++;
            resolve();
          });
        });
      }
    }),
  );
  return { n, errors };
}

export async function run() {
  const g = await spawnTls({ TLS: "local", LOG_LEVEL: "error" });
  try {
    const ca = readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8");
    const caFile = join(g.dataDir, "tls", "ca.pem");
    await loadInChild(`${g.http}/health`, 4, 1); // warm-up
    const http = await loadInChild(`${g.http}/health`, CONNECTIONS, SECONDS);
    const https = await loadInChild(`https://localhost:${g.httpsPort}/health`, CONNECTIONS, SECONDS, caFile);
    const hs = await handshakes(g.httpsPort, ca, 8, SECONDS);
    console.log(`\n## tls: GET /health over https against http (${CONNECTIONS} keep-alive connections, ${SECONDS} s each, one gateway process)\n`);
    console.log(
      table([
        { transport: "http", "req/s": http.rps, "p50 ms": http.p50Ms, "p99 ms": http.p99Ms, errors: http.errors, "vs http": "1.00" },
        {
          transport: "https",
          "req/s": https.rps,
          "p50 ms": https.p50Ms,
          "p99 ms": https.p99Ms,
          errors: https.errors,
          "vs http": (https.rps / http.rps).toFixed(2),
        },
      ]),
    );
    console.log(`\nfull TLS handshakes (ECDSA P-256, 8 at a time, ${SECONDS} s): ${Math.round(hs.n / SECONDS)} per second, ${hs.errors} errors`);
  } finally {
    await g.kill();
  }
  // TLS=acme: time to a certificate from Pebble (bench/acme.ts)
  await (await import("./acme.ts")).run();
}

if (import.meta.main) {
  const [flag, url, c, s, caFile] = process.argv.slice(2);
  if (flag === "--load") console.log(JSON.stringify(await load(url!, Number(c), Number(s), caFile ?? "")));
  else await run();
}
