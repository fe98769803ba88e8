/**
 * Every scheduled task, on one cron. Tasks whose work belongs to a later part
 * (federation pull, hub push, relay spoke leg, watch digests) are registered
 * here with their schedule and filled in by that part. The jobs of what only
 * a server runs (radio ports, FBB forwarding, file backups) are in server.ts,
 * registered by the composition root of the hosts that run them.
 */
import type { Core } from "../core/core.ts";
import type { Scheduler } from "./scheduler.ts";
import { pruneAll } from "./prune.ts";
import { checkClock, clockPaused } from "../system/clock-sanity.ts";
import { runWatchDigests } from "../notify/digests.ts";
import { syncAll } from "../fed/sync.ts";
import { retryCorroborations } from "../fed/corroborate.ts";
import { pushToHub } from "../fed/hub-and-spoke.ts";
import { relaySpoke } from "../fed/relay.ts";
import { archivePastEvents } from "../game/events-archive.ts";

export function registerJobs(gw: Core, scheduler: Scheduler): void {
  scheduler.add({
    name: "prune",
    schedule: "7 * * * *",
    description: "delete expired positions, packets, logs, tombstones and relay entries in small batches",
    run: async () => {
      // a clock set years ahead would expire everything: retention waits for a sane clock
      const paused = clockPaused(gw);
      if (paused) return { skipped: paused };
      const report = await pruneAll(gw.db, gw.config, gw.clock.now(), { gate: gw.writeGate });
      const total = Object.values(report).reduce((s, r) => s + r.deleted, 0);
      if (total > 0) gw.log.info("prune", `deleted ${total} expired rows`, report);
      return report;
    },
  });
  scheduler.add({
    name: "clock-check",
    schedule: "* * * * *",
    description: "check the clock against what is stored and what peers say; signing and transmitting wait while it is not sane",
    run: () => {
      const s = checkClock(gw);
      return { sane: s.sane, reason: s.reason, peers: s.peers };
    },
  });
  scheduler.add({
    name: "federation-pull",
    schedule: "*/5 * * * *",
    description: "pull signed records from every peer",
    run: async () => {
      const r = await syncAll(gw);
      const corroborations = await retryCorroborations(gw);
      return {
        peers: r.peers.length,
        ok: r.peers.filter((p) => p.ok).length,
        applied: r.peers.reduce((n, p) => n + p.applied, 0),
        bootstrapProblems: r.bootstrap.length,
        corroborationsAsked: corroborations.length,
      };
    },
  });
  scheduler.add({
    name: "hub-push",
    schedule: "*/5 * * * *",
    description: "push this instance's records to FED_HUB_URL (no-op unless configured)",
    run: () => pushToHub(gw),
  });
  scheduler.add({
    name: "relay-spoke",
    schedule: "* * * * *",
    description: "answer relay queries addressed to this instance (no-op unless configured)",
    run: () => relaySpoke(gw),
  });
  scheduler.add({
    name: "events-archive",
    schedule: "17 * * * *",
    description: "archive event caches a week after they ended",
    run: () => archivePastEvents(gw),
  });
  scheduler.add({
    name: "watch-digests",
    schedule: "0 * * * *",
    description: "send watch-alert digests by e-mail and web push",
    run: () => runWatchDigests(gw),
  });
}
