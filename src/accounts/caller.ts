/**
 * Who is making a request, as the HTTP gates identified it (src/http/gates.ts
 * fills it in); domain code reads it to decide who acts, never the request.
 */
import type { Core } from "../core/core.ts";
import type { VerifiedAssertion } from "./assertions.ts";
import { baseCall } from "../lib/callsign.ts";

export interface SignedInUser {
  id: number;
  /** active callsign, if any */
  call: string | null;
  verified: boolean;
}

/** An own weather station, as its upload key names it (src/stations/wx-keys.ts). */
export interface WxKeyStation {
  stationId: number;
  userId: number;
  call: string;
}

export interface Caller {
  ip: string;
  user: SignedInUser | null;
  sessionToken: string | null;
  /** the request carries the right x-ingest-secret */
  ingest: boolean;
  apiKeyId: number | null;
  /** set by the signed-body gate when a device-key assertion was checked */
  assertion: VerifiedAssertion | null;
  /** set by the wx-key gate: the own station the weather key belongs to */
  wxStation?: WxKeyStation | null;
}

/** Whether a signed-in user may operate the sysop surface. */
export function isSysop(gw: Core, caller: Caller): boolean {
  if (caller.ingest) return true;
  const u = caller.user;
  return !!u && !!u.call && u.verified && gw.config.adminCallsigns.includes(baseCall(u.call));
}
