/** A native cache's signed record: what it carries, and when it goes out again. */
import type { Core } from "../core/core.ts";
import { cacheToWire, waypointsToWire } from "../lib/fed/bodies.ts";
import { accountGid, publishRecord } from "../fed/feed.ts";
import { publicIdOf } from "../accounts/users.ts";
import { publicWaypoints } from "./waypoints-store.ts";
import { signedOf } from "./attributes.ts";
import { basicsOf, type CacheRow } from "./caches.ts";
import { cacheRow } from "./cache-lookup.ts";

/** Publishes the cache's current state, if it is one this instance federates (native, not a draft). */
export function publishCache(gw: Core, r: CacheRow): void {
  if (r.source !== null || r.status === "draft") return;
  const ownerAccount = r.owner_id !== null ? accountGid(gw, publicIdOf(gw.db, r.owner_id)) : null;
  publishRecord(gw, "cache", r.id, {
    ...cacheToWire({
      ...basicsOf(r),
      status: r.status,
      needsMaintenance: r.needs_maintenance === 1,
      hint: r.hint,
      attributes: signedOf(r.attributes),
      description: r.description || null,
      unlisted: r.unlisted === 1,
      ownerCall: r.owner_call,
      ownerAccount,
      placedAt: r.placed_at,
      eventStartAt: r.event_start_at,
      eventEndAt: r.event_end_at,
      timeZone: r.time_zone,
    }),
    // the final stays here (waypoints-store.ts); an unlisted cache's, as its description, go to no one
    waypoints: r.unlisted === 1 ? undefined : waypointsToWire(publicWaypoints(gw, r.id)),
  });
}

/** Publishes a native cache again after a change to what its record carries besides its row (its waypoints). */
export function republishCache(gw: Core, id: number): void {
  const r = cacheRow(gw, id);
  if (r) publishCache(gw, r);
}
