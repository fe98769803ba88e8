/**
 * One simulation: build the world, then rounds of (events, every gateway
 * that is up runs the real pull of all its peers, in an order drawn from the
 * seed, one at a time) until nothing is left to change and every invariant
 * holds, or the scenario's last round. Returns the lines to print; the last
 * is the JSON summary. Only `wallSeconds` differs between runs of one seed.
 */
import { syncAll } from "../src/fed/sync.ts";
import { check, type Verdict } from "./check.ts";
import { Ledger } from "./ledger.ts";
import { rng } from "./prng.ts";
import { Driver, SCENARIOS } from "./scenario.ts";
import { installEvil } from "./tamper.ts";
import { buildWorld, type World } from "./world.ts";

/** The federation-pull task's interval (src/jobs/index.ts): one round. */
export const ROUND_SECONDS = 300;
/** The simulated clock starts here (a fixed date: the output depends on nothing outside the seed). */
const START = Date.UTC(2026, 0, 1);

export interface SimOptions {
  gateways: number;
  seed: number;
  scenario?: string;
  /** called with each line as it is made (the CLI prints as it goes) */
  onLine?: (line: string) => void;
}

export interface Summary {
  gateways: number;
  seed: number;
  records: number;
  converged: boolean;
  rounds: number;
  lost: number;
  forgedApplied: number;
  resurrected: number;
  bytesPerRecordHop: number;
  pullsPerGatewayPerHour: number;
  simSeconds: number;
  wallSeconds: number;
}

/** Mirrored finds attributed to a moved account's new gid, over the honest gateways. */
function repointed(world: World, ledger: Ledger): number {
  let n = 0;
  for (const m of ledger.moved)
    for (const node of world.honest) n += (node.gw.db.query("SELECT count(*) AS n FROM mirror_finds WHERE account = ?").get(m.to) as { n: number }).n;
  return n;
}

export async function runSim(o: SimOptions): Promise<{ lines: string[]; summary: Summary }> {
  const wallStart = performance.now();
  const scenario = SCENARIOS[o.scenario ?? "default"];
  if (!scenario) throw new Error(`unknown scenario "${o.scenario}" (${Object.keys(SCENARIOS).join(", ")})`);
  const lines: string[] = [];
  const say = (l: string) => {
    lines.push(l);
    o.onLine?.(l);
  };
  const rand = rng(o.seed);
  const world = buildWorld(o.gateways, rand, { evil: scenario.evil, start: START });
  const ledger = new Ledger();
  const driver = new Driver(world, ledger, rand, scenario);
  const evil = installEvil(world, ledger);
  say(
    `sim: ${o.gateways} gateways, seed ${o.seed}, scenario ${scenario.name}; ${world.nodes.filter((x) => x.amprHost).length} with a 44net address first, ${world.nodes.filter((x) => x.on44net).length} on 44net; ${world.nodes.filter((x) => x.island !== null).length} on ${world.nodes.filter((x) => x.bridges !== null).length} radio island(s) (1200 baud, bridged by ${
      world.nodes
        .filter((x) => x.bridges !== null)
        .map((x) => x.instance)
        .join(", ") || "none"
    }); malicious: ${world.evil?.instance ?? "none"}`,
  );
  let pulls = 0;
  let pageBytes = 0;
  let applied = 0;
  let round = 0;
  let verdict: Verdict = { missing: 0, resurrected: 0, forgedApplied: 0 };
  let converged = false;
  let repointedFinds = 0;
  /** the first round with nothing left to change: no writes, no partition, every gateway up */
  let quietAt: number | null = null;
  try {
    while (round < scenario.maxRounds) {
      round++;
      world.clock.t += ROUND_SECONDS * 1000;
      await driver.step(round);
      const up = rand.shuffle(world.nodes.filter((x) => x.online));
      let roundPulls = 0;
      let failed = 0;
      let fellBack = 0;
      for (const node of up) {
        const report = await syncAll(node.gw, 1);
        for (const p of report.peers) {
          roundPulls++;
          pageBytes += p.bytes;
          applied += p.applied;
          if (!p.ok) {
            failed++;
            if (process.env.SIM_DEBUG) console.error(round, node.instance, p.instance, p.error?.code, p.error?.message.slice(0, 200));
          }
          if (p.ok && p.unreachable.length) fellBack++;
        }
      }
      pulls += roundPulls;
      verdict = check(world, ledger);
      const quiet = driver.quiet(round);
      if (quiet && quietAt === null) quietAt = round;
      converged = quiet && verdict.missing === 0 && verdict.resurrected === 0;
      say(
        `round ${round}: up ${up.length}/${world.nodes.length}${world.nodes.some((x) => x.side) ? " partitioned" : ""}, pulls ${roundPulls} (failed ${failed}, via a fallback URL ${fellBack}), missing ${verdict.missing}, resurrected ${verdict.resurrected}, forged applied ${verdict.forgedApplied}`,
      );
      if (converged) break;
    }
  } finally {
    repointedFinds = driver.moved ? repointed(world, ledger) : 0;
    await world.stop();
  }
  const simSeconds = round * ROUND_SECONDS;
  say(
    converged
      ? `converged in round ${round}: ${round - quietAt! + 1} round(s) after the network went quiet (round ${quietAt}: last write, partition healed, every gateway back)`
      : `not converged after ${round} rounds${quietAt === null ? " (the network never went quiet)" : `, ${round - quietAt + 1} after it went quiet`}`,
  );
  const s = world.net.stats;
  say(
    `${driver.rotated ? `${driver.rotated} rotated its key in round ${scenario.rotateRound}; ` : ""}${driver.moved ? `an account moved in round ${driver.moved} (${repointedFinds} mirrored finds now name its new account); ` : ""}network: ${s.requests} requests, ${s.failed} failed (${s.lost} lost, ${s.unresolvable} unresolvable, ${s.timedOut} timed out), ${s.radio} over island radio (${s.radioBusy} refused busy, ${Math.round(s.airSeconds)} s of air time), ${s.bytes} bytes (${applied ? Math.round(s.bytes / applied) : 0} per record applied, descriptors and registry views included; sync pages alone ${pageBytes}); ${applied} records applied; malicious gateway forged ${evil.forged} and replayed ${evil.replayed} frames; ${driver.writes} writes`,
  );
  const summary: Summary = {
    gateways: o.gateways,
    seed: o.seed,
    records: ledger.entries.size,
    converged,
    rounds: round,
    lost: verdict.missing,
    forgedApplied: verdict.forgedApplied,
    resurrected: verdict.resurrected,
    bytesPerRecordHop: applied ? Math.round(pageBytes / applied) : 0,
    pullsPerGatewayPerHour: Math.round((pulls / o.gateways / (simSeconds / 3600)) * 10) / 10,
    simSeconds,
    wallSeconds: Math.round((performance.now() - wallStart) / 100) / 10,
  };
  say(JSON.stringify(summary));
  return { lines, summary };
}
