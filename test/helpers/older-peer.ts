/**
 * An older release of this gateway as a peer, for the tests that a new record
 * field or kind passes through one that does not know it: the tree at a
 * commit, run as a subprocess on this checkout's node_modules.
 */
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { spawnGateway, type Spawned } from "./gateway.ts";
import { BUN, ROOT } from "./paths.ts";
import { tmpDir } from "./tmp.ts";

/** Spawns the gateway as it was at `commit`, with `env` (INSTANCE, FED_PRIVATE_KEY, FED_PEERS, ...). */
export async function spawnOlderPeer(commit: string, env: Record<string, string>): Promise<Spawned> {
  const tree = tmpDir();
  const git = Bun.spawnSync([
    "sh",
    "-c",
    `git -C "${ROOT}" archive ${commit} src radio schema.sql package.json tsconfig.json bunfig.toml | tar -x -C "${tree}"`,
  ]);
  if (git.exitCode !== 0) throw new Error(`git archive ${commit} failed: ${git.stderr.toString()}`);
  symlinkSync(join(ROOT, "node_modules"), join(tree, "node_modules"));
  mkdirSync(join(tree, "data"));
  return spawnGateway({ cmd: [BUN, "--no-env-file", join(tree, "src/main.ts")], cwd: tree, dataDir: join(tree, "data"), env, timeoutMs: 30_000 });
}

/** Has a gateway pull its peers now (POST /federation/sync as the ingest box); what it reports of one peer. */
export async function pullNow(url: string, ingestSecret: string, peer: string): Promise<any> {
  const r = await fetch(`${url}/federation/sync`, {
    method: "POST",
    headers: { "x-ingest-secret": ingestSecret, "content-type": "application/json" },
    body: "{}",
  });
  if (r.status !== 200) throw new Error(`POST /federation/sync: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { peers: Array<{ instance: string }> }).peers.find((p) => p.instance === peer);
}
