/**
 * Large request bodies (issue 25, H3): how long each takes to be answered, per
 * MB, and the longest GET /health answer while it is in flight (the stall it
 * causes). Before the fix a byte body was walked index by index before its
 * gate (about 1.2 s per MB, 11.6 s for an anonymous 8 MB POST /ingest). The
 * reference row is a 1 MB JSON body refused by its gate before it is read
 * (what sending 1 MB costs here). A JSON body is bound by JSON.parse: about
 * 0.1 s per MB at 90,000 keys.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { signedInUser } from "../test/helpers/accounts.ts";
import { catalogGpx } from "../test/helpers/catalog.ts";
import { table } from "./lib/stats.ts";

const MB = 1024 * 1024;
const INGEST = "bench-ingest-secret-0123456789";

export async function run() {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-bodies-"));
  const config = configFor(dir, { PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "error", KISS_PORTS: "off", INGEST_SECRET: INGEST });
  const gw = createGateway({ config, log: createLogger("error") });
  const url = await gw.listen();
  const user = signedInUser(gw, "N0BDY", { verified: true });
  const line = `N0BIG>APRS,WIDE1-1:>${"status of a busy digipeater ".repeat(16)}\n`;
  const text = (type: string, headers: Record<string, string> = {}) => ({ "content-type": type, ...headers });
  const cases: Array<[string, string, Record<string, string>, string, number]> = [
    ["reference: 1 MB JSON to a session route, no session", "/api/views", text("application/json"), `{"a":"${"x".repeat(MB - 16)}"}`, 401],
    ["anonymous 8 MB POST /ingest", "/ingest", text("text/plain"), "N0ATK>APRS:>".padEnd(8 * MB - 1, "A"), 401],
    [
      "8 MiB of TNC2 lines, with the ingest secret",
      "/ingest",
      text("text/plain", { "x-ingest-secret": INGEST }),
      line.repeat(Math.floor((8 * MB - 64) / line.length)),
      200,
    ],
    ["1 MB line to POST /api/decode", "/api/decode", text("text/plain"), "N0BIG>APRS:>".padEnd(MB - 1, "A"), 422],
    ["0.9 MB JSON of 90,000 keys to a public JSON route", "/auth/email/start", text("application/json"), manyKeys(90_000), 400],
    ["8 MiB GPX import, verified account", "/api/import/gpx", text("application/gpx+xml", { cookie: user.cookie }), gpxOf(8 * MB - 64 * 1024), 200],
  ];
  const rows: Array<Record<string, string | number>> = [];
  try {
    await fetch(`${url}/health`);
    for (const [label, path, headers, body, status] of cases) {
      const health: number[] = [];
      let done = false;
      const prober = (async () => {
        while (!done) {
          const t = performance.now();
          await (await fetch(`${url}/health?live`)).arrayBuffer();
          health.push(performance.now() - t);
        }
      })();
      const t0 = performance.now();
      const r = await fetch(url + path, { method: "POST", headers, body });
      await r.arrayBuffer();
      const ms = performance.now() - t0;
      done = true;
      await prober;
      if (r.status !== status) throw new Error(`${label}: answered ${r.status}, expected ${status}`);
      const mb = Buffer.byteLength(body) / MB;
      rows.push({
        body: label,
        MB: mb.toFixed(1),
        answer: r.status,
        "total ms": Math.round(ms),
        "ms per MB": (ms / mb).toFixed(1),
        "/health max ms": Math.round(Math.max(0, ...health)),
      });
    }
  } finally {
    await gw.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("\nbodies: large POST bodies, answered and the longest /health answer meanwhile (before: ~1,200 ms per MB of byte body)\n");
  console.log(table(rows));
}

/** A JSON object of `n` keys (what JSON.parse and a closed schema work hardest on), without the field the route needs. */
function manyKeys(n: number): string {
  return JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1])));
}

/** A GPX catalog of about `bytes` bytes. */
function gpxOf(bytes: number): string {
  const one = catalogGpx(100, { prefix: "GCS", pad: 512 }).length / 100;
  return catalogGpx(Math.floor(bytes / one), { prefix: "GCS", pad: 512 });
}

if (import.meta.main) await run();
