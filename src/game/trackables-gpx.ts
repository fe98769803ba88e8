/**
 * Travel bugs in GPX files: which are in a cache for an export (the network's
 * trackables there now, and those an imported file listed), and keeping the
 * ones an import lists. A listed travel bug that is a trackable of the
 * network is not stored: its moves say where it is. Any other (a
 * geocaching.com or GeoKrety bug) is kept with its cache as listed only
 * (table cache_travelbugs), replaced by the next import of the same cache.
 */
import type { Core } from "../core/core.ts";
import { trackablesInCache } from "./trackables.ts";

export interface ListedBug {
  /** the catalog's numeric id, when the file gave one */
  id: string | null;
  ref: string;
  name: string;
}

/** The travel bugs in a cache now, by ref: the network's, then the listed-only ones of an import. */
export function travelBugsIn(gw: Core, cache: { id: number | string; gid: string }): Array<{ id: string; ref: string; name: string }> {
  const ours = trackablesInCache(gw, cache.gid).map((t) => ({ id: t.gid.slice(t.gid.lastIndexOf(":") + 1), ref: t.ref, name: t.name }));
  if (typeof cache.id !== "number") return ours;
  const listed = gw.db.query("SELECT tb_id AS id, ref, name FROM cache_travelbugs WHERE cache_id = ? ORDER BY ref").all(cache.id) as Array<{
    id: string | null;
    ref: string;
    name: string;
  }>;
  return [...ours, ...listed.filter((b) => !ours.some((o) => o.ref === b.ref)).map((b) => ({ ...b, id: b.id ?? "0" }))];
}

/** Replaces the listed-only travel bugs of an imported cache. Inside the caller's transaction. */
export function keepListedBugs(gw: Core, cacheId: number, bugs: readonly ListedBug[]): void {
  gw.db.query("DELETE FROM cache_travelbugs WHERE cache_id = ?").run(cacheId);
  const known = gw.db.query("SELECT 1 FROM trackables WHERE ref = ?1 UNION ALL SELECT 1 FROM mirror_trackables WHERE ref = ?1 LIMIT 1");
  const put = gw.db.query("INSERT OR REPLACE INTO cache_travelbugs (cache_id, ref, tb_id, name) VALUES (?, ?, ?, ?)");
  for (const b of bugs) if (!known.get(b.ref)) put.run(cacheId, b.ref, b.id, b.name);
}
