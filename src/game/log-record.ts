/**
 * A log's row and its publication as a find record: what the logbook
 * (logs.ts) and corroboration (corroborate.ts, which re-publishes a find it
 * promotes to Tier A) both build on.
 */
import type { Core } from "../core/core.ts";
import { findToWire } from "../lib/fed/bodies.ts";
import { accountGid, publishRecord } from "../fed/feed.ts";
import { publicIdOf } from "../accounts/users.ts";
import type { LogKind } from "./model.ts";
import { cacheRow } from "./cache-lookup.ts";

export interface LogRow {
  id: number;
  cache_id: number | null;
  cache_gid: string;
  kind: LogKind;
  user_id: number | null;
  call: string | null;
  base_call: string | null;
  text: string | null;
  found_at: number;
  created_at: number;
  updated_at: number;
  tier: "a" | "b" | "c";
  state: "active" | "withdrawn";
  via: string;
  corr_position_id: number | null;
  corr_igate: string | null;
  corr_distance_m: number | null;
  corr_at: number | null;
  corr_source: string | null;
}

export const logRow = (gw: Core, id: number) => gw.db.query("SELECT * FROM logs WHERE id = ?").get(id) as LogRow | null;

/** Whether logs on this cache are federated (native caches hidden here, and mirrored caches). */
function federated(gw: Core, r: LogRow): boolean {
  // Living caches are not federated records, so their logs are not either: a
  // peer could not place a find on a cache it never received.
  if (r.cache_id === null) return !r.cache_gid.startsWith(`${gw.config.instance}:living:`);
  const c = cacheRow(gw, r.cache_id);
  // a reviewer's note on a cache still in review stays here, as the draft does
  return !!c && c.source === null && c.status !== "draft";
}

/** Publishes the log's current state as a find record. Inside the caller's transaction. */
export function republishLog(gw: Core, id: number): void {
  const r = logRow(gw, id);
  if (!r || !federated(gw, r)) return;
  const withdrawn = r.state === "withdrawn";
  publishRecord(
    gw,
    "find",
    r.id,
    findToWire({
      cache: r.cache_gid,
      kind: r.kind,
      loggedAt: r.found_at,
      call: withdrawn ? null : r.call,
      account: withdrawn || r.user_id === null ? null : accountGid(gw, publicIdOf(gw.db, r.user_id)),
      text: withdrawn ? null : r.text,
      tier: r.kind === "find" ? r.tier : null,
      state: withdrawn ? "withdrawn" : null,
      distanceM: r.tier === "a" ? r.corr_distance_m : null,
    }),
  );
}
