/** The cache page's shapes: the cache as its GET answers it, and a log of its logbook. */
import type { Cache as GameCache } from "../../../src/game/caches.ts";
import type { Contact } from "../../../src/game/model.ts";
import type { Personal } from "../../../src/game/personal.ts";
import type { Waypoint } from "../../../src/game/waypoints-store.ts";

/** The cache as GET /api/caches/:id answers it: the game's Cache, its contact for the owner, and the caller's own marks. */
export type Cache = GameCache & {
  contact?: Contact | null;
  mine?: boolean;
  my?: { stars: number | null; favorite: boolean; watch: boolean; found: boolean };
  /** a signed-in player's own note and corrected coordinates */
  personal?: Personal | null;
  /** active logs per kind, and the last find (src/game/cache-summary.ts) */
  logCounts?: Record<string, number>;
  lastFoundAt?: number | null;
  /** parking, stages... (the final only for the owner and finders) */
  waypoints?: Waypoint[];
};
/** a log as GET /api/caches/:id/logs answers it */
export type { Log } from "../../../src/game/logs.ts";
