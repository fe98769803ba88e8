/**
 * What services take (the core layer, docs/architecture.md): the store with
 * its write gate, the settings, the clock, the log and the events, the
 * federation's request path, and the gateway's life: when it started, its
 * address and live topics once it serves, and what to end when it stops.
 * Never the HTTP app, its server as such, the scheduler or the TLS service:
 * those belong to a host's composition root (src/hosts/gateway-core.ts, whose
 * Gateway is a Core with them) and the HTTP layer.
 */
import type { Config } from "./config.ts";
import type { EventBus } from "./events.ts";
import type { Logger } from "../lib/log.ts";
import type { Database } from "./store/db.ts";
import type { WriteGate } from "./store/write-gate.ts";
import type { Services } from "./services.ts";

export interface Clock {
  /** unix milliseconds */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** How federation requests reach other instances instead of the network (a simulated network: sim/net.ts). */
export type FedTransport = (url: string, init: RequestInit) => Promise<Response>;

/** The live server's WebSocket topics (rooms, a user's channel): what the live feeds publish to. */
export interface LiveTopics {
  publish(topic: string, data: string): unknown;
  subscriberCount(topic: string): number;
}

export interface Core {
  readonly config: Config;
  readonly db: Database;
  /** every write waits here while a RESTART checkpoint bounds the WAL (store/checkpoint.ts, store/write-gate.ts) */
  readonly writeGate: WriteGate;
  readonly log: Logger;
  readonly clock: Clock;
  readonly events: EventBus;
  /** set: every federation request (src/fed/dial.ts fedFetch) goes here instead of the network */
  readonly fedTransport?: FedTransport;
  /** other instances' answers kept with their ETag, asked for again with If-None-Match (src/fed/dial.ts fedJson `revalidate`) */
  readonly fedAnswers: Map<string, { etag: string; body: unknown }>;
  /** FED_VIA: what was fetched for others lately, by URL, answered again while fresh (src/fed/via.ts) */
  readonly viaKept: Map<string, { status: number; contentType: string | null; etag: string | null; bytes: Uint8Array; at: number }>;
  /** unix ms this gateway was assembled */
  readonly startedAt: number;
  /** Base URL once listening, e.g. http://127.0.0.1:8080 (plain http), for links in mail and set-up; null before */
  readonly url: string | null;
  /** the live server's topics once listening; null before, and on a host without WebSockets */
  readonly server: LiveTopics | null;
  /** Runs `fn` when the gateway stops, before the database closes (last registered, first run). */
  onStop(fn: () => void | Promise<void>): void;
  /** each domain's state for this gateway, built with it (services.ts) */
  readonly services: Services;
}
