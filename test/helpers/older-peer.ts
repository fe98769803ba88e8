/**
 * An older release of this gateway as a peer, for the tests that a new record
 * field or kind passes through one that does not know it: the tree at a
 * commit, run as a subprocess on this checkout's node_modules.
 */
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { spawnGateway, type Spawned } from "./gateway.ts";
import { BUN, ROOT } from "./paths.ts";
import { tmpDir } from "./tmp.ts";

/**
 * Spawns the gateway as it was at `commit`, as instance gw-old signing with
 * `privateKey`, pulling `peers` (loopback addresses allowed), with the ingest
 * box's secret.
 */
export async function spawnOlderPeer(commit: string, o: { privateKey: string; peers: string; ingestSecret: string }): Promise<Spawned> {
  const tree = tmpDir();
  const git = Bun.spawnSync([
    "sh",
    "-c",
    `git -C "${ROOT}" archive ${commit} src radio schema.sql package.json tsconfig.json bunfig.toml | tar -x -C "${tree}"`,
  ]);
  if (git.exitCode !== 0) throw new Error(`git archive ${commit} failed: ${git.stderr.toString()}`);
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  mkdirSync(join(tree, "data"));
  return spawnGateway({
    cmd: [BUN, "--no-env-file", join(tree, "src/main.ts")],
    cwd: tree,
    dataDir: join(tree, "data"),
    env: { INSTANCE: "gw-old", FED_PRIVATE_KEY: o.privateKey, FED_PEERS: o.peers, FED_LOOPBACK_PEERS: "on", INGEST_SECRET: o.ingestSecret },
    timeoutMs: 30_000,
  });
}

/**
 * Inside a describe block: an older peer, spawned before its tests (with the
 * options `opts` gives then, once the other gateways run) and stopped after
 * them. Read its address as `O.url` inside the tests.
 */
export function useOlderPeer(commit: string, opts: () => { privateKey: string; peers: string; ingestSecret: string }): { readonly url: string } {
  let spawned: Spawned | undefined;
  beforeAll(async () => {
    spawned = await spawnOlderPeer(commit, opts());
  }, 60_000);
  afterAll(async () => {
    await spawned?.kill();
  });
  return {
    get url() {
      if (!spawned) throw new Error("the older peer has not started");
      return spawned.url;
    },
  };
}

/**
 * Has a gateway pull its peers now (POST /federation/sync as the ingest box)
 * and expects the pull from `peer` to have gone through with nothing refused;
 * what it reports of that peer.
 */
export async function pullCleanly(url: string, ingestSecret: string, peer: string): Promise<any> {
  const r = await fetch(`${url}/federation/sync`, {
    method: "POST",
    headers: { "x-ingest-secret": ingestSecret, "content-type": "application/json" },
    body: "{}",
  });
  if (r.status !== 200) throw new Error(`POST /federation/sync: ${r.status} ${await r.text()}`);
  const report = ((await r.json()) as { peers: Array<{ instance: string; feeds: Record<string, { rejected: number }> }> }).peers.find(
    (p) => p.instance === peer,
  );
  expect(report).toMatchObject({ ok: true, error: null });
  for (const f of Object.values(report!.feeds)) expect(f.rejected).toBe(0);
  return report;
}
