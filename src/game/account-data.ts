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
import { CACHE_LIST, listsOf } from "./lists.ts";
import { CACHE_JSON_FIELDS, CONTACT, LOG_JSON, PERSONAL_JSON, WAYPOINT_JSON } from "./shapes.ts";
import { MEDIA_JSON } from "./media.ts";
import { MOVE_JSON, TRACKABLE_JSON } from "./trackables-shapes.ts";
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import { closed, nullable, unixMs, wholeNumber } from "../lib/schema.ts";

/** The rows of a query, as the caller says they are (the schemas below say the same). */
const all = <T>(gw: Core, sql: string, ...p: Array<string | number>) => gw.db.query(sql).all(...p) as T[];

const rowsOf = <P extends Parameters<typeof closed>[0]>(description: string, fields: P) => t.Array(closed(fields), { description });
/** A column written `x = 1 AS x`: SQLite's 1 or 0, exported as it is (not as true or false). */
const zeroOrOne = (description: string) => wholeNumber({ minimum: 0, maximum: 1, description: `${description}: 1 yes, 0 no` });
const TIER = t.Union([t.Literal("a"), t.Literal("b"), t.Literal("c")]);
const { by: _by, ...MEDIA_FIELDS } = MEDIA_JSON.properties;

/** A cache the account owns, as its row holds it, with its waypoints (the final too). */
const CACHE_ROW = closed({
  id: wholeNumber(),
  // the fields a cache's answer has as well (shapes.ts)
  name: CACHE_JSON_FIELDS.name,
  type: CACHE_JSON_FIELDS.type,
  size: CACHE_JSON_FIELDS.size,
  difficulty: CACHE_JSON_FIELDS.difficulty,
  terrain: CACHE_JSON_FIELDS.terrain,
  lat: CACHE_JSON_FIELDS.lat,
  lon: CACHE_JSON_FIELDS.lon,
  status: t.Union([t.Literal("draft"), t.Literal("active"), t.Literal("disabled"), t.Literal("archived")]),
  unlisted: zeroOrOne("left off the map and lists"),
  hint: nullable(t.String()),
  description: t.String(),
  contact: nullable(CONTACT, "the owner's contact fields"),
  ownerCall: nullable(t.String()),
  placedAt: unixMs(),
  createdAt: unixMs(),
  updatedAt: unixMs(),
  source: nullable(t.String(), "catalog imports: where from; null: hidden here"),
  sourceRef: nullable(t.String(), "catalog imports: the catalog's code"),
  placedBy: nullable(t.String(), "catalog imports: the placer named there"),
  waypoints: t.Array(
    closed({
      kind: WAYPOINT_JSON.properties.kind,
      prefix: t.String({ description: "two characters: the waypoint's code is this plus the cache code's tail" }),
      name: t.String(),
      lat: nullable(t.Number()),
      lon: nullable(t.Number()),
      note: nullable(t.String()),
    }),
    { description: "its waypoints, the final too, in the order they were added" },
  ),
});
type CacheRow = Static<typeof CACHE_ROW>;

/** A log the account wrote, or one under a callsign it verified. */
const LOG_ROW = closed({
  id: wholeNumber(),
  cacheGid: t.String(),
  kind: LOG_JSON.properties.kind,
  call: nullable(t.String(), "the callsign as logged; null once withdrawn"),
  text: nullable(t.String()),
  foundAt: unixMs(),
  createdAt: unixMs(),
  tier: TIER,
  state: LOG_JSON.properties.state,
  via: t.String({ description: "how it came: web, ingest, device, radio, aprsis" }),
  corroboratingIgate: nullable(t.String()),
  corroboratingDistanceM: nullable(t.Number()),
  corroboratedAt: nullable(unixMs()),
  corroboratedBy: nullable(t.String(), "local or peers (a cross-instance quorum)"),
  corroboratingPosition: nullable(
    closed({ ts: unixMs(), lat: t.Number(), lon: t.Number(), call: t.String(), igate: nullable(t.String()) }),
    "the position heard on the air that corroborates it; null: none, or no longer kept",
  ),
});
type LogRow = Static<typeof LOG_ROW>;

const MEDIA_ROW = closed({
  ...MEDIA_FIELDS,
  sha256: t.String(),
  base64: t.String({ description: "the file itself, base64" }),
});
type MediaRow = Static<typeof MEDIA_ROW>;

const SUPPORTER_ROW = closed({
  confirmedAt: unixMs(),
  until: nullable(unixMs(), "null: no end"),
  level: nullable(t.String()),
  public: zeroOrOne("shown in the public list of supporters"),
  name: nullable(t.String(), "what is shown instead of the callsign"),
  updatedAt: unixMs(),
});

/** A trackable the account owns, as its row holds it (never its tracking code). */
const TRACKABLE_ROW = closed({
  id: wholeNumber(),
  ref: TRACKABLE_JSON.properties.ref,
  name: t.String(),
  goal: nullable(t.String()),
  description: nullable(t.String()),
  ownerCall: t.String(),
  createdAt: unixMs(),
});

/** A move of a trackable the account logged. */
const TRACKABLE_MOVE_ROW = closed({
  id: wholeNumber(),
  trackableGid: t.String(),
  kind: MOVE_JSON.properties.kind,
  call: t.String(),
  cacheGid: nullable(t.String()),
  lat: nullable(t.Number()),
  lon: nullable(t.Number()),
  text: nullable(t.String()),
  at: unixMs(),
  tier: TIER,
  corroboratingIgate: nullable(t.String()),
  corroboratingDistanceM: nullable(t.Number()),
  createdAt: unixMs(),
});

/** The game's section of a GDPR export (gameData.export). */
export const GAME_EXPORT = closed({
  caches: t.Array(CACHE_ROW, { description: "the caches the account owns" }),
  logs: t.Array(LOG_ROW, { description: "its logs, and those under a callsign it verified" }),
  ratings: rowsOf("its ratings", { cacheId: wholeNumber(), stars: wholeNumber({ minimum: 1, maximum: 5 }), createdAt: unixMs() }),
  favorites: rowsOf("its favorites", { cacheId: wholeNumber(), createdAt: unixMs() }),
  media: t.Array(MEDIA_ROW, { description: "the pictures and audio files it uploaded, with the files themselves" }),
  stageUnlocks: rowsOf("the stages it unlocked", { cacheId: wholeNumber(), n: wholeNumber({ description: "the stage" }), createdAt: unixMs() }),
  supporter: nullable(SUPPORTER_ROW, "its supporter row; null: none"),
  trackables: t.Array(TRACKABLE_ROW, { description: "the trackables it owns" }),
  trackableMoves: t.Array(TRACKABLE_MOVE_ROW, { description: "the trackable moves it logged" }),
  personalNotes: t.Array(closed({ cache: t.String({ description: "the cache's gid" }), ...PERSONAL_JSON.properties }), {
    description: "its own notes and corrected coordinates of caches",
  }),
  lists: t.Array(closed({ ...CACHE_LIST.properties, caches: t.Array(t.String(), { description: "the caches' gids, oldest added first" }) }), {
    description: "its bookmark lists",
  }),
  reports: rowsOf("its reports of caches", { cacheId: wholeNumber(), call: nullable(t.String()), reason: t.String(), createdAt: unixMs() }),
});
type GameExport = Static<typeof GAME_EXPORT>;

export const gameData: AccountData = {
  name: "game",
  exportSchema: GAME_EXPORT,
  export(gw, account): GameExport | null {
    const id = account.userId;
    // each cache with its waypoints, the final too
    const caches = all<Omit<CacheRow, "contact" | "waypoints"> & { contact: string | null; waypoints: string }>(
      gw,
      `SELECT id, name, type, size, difficulty, terrain, lat, lon, status, unlisted = 1 AS unlisted, hint, description, contact, owner_call AS ownerCall,
         placed_at AS placedAt, created_at AS createdAt, updated_at AS updatedAt, source, source_ref AS sourceRef, placed_by AS placedBy,
         (SELECT json_group_array(json_object('kind', w.kind, 'prefix', w.prefix, 'name', w.name, 'lat', w.lat, 'lon', w.lon, 'note', w.note))
            FROM (SELECT * FROM cache_waypoints w WHERE w.cache_id = caches.id ORDER BY w.id) w) AS waypoints
       FROM caches WHERE owner_id = ? ORDER BY id`,
      id,
    ).map((c) => ({ ...c, contact: c.contact ? JSON.parse(c.contact) : null, waypoints: JSON.parse(c.waypoints) }));
    const logs = all<Omit<LogRow, "corroboratingPosition"> & { corroboratingPosition: string | null }>(
      gw,
      `SELECT id, cache_gid AS cacheGid, kind, call, text, found_at AS foundAt, created_at AS createdAt, tier, state, via,
         corr_igate AS corroboratingIgate, corr_distance_m AS corroboratingDistanceM, corr_at AS corroboratedAt, corr_source AS corroboratedBy,
         (SELECT json_object('ts', p.ts, 'lat', p.lat, 'lon', p.lon, 'call', p.call, 'igate', p.igate) FROM positions p WHERE p.id = logs.corr_position_id) AS corroboratingPosition
       FROM logs WHERE user_id = ? OR base_call IN (SELECT value FROM json_each(?)) ORDER BY id`,
      id,
      JSON.stringify(account.verifiedCalls),
    ).map((l) => ({ ...l, corroboratingPosition: l.corroboratingPosition ? JSON.parse(l.corroboratingPosition) : null }));
    const ratings = all<GameExport["ratings"][number]>(
      gw,
      "SELECT cache_id AS cacheId, stars, created_at AS createdAt FROM ratings WHERE user_id = ? ORDER BY created_at",
      id,
    );
    const favorites = all<GameExport["favorites"][number]>(
      gw,
      "SELECT cache_id AS cacheId, created_at AS createdAt FROM favorites WHERE user_id = ? ORDER BY created_at",
      id,
    );
    // The files themselves too (base64): the export is a complete copy.
    const media = all<Omit<MediaRow, "url" | "base64"> & { bytes: Uint8Array }>(
      gw,
      "SELECT id, cache_id AS cacheId, type, size, caption, sha256, created_at AS createdAt, bytes FROM media WHERE user_id = ? ORDER BY id",
      id,
    ).map(({ bytes, ...m }) => ({
      ...m,
      url: `/api/media/${m.id}`,
      base64: Buffer.from(bytes).toString("base64"),
    }));
    const stageUnlocks = all<GameExport["stageUnlocks"][number]>(
      gw,
      "SELECT cache_id AS cacheId, n, created_at AS createdAt FROM stage_unlocks WHERE user_id = ? ORDER BY created_at",
      id,
    );
    const supporter = gw.db
      .query("SELECT confirmed_at AS confirmedAt, until, level, public = 1 AS public, name, updated_at AS updatedAt FROM supporters WHERE user_id = ?")
      .get(id) as GameExport["supporter"];
    // trackablesDataOf answers its rows untyped: they are the rows TRACKABLE_ROW and TRACKABLE_MOVE_ROW describe
    const data = trackablesDataOf(gw, id);
    const trackables = data.trackables as GameExport["trackables"];
    const trackableMoves = data.moves as GameExport["trackableMoves"];
    const personalNotes = personalNotesOf(gw, id);
    const lists = listsOf(gw, id);
    const reports = all<GameExport["reports"][number]>(
      gw,
      "SELECT cache_id AS cacheId, call, reason, created_at AS createdAt FROM cache_reports WHERE user_id = ? ORDER BY created_at",
      id,
    );
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
