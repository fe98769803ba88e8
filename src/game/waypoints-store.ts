/**
 * A cache's waypoints in SQLite (migration 30) and as JSON: parking, physical
 * and virtual stages, a question to answer, trailhead, reference point and
 * the final. Reads for the cache page, /api/v1, GPX and the cache record;
 * the owner's edits are in waypoints.ts.
 *
 * The final is shown only to the cache's owner and to those who logged a
 * find on it; everyone else gets the list without it (left out, not
 * blanked). It is never published: a peer cannot tell who found a cache
 * here, so it could not keep that rule (docs/protocol.md "1 cache").
 *
 * A waypoint's code is its two-character prefix and the cache code's tail,
 * as in a pocket query: GC1ABCD's parking is PK1ABCD.
 */
import type { Core } from "../core/core.ts";
import { MAX_WAYPOINTS, waypointsFromWire, type CacheBody, type WaypointJson } from "../lib/fed/bodies.ts";
import { decodeFrame, decodePayload } from "../lib/fed/record.ts";
import type { Actor } from "./model.ts";
import type { Waypoint } from "./shapes.ts";

/** Who reads: what decides whether they see a final. */
export type Viewer = Pick<Actor, "userId" | "ingest">;

export { MAX_WAYPOINTS };
export const WAYPOINT_KINDS = ["parking", "physical-stage", "virtual-stage", "question", "trailhead", "reference", "final"] as const;
export type WaypointKind = (typeof WAYPOINT_KINDS)[number];
export const MAX_WAYPOINT_NAME = 100;
export const MAX_WAYPOINT_NOTE = 500;

export interface WaypointRow {
  id: number;
  cache_id: number;
  kind: string;
  prefix: string;
  name: string;
  lat: number | null;
  lon: number | null;
  note: string | null;
}

/** A waypoint as the API shows it (WAYPOINT_JSON). A mirrored cache's have no id (they are part of its record). */
export type { Waypoint } from "./shapes.ts";

/** The code of a cache's waypoint: its prefix in place of the cache code's first two characters. */
export const waypointCode = (prefix: string, cacheCode: string) => prefix + cacheCode.slice(2);

export const waypointJson = (r: WaypointRow, cacheCode: string): Waypoint => ({
  id: r.id,
  kind: r.kind,
  code: waypointCode(r.prefix, cacheCode),
  name: r.name,
  lat: r.lat,
  lon: r.lon,
  note: r.note,
});

/** Every waypoint of the given native caches, in the order they were added. */
export function waypointRows(gw: Core, cacheIds: readonly number[]): Map<number, WaypointRow[]> {
  const out = new Map<number, WaypointRow[]>();
  if (!cacheIds.length) return out;
  const rows = gw.db
    .query("SELECT * FROM cache_waypoints WHERE cache_id IN (SELECT value FROM json_each(?)) ORDER BY cache_id, id")
    .all(JSON.stringify(cacheIds)) as WaypointRow[];
  for (const r of rows) {
    const list = out.get(r.cache_id);
    if (list) list.push(r);
    else out.set(r.cache_id, [r]);
  }
  return out;
}

/** The caches among `cacheIds` whose final the actor may see: those they own, and those they logged a find on. */
export function finalsShownTo(gw: Core, actor: Viewer | null, cacheIds: readonly number[]): Set<number> {
  if (!actor || !cacheIds.length) return new Set();
  const ids = JSON.stringify(cacheIds);
  if (actor.ingest) return new Set(cacheIds);
  if (actor.userId === null) return new Set();
  const rows = gw.db
    .query(
      `SELECT id FROM caches WHERE id IN (SELECT value FROM json_each(?1)) AND owner_id = ?2
       UNION SELECT cache_id FROM logs WHERE cache_id IN (SELECT value FROM json_each(?1)) AND user_id = ?2 AND kind = 'find' AND state = 'active'`,
    )
    .all(ids, actor.userId) as Array<{ id: number }>;
  return new Set(rows.map((r) => r.id));
}

const FIRST_PREFIX: Record<string, string> = {
  parking: "PK",
  "physical-stage": "S1",
  "virtual-stage": "V1",
  question: "QA",
  trailhead: "TH",
  reference: "RP",
  final: "FN",
};
const SEQ = "123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A free prefix for a new waypoint of this kind, as pocket queries name them: PK, S1, S2, FN, ... (W1, W2 for a kind this version does not know). */
export function prefixFor(kind: string, taken: ReadonlySet<string>): string {
  const first = FIRST_PREFIX[kind];
  if (first && !taken.has(first)) return first;
  const letter = first?.[0] ?? "W";
  for (const ch of SEQ) if (!taken.has(letter + ch)) return letter + ch;
  for (const a of SEQ) for (const b of SEQ) if (!taken.has(a + b)) return a + b;
  throw new Error("no free waypoint prefix");
}

/** The waypoints of a mirrored cache: those its record carries (never a final: origins do not publish one). */
export function mirroredWaypoints(gw: Core, gid: string, cacheCode: string): Waypoint[] {
  const r = gw.db.query("SELECT frame FROM mirror_records WHERE gid = ? AND type = 1").get(gid) as { frame: Uint8Array } | null;
  if (!r) return [];
  const body = decodePayload(decodeFrame(r.frame).payload).body as unknown as CacheBody;
  const taken = new Set<string>();
  return waypointsFromWire(body.waypoints)
    .filter((w) => w.kind !== "final")
    .map((w) => {
      const prefix = prefixFor(w.kind, taken);
      taken.add(prefix);
      return { id: null, code: waypointCode(prefix, cacheCode), ...w };
    });
}

/** What the waypoints of these caches are for the actor: by gid, finals only where they may see them. */
export function waypointsOfCaches(
  gw: Core,
  caches: ReadonlyArray<{ id: number | string; gid: string; code: string; mirror: boolean }>,
  actor: Viewer | null,
): Map<string, Waypoint[]> {
  const out = new Map<string, Waypoint[]>();
  const native = caches.filter((c) => typeof c.id === "number" && !c.mirror);
  const ids = native.map((c) => c.id as number);
  const rows = waypointRows(gw, ids);
  const finals = finalsShownTo(gw, actor, [...rows.keys()]);
  for (const c of native) {
    const list = (rows.get(c.id as number) ?? []).filter((r) => r.kind !== "final" || finals.has(r.cache_id));
    if (list.length)
      out.set(
        c.gid,
        list.map((r) => waypointJson(r, c.code)),
      );
  }
  for (const c of caches) if (c.mirror) out.set(c.gid, mirroredWaypoints(gw, c.gid, c.code));
  return out;
}

/** One cache's waypoints for the actor (a living cache has none). */
export function waypointsOfCache(gw: Core, c: { id: number | string; gid: string; code: string; mirror: boolean }, actor: Viewer | null): Waypoint[] {
  return waypointsOfCaches(gw, [c], actor).get(c.gid) ?? [];
}

/** The waypoints a cache's record carries: all but the final. */
export function publicWaypoints(gw: Core, cacheId: number): WaypointJson[] {
  return (
    gw.db.query("SELECT kind, name, lat, lon, note FROM cache_waypoints WHERE cache_id = ? AND kind <> 'final' ORDER BY id").all(cacheId) as WaypointJson[]
  ).map((w) => ({ kind: w.kind, name: w.name, lat: w.lat, lon: w.lon, note: w.note }));
}

/** A waypoint to write: kind, prefix, name and the optional rest, checked by the caller. */
export interface WaypointInput {
  kind: WaypointKind;
  prefix: string;
  name: string;
  lat: number | null;
  lon: number | null;
  note: string | null;
}

/** Replaces a cache's waypoints (a catalog import: the file's list is the cache's). Inside the caller's transaction. */
export function replaceWaypoints(gw: Core, cacheId: number, list: readonly WaypointInput[]): void {
  const now = gw.clock.now();
  gw.db.query("DELETE FROM cache_waypoints WHERE cache_id = ?").run(cacheId);
  const ins = gw.db.query(
    "INSERT OR IGNORE INTO cache_waypoints (cache_id, kind, prefix, name, lat, lon, note, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const w of list.slice(0, MAX_WAYPOINTS)) ins.run(cacheId, w.kind, w.prefix, w.name, w.lat, w.lon, w.note, now, now);
}

/** Rewrites a cache's waypoint names and notes (an erased owner's callsigns leave them), within their lengths. Inside the caller's transaction. */
export function scrubWaypoints(gw: Core, cacheId: number, scrub: (t: string | null) => string | null): void {
  const rows = gw.db.query("SELECT id, name, note FROM cache_waypoints WHERE cache_id = ?").all(cacheId) as Array<{
    id: number;
    name: string;
    note: string | null;
  }>;
  const update = gw.db.query("UPDATE cache_waypoints SET name = ?, note = ? WHERE id = ?");
  for (const w of rows) update.run(scrub(w.name)!.slice(0, MAX_WAYPOINT_NAME), scrub(w.note)?.slice(0, MAX_WAYPOINT_NOTE) ?? null, w.id);
}
