/**
 * The gateway every host runs: the store, the HTTP app, the events, the cron
 * jobs and the federation, assembled here. What talks to the network besides
 * HTTP (radio, APRS-IS, the TCP servers, the checkpointer) each host's
 * composition root adds as `parts`: src/hosts/gateway.ts for Bun and Node,
 * src/hosts/worker.ts for a Workers runtime, which must not even import them.
 */
import type { Config } from "../core/config.ts";
import { systemClock, type Clock, type FedTransport } from "../core/core.ts";
import type { Gateway } from "../http/gateway.ts";
import { ListenError } from "../lib/errors.ts";
import { TlsService } from "../tls/index.ts";
import { registerPort } from "../stations/ports.ts";
import { EventBus } from "../core/events.ts";
import { createApp, type App } from "../http/app.ts";
import type { HttpHost, SocketRoute } from "../http/host.ts";
import { identify } from "../http/gates.ts";
import { createLogger, type Logger } from "../lib/log.ts";
import { Scheduler } from "../jobs/scheduler.ts";
import { openStore } from "../core/store/db.ts";
import { WriteGate } from "../core/store/write-gate.ts";
import { registerJobs } from "../jobs/index.ts";
import { initFederation } from "../fed/descriptor.ts";
import { initNetwork } from "../fed/network.ts";
import { parseRegions, WS, type RoomSocket } from "../live/rooms.ts";
import { Live } from "../live/service.ts";
import type { Services } from "../core/services.ts";
import { buildServices } from "./services.ts";
import { onHeard } from "../accounts/verify-aprs.ts";
import { onPosition } from "../game/corroborate.ts";
import { promoteMovesOnSighting } from "../game/trackables-moves.ts";
import { onMessage as answerRadioPlayer, stopRadioPlay } from "../radio-play/service.ts";
import { onPositionHeard as sendCacheObjects } from "../radio-play/objects.ts";
import { watchClock } from "../system/clock-sanity.ts";

export type { Gateway };

/** Bun's WebSocket settings are server-wide: the live rooms' bounded buffers and timeouts (src/live/rooms.ts). */
const WEBSOCKET_OPTIONS = {
  backpressureLimit: WS.backpressureBytes,
  closeOnBackpressureLimit: true,
  idleTimeout: WS.idleTimeoutS,
  maxPayloadLength: WS.maxPayloadBytes,
  sendPings: true,
  perMessageDeflate: false,
};

export interface GatewayOptions {
  config: Config;
  log?: Logger;
  clock?: Clock;
  /** Database file; defaults to svc-gateway.db in the data directory. */
  dbFile?: string;
  /** The runtime's HTTP host; Bun's unless the entry point picks another. */
  host?: HttpHost;
  /** Federation requests go here instead of the network (the simulator, sim/). */
  fedTransport?: FedTransport;
}

/**
 * What a host's composition root adds to the gateway: on Bun and Node the
 * radio, APRS-IS, the TCP servers, the WAL checkpointer, the control file and
 * their jobs (src/hosts/gateway.ts, which also holds the run lock); nothing on a Workers runtime.
 */
export interface ServerParts {
  /** their scheduled tasks, registered with the gateway's own */
  register(gw: Gateway): void;
  /** starts them once HTTP serves */
  start(gw: Gateway, dbFile: string): StartedParts;
}

export interface StartedParts {
  /** before the database closes */
  stop(): Promise<void>;
  /** after it closed */
  closed(): void;
}

/**
 * Opens the store and assembles the app on `host`; nothing listens and no
 * cron runs yet. `listen()` serves HTTP, then starts the host's `parts`.
 */
export function assembleGateway(opts: GatewayOptions & { host: HttpHost; dbFile: string; parts: ServerParts }): Gateway {
  const config = opts.config;
  const log = opts.log ?? createLogger(config.logLevel);
  const dbFile = opts.dbFile;
  const db = openStore(dbFile);
  let parts: StartedParts | null = null;
  // one gate for every write: HTTP requests, and radio, feeds, jobs, pulls and forwarding (store/write-gate.ts)
  const writeGate = new WriteGate();
  const scheduler = new Scheduler(log, writeGate);
  const stopHooks: Array<() => void | Promise<void>> = [];
  const gw: Gateway = {
    config,
    db,
    log,
    clock: opts.clock ?? systemClock,
    events: new EventBus(log),
    fedTransport: opts.fedTransport,
    fedAnswers: new Map(),
    viaKept: new Map(),
    scheduler,
    writeGate,
    startedAt: Date.now(),
    // (each domain's state, the live feeds and the app need the gateway: built just below)
    services: undefined as unknown as Services,
    live: undefined as unknown as Live,
    app: undefined as unknown as App,
    host: opts.host,
    server: null,
    hub: null,
    plainServer: null,
    url: null,
    httpsUrl: null,
    tls: new TlsService(config, log, opts.host.missing.has("tls") ? "off" : config.tls),
    async listen() {
      const at = (port: number) => (config.host.includes(":") ? `[${config.host}]:${port}` : `${config.host}:${port}`);
      const serve = { hostname: config.host, maxRequestBodySize: 256 * 1024 * 1024, websocket: WEBSOCKET_OPTIONS };
      // With TLS on, HTTPS is the app's server (WebSockets, topics) and plain http a second listener (src/tls/)
      const pair = await gw.tls.start();
      if (pair) {
        try {
          const acmeTlsAlpn = gw.tls.mode === "acme" && config.acmeChallenge === "tls-alpn-01" ? (name: string) => gw.tls.challenges.alpn(name) : undefined;
          gw.server = await gw.host.serve(gw.app, { ...serve, port: config.httpsPort, tls: pair, acmeTlsAlpn, sockets: { "/ws": liveRoomsSocket(gw) } });
        } catch (e) {
          throw new ListenError(`the HTTPS server on ${at(config.httpsPort)}`, e, "set HTTPS_PORT to use another");
        }
        const https = gw.server;
        gw.tls.httpsPort = https.port ?? null;
        gw.tls.onChange((next) => https.reloadTls?.(next));
        registerPort(gw, "tls", () => ({ name: "tls", kind: "tls", state: gw.tls.state().lastError ? "down" : "up", ...gw.tls.state() }));
      }
      try {
        const plain = await gw.host.serve(gw.app, {
          ...serve,
          port: config.port,
          ...(pair ? { secondary: true } : { sockets: { "/ws": liveRoomsSocket(gw) } }),
        });
        if (pair) gw.plainServer = plain;
        else gw.server = plain;
      } catch (e) {
        throw new ListenError(`the web server on ${at(config.port)}`, e, "start with --port N to use another");
      }
      const host = config.host === "0.0.0.0" || config.host === "::" ? "localhost" : config.host;
      const named = host.includes(":") ? `[${host}]` : host;
      const httpPort = (gw.plainServer ?? gw.server)!.port;
      // a host that does not listen itself (a Workers runtime) has no port of its own: its address is PUBLIC_URL
      gw.url = httpPort === undefined ? (config.publicUrl?.replace(/\/+$/, "") ?? "http://localhost") : `http://${named}:${httpPort}`;
      if (pair) gw.httpsUrl = `https://${named}:${gw.server!.port}`;
      // Network clients and servers start with the serving gateway: CLI commands open none.
      parts = opts.parts.start(gw, dbFile);
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
      gw.tls.stop();
      if (gw.plainServer) await gw.plainServer.stop(true);
      gw.plainServer = null;
      if (gw.server) await gw.server.stop(true);
      gw.server = null;
      await parts?.stop();
      db.close();
      parts?.closed();
      parts = null;
    },
  };
  // every domain's state for this gateway (src/hosts/services.ts), then the live feeds, before the routes that serve them
  (gw as { services: Services }).services = buildServices(gw);
  (gw as { live: Live }).live = new Live(gw);
  (gw as { app: App }).app = createApp(gw);
  // Every listener, job and service of the gateway, in one place (route builders only build routes):
  gw.events.on("aprsMessage", (m) => onHeard(gw, m)); // callsign challenges answered on the air
  gw.events.on("position", (p) => onPosition(gw, p)); // RF sightings corroborate pending finds
  gw.events.on("position", (p) => promoteMovesOnSighting(gw, p)); // and pending trackable moves
  gw.events.on("aprsMessage", (m) => answerRadioPlayer(gw, m)); // players' message commands to the station's call (src/radio-play/)
  gw.events.on("position", (p) => sendCacheObjects(gw, p)); // CACHE_OBJECTS: caches on a heard station's screen
  gw.onStop(() => stopRadioPlay(gw));
  gw.live.start(); // live rooms and streams follow positions and logs; users' channels, messages and alerts
  watchClock(gw); // signing and transmitting wait for a sane clock (system/clock-sanity.ts), before anything signs
  registerJobs(gw, scheduler); // the cron: prune, pull, push, digests
  opts.parts.register(gw); // the host's own: radio ticks, FBB forwarding, backups on a server
  initFederation(gw);
  initNetwork(gw);
  return gw;
}

/**
 * The live rooms' WebSocket for a host that upgrades by itself (Node): the
 * same checks as the /ws route of src/live/routes.ts (which serves it on Bun),
 * then the same rooms.
 */
function liveRoomsSocket(gw: Gateway): SocketRoute {
  const rooms = gw.live.rooms;
  return {
    accept(request, server) {
      const caller = identify(gw, request, server);
      const user = caller.user?.id ?? null;
      const regions = parseRegions(new URL(request.url).searchParams.get("region") ?? undefined, user !== null);
      const ip = caller.ip;
      rooms.checkAdmit(ip);
      return { ip, regions, user };
    },
    open(ws, accepted) {
      const a = accepted as { ip: string; regions: string[]; user: number | null };
      rooms.open(ws as RoomSocket, a.ip, a.regions, a.user);
    },
    message: (ws, msg) => rooms.message(ws as RoomSocket, msg),
    close: (ws) => rooms.close(ws as RoomSocket),
  };
}
