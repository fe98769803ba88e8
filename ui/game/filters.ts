/**
 * The cache filters the map and the near-me list share: set from the filter
 * panel (ui/game/near-panel.tsx), sent to GET /api/caches as query
 * parameters so the server filters; the cache layer reloads on a change.
 */
export interface CacheFilter {
  type?: string;
  size?: string;
  difficulty?: string;
  terrain?: string;
  /** "1" found by me, "0" not found by me */
  found?: string;
  mine?: string;
  /** "0" hide disabled caches, "1" only disabled */
  disabled?: string;
  tierA?: string;
  /** "1" only caches needing maintenance, "0" none flagged */
  maintenance?: string;
  /** attribute ids the cache must have (yes), comma-separated: `attr=` */
  attr?: string;
}

let current: CacheFilter = {};
const listeners = new Set<() => void>();

/** The filter as `&name=value...` for a GET /api/caches URL ("" when none). */
export function filterQuery(f: CacheFilter = current): string {
  return Object.entries(f)
    .filter(([, v]) => v !== undefined && v !== "")
    .map(([k, v]) => `&${k}=${encodeURIComponent(v!)}`)
    .join("");
}

export const cacheFilter = (): CacheFilter => current;

export function setCacheFilter(f: CacheFilter): void {
  current = f;
  for (const l of listeners) l();
}

/** Called on every change; returns the unsubscribe. */
export function onCacheFilter(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
