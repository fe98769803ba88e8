/**
 * Mutation fuzzing, in process: at least 1,000,000 inputs made from valid
 * seeds (our own encoders) by seeded mutations (test/helpers/fuzz.ts, shared
 * with test/security/fuzz.test.ts), thrown at the strict CBOR decoder, the
 * frame/payload and page decoders, the APRS decoder, the GPX/LOC importer's
 * parser and the HTTP JSON body parser. Prints per target inputs/second and
 * how many inputs threw past the decoder's boundary (target: 0), with the
 * first of them in base64 for a regression test.
 *
 *   bun run bench fuzz                 # seed 1
 *   FUZZ_SEED=7 bun run bench fuzz     # another million
 */
import { fuzzTarget, targets, type FuzzReport } from "../test/helpers/fuzz.ts";
import { table } from "./lib/stats.ts";

/** Inputs per target: the slow ones (text parsers with a Request or an XML parser behind them) get fewer. */
const SHARE: Record<string, number> = { cbor: 300_000, frame: 200_000, page: 200_000, aprs: 110_000, gpx: 100_000, json: 90_000 };

export async function run(scale = Number(process.env.FUZZ_SCALE ?? 1)) {
  const seed = Number(process.env.FUZZ_SEED ?? 1);
  const reports: FuzzReport[] = [];
  for (const t of targets()) {
    const n = Math.round((SHARE[t.name] ?? 100_000) * scale);
    reports.push(await fuzzTarget(t, n, seed + t.name.length * 7919));
  }
  const total = reports.reduce((a, r) => a + r.inputs, 0);
  console.log(`\nfuzz: ${total.toLocaleString("en")} mutated inputs, PRNG seed ${seed} (target: 0 escapes)\n`);
  console.log(
    table(
      reports.map((r) => ({
        target: r.target,
        inputs: r.inputs,
        "inputs/s": Math.round(r.inputs / (r.ms / 1000)),
        decoded: r.ok,
        refused: r.refused,
        escaped: r.escaped,
      })),
    ),
  );
  for (const r of reports) for (const e of r.escapes) console.log(`\nESCAPE ${e.target}: ${e.error}\n  input (base64): ${e.input.slice(0, 2000)}`);
}
