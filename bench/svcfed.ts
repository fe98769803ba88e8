/**
 * The SVCFED carrier, against references in the same run:
 *  1. FNV-1a 64 (the BID's hash, 16-bit limbs) MB/s on a 64 KiB payload,
 *     beside the textbook BigInt version and Bun.hash (wyhash, a ceiling);
 *  2. enqueue: 5,000 signed cache records packed into one bulletin
 *     (BBS_MAX_MESSAGE_BYTES 4 MiB): ms, bulletin size;
 *  3. receive: that bulletin stored on another gateway through the BBS
 *     (decode, BID re-derived, frames applied in the storing transaction):
 *     frames/s beside applyPage of the same page (the pipeline alone).
 * Targets: hashing far above radio and disk speeds (> 50 MB/s); receiving
 * within 80 % of the bare pipeline's rate.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { createGateway, type Gateway } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { cacheToWire } from "../src/lib/fed/bodies.ts";
import { generateKeyPair } from "../src/lib/fed/keys.ts";
import { publishRecord } from "../src/fed/feed.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import { applyPage } from "../src/fed/apply.ts";
import { storeMessage } from "../src/bbs/messages.ts";
import { decodeSvcfedBody, enqueueSvcfed, fnv1a64Hex } from "../src/fed/transports/svcfed.ts";
import { meanMs, median, table } from "./lib/stats.ts";

const N = 5_000;
const key = generateKeyPair();

function gateway(instance: string, env: Record<string, string> = {}): Gateway {
  const dataDir = mkdtempSync(join(tmpdir(), "bench-svcfed-"));
  const config = configFor(dataDir, {
    PORT: "0",
    HOST: "127.0.0.1",
    LOG_LEVEL: "error",
    INSTANCE: instance,
    BBS_HA: "N0RCV",
    BBS_MAX_MESSAGE_BYTES: String(4 * 1024 * 1024),
    ...env,
  });
  return createGateway({ config, log: createLogger("error") });
}

const time = meanMs;

function fnvBigInt(b: Uint8Array): bigint {
  let h = 0xcbf29ce484222325n;
  for (const x of b) h = ((h ^ BigInt(x)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

export async function run() {
  console.log("\n== svcfed: records carried as BBS bulletins ==");
  const buf = crypto.getRandomValues(new Uint8Array(65536));
  const mb = buf.length / 1e6;
  const rate = (ms: number) => (mb / (ms / 1000)).toFixed(1);
  const ours = median([0, 1, 2].map(() => time(() => fnv1a64Hex(buf))));
  const big = median([0, 1, 2].map(() => time(() => fnvBigInt(buf))));
  const wy = median([0, 1, 2].map(() => time(() => Bun.hash(buf))));
  console.log("Hashing a 64 KiB payload, MB/s (median of 3):");
  console.log(
    table([
      { hash: "FNV-1a 64, 16-bit limbs (ours)", "MB/s": rate(ours) },
      { hash: "FNV-1a 64, BigInt (textbook)", "MB/s": rate(big) },
      { hash: "Bun.hash wyhash (ceiling, not FNV)", "MB/s": rate(wy) },
    ]),
  );

  const sender = gateway("bench-a", { FED_PRIVATE_KEY: key.privateKey, BBS_HA: "N0SND" });
  sender.db.transaction(() => {
    for (let i = 0; i < N; i++) {
      publishRecord(
        sender,
        "cache",
        i,
        cacheToWire({
          name: `Bench cache ${i}`,
          type: "traditional",
          size: "small",
          difficulty: 2,
          terrain: 2,
          lat: -60 + (i % 1200) / 10,
          lon: -170 + (i % 3400) / 10,
          status: "active",
          ownerCall: "N0OWN",
          hint: "Under the third stone.",
        }),
      );
    }
  })();
  const t0 = performance.now();
  const e = enqueueSvcfed(sender, { types: ["cache"], since: 0, limit: N });
  const enqueueMs = performance.now() - t0;
  const bulletin = sender.db.query("SELECT bid, from_call AS fromCall, subject, body FROM bbs_messages WHERE id = ?").get(e.id!) as {
    bid: string;
    fromCall: string;
    subject: string;
    body: string;
  };
  console.log(
    `\nenqueue: ${e.frames} records in one bulletin of ${(e.size / 1024).toFixed(0)} KiB (payload ${(e.bytes / 1024).toFixed(0)} KiB) in ${enqueueMs.toFixed(0)} ms`,
  );

  const page = decodeSvcfedBody(bulletin.body).payload;
  const rows: Array<{ carrier: number; bare: number }> = [];
  for (let r = 0; r < 3; r++) {
    const g1 = gateway(`bench-r${r}`);
    const g2 = gateway(`bench-p${r}`);
    for (const g of [g1, g2]) upsertPeer(g, { instance: "bench-a", trust: "trusted", keyPin: key.publicKey });
    let t = performance.now();
    const out = storeMessage(g1, {
      type: "B",
      bid: bulletin.bid,
      from: bulletin.fromCall,
      to: "SVCFED",
      at: "WW",
      subject: bulletin.subject,
      body: bulletin.body,
      route: [],
      origin: "box",
      receivedFrom: null,
    });
    const carrier = e.frames / ((performance.now() - t) / 1000);
    if (!out.ok) throw new Error(`refused: ${out.message}`);
    t = performance.now();
    const rep = await applyPage(g2, page, { via: "bench" });
    const bare = e.frames / ((performance.now() - t) / 1000);
    if (rep.applied !== e.frames) throw new Error(`applied ${rep.applied} of ${e.frames}`);
    rows.push({ carrier, bare });
    await g1.stop();
    await g2.stop();
  }
  await sender.stop();
  const k = (x: number) => Math.round(x).toLocaleString("en-US");
  const c = median(rows.map((r) => r.carrier));
  const b = median(rows.map((r) => r.bare));
  console.log(`receive, ${e.frames} fresh cache frames (median of 3 runs, wall):`);
  console.log(
    table([
      { path: "SVCFED bulletin stored through the BBS (decode, BID, apply)", "frames/s": k(c) },
      { path: "applyPage of the same page (reference)", "frames/s": k(b) },
    ]),
  );
  console.log(`  carrier / bare pipeline: ${(c / b).toFixed(2)}; target >= 0.80`);
}

if (import.meta.main) await run();
