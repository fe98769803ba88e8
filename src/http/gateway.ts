/**
 * The gateway as the HTTP layer and the hosts see it: the Core that services
 * take, with the cron, the app and its servers, the runtime that serves them,
 * the TLS service, and listen/stop. src/hosts/gateway-core.ts assembles one;
 * only hosts and this layer name it (docs/architecture.md).
 */
import type { Core } from "../core/core.ts";
import type { Scheduler } from "../jobs/scheduler.ts";
import type { TlsService } from "../tls/index.ts";
import type { Live } from "../live/service.ts";
import type { Hub } from "../hub/index.ts";
import type { App, HttpHost, HttpServer } from "./host.ts";

export interface Gateway extends Core {
  readonly scheduler: Scheduler;
  /** the live feeds: WebSocket rooms, CoT streams, users' channels (src/live/service.ts) */
  readonly live: Live;
  readonly app: App;
  /** the runtime that serves it (src/hosts/) */
  readonly host: HttpHost;
  server: HttpServer | null;
  /** The station hub's servers for local programs (KISS, APRS-IS) once a server host starts them (src/hosts/gateway.ts); null otherwise */
  hub: Hub | null;
  /** With TLS on: the plain http listener beside the HTTPS one (`server`); null otherwise */
  plainServer: HttpServer | null;
  /** Base URL once listening: plain http (machine clients, the CLI's control file) */
  url: string | null;
  /** With TLS on, the HTTPS base URL once listening, e.g. https://localhost:8443; null otherwise */
  httpsUrl: string | null;
  /** The HTTPS certificate source, the ACME challenge answers, and their state (src/tls/) */
  readonly tls: TlsService;
  listen(): Promise<string>;
  stop(): Promise<void>;
}
