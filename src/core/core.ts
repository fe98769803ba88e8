/**
 * What services take (the core layer, docs/architecture.md): the store, the
 * settings, the clock, the log and the events, with the federation's
 * request path. Never the HTTP app, its server, the scheduler or the write
 * gate: those belong to a host's composition root (src/hosts/gateway-core.ts, whose
 * Gateway is a Core with them) and the HTTP layer.
 */
import type { Config } from "./config.ts";
import type { EventBus } from "./events.ts";
import type { Logger } from "../lib/log.ts";
import type { Database } from "./store/db.ts";

export interface Clock {
  /** unix milliseconds */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** How federation requests reach other instances instead of the network (a simulated network: sim/net.ts). */
export type FedTransport = (url: string, init: RequestInit) => Promise<Response>;

export interface Core {
  readonly config: Config;
  readonly db: Database;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: EventBus;
  /** set: every federation request (src/fed/dial.ts fedFetch) goes here instead of the network */
  readonly fedTransport?: FedTransport;
  /** other instances' answers kept with their ETag, asked for again with If-None-Match (src/fed/dial.ts fedJson `revalidate`) */
  readonly fedAnswers: Map<string, { etag: string; body: unknown }>;
  /** FED_VIA: what was fetched for others lately, by URL, answered again while fresh (src/fed/via.ts) */
  readonly viaKept: Map<string, { status: number; contentType: string | null; etag: string | null; bytes: Uint8Array; at: number }>;
}
