/**
 * Who reviews caches, whether new caches wait for one (REVIEW=on), and what
 * a mirrored cache's record carries beyond its mirror row (the open-maintenance
 * flag, the event). The small
 * part of maintenance that caches.ts builds on; the logs, the queue and the
 * reports are in maintenance.ts.
 */
import type { Core } from "../core/core.ts";
import { baseCall } from "../lib/callsign.ts";
import { decodeFrame, decodePayload } from "../lib/fed/record.ts";
import type { Actor } from "./model.ts";
import { eventInfo, type EventInfo } from "./events.ts";

/** A new cache waits in the review queue (docs/operating.md `REVIEW`). */
export const reviewOn = (gw: Core): boolean => gw.config.review;

/**
 * A reviewer: a verified account whose active callsign is a sysop's
 * (ADMIN_CALLSIGNS) or a reviewer's (REVIEWER_CALLSIGNS); the ingest box, as
 * for the sysop surface.
 */
export function isReviewer(gw: Core, actor: Actor | null): boolean {
  if (!actor) return false;
  if (actor.ingest) return true;
  if (actor.userId === null || !actor.call || !actor.verified || actor.via !== "web") return false;
  const base = baseCall(actor.call);
  return gw.config.adminCallsigns.includes(base) || gw.config.reviewerCallsigns.includes(base);
}

/**
 * What a mirrored cache's record says besides its mirror row: its open
 * maintenance need and its event (the origin decides both), for its detail.
 */
export function mirrorExtras(gw: Core, gid: string): { needsMaintenance: boolean; event?: EventInfo } {
  const r = gw.db.query("SELECT frame FROM mirror_records WHERE gid = ? AND type = 1").get(gid) as { frame: Uint8Array } | null;
  if (!r) return { needsMaintenance: false };
  const b = decodePayload(decodeFrame(r.frame).payload).body as Record<string, unknown>;
  const sec = (v: unknown) => (typeof v === "number" ? v * 1000 : null);
  const ev = eventInfo(sec(b.eventStartAt), sec(b.eventEndAt), typeof b.timeZone === "string" ? b.timeZone : null);
  return { needsMaintenance: b.needsMaintenance === true, ...(ev ? { event: ev } : {}) };
}
