/**
 * N gateway cores in one process: each the real gateway (createGateway) on
 * its own in-memory SQLite, with its own Ed25519 key drawn from the seed, a
 * shared simulated clock, and every federation request going through the
 * simulated network. Each starts trusting a few peers (its ring neighbours
 * and two drawn at random); the rest it learns by the real transitive
 * discovery.
 *
 * Radio islands (one for every 50 gateways, at least one from 20 on): three
 * gateways that reach each other and one bridge over 1200-baud radio, and
 * nothing else. The bridge sets FED_VIA; each island gateway announces the
 * bridge's via address after its own and sets FED_VIA_URL and small pages
 * (FED_SYNC_BATCH=25). They trust each other and the bridge, the bridge trusts
 * them; the rest learn them from the bridge's registry view (src/fed/via.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configFor } from "../src/core/config.ts";
import { publicKeyFromSeed } from "../src/lib/fed/keys.ts";
import { upsertPeer } from "../src/fed/peers.ts";
import { createGateway, type Clock } from "../src/hosts/gateway.ts";
import { createLogger } from "../src/lib/log.ts";
import { SimNet, type SimNode } from "./net.ts";
import type { Rng } from "./prng.ts";

export interface World {
  net: SimNet;
  nodes: SimNode[];
  /** the honest gateways (every node but the malicious one) */
  honest: SimNode[];
  evil: SimNode | null;
  keys: Map<string, { seed: string; publicKey: string }>;
  clock: Clock & { t: number };
  /** stops a gateway and starts it again on its database with `env` changed (a key rotation's restart) */
  restart(node: SimNode, env: Record<string, string>): Promise<void>;
  stop(): Promise<void>;
}

/** The gateway that rotates its key keeps its database in a file, to be restarted on it; the others are in memory. */
export const ROTATING = 1;

const pad = (i: number, n: number) => String(i).padStart(String(n - 1).length, "0");

/** A 44net host name the endpoint validator accepts: k<digit><letters>.ampr.org */
function amprName(i: number): string {
  let n = Math.floor(i / 10);
  let s = "";
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `k${i % 10}${s}.ampr.org`;
}

/** Island size, and how many islands N gateways hold. */
export const ISLAND_SIZE = 3;
export const islandCount = (n: number) => (n < 20 ? 0 : Math.max(1, Math.floor(n / 50)));

/**
 * Island k's gateways and its bridge, by index: blocks just below the
 * malicious gateway (the last), clear of the rotating and moving ones (1-3).
 */
function islandIndexes(n: number, k: number): { members: number[]; bridge: number } {
  const top = n - 2 - k * (ISLAND_SIZE + 1);
  return { members: Array.from({ length: ISLAND_SIZE }, (_, j) => top - j), bridge: top - ISLAND_SIZE };
}

export function buildWorld(n: number, rand: Rng, opts: { evil: boolean; start: number }): World {
  const root = mkdtempSync(join(tmpdir(), "svc-sim-"));
  const clock = { t: opts.start, now: () => clock.t };
  const net = new SimNet(rand);
  net.now = clock.now;
  const log = createLogger("error", () => {});
  const keys = new Map<string, { seed: string; publicKey: string }>();
  const nodes: SimNode[] = [];
  const envs = new Map<SimNode, Record<string, string>>();
  const dbFiles = new Map<SimNode, string>();
  const start = (node: SimNode) => {
    const config = configFor(join(root, node.instance), envs.get(node)!);
    node.gw = createGateway({ config, log, clock, dbFile: dbFiles.get(node)!, fedTransport: net.transportFor(() => node) });
  };
  const islandOf = new Map<number, number>();
  const bridgeOf = new Map<number, number>();
  for (let k = 0; k < islandCount(n); k++) {
    const { members, bridge } = islandIndexes(n, k);
    for (const m of members) islandOf.set(m, k);
    bridgeOf.set(bridge, k);
  }
  const hostOf = (i: number) => `g${pad(i, n)}.sim`;
  for (let i = 0; i < n; i++) {
    const instance = `g${pad(i, n)}`;
    const seed = Buffer.from(rand.bytes32()).toString("base64url");
    keys.set(instance, { seed, publicKey: publicKeyFromSeed(seed) });
    // one in five has a 44net address, announced first; half of those (and one in ten others) reach 44net
    const island = islandOf.get(i) ?? null;
    const amprDraw = rand.chance(0.2);
    const amprHost = amprDraw && island === null ? amprName(i) : null;
    const on44net = amprHost ? rand.chance(0.5) : rand.chance(0.1);
    const host = hostOf(i);
    const bridgeHost = island === null ? null : hostOf(islandIndexes(n, island).bridge);
    const endpoints = [
      ...(amprHost ? [`ampr:${amprHost};0`] : []),
      `https:https://${host};10`,
      ...(bridgeHost ? [`https:https://${bridgeHost}/federation/via/${instance};20`] : []),
    ];
    const node: SimNode = { instance, gw: null as never, host, amprHost, on44net, online: true, side: 0, island, bridges: bridgeOf.get(i) ?? null };
    envs.set(node, {
      INSTANCE: instance,
      FED_PRIVATE_KEY: seed,
      FED_ENDPOINTS: endpoints.join(","),
      LOG_LEVEL: "error",
      KISS_PORTS: "off",
      PORT: "0",
      HOST: "127.0.0.1",
      ...(bridgeHost ? { FED_VIA_URL: `https://${bridgeHost}`, FED_SYNC_BATCH: "25" } : {}),
      ...(node.bridges !== null ? { FED_VIA: "on" } : {}),
    });
    dbFiles.set(node, i === ROTATING ? join(root, instance, "sim.db") : ":memory:");
    start(node);
    nodes.push(node);
    net.add(node);
  }
  // who trusts whom at the start: on the internet, ring neighbours and two at random (never an island gateway,
  // which no one there can reach); on an island, the others there and the bridge; a bridge, its island too
  const open = nodes.map((_, i) => i).filter((i) => !islandOf.has(i));
  for (const [i, node] of nodes.entries()) {
    const chosen = new Set<number>();
    const island = islandOf.get(i);
    if (island !== undefined) {
      const { members, bridge } = islandIndexes(n, island);
      for (const m of [...members, bridge]) chosen.add(m);
    } else {
      const at = open.indexOf(i);
      chosen.add(open[(at + 1) % open.length]!).add(open[(at + open.length - 1) % open.length]!);
      for (let k = 0; k < 2 && n > 3; k++) chosen.add(open[rand.int(0, open.length - 1)]!);
      const bridged = bridgeOf.get(i);
      if (bridged !== undefined) for (const m of islandIndexes(n, bridged).members) chosen.add(m);
    }
    chosen.delete(i);
    for (const j of [...chosen].sort((a, b) => a - b)) {
      const p = nodes[j]!;
      upsertPeer(node.gw, { instance: p.instance, url: `https://${p.host}`, trust: "trusted", keyPin: keys.get(p.instance)!.publicKey });
    }
  }
  const evil = opts.evil && n > 3 ? nodes[n - 1]! : null;
  return {
    net,
    nodes,
    honest: nodes.filter((x) => x !== evil),
    evil,
    keys,
    clock,
    async restart(node, env) {
      await node.gw.stop();
      envs.set(node, { ...envs.get(node)!, ...env });
      start(node);
    },
    async stop() {
      for (const x of nodes) await x.gw.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
