/**
 * Who may read and kill which BBS message. Bulletins are public. Personal
 * mail (P) is read by its addressee and its sender, each only through a
 * session whose callsign is *verified* (an unverified claim reads nothing),
 * and by the sysop. NTS traffic (T) is relayed and delivered by licensed
 * operators, so any verified operator may read it too.
 */
import type { Core } from "../core/core.ts";
import { isSysop, type Caller } from "../accounts/caller.ts";
import { baseCall } from "../lib/callsign.ts";
import { callsignsOf } from "../accounts/users.ts";

export interface Viewer {
  signedIn: boolean;
  sysop: boolean;
  /** base callsigns the user holds and has verified */
  calls: Set<string>;
}

export function viewerOf(gw: Core, caller: Caller): Viewer {
  const calls = new Set<string>();
  if (caller.user) for (const c of callsignsOf(gw.db, caller.user.id)) if (c.verified) calls.add(baseCall(c.call));
  return { signedIn: !!caller.user, sysop: isSysop(gw, caller), calls };
}

export interface AccessFields {
  type: string;
  from: string;
  to: string;
}

export function canRead(v: Viewer, m: AccessFields): boolean {
  if (m.type === "B" || v.sysop) return true;
  if (v.calls.has(m.to) || v.calls.has(m.from)) return true;
  return m.type === "T" && v.calls.size > 0;
}

export function canKill(v: Viewer, m: AccessFields): boolean {
  if (v.sysop || v.calls.has(m.from)) return true;
  return m.type !== "B" && v.calls.has(m.to);
}

/** The addressee (not the sender) marks personal mail read. */
export function isAddressee(v: Viewer, m: AccessFields): boolean {
  return v.calls.has(m.to);
}
