/**
 * The child waypoints of a pocket query, kept by a GPX import (import.ts).
 * Groundspeak writes each as its own <wpt> with no cache extension, typed
 * `Waypoint|Parking Area` (Stages of a Multicache, Physical Stage, Virtual
 * Stage, Question to Answer, Trailhead, Reference Point, Final Location),
 * named by a two-character prefix and its cache's code tail: PK1ABCD and
 * S11ABCD belong to GC1ABCD. The waypoint's name is its <desc>, its note its
 * <cmt>. A file's waypoints replace those of the caches they belong to: a
 * cache of the same file, else one the importing account imported before
 * (a pocket query's separate -wpts.gpx).
 */
import type { Core } from "../core/core.ts";
import type { CatalogCache } from "./catalog-caches.ts";
import type { Actor } from "./model.ts";
import { MAX_WAYPOINT_NAME, MAX_WAYPOINT_NOTE, MAX_WAYPOINTS, prefixFor, replaceWaypoints, type WaypointInput, type WaypointKind } from "./waypoints-store.ts";

/** A `Waypoint|...` <wpt> of a GPX file, as read. */
export interface GpxWaypoint {
  code: string;
  lat: number | null;
  lon: number | null;
  /** `Waypoint|Parking Area` */
  type: string;
  desc: string;
  cmt: string;
}

const KIND_FROM_GS: Array<[RegExp, WaypointKind]> = [
  [/parking/i, "parking"],
  [/trailhead/i, "trailhead"],
  [/final/i, "final"],
  [/question/i, "question"],
  [/virtual/i, "virtual-stage"],
  [/stage/i, "physical-stage"],
  [/reference/i, "reference"],
];

const clean = (s: string, max: number) =>
  s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, "")
    .trim()
    .slice(0, max);
const tailOf = (code: string) => code.slice(2).toUpperCase();

/** Writes the file's waypoints to their caches (inside the caller's transaction); answers how many were kept. */
export function waypointsOfFile(gw: Core, actor: Actor, caches: readonly CatalogCache[], kids: readonly GpxWaypoint[]): number {
  const byTail = new Map<string, GpxWaypoint[]>();
  for (const k of kids) {
    if (!/^[A-Za-z0-9_-]{3,20}$/.test(k.code)) continue;
    const list = byTail.get(tailOf(k.code)) ?? [];
    list.push(k);
    byTail.set(tailOf(k.code), list);
  }
  const inFile = new Map(caches.map((c) => [tailOf(c.code), c.code]));
  const byCode = gw.db.query("SELECT id FROM caches WHERE source = 'catalog' AND source_ref = ?");
  const mineByTail = gw.db.query("SELECT id FROM caches WHERE source = 'catalog' AND owner_id IS ? AND substr(source_ref, 3) = ? ORDER BY id LIMIT 1");
  let kept = 0;
  for (const [tail, list] of byTail) {
    const code = inFile.get(tail);
    const row = (code ? byCode.get(code) : mineByTail.get(actor.userId, tail)) as { id: number } | null;
    if (!row) continue;
    const taken = new Set<string>();
    const out: WaypointInput[] = [];
    for (const k of list.slice(0, MAX_WAYPOINTS)) {
      const gs = k.type.replace(/^Waypoint\|/i, "");
      const kind = KIND_FROM_GS.find(([re]) => re.test(gs))?.[1] ?? "reference";
      const own = k.code.slice(0, 2).toUpperCase();
      const prefix = /^[A-Z0-9]{2}$/.test(own) && !taken.has(own) ? own : prefixFor(kind, taken);
      taken.add(prefix);
      // 0,0 is how some tools write a waypoint without coordinates
      const at = k.lat !== null && k.lon !== null && !(k.lat === 0 && k.lon === 0);
      out.push({
        kind,
        prefix,
        name: clean(k.desc, MAX_WAYPOINT_NAME) || k.code.toUpperCase(),
        lat: at ? k.lat : null,
        lon: at ? k.lon : null,
        note: clean(k.cmt, MAX_WAYPOINT_NOTE) || null,
      });
    }
    replaceWaypoints(gw, row.id, out);
    kept += out.length;
  }
  return kept;
}
