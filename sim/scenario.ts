/**
 * Scenarios: what happens in each round before the gateways pull. Users write
 * new caches, finds and edits on the gateways that are up; an edit is
 * sometimes followed by a tombstone in the next round (racing the edit
 * through the network); gateways go offline for a while (churn); the network
 * splits in two and heals; one gateway rotates its key (rotate.ts); a
 * player's account moves to another gateway; one gateway is malicious (tamper.ts).
 */
import { cacheToWire, findToWire } from "../src/lib/fed/bodies.ts";
import { publishAccountMove, publishRecord, publishTombstone } from "../src/fed/feed.ts";
import type { Ledger } from "./ledger.ts";
import type { Rng } from "./prng.ts";
import { rotateKey } from "./rotate.ts";
import { ROTATING, type World } from "./world.ts";

export interface Scenario {
  name: string;
  /** users write in rounds 1..writeRounds */
  writeRounds: number;
  /** the network is split in two for rounds [from, to] */
  partition: [number, number] | null;
  /** per gateway per round (during the write rounds), the chance it goes offline */
  churn: number;
  /** how many rounds it stays offline */
  offlineRounds: [number, number];
  /** the round in which one gateway rotates its key (and revokes the old one) */
  rotateRound: number | null;
  /** the round in which a player's account moves from one gateway to another */
  moveRound: number | null;
  /** give up after this many rounds */
  maxRounds: number;
  evil: boolean;
}

export const SCENARIOS: Record<string, Scenario> = {
  default: {
    name: "default",
    writeRounds: 12,
    partition: [3, 8],
    churn: 0.02,
    offlineRounds: [6, 24],
    rotateRound: 5,
    moveRound: 7,
    maxRounds: 80,
    evil: true,
  },
  /** the CI run: the same events, in fewer rounds */
  short: { name: "short", writeRounds: 3, partition: [2, 3], churn: 0.04, offlineRounds: [1, 3], rotateRound: 2, moveRound: 3, maxRounds: 30, evil: true },
};

const cache = (name: string, rand: Rng) =>
  cacheToWire({
    name,
    type: "traditional",
    size: "small",
    difficulty: 1.5,
    terrain: 2,
    lat: 40 + rand.int(0, 1000) / 100,
    lon: -10 + rand.int(0, 3000) / 100,
    status: "active",
    ownerCall: "N0OWN",
  });

/** The gateway a player's account moves from (to the next one), and the player. */
const MOVER = 2;
const PLAYER = "p1";

export class Driver {
  private backAt = new Map<string, number>();
  private nextLocal = new Map<string, number>();
  private tombNext: Array<{ node: string; gid: string }> = [];
  writes = 0;

  constructor(
    private readonly world: World,
    private readonly ledger: Ledger,
    private readonly rand: Rng,
    readonly scenario: Scenario,
  ) {}

  /** Whether anything can still change: writes, a partition, a gateway offline. */
  quiet(round: number): boolean {
    const s = this.scenario;
    return round > s.writeRounds && (!s.partition || round > s.partition[1]) && this.backAt.size === 0 && this.tombNext.length === 0;
  }

  rotated: string | null = null;
  /** the round the account moved in */
  moved: number | null = null;

  /** The events of one round. */
  async step(round: number): Promise<void> {
    const { world, rand, scenario: s } = this;
    // churn: back online, or off for a while
    for (const node of world.nodes) {
      const back = this.backAt.get(node.instance);
      if (back !== undefined && round >= back) {
        node.online = true;
        this.backAt.delete(node.instance);
      } else if (back === undefined && round <= s.writeRounds && rand.chance(s.churn)) {
        node.online = false;
        this.backAt.set(node.instance, round + rand.int(s.offlineRounds[0], s.offlineRounds[1]));
      }
    }
    // partition: two sides drawn when it starts, healed when it ends
    if (s.partition && round === s.partition[0]) for (const node of world.nodes) node.side = rand.chance(0.5) ? 1 : 2;
    if (s.partition && round === s.partition[1] + 1) for (const node of world.nodes) node.side = 0;
    if (round === s.rotateRound) {
      const node = world.nodes[ROTATING]!;
      await rotateKey(world, node, rand);
      this.rotated = node.instance;
    }
    if (round === s.moveRound) {
      const [from, to] = [world.nodes[MOVER]!, world.nodes[MOVER + 1]!];
      const p = publishAccountMove(from.gw, PLAYER, `${to.instance}:account:${PLAYER}`);
      this.ledger.note(p.gid, from.instance, "account-move", p.v);
      this.ledger.moved.push({ origin: from.instance, from: `${from.instance}:account:${PLAYER}`, to: `${to.instance}:account:${PLAYER}` });
      this.moved = round;
    }
    // tombstones racing last round's edits
    for (const t of this.tombNext.splice(0)) {
      const node = world.nodes.find((x) => x.instance === t.node)!;
      publishTombstone(node.gw, t.gid);
      this.ledger.tombstone(t.gid);
      this.writes++;
    }
    if (round > s.writeRounds) return;
    for (const node of world.nodes) {
      if (!node.online) continue;
      if (rand.chance(0.6)) {
        const id = (this.nextLocal.get(node.instance) ?? 0) + 1;
        this.nextLocal.set(node.instance, id);
        const p = publishRecord(node.gw, "cache", id, cache(`${node.instance} cache ${id}`, rand));
        this.ledger.note(p.gid, node.instance, "cache", p.v);
        this.writes++;
      }
      const all = this.ledger.liveCaches();
      const player = node === world.nodes[MOVER] && this.moved === null;
      if (all.length && (rand.chance(0.4) || player)) {
        const target = rand.pick(all);
        const id = `f${round}-${rand.int(0, 1_000_000)}`;
        // the player whose account moves logs finds on its first gateway until it moves
        const account = player ? `${node.instance}:account:${PLAYER}` : undefined;
        const p = publishRecord(
          node.gw,
          "find",
          id,
          findToWire({ cache: target.gid, kind: "find", loggedAt: world.clock.now(), call: "N0FND", account, text: "TFTC" }),
        );
        this.ledger.note(p.gid, node.instance, "find", p.v);
        this.writes++;
      }
      const own = this.ledger.liveCaches(node.instance).filter((e) => !this.tombNext.some((t) => t.gid === e.gid));
      if (own.length && rand.chance(0.2)) {
        const e = rand.pick(own);
        const local = e.gid.split(":").pop()!;
        const p = publishRecord(node.gw, "cache", Number(local), cache(`${node.instance} cache ${local} v${e.v + 1}`, rand));
        this.ledger.note(p.gid, node.instance, "cache", p.v);
        this.writes++;
        // a third of edits are deleted next round, racing the edit through the network
        if (rand.chance(0.33)) this.tombNext.push({ node: node.instance, gid: e.gid });
      }
    }
  }
}
