/**
 * What the log kinds beyond find/DNF/note allow and do (docs/api.md "Log
 * kinds"): who may log each (gateKind, before anything is written) and how
 * the owner's and the needs-* kinds change the cache (applyLogEffect, in the
 * log's transaction: its status or its open-maintenance flag, the cache
 * record republished).
 */
import type { Core } from "../core/core.ts";
import { badRequest, conflict, forbidden } from "../lib/errors.ts";
import { LOG_KINDS, NEEDS_LOG_KINDS, OWNER_LOG_KINDS, type CacheStatus, type LogKind } from "./model.ts";
import { setCacheState } from "./cache-writes.ts";

/** What the logger is to the cache. */
export interface LogRole {
  /** the cache's owner (or the ingest box), on a cache hidden here */
  owner: boolean;
  reviewer: boolean;
  /** a verified callsign (or the ingest box) */
  verified: boolean;
}

/** The log's target as gateKind needs it. */
export interface KindTarget {
  /** null: a mirrored or living cache */
  cacheId: number | null;
  type: string;
  status: string;
  review: "queued" | "returned" | null;
}

const EVENT_TYPES = ["event", "cito"];

/** The status each owner kind moves the cache from, and to. */
const MOVES: Partial<Record<LogKind, { from: readonly CacheStatus[]; to: CacheStatus }>> = {
  "temp-disable": { from: ["active"], to: "disabled" },
  enable: { from: ["disabled"], to: "active" },
  archive: { from: ["active", "disabled"], to: "archived" },
};

/** Refuses a kind this logger may not log on this cache: 403 for who, 409 for the cache's state, 400 for the kind. */
export function gateKind(kind: LogKind, role: LogRole, t: KindTarget): void {
  if (OWNER_LOG_KINDS.includes(kind)) {
    if (t.cacheId === null) throw conflict("not_native", `${kind} changes a cache: log it on the instance where the cache was hidden`);
    if (!role.owner) throw forbidden(`only the cache's owner may log ${kind}`, "not_owner");
    const move = MOVES[kind];
    if (move && !move.from.includes(t.status as CacheStatus))
      throw conflict("bad_transition", `${kind} is for a cache that is ${move.from.join(" or ")}; this one is ${t.status}`);
  } else if (kind === "reviewer-note") {
    if (!role.reviewer) throw forbidden("only a reviewer may log reviewer-note", "not_reviewer");
  } else if (NEEDS_LOG_KINDS.includes(kind)) {
    if (!role.verified) throw forbidden(`verify your callsign before logging ${kind}`, "verification_required");
  } else if (kind === "will-attend" || kind === "attended") {
    if (!EVENT_TYPES.includes(t.type)) throw badRequest("invalid", `${kind} is for event caches; this one is a ${t.type}`);
  }
  // a draft takes no logs; a cache waiting for a reviewer takes the reviewer's notes only
  if (t.status === "draft" && !(kind === "reviewer-note" && t.review !== null))
    throw conflict("cache_not_published", "this cache is a draft: it takes no logs yet");
}

/** The log's change to the cache (none for most kinds). Inside the log's transaction. */
export function applyLogEffect(gw: Core, kind: LogKind, cacheId: number | null): void {
  if (cacheId === null) return;
  const move = MOVES[kind];
  if (move) setCacheState(gw, cacheId, { status: move.to, ...(kind === "enable" ? { needsMaintenance: false } : {}) });
  else if (kind === "owner-maintenance") setCacheState(gw, cacheId, { needsMaintenance: false });
  else if (NEEDS_LOG_KINDS.includes(kind)) setCacheState(gw, cacheId, { needsMaintenance: true });
}

/** The kinds this logger may log on this cache now (the web app's log form offers these). */
export function kindsFor(role: LogRole, t: KindTarget): LogKind[] {
  return LOG_KINDS.filter((kind) => {
    try {
      gateKind(kind, role, t);
      return true;
    } catch {
      return false;
    }
  });
}
