/**
 * The composition root of the Bun and Node hosts (PocketBase-style: main.ts
 * is a thin CLI over this, and tests drive the same object in-process or as a
 * subprocess): the gateway of src/gateway-core.ts with what a server runs
 * beside HTTP: the KISS TNCs, the APRS-IS uplink, the KISS/APRS-IS servers
 * and FBB forwarding, the WAL checkpointer and the data directory's run lock.
 * src/hosts/worker.ts is the Workers runtime's root, without them.
 */
import { join } from "node:path";
import { assembleGateway, type Gateway, type GatewayOptions, type StartedParts } from "./gateway-core.ts";
import { bunHost } from "./hosts/bun.ts";
import { DB_FILE_NAME } from "./store/db.ts";
import { startCheckpointer } from "./store/checkpoint.ts";
import { holdRunLock, type RunLock } from "./store/run-lock.ts";
import { startRadio } from "./node/radio.ts";
import type { KissPortConfig } from "../radio/port/config.ts";
import { startBbs } from "./bbs/forwarding.ts";
import { startHub } from "./hub/index.ts";
import { startAprsIs } from "./stations/aprsis.ts";
import { registerServerJobs } from "./jobs/server.ts";

export type { Clock, Core, Gateway, GatewayOptions, ServerParts, StartedParts } from "./gateway-core.ts";
export { PortInUseError, systemClock } from "./gateway-core.ts";

/** Opens the store and assembles the app; nothing listens and no cron runs yet. */
export function createGateway(opts: GatewayOptions): Gateway {
  return assembleGateway({
    ...opts,
    host: opts.host ?? bunHost,
    dbFile: opts.dbFile ?? join(opts.config.dataDir, DB_FILE_NAME),
    parts: { register: registerServerJobs, start: startServerParts },
  });
}

/** What a Bun or Node gateway starts once HTTP serves, and stops before its database closes. */
function startServerParts(gw: Gateway, dbFile: string): StartedParts {
  const config = gw.config;
  const log = gw.log;
  // (a host without some of them starts the rest, and names what it leaves off in the log)
  startRadio(gw, { ports: leaveOff(gw) }); // KISS TNCs (CLI commands never key a transmitter)
  startAprsIs(gw); // the upstream APRS-IS feed
  if (!gw.host.missing.has("tcp-servers")) {
    startHub(gw); // the KISS and APRS-IS servers for local programs (after the radio: the KISS server serves its ports)
    startBbs(gw); // FBB forwarding: the listener and the partner scheduler
  }
  // a serving gateway keeps WAL checkpoints (and their fsync) off the event loop
  const checkpointer = startCheckpointer(gw.db, dbFile, log, gw.writeGate);
  let runLock: RunLock | null = null;
  // `svc-gateway restore` refuses while a serving gateway holds this
  if (dbFile === join(config.dataDir, DB_FILE_NAME)) {
    try {
      runLock = holdRunLock(config.dataDir);
      if (!runLock) log.warn("store", `another svc-gateway is serving ${config.dataDir}`);
    } catch (e) {
      log.warn("store", "could not take the data directory's run lock", { error: String(e) });
    }
  }
  return {
    stop: () => checkpointer.stop(),
    closed() {
      checkpointer.closeShm();
      runLock?.release();
      runLock = null;
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
  if (opts.cron !== false) gw.scheduler.start();
  return gw;
}
