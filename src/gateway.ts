/**
 * The application as a library (PocketBase-style): main.ts is a thin CLI over
 * this, and tests drive the same object in-process or as a subprocess.
 */
import { join } from "node:path";
import type { Config } from "./config.ts";
import { EventBus } from "./events.ts";
import { createApp, type App } from "./http/app.ts";
import type { HttpHost, HttpServer, SocketRoute } from "./http/host.ts";
import { identify } from "./http/gates.ts";
import { bunHost } from "./hosts/bun.ts";
import { createLogger, type Logger } from "./log.ts";
import { DB_FILE_NAME, openStore, type Database } from "./store/db.ts";
import { Scheduler } from "./jobs/scheduler.ts";
import { startCheckpointer, WriteGate, type Checkpointer } from "./store/checkpoint.ts";
import { holdRunLock, type RunLock } from "./store/run-lock.ts";
import { registerJobs } from "./jobs/index.ts";
import { initFederation } from "./fed/descriptor.ts";
import { startRadio } from "./node/radio.ts";
import type { KissPortConfig } from "../radio/port/config.ts";
import { initNetwork } from "./fed/network.ts";
import { startBbs } from "./bbs/forwarding.ts";
import { startHub } from "./hub/index.ts";
import { liveHub, parseRegions, startRooms, WS, type RoomSocket } from "./live/rooms.ts";
import { onHeard } from "./accounts/verify-aprs.ts";
import { onPosition } from "./game/corroborate.ts";
import { startAprsIs } from "./stations/aprsis.ts";

/** Bun's WebSocket settings are server-wide: the live rooms' bounded buffers and timeouts (src/live/rooms.ts). */
const WEBSOCKET_OPTIONS = {
  backpressureLimit: WS.backpressureBytes,
  closeOnBackpressureLimit: true,
  idleTimeout: WS.idleTimeoutS,
  maxPayloadLength: WS.maxPayloadBytes,
  sendPings: true,
  perMessageDeflate: false,
};

export interface Clock {
  /** unix milliseconds */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Gateway {
  readonly config: Config;
  readonly db: Database;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: EventBus;
  readonly scheduler: Scheduler;
  /** HTTP writes wait here while a RESTART checkpoint bounds the WAL (store/checkpoint.ts) */
  readonly writeGate: WriteGate;
  readonly startedAt: number;
  readonly app: App;
  /** the runtime that serves it (src/hosts/) */
  readonly host: HttpHost;
  server: HttpServer | null;
  /** Base URL once listening, e.g. http://127.0.0.1:8080 */
  url: string | null;
  listen(): Promise<string>;
  /** Runs `fn` when the gateway stops, before the database closes (last registered, first run). */
  onStop(fn: () => void | Promise<void>): void;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  config: Config;
  log?: Logger;
  clock?: Clock;
  /** Database file; defaults to svc-gateway.db in the data directory. */
  dbFile?: string;
  /** The runtime's HTTP host; Bun's unless the entry point picks another. */
  host?: HttpHost;
}

export class PortInUseError extends Error {
  override name = "PortInUseError";
}

/** Opens the store and assembles the app; nothing listens and no cron runs yet. */
export function createGateway(opts: GatewayOptions): Gateway {
  const config = opts.config;
  const log = opts.log ?? createLogger(config.logLevel);
  const dbFile = opts.dbFile ?? join(config.dataDir, DB_FILE_NAME);
  const db = openStore(dbFile);
  let checkpointer: Checkpointer | null = null;
  let runLock: RunLock | null = null;
  const scheduler = new Scheduler(log);
  const stopHooks: Array<() => void | Promise<void>> = [];
  const gw: Gateway = {
    config,
    db,
    log,
    clock: opts.clock ?? systemClock,
    events: new EventBus(log),
    scheduler,
    writeGate: new WriteGate(),
    startedAt: Date.now(),
    app: undefined as unknown as App,
    host: opts.host ?? bunHost,
    server: null,
    url: null,
    async listen() {
      try {
        gw.server = await gw.host.serve(gw.app, {
          port: config.port,
          hostname: config.host,
          maxRequestBodySize: 256 * 1024 * 1024,
          websocket: WEBSOCKET_OPTIONS,
          sockets: { "/ws": liveRoomsSocket(gw) },
        });
      } catch (e) {
        if (String((e as Error).message ?? e).includes("EADDRINUSE") || (e as { code?: string }).code === "EADDRINUSE") {
          throw new PortInUseError(`port ${config.port} on ${config.host} is already in use; start with --port N to use another`);
        }
        throw e;
      }
      const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
      gw.url = `http://${host.includes(":") ? `[${host}]` : host}:${gw.server.port}`;
      // Network clients and servers start with the serving gateway: CLI commands open none.
      // (a host without some of them starts the rest, and names what it leaves off in the log)
      startRadio(gw, { ports: leaveOff(gw) }); // KISS TNCs (CLI commands never key a transmitter)
      startAprsIs(gw); // the upstream APRS-IS feed
      if (!gw.host.missing.has("tcp-servers")) {
        startHub(gw); // the KISS and APRS-IS servers for local programs (after the radio: the KISS server serves its ports)
        startBbs(gw); // FBB forwarding: the listener and the partner scheduler
      }
      // a serving gateway keeps WAL checkpoints (and their fsync) off the event loop
      checkpointer = startCheckpointer(db, dbFile, log, gw.writeGate);
      // `svc-gateway restore` refuses while a serving gateway holds this
      if (dbFile === join(config.dataDir, DB_FILE_NAME)) {
        try {
          runLock = holdRunLock(config.dataDir);
          if (!runLock) log.warn("store", `another svc-gateway is serving ${config.dataDir}`);
        } catch (e) {
          log.warn("store", "could not take the data directory's run lock", { error: String(e) });
        }
      }
      return gw.url;
    },
    onStop(fn) {
      stopHooks.push(fn);
    },
    async stop() {
      scheduler.stop();
      for (const fn of stopHooks.splice(0).reverse()) {
        try {
          await fn();
        } catch (e) {
          log.error("main", "a stop hook failed", { error: String(e) });
        }
      }
      if (gw.server) await gw.server.stop(true);
      gw.server = null;
      await checkpointer?.stop();
      db.close();
      checkpointer?.closeShm();
      runLock?.release();
      runLock = null;
    },
  };
  (gw as { app: App }).app = createApp(gw);
  // Every listener, job and service of the gateway, in one place (route builders only build routes):
  gw.events.on("aprsMessage", (m) => onHeard(gw, m)); // callsign challenges answered on the air
  gw.events.on("position", (p) => onPosition(gw, p)); // RF sightings corroborate pending finds
  startRooms(gw); // live rooms and streams follow positions and logs
  registerJobs(gw); // the cron: prune, pull, push, digests, radio ticks
  initFederation(gw);
  initNetwork(gw);
  return gw;
}

/**
 * The live rooms' WebSocket for a host that upgrades by itself (Node): the
 * same checks as the /ws route of src/live/routes.ts (which serves it on Bun),
 * then the same hub.
 */
function liveRoomsSocket(gw: Gateway): SocketRoute {
  const hub = liveHub(gw);
  return {
    accept(request, server) {
      const regions = parseRegions(new URL(request.url).searchParams.get("region") ?? undefined);
      const ip = identify(gw, request, server).ip;
      hub.checkAdmit(ip);
      return { ip, regions };
    },
    open(ws, accepted) {
      const a = accepted as { ip: string; regions: string[] };
      hub.open(ws as RoomSocket, a.ip, a.regions);
    },
    message: (ws, msg) => hub.message(ws as RoomSocket, msg),
    close: (ws) => hub.close(ws as RoomSocket),
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
