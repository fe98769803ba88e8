/**
 * The game's part of GDPR export and erase (src/accounts/gdpr.ts), and its
 * public section of profiles (src/accounts/profile.ts).
 *
 * Erase: the account's logs are anonymised and WITHDRAWN (their corroborating
 * positions unpinned, their records re-published), its caches archived and
 * anonymised (re-published so peers update their mirrors), its trackables and
 * their moves anonymised and re-published, its ratings,
 * favorites, uploads, stage unlocks, reports of caches and supporter row deleted.
 */
import type { Core } from "../core/core.ts";
import type { AccountData } from "../accounts/data-sections.ts";
import type { ProfileSection } from "../accounts/data-sections.ts";
import { archiveOwnedCaches } from "./cache-writes.ts";
import { withdrawLogsOf } from "./logs.ts";
import { eraseTrackablesOf, trackablesDataOf } from "./trackables-moves.ts";
import { personalNotesOf } from "./personal.ts";
import { listsOf } from "./lists.ts";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

const all = (gw: Core, sql: string, ...p: Array<string | number>) => gw.db.query(sql).all(...p) as Array<Record<string, unknown>>;

export const gameData: AccountData = {
  name: "game",
  export(gw, account) {
    const id = account.userId;
    // each cache with its waypoints, the final too
    const caches = all(
      gw,
      `SELECT id, name, type, size, difficulty, terrain, lat, lon, status, unlisted = 1 AS unlisted, hint, description, contact, owner_call AS ownerCall,
         placed_at AS placedAt, created_at AS createdAt, updated_at AS updatedAt, source, source_ref AS sourceRef, placed_by AS placedBy,
         (SELECT json_group_array(json_object('kind', w.kind, 'prefix', w.prefix, 'name', w.name, 'lat', w.lat, 'lon', w.lon, 'note', w.note))
            FROM (SELECT * FROM cache_waypoints w WHERE w.cache_id = caches.id ORDER BY w.id) w) AS waypoints
       FROM caches WHERE owner_id = ? ORDER BY id`,
      id,
    ).map((c) => ({ ...c, contact: c.contact ? JSON.parse(c.contact as string) : null, waypoints: JSON.parse(c.waypoints as string) }));
    const logs = all(
      gw,
      `SELECT id, cache_gid AS cacheGid, kind, call, text, found_at AS foundAt, created_at AS createdAt, tier, state, via,
         corr_igate AS corroboratingIgate, corr_distance_m AS corroboratingDistanceM, corr_at AS corroboratedAt, corr_source AS corroboratedBy,
         (SELECT json_object('ts', p.ts, 'lat', p.lat, 'lon', p.lon, 'call', p.call, 'igate', p.igate) FROM positions p WHERE p.id = logs.corr_position_id) AS corroboratingPosition
       FROM logs WHERE user_id = ? OR base_call IN (SELECT value FROM json_each(?)) ORDER BY id`,
      id,
      JSON.stringify(account.verifiedCalls),
    ).map((l) => ({ ...l, corroboratingPosition: l.corroboratingPosition ? JSON.parse(l.corroboratingPosition as string) : null }));
    const ratings = all(gw, "SELECT cache_id AS cacheId, stars, created_at AS createdAt FROM ratings WHERE user_id = ? ORDER BY created_at", id);
    const favorites = all(gw, "SELECT cache_id AS cacheId, created_at AS createdAt FROM favorites WHERE user_id = ? ORDER BY created_at", id);
    // The files themselves too (base64): the export is a complete copy.
    const media = all(
      gw,
      "SELECT id, cache_id AS cacheId, type, size, caption, sha256, created_at AS createdAt, bytes FROM media WHERE user_id = ? ORDER BY id",
      id,
    ).map(({ bytes, ...m }) => ({
      ...m,
      url: `/api/media/${m.id}`,
      base64: Buffer.from(bytes as Uint8Array).toString("base64"),
    }));
    const stageUnlocks = all(gw, "SELECT cache_id AS cacheId, n, created_at AS createdAt FROM stage_unlocks WHERE user_id = ? ORDER BY created_at", id);
    const supporter = gw.db
      .query("SELECT confirmed_at AS confirmedAt, until, level, public = 1 AS public, name, updated_at AS updatedAt FROM supporters WHERE user_id = ?")
      .get(id) as Record<string, unknown> | null;
    const { trackables, moves: trackableMoves } = trackablesDataOf(gw, id);
    const personalNotes = personalNotesOf(gw, id);
    const lists = listsOf(gw, id);
    const reports = all(gw, "SELECT cache_id AS cacheId, call, reason, created_at AS createdAt FROM cache_reports WHERE user_id = ? ORDER BY created_at", id);
    if (
      !caches.length &&
      !logs.length &&
      !ratings.length &&
      !favorites.length &&
      !media.length &&
      !stageUnlocks.length &&
      !supporter &&
      !trackables.length &&
      !trackableMoves.length &&
      !personalNotes.length &&
      !lists.length &&
      !reports.length
    )
      return null;
    return { caches, logs, ratings, favorites, media, stageUnlocks, supporter, trackables, trackableMoves, personalNotes, lists, reports };
  },
  erase(gw, account) {
    const id = account.userId;
    const logs = withdrawLogsOf(gw, id, account.verifiedCalls);
    const caches = archiveOwnedCaches(gw, id, account.verifiedCalls);
    const trackables = eraseTrackablesOf(gw, id);
    const del = (sql: string) => gw.db.query(sql).run(id).changes;
    return {
      logsWithdrawn: logs,
      cachesArchived: caches,
      trackablesAnonymised: trackables.trackables,
      trackableMovesAnonymised: trackables.moves,
      ratings: del("DELETE FROM ratings WHERE user_id = ?"),
      favorites: del("DELETE FROM favorites WHERE user_id = ?"),
      media: del("DELETE FROM media WHERE user_id = ?"),
      stageUnlocks: del("DELETE FROM stage_unlocks WHERE user_id = ?"),
      supporter: del("DELETE FROM supporters WHERE user_id = ?"),
      personalNotes: del("DELETE FROM personal_notes WHERE user_id = ?"),
      lists: del("DELETE FROM cache_lists WHERE user_id = ?"),
      reports: del("DELETE FROM cache_reports WHERE user_id = ?"),
    };
  },
};

/** A callsign's public game facts (GET /api/profile/{call}'s `game`). */
export const GAME_PROFILE = closed({
  finds: wholeNumber(),
  tierA: wholeNumber({ description: "finds an RF sighting corroborates" }),
  dnfs: wholeNumber(),
  hidden: wholeNumber({ description: "listed caches it hides that are active or disabled" }),
  favoritesReceived: wholeNumber(),
  firstFindAt: nullable(unixMs()),
});

/** Public game facts about a base callsign: they are public in the logbooks anyway. */
export const gameProfile: ProfileSection = {
  name: "game",
  schema: GAME_PROFILE,
  build(gw, call): Static<typeof GAME_PROFILE> | null {
    const s = gw.db
      .query(
        `SELECT
           (SELECT count(*) FROM logs WHERE base_call = ?1 AND kind = 'find' AND state = 'active') AS finds,
           (SELECT count(*) FROM logs WHERE base_call = ?1 AND kind = 'find' AND state = 'active' AND tier = 'a') AS tierA,
           (SELECT count(*) FROM logs WHERE base_call = ?1 AND kind = 'dnf' AND state = 'active') AS dnfs,
           (SELECT count(*) FROM caches WHERE (owner_call = ?1 OR owner_call LIKE ?1 || '-%') AND status IN ('active', 'disabled') AND unlisted = 0) AS hidden,
           (SELECT count(*) FROM favorites f JOIN caches c ON c.id = f.cache_id WHERE c.owner_call = ?1 OR c.owner_call LIKE ?1 || '-%') AS favoritesReceived,
           (SELECT min(found_at) FROM logs WHERE base_call = ?1 AND kind = 'find' AND state = 'active') AS firstFindAt`,
      )
      .get(call) as Static<typeof GAME_PROFILE>;
    if (!s.finds && !s.dnfs && !s.hidden) return null;
    return s;
  },
};
