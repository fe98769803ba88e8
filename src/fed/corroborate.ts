/**
 * Cross-instance corroboration (SPEC "Find trust tier"): a find that cannot
 * reach Tier A from this instance's own RF positions asks its peers whether
 * they independently heard the finder's callsign on RF near the cache, around
 * the time of the find, through an IGate that is not this instance's.
 *
 * Privacy: the query names only a grid cell (the cache's position snapped to
 * CORROBORATION.gridDeg), a time bucket (the find's time floored to
 * CORROBORATION.timeBucketS) and the callsign; the answer says only whether it
 * was heard, a distance bucket and a time bucket. The exact IGate travels only
 * when both instances set FED_REVEAL_IGATE.
 *
 * Trust: every peer that is not blocked is asked; trusted peers' confirmations
 * count toward the quorum (FED_CORROBORATION_QUORUM distinct instances),
 * unvetted ones' are advisory. Once the quorum confirms, the find is promoted
 * to Tier A, every peer whose answer agreed gains rep_confirmed and every peer
 * that denied it gains rep_failed (a contradiction); an unvetted peer reaching
 * FED_AUTO_PROMOTE confirmations becomes trusted. Without a quorum the find
 * is asked again later (peers may hear the position after the find was logged).
 * A trackable's move is asked about once (corroborateMove).
 */
import { randomBytes } from "node:crypto";
import type { Core } from "../core/core.ts";
import { badRequest } from "../lib/errors.ts";
import { baseCall, isCallsign, normalizeCall } from "../lib/callsign.ts";
import { localSighting, promoteToTierA, TIER_A } from "../game/corroborate.ts";
import { promoteMove } from "../game/trackables-moves.ts";
import type { GatewayEvents } from "../core/events.ts";
import { fedJson, peerSyncUrl } from "./dial.ts";
import { getPeer, listPeers, setTrust, type Peer } from "./peers.ts";
import type { CorroborationAnswer } from "./shapes.ts";

export const CORROBORATION = {
  /** queries name the cache's cell, snapped to this grid (0.001° ≈ 111 m north-south) */
  gridDeg: 0.001,
  /** the find's time, floored to this bucket */
  timeBucketS: 900,
  /** a sighting counts this long before the bucket's start or after its end (the Tier A window) */
  windowS: TIER_A.windowMs / 1000,
  /** answers give the sighting's distance from the cell's centre as the first bound it is within */
  distanceBucketsM: [50, 100, 150, 250, 500] as const,
  /** an answer confirms when its distance bucket is at most this: the Tier A radius plus the snapping error */
  confirmWithinM: 250,
  /** ask again after these delays while no quorum confirmed (then give up) */
  retryAfterMs: [15 * 60_000, 60 * 60_000, 3 * 3_600_000] as const,
  /** a peer's answer is awaited this long */
  timeoutMs: 10_000,
} as const;

export interface CorroborationQuery {
  v: 1;
  /** the asking instance */
  from: string;
  /** opaque, per question */
  id: string;
  call: string;
  /** the cell's centre, degrees */
  lat: number;
  lon: number;
  gridDeg: number;
  /** unix seconds, a multiple of bucketS */
  timeBucket: number;
  bucketS: number;
  windowS: number;
  /** the asker's own IGates: their sightings are not independent */
  exclude: string[];
  /** the asker reveals IGates too (FED_REVEAL_IGATE) */
  revealIgate: boolean;
}

const snap = (x: number, g: number) => Math.round((Math.floor(x / g) * g + g / 2) * 1e7) / 1e7;

/** The query for a find: grid-snapped, time-bucketed. */
export function buildQuery(gw: Core, call: string, lat: number, lon: number, foundAt: number): CorroborationQuery {
  const c = CORROBORATION;
  const exclude = [gw.config.radioCall, gw.config.fedAprsCall, gw.config.aprsIsCall].filter((x): x is string => !!x).map(baseCall);
  return {
    v: 1,
    from: gw.config.instance,
    id: randomBytes(8).toString("hex"),
    call: normalizeCall(call),
    lat: snap(lat, c.gridDeg),
    lon: snap(lon, c.gridDeg),
    gridDeg: c.gridDeg,
    timeBucket: Math.floor(foundAt / 1000 / c.timeBucketS) * c.timeBucketS,
    bucketS: c.timeBucketS,
    windowS: c.windowS,
    exclude: [...new Set(exclude)],
    revealIgate: gw.config.fedRevealIgate,
  };
}

/**
 * Checks a query from another instance beyond its form (types and ranges are
 * checked at the route): callsigns, and no finer cell or wider window than
 * ours; throws 400.
 */
export function checkQuery(b: CorroborationQuery): CorroborationQuery {
  const bad = (m: string) => badRequest("invalid", m);
  if (!isCallsign(b.call)) throw bad("call must be a callsign");
  // A cell finer than ours would reveal more than the protocol means to carry, and a window wider would be fishing.
  if (b.gridDeg < CORROBORATION.gridDeg) throw bad(`gridDeg must be at least ${CORROBORATION.gridDeg}`);
  if (b.windowS > CORROBORATION.windowS || b.bucketS > 3600) throw bad(`windowS is at most ${CORROBORATION.windowS} and bucketS at most 3600`);
  if (!b.exclude.every((x) => isCallsign(x))) throw bad("exclude must be a list of up to 16 callsigns");
  return {
    v: 1,
    from: b.from,
    id: b.id,
    call: normalizeCall(b.call),
    lat: b.lat,
    lon: b.lon,
    gridDeg: b.gridDeg,
    timeBucket: b.timeBucket,
    bucketS: b.bucketS,
    windowS: b.windowS,
    exclude: b.exclude,
    revealIgate: b.revealIgate,
  };
}

/** POST /federation/corroborate: this instance's answer from its own RF positions. */
export function answerQuery(gw: Core, body: CorroborationQuery): CorroborationAnswer {
  const q = checkQuery(body);
  const c = CORROBORATION;
  const maxM = c.distanceBucketsM[c.distanceBucketsM.length - 1]!;
  const mid = (q.timeBucket + q.bucketS / 2) * 1000;
  const s = localSighting(gw, q.call, q.lat, q.lon, mid, { radiusM: maxM, windowMs: (q.bucketS / 2 + q.windowS) * 1000, excludeIgates: q.exclude });
  if (!s) return { v: 1, id: q.id, instance: gw.config.instance, heard: false, distanceBucketM: null, timeBucket: null };
  const bucket = c.distanceBucketsM.find((b) => s.distanceM <= b) ?? maxM;
  return {
    v: 1,
    id: q.id,
    instance: gw.config.instance,
    heard: true,
    distanceBucketM: bucket,
    timeBucket: Math.floor(s.ts / 1000 / q.bucketS) * q.bucketS,
    ...(q.revealIgate && gw.config.fedRevealIgate ? { igate: s.igate } : {}),
  };
}

/** Whether an answer confirms the find. */
const confirms = (a: { heard: boolean; distanceBucketM: number | null }) =>
  a.heard && a.distanceBucketM !== null && a.distanceBucketM <= CORROBORATION.confirmWithinM;

interface FindRow {
  id: number;
  call: string | null;
  foundAt: number;
  lat: number | null;
  lon: number | null;
  tier: string;
  state: string;
  kind: string;
}

function findRow(gw: Core, logId: number): FindRow | null {
  return gw.db
    .query(
      `SELECT l.id, l.call, l.found_at AS foundAt, COALESCE(c.lat, m.lat) AS lat, COALESCE(c.lon, m.lon) AS lon, l.tier, l.state, l.kind
       FROM logs l LEFT JOIN caches c ON c.id = l.cache_id LEFT JOIN mirror_caches m ON l.cache_id IS NULL AND m.gid = l.cache_gid WHERE l.id = ?`,
    )
    .get(logId) as FindRow | null;
}

export interface CorroborationOutcome {
  logId: number;
  state: "pending" | "confirmed" | "unconfirmed";
  asked: number;
  answered: number;
  /** distinct trusted instances that confirmed */
  confirmations: number;
  quorum: number;
}

async function ask(gw: Core, peer: Peer, url: string, q: CorroborationQuery): Promise<CorroborationAnswer | null> {
  // The shared secret goes only to trusted peers (hub and spokes share FED_SUBMIT_SECRET).
  const headers: Record<string, string> = {};
  if (gw.config.fedSubmitSecret && peer.trust === "trusted") headers["x-fed-secret"] = gw.config.fedSubmitSecret;
  try {
    const { body } = await fedJson<CorroborationAnswer>(gw, `${url}/federation/corroborate`, {
      method: "POST",
      json: q,
      headers,
      timeoutMs: CORROBORATION.timeoutMs,
      maxBytes: 16 * 1024,
    });
    if (!body || typeof body !== "object" || body.id !== q.id || typeof body.heard !== "boolean") return null;
    const bucket = typeof body.distanceBucketM === "number" ? body.distanceBucketM : null;
    const igate = typeof body.igate === "string" && isCallsign(body.igate) && q.revealIgate ? normalizeCall(body.igate) : undefined;
    return {
      v: 1,
      id: q.id,
      instance: peer.instance,
      heard: body.heard,
      distanceBucketM: bucket,
      timeBucket: typeof body.timeBucket === "number" ? body.timeBucket : null,
      ...(igate ? { igate } : {}),
    };
  } catch {
    return null; // unreachable, refused (a secret we do not hold), or nonsense: no answer
  }
}

/** Asks every peer that is not blocked whether it heard `call` on RF near a point around a time (one query for all). */
async function askPeers(gw: Core, call: string, lat: number, lon: number, at: number) {
  const q = buildQuery(gw, call, lat, lon, at);
  const targets = listPeers(gw)
    .filter((p) => p.trust !== "blocked")
    .map((p) => ({ peer: p, url: peerSyncUrl(gw, p) }))
    .filter((t): t is { peer: Peer; url: string } => !!t.url);
  const answers = await Promise.all(targets.map((t) => ask(gw, t.peer, t.url, q)));
  return { targets, answers };
}

/**
 * A trackable's drop, retrieve or visit that no RF position here corroborated
 * (src/game/trackables-moves.ts): its peers are asked once, as for a find, and
 * a quorum of trusted confirmations makes it Tier A (its record is published
 * again). Not retried, and no reputation is kept: those follow finds alone.
 */
export async function corroborateMove(gw: Core, m: GatewayEvents["trackableMoveLogged"]): Promise<{ confirmations: number; quorum: number }> {
  const quorum = gw.config.fedCorroborationQuorum;
  const { targets, answers } = await askPeers(gw, m.call, m.lat, m.lon, m.at);
  const yes = targets.map((t, i) => ({ t, a: answers[i] })).filter((x) => x.t.peer.trust === "trusted" && x.a && confirms(x.a));
  const confirmations = new Set(yes.map((x) => x.t.peer.instance)).size;
  if (confirmations >= quorum) {
    const best = yes.reduce((b, x) => ((x.a!.distanceBucketM ?? Infinity) < (b.a!.distanceBucketM ?? Infinity) ? x : b));
    promoteMove(gw, m.moveId, { source: "peers", igate: yes.find((x) => x.a!.igate)?.a?.igate ?? null, distanceM: best.a!.distanceBucketM });
  }
  gw.events.emit("trackableMoveCorroborated", { moveId: m.moveId, confirmations, quorum });
  return { confirmations, quorum };
}

/**
 * Asks every peer that is not blocked about one find, records the answers and
 * decides. Safe to call again (a retry asks afresh and keeps the latest answer
 * of each peer).
 */
export async function corroborateFind(gw: Core, logId: number): Promise<CorroborationOutcome> {
  const quorum = gw.config.fedCorroborationQuorum;
  const now = gw.clock.now();
  const f = findRow(gw, logId);
  const out: CorroborationOutcome = { logId, state: "unconfirmed", asked: 0, answered: 0, confirmations: 0, quorum };
  if (!f || f.kind !== "find" || f.state !== "active" || !f.call || f.lat === null || f.lon === null) {
    gw.db.query("UPDATE corroborations SET state = 'unconfirmed', next_at = NULL, decided_at = ? WHERE log_id = ? AND state = 'pending'").run(now, logId);
    return out;
  }
  if (f.tier === "a") {
    out.state = "confirmed";
    return out;
  }
  gw.db
    .query(
      `INSERT INTO corroborations (log_id, state, attempts, asked_at, next_at) VALUES (?1, 'pending', 1, ?2, NULL)
       ON CONFLICT (log_id) DO UPDATE SET attempts = attempts + 1, asked_at = ?2, next_at = NULL`,
    )
    .run(logId, now);
  const { targets, answers } = await askPeers(gw, f.call, f.lat, f.lon, f.foundAt);
  out.asked = targets.length;
  const at = gw.clock.now();
  const put = gw.db.query(
    `INSERT OR REPLACE INTO corroboration_answers (log_id, peer_id, heard, distance_bucket_m, time_bucket, igate, answered_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  gw.db.transaction(() => {
    targets.forEach((t, i) => {
      const a = answers[i];
      if (!a) return;
      out.answered++;
      put.run(logId, t.peer.id, a.heard ? 1 : 0, a.distanceBucketM, a.timeBucket, a.igate ?? null, at);
    });
  })();
  return decide(gw, logId, out);
}

function decide(gw: Core, logId: number, out: CorroborationOutcome): CorroborationOutcome {
  const now = gw.clock.now();
  const rows = gw.db
    .query(
      `SELECT a.peer_id AS peerId, p.instance, p.trust, a.heard, a.distance_bucket_m AS distanceBucketM, a.igate
       FROM corroboration_answers a JOIN peers p ON p.id = a.peer_id WHERE a.log_id = ? ORDER BY a.distance_bucket_m`,
    )
    .all(logId) as Array<{ peerId: number; instance: string; trust: string; heard: number; distanceBucketM: number | null; igate: string | null }>;
  const yes = rows.filter((r) => confirms({ heard: r.heard === 1, distanceBucketM: r.distanceBucketM }));
  out.confirmations = new Set(yes.filter((r) => r.trust === "trusted").map((r) => r.instance)).size;
  if (out.confirmations >= out.quorum) {
    const best = yes.find((r) => r.trust === "trusted")!;
    const promoted: string[] = [];
    gw.db.transaction(() => {
      promoteToTierA(gw, logId, { source: "peers", igate: yes.find((r) => r.igate)?.igate ?? null, distanceM: best.distanceBucketM });
      gw.db.query("UPDATE corroborations SET state = 'confirmed', next_at = NULL, decided_at = ? WHERE log_id = ?").run(now, logId);
      const up = gw.db.query("UPDATE peers SET rep_confirmed = rep_confirmed + 1 WHERE id = ?");
      const down = gw.db.query("UPDATE peers SET rep_failed = rep_failed + 1 WHERE id = ?");
      for (const r of rows) {
        if (yes.includes(r)) up.run(r.peerId);
        else if (r.heard === 0) down.run(r.peerId); // denied what the quorum confirmed: a contradiction
      }
      const threshold = gw.config.fedAutoPromote;
      if (threshold > 0) {
        for (const r of yes) {
          const p = getPeer(gw, r.instance);
          if (p && p.trust === "unvetted" && p.repConfirmed >= threshold) {
            setTrust(gw, p.instance, "trusted", "auto");
            promoted.push(p.instance);
          }
        }
      }
    })();
    for (const p of promoted) gw.log.info("fed", `${p} promoted to trusted after ${gw.config.fedAutoPromote} confirmed corroborations`);
    out.state = "confirmed";
  } else {
    const attempts = (gw.db.query("SELECT attempts FROM corroborations WHERE log_id = ?").get(logId) as { attempts: number } | null)?.attempts ?? 1;
    const delay = CORROBORATION.retryAfterMs[attempts - 1];
    if (delay === undefined) {
      gw.db.query("UPDATE corroborations SET state = 'unconfirmed', next_at = NULL, decided_at = ? WHERE log_id = ?").run(now, logId);
      out.state = "unconfirmed";
    } else {
      gw.db.query("UPDATE corroborations SET next_at = ? WHERE log_id = ?").run(now + delay, logId);
      out.state = "pending";
    }
  }
  gw.events.emit("fedCorroborated", { logId, state: out.state, confirmations: out.confirmations, quorum: out.quorum });
  return out;
}

/** The scheduled retry: asks again about pending finds whose time has come. */
export async function retryCorroborations(gw: Core, limit = 50): Promise<CorroborationOutcome[]> {
  const due = gw.db
    .query("SELECT log_id AS logId FROM corroborations WHERE state = 'pending' AND next_at IS NOT NULL AND next_at <= ? ORDER BY next_at LIMIT ?")
    .all(gw.clock.now(), limit) as Array<{ logId: number }>;
  const out: CorroborationOutcome[] = [];
  for (const d of due) out.push(await corroborateFind(gw, d.logId));
  return out;
}

/** Asks peers about each find and trackable move logged below Tier A here; running questions finish before the gateway stops. */
export function startCorroboration(gw: Core): void {
  const running = new Set<Promise<unknown>>();
  gw.events.on("findPending", (find) => {
    const p = corroborateFind(gw, find.logId)
      .catch((e) => gw.log.error("fed", "corroboration failed", { log: find.logId, error: String(e) }))
      .finally(() => running.delete(p));
    running.add(p);
  });
  gw.events.on("trackableMoveLogged", (m) => {
    const p = corroborateMove(gw, m)
      .catch((e) => gw.log.error("fed", "corroboration of a trackable move failed", { move: m.moveId, error: String(e) }))
      .finally(() => running.delete(p));
    running.add(p);
  });
  gw.onStop(async () => {
    await Promise.allSettled([...running]);
  });
}
