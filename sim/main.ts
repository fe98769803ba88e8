/**
 * bun run sim -- --gateways N --seed S [--scenario NAME]
 *
 * Runs N real gateway cores in this process on a simulated network and clock
 * (docs/protocol.md "The network at scale"). Prints a line per round and, last,
 * the JSON summary; the same seed prints the same bytes except `wallSeconds`.
 */
import { runSim } from "./run.ts";

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

const gateways = Number(arg("gateways", "30"));
const seed = Number(arg("seed", "1"));
if (!Number.isInteger(gateways) || gateways < 2 || gateways > 5000 || !Number.isInteger(seed)) {
  console.error("usage: bun run sim -- --gateways N (2-5000) --seed S [--scenario default|short]");
  process.exit(2);
}
try {
  await runSim({ gateways, seed, scenario: arg("scenario"), onLine: (l) => console.log(l) });
} catch (e) {
  console.error(String((e as Error).message ?? e));
  process.exit(2);
}
