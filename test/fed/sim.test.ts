/**
 * The federation simulator (issue 31) in CI: 30 real gateway cores on a
 * simulated network and clock, with a partition that heals, churn, edits
 * raced by tombstones, 44net-first endpoints some gateways cannot resolve, a
 * radio island reached only through its bridge (FED_VIA), a key rotation, an
 * account move, and a malicious gateway forging and replaying frames. The invariants hold,
 * and the same seed prints the same output (all but the wall time), run as
 * an operator runs it: `bun run sim`.
 */
import { expect, test } from "bun:test";
import { BUN } from "../helpers/paths.ts";

const SEED = 31;

async function sim(): Promise<{ lines: string[]; summary: Record<string, unknown> }> {
  const proc = Bun.spawn([BUN, "run", "--silent", "sim", "--", "--gateways", "30", "--seed", String(SEED), "--scenario", "short"], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(err).toBe("");
  expect(code).toBe(0);
  const lines = out.trimEnd().split("\n");
  return { lines, summary: JSON.parse(lines.at(-1)!) };
}

test("30 gateways converge with nothing lost, forged or resurrected; the same seed gives the same output", async () => {
  const first = await sim();
  expect(first.summary).toMatchObject({ gateways: 30, seed: SEED, converged: true, lost: 0, forgedApplied: 0, resurrected: 0 });
  expect(first.summary.records as number).toBeGreaterThan(50);
  // the run did meet what it claims to: a partition, forged frames, fallbacks past unresolvable 44net endpoints
  const text = first.lines.join("\n");
  expect(text).toContain("partitioned");
  expect(text).toMatch(/forged [1-9]\d* and replayed [1-9]\d* frames/);
  expect(text).toMatch(/via a fallback URL [1-9]/);
  expect(text).toContain("rotated its key");
  // a radio island: its gateways reached the rest, and the rest reached them, only through its bridge's radio
  expect(text).toMatch(/3 on 1 radio island\(s\) \(1200 baud, bridged by g\d+\)/);
  expect(text).toMatch(/[1-9]\d* over island radio/);
  expect(text).toMatch(/an account moved in round \d+ \([1-9]\d* mirrored finds now name its new account\)/);
  const second = await sim();
  const noWall = (l: string[]) => l.map((x) => x.replace(/"wallSeconds":[\d.]+/, ""));
  expect(noWall(second.lines)).toEqual(noWall(first.lines));
  console.log(first.lines.at(-1));
}, 120_000);

test("bad arguments are refused with the usage, before any gateway starts", async () => {
  for (const args of [
    ["--gateways", "1"],
    ["--gateways", "ten"],
    ["--gateways", "3", "--scenario", "nope"],
  ]) {
    const proc = Bun.spawn([BUN, "run", "--silent", "sim", "--", ...args], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toMatch(/usage: bun run sim|unknown scenario "nope"/);
  }
});
