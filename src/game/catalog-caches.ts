/** Caches from an external catalog (a GPX or LOC import): kept by (source, code), never federated. */
import type { Core } from "../core/core.ts";
import { basicValues, type CacheRow } from "./caches.ts";
import type { CacheBasics } from "../lib/fed/bodies.ts";
import { searchText } from "./cache-writes.ts";

/** A cache from an external catalog (GPX/LOC import): never federated. */
export interface CatalogCache extends CacheBasics {
  code: string;
  status: "active" | "disabled" | "archived";
  hint: string | null;
  description: string;
  placedAt: number | null;
  placedBy: string | null;
}

/**
 * Inserts or updates a catalog cache by (source, code): importing the same
 * file twice changes nothing the second time. Inside the caller's transaction.
 */
export function upsertCatalogCache(gw: Core, source: string, ownerId: number | null, c: CatalogCache): "created" | "updated" | "unchanged" {
  const now = gw.clock.now();
  const cur = gw.db.query("SELECT * FROM caches WHERE source = ? AND source_ref = ?").get(source, c.code) as CacheRow | null;
  const search = searchText(c.name, c.code, null, c.placedBy);
  if (!cur) {
    gw.db
      .query(
        `INSERT INTO caches (owner_id, owner_call, name, type, size, difficulty, terrain, lat, lon, status, unlisted, hint, description, placed_at,
           created_at, updated_at, source, source_ref, placed_by, search) VALUES (?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(ownerId, ...basicValues(c), c.status, c.hint, c.description, c.placedAt ?? now, now, now, source, c.code, c.placedBy, search);
    return "created";
  }
  const held = basicValues(cur);
  const same =
    basicValues(c).every((v, i) => v === held[i]) &&
    cur.status === c.status &&
    cur.hint === c.hint &&
    cur.description === c.description &&
    cur.placed_by === c.placedBy &&
    (c.placedAt === null || cur.placed_at === c.placedAt);
  if (same) return "unchanged";
  gw.db
    .query(
      `UPDATE caches SET name = ?, type = ?, size = ?, difficulty = ?, terrain = ?, lat = ?, lon = ?, status = ?, hint = ?, description = ?,
         placed_at = COALESCE(?, placed_at), placed_by = ?, search = ?, updated_at = ? WHERE id = ?`,
    )
    .run(...basicValues(c), c.status, c.hint, c.description, c.placedAt, c.placedBy, search, now, cur.id);
  return "updated";
}
