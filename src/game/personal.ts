/**
 * A player's own note and corrected coordinates of a cache (OKAPI's
 * save_personal_notes and save_user_coords): per user and cache, on this
 * instance only (never federated; in the account's export; gone with the
 * account). Where a player has corrected a cache's coordinates (a mystery's
 * solved final), their map, the near list, their GPX and the areas they save
 * for offline use put the cache there, marked `corrected` with the `original`
 * position beside it.
 */
import type { Core } from "../core/core.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable } from "../lib/schema.ts";
import { PERSONAL_JSON, type Personal } from "./shapes.ts";
import { cacheDetail } from "./cache-lookup.ts";
import { latitude, longitude, optText, type Actor } from "./model.ts";

export const MAX_NOTE = 2000;

export type { Personal } from "./shapes.ts";
/** What PUT /api/caches/:id/personal answers: the note as saved, null when both are cleared. */
export const PERSONAL_SAVED = closed({ personal: nullable(PERSONAL_JSON) });

interface Row {
  note: string | null;
  lat: number | null;
  lon: number | null;
  updated_at: number;
}

const fromRow = (r: Row): Personal => ({
  note: r.note,
  corrected: r.lat !== null && r.lon !== null ? { lat: r.lat, lon: r.lon } : null,
  updatedAt: r.updated_at,
});

/** The user's note and corrected coordinates of a cache (by gid), or null. */
export function personalOf(gw: Core, userId: number, gid: string): Personal | null {
  const r = gw.db.query("SELECT note, lat, lon, updated_at FROM personal_notes WHERE user_id = ? AND cache_gid = ?").get(userId, gid) as Row | null;
  return r && fromRow(r);
}

/**
 * Sets the user's note and/or corrected coordinates of a cache they can see.
 * `note`: text or null (cleared); `corrected`: {lat, lon} or null (cleared);
 * a field left out stays as it was. Both cleared removes the row.
 */
export const PERSONAL_BODY = closed({
  note: t.Optional(nullable(t.String({ maxLength: MAX_NOTE }), "your own note of the cache; null clears it")),
  corrected: t.Optional(
    nullable(
      closed({ lat: t.Number({ minimum: -90, maximum: 90 }), lon: t.Number({ minimum: -180, maximum: 180 }) }),
      "where you solved it to be (decimal degrees); null clears it",
    ),
  ),
});

export type PersonalBody = Static<typeof PERSONAL_BODY>;

export function savePersonal(gw: Core, actor: Actor, key: string, body: PersonalBody): { personal: Personal | null } {
  const userId = actor.userId!;
  const { gid } = cacheDetail(gw, key, actor);
  const cur = personalOf(gw, userId, gid);
  const note = body.note === undefined ? (cur?.note ?? null) : optText(body.note, "note", MAX_NOTE);
  let corrected = cur?.corrected ?? null;
  if (body.corrected !== undefined) corrected = body.corrected === null ? null : { lat: latitude(body.corrected.lat), lon: longitude(body.corrected.lon) };
  if (note === null && corrected === null) {
    gw.db.query("DELETE FROM personal_notes WHERE user_id = ? AND cache_gid = ?").run(userId, gid);
    return { personal: null };
  }
  const now = gw.clock.now();
  gw.db
    .query(
      `INSERT INTO personal_notes (user_id, cache_gid, note, lat, lon, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (user_id, cache_gid) DO UPDATE SET note = excluded.note, lat = excluded.lat, lon = excluded.lon, updated_at = excluded.updated_at`,
    )
    .run(userId, gid, note, corrected?.lat ?? null, corrected?.lon ?? null, now);
  return { personal: { note, corrected, updatedAt: now } };
}

/** The user's caches as they see them: a corrected cache at its corrected position, with `corrected: true` and its `original` position. */
export function withCorrected<T extends { gid: string; lat: number; lon: number }>(
  gw: Core,
  userId: number,
  caches: T[],
): Array<T & { corrected?: true; original?: { lat: number; lon: number } }> {
  if (!caches.length) return caches;
  const rows = gw.db
    .query("SELECT cache_gid AS gid, lat, lon FROM personal_notes WHERE user_id = ? AND lat IS NOT NULL AND cache_gid IN (SELECT value FROM json_each(?))")
    .all(userId, JSON.stringify(caches.map((c) => c.gid))) as Array<{ gid: string; lat: number; lon: number }>;
  if (!rows.length) return caches;
  const at = new Map(rows.map((r) => [r.gid, r]));
  return caches.map((c) => {
    const p = at.get(c.gid);
    return p ? { ...c, lat: p.lat, lon: p.lon, corrected: true as const, original: { lat: c.lat, lon: c.lon } } : c;
  });
}

/** Everything the user noted, for their account export. */
export function personalNotesOf(gw: Core, userId: number): Array<Personal & { cache: string }> {
  return (
    gw.db.query("SELECT cache_gid, note, lat, lon, updated_at FROM personal_notes WHERE user_id = ? ORDER BY cache_gid").all(userId) as Array<
      Row & { cache_gid: string }
    >
  ).map((r) => ({ cache: r.cache_gid, ...fromRow(r) }));
}
