/**
 * The gateway on a Workers runtime (workerd, through wrangler or miniflare):
 * the composition root of that host and the worker's entry module, bundled by
 * scripts/worker.ts (`npm run start:worker`; wrangler.toml for wrangler).
 *
 * One Durable Object (`GatewayObject`, bound as GATEWAY, one instance named
 * "gateway") holds the gateway: its store is the object's SQLite storage
 * (src/core/store/sqlite-do.ts), its HTTP host the object's `fetch`
 * (src/hosts/workerd.ts). The worker's `fetch` hands every request to it;
 * the worker's cron trigger (every minute) runs the jobs that fell due since
 * the last one. Settings are the worker's variables (the same names as the
 * environment of `svc-gateway serve`).
 *
 * What a worker cannot run is neither started nor imported here (it is what
 * src/hosts/gateway.ts adds for Bun and Node): the KISS TNCs and serial ports, the
 * APRS-IS uplink, the KISS/APRS-IS servers and FBB forwarding, the WAL
 * checkpointer, the data directory's run lock, and the CLI.
 */
import { DurableObject } from "cloudflare:workers";
import { configFor, type Config } from "../core/config.ts";
import { assembleGateway, type Gateway } from "./gateway-core.ts";
import { createLogger, type Logger } from "../lib/log.ts";
import { DB_FILE_NAME } from "../core/store/db.ts";
import { durableObjectSqlite, type DurableObjectSqlStorage } from "../core/store/sqlite-do.ts";
import { useSqliteDriver } from "../core/store/sqlite.ts";
import { useTcpConnect } from "../lib/net/tcp.ts";
import { workerdHost, type WorkerdHost } from "./workerd.ts";
import { usePrebuiltUi } from "../http/ui.ts";
import { usePrebuiltWorld } from "../tiles/archives.ts";
import { ui, world } from "svc:web-app";

const bytes = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
// the web app and the world basemap this bundle carries (scripts/worker.ts)
usePrebuiltUi(async () => ui.map((f) => ({ name: f.name, blob: new Blob([bytes(f.b64)], { type: f.type }) })));
usePrebuiltWorld(new Blob([bytes(world)], { type: "application/vnd.pmtiles" }));

/** Where paths of the data directory point on a worker: the runtime's scratch space (nothing there lasts; the store is in SQLite). */
const DATA_DIR = "/tmp/svc-gateway";

interface Env {
  GATEWAY: { idFromName(name: string): unknown; get(id: unknown): GatewayStub };
  [setting: string]: unknown;
}

interface GatewayStub {
  fetch(request: Request): Promise<Response>;
  cron(at: number): Promise<string[]>;
}

/** The worker's string variables, as the gateway's settings. */
function settings(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (typeof v === "string") out[k] = v;
  return out;
}

/**
 * The settings a worker ignores, one warning each: what they turn on does
 * not run here (src/hosts/gateway.ts starts it on Bun and Node).
 */
function leaveOff(config: Config, env: Record<string, string>, log: Logger): void {
  const off = (setting: string, what: string) =>
    log.warn("host", `on workerd, ${what} does not run (${setting} is ignored): it runs on the Bun executable or on Node`);
  if (env.KISS_PORTS && env.KISS_PORTS !== "off") off("KISS_PORTS", "the radio (KISS TNCs, serial or TCP)");
  if (config.aprsIsServer) off("APRSIS_SERVER", "the APRS-IS uplink");
  if (config.kissServer) off("KISS_SERVER", "the KISS server for local programs");
  if (config.aprsIsListen) off("APRSIS_LISTEN", "the APRS-IS server for local programs");
  if (config.bbsFbbPort !== null) off("BBS_FBB_PORT", "the FBB forwarding listener");
  if (config.tls !== "off") off("TLS", "the gateway's own HTTPS listener (the platform serves https to the worker)");
  if (config.backupDir) off("BACKUP_DIR", "the scheduled file backup (the Durable Object's storage keeps its own)");
  if (!config.publicUrl)
    log.warn("host", "PUBLIC_URL is not set: on workerd the gateway has no address of its own for links, e-mails and passkeys; set it to the worker's URL");
}

/** Outbound TCP (FBB forwarding calls out through it): refused with a reason, not a missing Bun.connect. */
function noTcp(): Promise<never> {
  return Promise.reject(new Error("outbound TCP does not run on workerd yet (FBB forwarding runs on the Bun executable or on Node)"));
}

export class GatewayObject extends DurableObject {
  private readonly gw: Gateway;
  private readonly host: WorkerdHost;
  private readonly ready: Promise<unknown>;
  private lastCron: number | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    useSqliteDriver(durableObjectSqlite(ctx.storage as DurableObjectSqlStorage));
    useTcpConnect(noTcp);
    const vars = settings(env);
    const config = configFor(DATA_DIR, { ...vars, KISS_PORTS: "off" });
    const log = createLogger(config.logLevel);
    leaveOff(config, vars, log);
    this.host = workerdHost();
    this.gw = assembleGateway({
      config,
      log,
      host: this.host,
      dbFile: `${DATA_DIR}/${DB_FILE_NAME}`,
      // the worker's own parts: none (the runtime serves, keeps the journal and wakes the cron)
      parts: { register: () => {}, start: () => ({ stop: async () => {}, closed: () => {} }) },
    });
    this.ready = this.gw.listen();
    log.info("host", "serving on workerd from a Durable Object (its SQLite storage)");
  }

  override async fetch(request: Request): Promise<Response> {
    await this.ready;
    return this.host.handle(request);
  }

  /** The jobs due since the last cron trigger (the first one: in the last minute). */
  async cron(at: number): Promise<string[]> {
    await this.ready;
    const from = this.lastCron ?? at - 60_000;
    this.lastCron = at;
    return this.gw.scheduler.runDue(from, at);
  }
}

const gateway = (env: Env): GatewayStub => env.GATEWAY.get(env.GATEWAY.idFromName("gateway"));

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return gateway(env).fetch(request);
  },
  async scheduled(controller: { scheduledTime: number }, env: Env): Promise<void> {
    await gateway(env).cron(controller.scheduledTime);
  },
};
