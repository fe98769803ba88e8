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
import { table } from "./lib/stats.ts";
import { loadInChild } from "./lib/load.ts";
import { spawnTls } from "../test/helpers/tls.ts";

const CONNECTIONS = 16;
const SECONDS = 5;

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
    const https = await loadInChild(`https://localhost:${g.httpsPort}/health`, CONNECTIONS, SECONDS, {}, caFile);
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

if (import.meta.main) await run();
