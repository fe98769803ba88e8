/**
 * A trackable's state from its moves: the ONE deterministic rule
 * (docs/protocol.md "Trackable state"). Every instance that holds the same
 * moves, wherever they were logged, shows the same holder, cache and
 * distance. Pure.
 *
 *   order   by time (`at`, whole seconds), then the instance that signed the
 *           move (its gid's origin, byte order), then the move's local id
 *           (as a number), then the gid: two grabs at the same second on two
 *           instances are ordered the same way everywhere
 *   replay  from "in its owner's hands": drop -> in that cache, no holder;
 *           retrieve, grab -> held by the mover, in no cache; missing -> in
 *           no cache, no holder, missing; visit, discover, note change
 *           neither. A later move wins: of two grabs at the same moment,
 *           the one ordered last holds it, and both stay in the history.
 *   distance the great-circle metres between the successive cache positions
 *           its moves name (drop, retrieve, visit), summed
 */
import { distanceM } from "./model.ts";

export const MOVE_KINDS = ["drop", "retrieve", "grab", "discover", "visit", "note", "missing"] as const;
export type MoveKind = (typeof MOVE_KINDS)[number];

export interface MoveFact {
  gid: string;
  kind: MoveKind;
  call: string;
  cacheGid: string | null;
  lat: number | null;
  lon: number | null;
  /** unix ms, whole seconds */
  at: number;
}

export interface TrackableState {
  /** who has it in hand (a callsign), or null */
  holder: string | null;
  /** the gid of the cache it is in, or null */
  inCache: string | null;
  missing: boolean;
  /** metres travelled, to 0.1 m */
  distanceM: number;
}

const originOf = (gid: string) => gid.slice(0, gid.indexOf(":"));
const localNumber = (gid: string) => {
  const n = Number(gid.slice(gid.lastIndexOf(":") + 1));
  return Number.isFinite(n) ? n : Number.MAX_SAFE_INTEGER;
};
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The moves in the order every instance replays them (a new array). */
export function orderMoves<T extends MoveFact>(moves: readonly T[]): T[] {
  return [...moves].sort(
    (a, b) => a.at - b.at || byteOrder(originOf(a.gid), originOf(b.gid)) || localNumber(a.gid) - localNumber(b.gid) || byteOrder(a.gid, b.gid),
  );
}

/** The state after every move, replayed in order from the owner's hands. */
export function deriveState(ownerCall: string, moves: readonly MoveFact[]): TrackableState {
  let holder: string | null = ownerCall;
  let inCache: string | null = null;
  let missing = false;
  let distance = 0;
  let last: { lat: number; lon: number } | null = null;
  for (const m of orderMoves(moves)) {
    switch (m.kind) {
      case "drop":
        holder = null;
        inCache = m.cacheGid;
        missing = false;
        break;
      case "retrieve":
      case "grab":
        holder = m.call;
        inCache = null;
        missing = false;
        break;
      case "missing":
        holder = null;
        inCache = null;
        missing = true;
        break;
    }
    if (m.lat !== null && m.lon !== null && (m.kind === "drop" || m.kind === "retrieve" || m.kind === "visit")) {
      if (last) distance += distanceM(last.lat, last.lon, m.lat, m.lon);
      last = { lat: m.lat, lon: m.lon };
    }
  }
  return { holder, inCache, missing, distanceM: Math.round(distance * 10) / 10 };
}
