/**
 * TLS=acme (issue 26): time to a certificate from Pebble (a real ACME
 * server, with pebble-challtestsrv as its DNS, validation without its random
 * sleeps), from the gateway's process start to a certificate that chains to
 * Pebble's root being served on the HTTPS port, by host and challenge, each
 * with a fresh data directory (new account, new order); and a restart with
 * the stored certificate (no order). Printed by `bun run bench tls`, or
 * alone: `bun bench/acme.ts`.
 */
import { connect } from "node:tls";

import { spawnGateway } from "../test/helpers/gateway.ts";
import { pebbleInstalled, startPebble, type Pebble } from "../test/helpers/pebble.ts";
import { tmpDir } from "../test/helpers/tmp.ts";
import { percentile, table } from "./lib/stats.ts";
import { freePorts } from "../test/helpers/ports.ts";

const RUNS = 3;

function trusted(port: number, name: string, root: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: "127.0.0.1", port, servername: name, ca: [root], rejectUnauthorized: false }, () => {
      resolve(s.authorized);
      s.end();
    });
    s.once("error", () => resolve(false));
  });
}

/** ms from spawn to listening, and to a trusted certificate for `name`. */
async function once(pebble: Pebble, ports: number[], root: string, name: string, runtime: "bun" | "node", challenge: string, dataDir?: string) {
  if (!dataDir) await pebble.resolve(name);
  const t0 = performance.now();
  const g = await spawnGateway({
    runtime,
    port: ports[0],
    dataDir: dataDir ?? tmpDir(),
    env: {
      TLS: "acme",
      HTTPS_PORT: String(ports[1]),
      ACME_DOMAINS: name,
      ACME_DIRECTORY: pebble.directory,
      ACME_CA_CERT: pebble.caCertFile,
      ACME_CHALLENGE: challenge,
      LOG_LEVEL: "error",
    },
  });
  const listening = performance.now() - t0;
  try {
    while (!(await trusted(ports[1]!, name, root))) {
      if (performance.now() - t0 > 60_000) throw new Error(`no certificate for ${name} in 60 s:\n${g.output()}`);
      await Bun.sleep(20);
    }
    return { listening, certified: performance.now() - t0, dataDir: g.dataDir };
  } finally {
    await g.kill();
  }
}

export async function run() {
  if (!pebbleInstalled()) {
    console.log("\n## acme: skipped (no pebble: apt-get install pebble)");
    return;
  }
  const ports = await freePorts(2);
  const pebble = await startPebble({ httpPort: ports[0]!, tlsPort: ports[1]! });
  try {
    const root = await pebble.issuingRoot();
    const rows: Array<Record<string, string | number>> = [];
    let stored = "";
    for (const [runtime, challenge] of [
      ["bun", "http-01"],
      ["bun", "tls-alpn-01"],
      ["node", "http-01"],
      ["node", "tls-alpn-01"],
    ] as const) {
      const listening: number[] = [];
      const certified: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await once(pebble, ports, root, `${runtime}-${challenge}-${i}.bench.test`, runtime, challenge);
        listening.push(r.listening);
        certified.push(r.certified);
        stored ||= r.dataDir;
      }
      rows.push({
        host: runtime,
        challenge,
        runs: RUNS,
        "start → listening ms (p50)": Math.round(percentile(listening, 50)),
        "start → trusted certificate ms (p50)": Math.round(percentile(certified, 50)),
        "(max)": Math.round(Math.max(...certified)),
      });
    }
    // the first Bun run's data directory again: its stored certificate, no order
    await pebble.stop();
    const restart = await once(pebble, ports, root, "bun-http-01-0.bench.test", "bun", "http-01", stored).catch((e: Error) => e);
    console.log("\n## acme: time to a certificate from Pebble (process start to a certificate chained to Pebble's root on the HTTPS port)\n");
    console.log(table(rows));
    console.log(
      restart instanceof Error
        ? `\nrestart with the stored certificate (Pebble stopped): failed: ${restart.message}`
        : `\nrestart with the stored certificate (Pebble stopped, no order): trusted certificate ${Math.round(restart.certified)} ms after start`,
    );
  } finally {
    await pebble.stop();
  }
}

if (import.meta.main) await run();
