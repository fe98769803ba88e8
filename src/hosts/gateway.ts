/**
 * The composition root of the Bun and Node hosts (PocketBase-style: main.ts
 * is a thin CLI over this, and tests drive the same object in-process or as a
 * subprocess): the gateway of src/hosts/gateway-core.ts with what a server runs
 * beside HTTP: the KISS TNCs, the APRS-IS uplink, the KISS/APRS-IS servers
 * and FBB forwarding and the WAL checkpointer, behind the data directory's run lock.
 * src/hosts/worker.ts is the Workers runtime's root, without them.
 */
import { join } from "node:path";
import { assembleGateway, type Gateway, type GatewayOptions, type StartedParts } from "./gateway-core.ts";
import { bunHost } from "./bun.ts";
import { DB_FILE_NAME } from "../core/store/db.ts";
import { startCheckpointer } from "../core/store/checkpoint.ts";
import { takeRunLock, type RunLock } from "../core/store/run-lock.ts";
import { removeControl, writeControl } from "../core/store/control.ts";
import { tightenDataDir } from "../core/store/data-dir.ts";
import { mkdirSync } from "node:fs";
import { startRadio } from "../radio-node/radio.ts";
import type { KissPortConfig } from "../../radio/port/config.ts";
import { startBbs } from "../bbs/forwarding.ts";
import { startHub } from "../hub/index.ts";
import { startAprsIs } from "../stations/aprsis.ts";
import { registerServerJobs } from "../jobs/server.ts";
import { useSource } from "../tls/index.ts";
import { localCaSource } from "../tls/local-ca.ts";
import { filesSource } from "../tls/files.ts";
import { governHeap } from "../system/heap-governor.ts";
import { collect } from "../system/runtime.ts";

// HTTPS certificate sources this host serves from (src/tls/; the ACME client adds its own)
useSource("local", (ctx) => localCaSource(ctx));
useSource("files", filesSource);
// TLS=acme: loaded only then (the ACME client, acme-client with axios, stays out of every other start)
useSource("acme", async (ctx) => (await import("../tls/acme.ts")).acmeSource(ctx));

export type { Clock, Core, FedTransport } from "../core/core.ts";
export { systemClock } from "../core/core.ts";
export type { Gateway, GatewayOptions, ServerParts, StartedParts } from "./gateway-core.ts";

/**
 * Takes the data directory's run lock, then opens the store and assembles the
 * app; nothing listens and no cron runs yet. The lock comes before any
 * migration, key, record, file or network client: a second gateway on the same
 * directory is refused (RunLockHeldError, naming the holder) before it can
 * touch the first one's signed identity. The gateway releases it once stopped.
 */
export function createGateway(opts: GatewayOptions): Gateway {
  const dbFile = opts.dbFile ?? join(opts.config.dataDir, DB_FILE_NAME);
  let lock: RunLock | null = null;
  if (dbFile === join(opts.config.dataDir, DB_FILE_NAME)) {
    mkdirSync(opts.config.dataDir, { recursive: true, mode: 0o700 });
    lock = takeRunLock(opts.config.dataDir);
    tightenDataDir(opts.config.dataDir);
  }
  let gw: Gateway;
  try {
    gw = assembleGateway({
      ...opts,
      host: opts.host ?? bunHost,
      dbFile,
      parts: { register: (g) => registerServerJobs(g, g.scheduler), start: startServerParts },
    });
  } catch (e) {
    lock?.release();
    throw e;
  }
  const stop = gw.stop;
  gw.stop = async () => {
    try {
      await stop();
    } finally {
      lock?.release();
      lock = null;
    }
  };
  return gw;
}

/** What a Bun or Node gateway starts once HTTP serves, and stops before its database closes. */
function startServerParts(gw: Gateway, dbFile: string): StartedParts {
  const config = gw.config;
  const log = gw.log;
  // (a host without some of them starts the rest, and names what it leaves off in the log)
  startRadio(gw, { ports: leaveOff(gw) }); // KISS TNCs (CLI commands never key a transmitter)
  startAprsIs(gw); // the upstream APRS-IS feed
  if (!gw.host.missing.has("tcp-servers")) {
    gw.hub = startHub(gw); // the KISS and APRS-IS servers for local programs (after the radio: the KISS server serves its ports)
    startBbs(gw); // FBB forwarding: the listener and the partner scheduler
  }
  // a serving gateway keeps WAL checkpoints (and their fsync) off the event loop
  const checkpointer = startCheckpointer(gw.db, dbFile, log, gw.writeGate);
  // commands that write while this gateway serves send their change through it (store/control.ts)
  const owned = dbFile === join(config.dataDir, DB_FILE_NAME);
  if (owned) writeControl(config.dataDir, gw.url!);
  return {
    stop: () => checkpointer.stop(),
    closed() {
      checkpointer.closeShm();
      if (owned) removeControl(config.dataDir);
    },
  };
}

/**
 * What the configuration asks for that this host cannot run yet, one log line
 * each; returns the KISS ports it can open (TCP TNCs need only node:net).
 */
function leaveOff(gw: Gateway): KissPortConfig[] {
  const c = gw.config;
  const m = gw.host.missing;
  const off = (what: string, setting: string) =>
    gw.log.warn("host", `on ${gw.host.name}, ${what} does not run yet (${setting} is ignored): it runs on the Bun executable`);
  const serial = c.kissPorts.filter((p) => p.kind === "serial");
  if (m.has("serial") && serial.length) off(`the serial TNC${serial.length > 1 ? "s" : ""} (${serial.map((p) => p.path).join(", ")})`, "KISS_PORTS serial:");
  if (m.has("tcp-servers")) {
    if (c.kissServer) off("the KISS server for local programs", "KISS_SERVER");
    if (c.aprsIsListen) off("the APRS-IS server for local programs", "APRSIS_LISTEN");
    if (c.bbsFbbPort !== null) off("the FBB forwarding listener", "BBS_FBB_PORT");
  }
  return m.has("serial") ? c.kissPorts.filter((p) => p.kind !== "serial") : [...c.kissPorts];
}

/** The cron is armed this long after HTTP serves: start-up answers first (jobs/scheduler.ts). */
const CRON_ARM_AFTER_MS = 1000;

/** Creates, listens and starts the cron: what `svc-gateway serve` runs. */
export async function startGateway(opts: GatewayOptions & { cron?: boolean }): Promise<Gateway> {
  const gw = createGateway(opts);
  try {
    await gw.listen();
  } catch (e) {
    // stop() ends what createGateway started (the gossip debounce timer among
    // them) before the database closes under it
    await gw.stop();
    throw e;
  }
  // start-up is over once the cron is armed (HttpHost.startedUp: the Bun host's normal JIT policy from then)
  // (the routes a start does not need are mounted then, if no request asked for them before: http/app.ts)
  const startedUp = () => {
    gw.app.mountRest();
    gw.host.startedUp?.();
    // the memory's peaks between full collections, kept down (system/heap-governor.ts)
    gw.onStop(governHeap({ rss: () => process.memoryUsage.rss(), collect, shrink: gw.host.shrink, now: () => performance.now() }));
  };
  if (opts.cron !== false) gw.scheduler.start(CRON_ARM_AFTER_MS, startedUp);
  else startedUp();
  return gw;
}
