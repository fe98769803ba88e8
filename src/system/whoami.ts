/**
 * GET /api/admin/whoami: whether the caller may operate this instance, and
 * why not when it may not, so the web app can show or hide the operator pages
 * (the server still gates every operator write itself).
 */
import type { Core } from "../core/core.ts";
import { isSysop, type Caller } from "../accounts/caller.ts";
import type { WhoAmI } from "./shapes.ts";

export function whoami(gw: Core, caller: Caller): WhoAmI {
  const u = caller.user;
  const locked = gw.config.adminCallsigns.length === 0;
  const bySession = !!u && isSysop(gw, { ...caller, ingest: false });
  const via = bySession ? "session" : caller.ingest ? "ingest-secret" : null;
  const reason = via ? null : locked ? "locked" : !u ? "signed_out" : !u.call ? "no_callsign" : !u.verified ? "callsign_not_verified" : "not_an_operator";
  return { operator: via !== null, via, callsign: u?.call ?? null, verified: u?.verified ?? false, locked, reason };
}
