/**
 * What a domain's routes are given besides the Core: the app they add their
 * routes to, with the gates every route declares (`gate`, `rateLimit`, body
 * limits: gates.ts), and the base of the links it answers with. Not the Gateway: a route reaches the store, the
 * clock and the services through the Core like any service, and the few that
 * need the scheduler, the TLS service, the live feeds or the hub are handed
 * that one thing by name in src/http/routes.ts, which adds every domain's
 * routes.
 */
import type { Gateway } from "./gateway.ts";
import type { GatesPlugin } from "./gates.ts";
import { baseUrl } from "./public-url.ts";

export interface RouteKit {
  /**
   * the gateway's one app, which each route file adds its routes to: the gates
   * plugin (gates.ts) is in it, which identifies the caller and enforces each route's gate
   */
  readonly app: GatesPlugin;
  /** the base of every absolute link in an answer to this request (public-url.ts) */
  baseUrl(request: Request): string;
}

export function routeKit(gw: Gateway, app: GatesPlugin): RouteKit {
  return { app, baseUrl: (request) => baseUrl(gw, request) };
}
