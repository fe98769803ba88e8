/**
 * Every gated route of the gateway, for the table-driven gate test. A route
 * whose gate is not "public" must appear here (the test fails otherwise).
 * `path` is a concrete path to call; `body` what to send (the gate is checked
 * before the body is acted on, so any body that parses will do).
 */
import type { GateName } from "../../src/http/gates.ts";

export interface GatedRoute {
  method: string;
  /** the route pattern as registered, e.g. /api/account/:call/export */
  route: string;
  /** a concrete path for it; `:call` is filled with the test user's callsign */
  path: string;
  gate: GateName;
  body?: unknown;
}

export const GATED_ROUTES: GatedRoute[] = [];
