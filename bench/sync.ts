/**
 * Pull sync over loopback HTTP, against references in the same run:
 *  1. full pull: 50,000 cache records from one peer (a `svc-gateway serve`
 *     subprocess, so it does not share this process's event loop) into a
 *     file-backed store: records/s and bytes on the wire per record (pages
 *     compressed with deflateDict1, as the link negotiates), beside
 *       - fetch only: the same pages over the same HTTP, uncompressed, with no
 *         verify or apply (what the transport alone allows; also the bytes per
 *         record without compression),
 *       - apply only: the same 50,000 frames through the apply pipeline with no
 *         HTTP (what verify + apply alone allows);
 *  2. incremental pull: 100 new records among the 50,000 (hidden through the
 *     peer's HTTP API): records/s and bytes per record, the descriptor and the
 *     five feeds with nothing new included.
 * Target: the full pull within 1.5x of the slower reference.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway, type Gateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { benchCacheBody } from "./lib/records.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { publishRecord } from "../src/fed/feed.ts";
import { pullPeer, bootstrapConfiguredPeers } from "../src/fed/sync.ts";
import { applyFrames } from "../src/fed/apply.ts";
import { decodePage } from "../src/lib/fed/page.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import { table } from "./lib/stats.ts";
import { freePort } from "../test/helpers/ports.ts";

const N = 50_000;
const INGEST = "bench-ingest-secret-0123456789";
const MAIN = join(import.meta.dir, "../src/main.ts");

const gateway = (dir: string, env: Record<string, string>): Gateway =>
  createGateway({ config: configFor(dir, { PORT: "0", HOST: "127.0.0.1", KISS_PORTS: "off", LOG_LEVEL: "error", ...env }), log: createLogger("error") });

export async function run() {
  const key = generateKeyPair();
  const pubEnv = { INSTANCE: "bench-pub", FED_PRIVATE_KEY: key.privateKey, INGEST_SECRET: INGEST };
  const pubDir = mkdtempSync(join(tmpdir(), "svc-bench-sync-pub-"));
  // The publisher's 50,000 records, written once before it serves.
  {
    const gw = gateway(pubDir, pubEnv);
    const t0 = performance.now();
    gw.db.transaction(() => {
      for (let i = 1; i <= N; i++) publishRecord(gw, "cache", i, benchCacheBody(i) as never);
    })();
    console.log(`publisher: ${N} records signed and stored in ${Math.round(performance.now() - t0)} ms`);
    await gw.stop();
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, "--no-env-file", MAIN, "serve", "--data", pubDir, "--port", String(port), "--host", "127.0.0.1"], {
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? "/tmp", KISS_PORTS: "off", LOG_LEVEL: "error", ...pubEnv },
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`${url}/health`)).status === 200) break;
      } catch {}
      await Bun.sleep(20);
    }

    // reference: fetch only (uncompressed pages, same batch, no verify/apply)
    const frames: Uint8Array[] = [];
    let rawBytes = 0;
    const tf = performance.now();
    for (let since = 0; ; ) {
      const r = await fetch(`${url}/federation/sync/cache?since=${since}&limit=2000`);
      const b = new Uint8Array(await r.arrayBuffer());
      rawBytes += b.length;
      const p = decodePage(b);
      frames.push(...p.frames);
      since = p.next;
      if (!p.more) break;
    }
    const fetchMs = performance.now() - tf;

    // warm-up (JIT, key caches): 2,000 frames into a throwaway store, so neither measured run pays it
    const warm = gateway(mkdtempSync(join(tmpdir(), "svc-bench-sync-warm-")), { INSTANCE: "bench-warm" });
    upsertPeer(warm, { instance: "bench-pub", trust: "trusted", keyPin: key.publicKey });
    await applyFrames(warm, frames.slice(0, 2000), { via: "bench" });
    await warm.stop();

    // reference: apply only (no HTTP)
    const refGw = gateway(mkdtempSync(join(tmpdir(), "svc-bench-sync-ref-")), { INSTANCE: "bench-ref" });
    upsertPeer(refGw, { instance: "bench-pub", trust: "trusted", keyPin: key.publicKey });
    const ta = performance.now();
    for (let i = 0; i < frames.length; i += 2000) await applyFrames(refGw, frames.slice(i, i + 2000), { via: "bench" });
    const applyMs = performance.now() - ta;
    await refGw.stop();

    // the full pull
    const puller = gateway(mkdtempSync(join(tmpdir(), "svc-bench-sync-pull-")), { INSTANCE: "bench-pull", FED_PEERS: url, FED_LOOPBACK_PEERS: "on" });
    await bootstrapConfiguredPeers(puller);
    const full = await pullPeer(puller, "bench-pub");
    if (!full.ok || full.feeds.cache?.applied !== N) throw new Error(`the full pull did not apply ${N}: ${JSON.stringify(full.error ?? full.feeds.cache)}`);

    // the incremental pull: 100 new records through the peer's own API
    for (let i = 0; i < 100; i++) {
      const r = await fetch(`${url}/api/caches`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-ingest-secret": INGEST },
        body: JSON.stringify({
          name: `New cache ${i}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: 10 + i / 100,
          lon: 20,
          ownerCall: "N0NEW",
        }),
      });
      if (r.status !== 201) throw new Error(`hiding a cache on the publisher: ${r.status}`);
    }
    const inc = await pullPeer(puller, "bench-pub");
    if (!inc.ok || inc.feeds.cache?.applied !== 100) throw new Error(`the incremental pull did not apply 100: ${JSON.stringify(inc.error ?? inc.feeds.cache)}`);
    await puller.stop();

    const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));
    const rows = [
      {
        run: "full pull (deflateDict1)",
        records: N,
        ms: full.ms,
        "records/s": rate(N, full.ms),
        "bytes/record": Math.round(full.bytes / N),
        "vs slower ref": "",
      },
      {
        run: "  ref: fetch only (plain CBOR)",
        records: N,
        ms: Math.round(fetchMs),
        "records/s": rate(N, fetchMs),
        "bytes/record": Math.round(rawBytes / N),
        "vs slower ref": "",
      },
      { run: "  ref: verify + apply only", records: N, ms: Math.round(applyMs), "records/s": rate(N, applyMs), "bytes/record": "-", "vs slower ref": "" },
      {
        run: "incremental: 100 new of 50,100",
        records: 100,
        ms: inc.ms,
        "records/s": rate(100, inc.ms),
        "bytes/record": Math.round(inc.bytes / 100),
        "vs slower ref": "",
      },
    ];
    const slower = Math.max(fetchMs, applyMs);
    rows[0]!["vs slower ref"] = `${(full.ms / slower).toFixed(2)}x`;
    console.log("\npull sync over loopback HTTP (publisher in its own process; target: full pull within 1.5x of the slower reference)");
    console.log(table(rows));
    console.log(
      `  pages: full ${full.feeds.cache?.pages} cache pages of up to ${full.link?.batch}; incremental ${inc.feeds.cache?.pages}; compression ${full.link?.compression}`,
    );
    console.log(
      `  incremental bytes include the empty pages of the other five feeds (${inc.bytes - (inc.feeds.cache?.bytes ?? 0)} bytes); the descriptor request is not counted`,
    );
    return { full, inc, fetchMs, applyMs, rawBytes };
  } finally {
    proc.kill();
    await proc.exited;
  }
}

if (import.meta.main) await run();
