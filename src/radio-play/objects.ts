/**
 * Caches on the radio's screen (CACHE_OBJECTS): when a station is heard on our
 * radio within CACHE_OBJECTS_RADIUS_KM of active caches, up to OBJECTS_PER_HEARD
 * of the nearest go on the air as APRS objects (APRS 1.01 ch. 11) from
 * RADIO_CALL, each at most once per RESEND_MS, through the station's
 * transmitter (its budget, of which objects take at most OBJECTS_SHARE: what
 * does not fit waits for the next station heard). An object we sent for a cache since archived, disabled, hidden or
 * deleted is killed (`_`) once. docs/protocol.md "Cache objects".
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { encodeObject, EncodeError } from "../lib/aprs/index.ts";
import { cacheRow, nearestActiveCaches } from "../game/cache-lookup.ts";
import { codeOf, type CacheRow } from "../game/caches.ts";
import { dtText, radioText } from "./commands.ts";
import { senderOf } from "./senders.ts";
import { TokenBucket } from "../radio-node/tx.ts";

/**
 * No APRS symbol is assigned to geocaches (aprs.org symbols, hessu/aprs-symbol-index):
 * the point-of-interest box `\i` takes an overlay, and G marks a geocache.
 */
const CACHE_SYMBOL = "Gi";
const OBJECTS_PER_HEARD = 3;
const RESEND_MS = 30 * 60_000;
/** How long an object we sent may still be on someone's screen (and be worth a kill). */
const REMEMBER_MS = 24 * 3_600_000;

interface Sent {
  code: string;
  lat: number;
  lon: number;
  at: number;
}

/** Objects take at most this share of RADIO_TX_PER_MINUTE: the station's answers, beacons and users' lines keep the rest. */
const OBJECTS_SHARE = 1 / 3;

export interface CacheObjects {
  /** the objects on the air lately, by cache id */
  sent: Map<number, Sent>;
  bucket: TokenBucket;
}

declare module "../core/services.ts" {
  interface Services {
    /** CACHE_OBJECTS: what went on the air and its share of the transmit budget */
    cacheObjects: CacheObjects;
  }
}

/** A new gateway's cache objects (src/hosts/services.ts). */
export const newCacheObjects = (gw: Core): CacheObjects => ({
  sent: new Map(),
  bucket: new TokenBucket(Math.max(1, Math.floor(gw.config.radioTxPerMinute * OBJECTS_SHARE)), gw.clock.now()),
});

const stateOf = (gw: Core): CacheObjects => gw.services.cacheObjects;

/** The object for a cache, alive or killed. Its name is the cache's code; its comment the name and D/T. */
function cacheObjectLine(gw: Core, c: Pick<CacheRow, "id" | "source_ref" | "name" | "lat" | "lon" | "difficulty" | "terrain">, alive: boolean): string {
  const code = codeOf(c);
  const tail = ` ${code} ${dtText(c)}`;
  const name = radioText(c.name)
    .slice(0, 43 - tail.length)
    .trimEnd();
  return encodeObject({
    src: gw.config.radioCall!,
    path: [...gw.config.radioPath],
    name: code.slice(0, 9),
    alive,
    lat: c.lat,
    lon: c.lon,
    symbol: CACHE_SYMBOL,
    comment: name + tail,
    at: gw.clock.now(),
  });
}

/** The `position` listener: a station heard on our radio may get the caches around it. */
export function onPositionHeard(gw: Core, p: GatewayEvents["position"]): void {
  if (!gw.config.cacheObjects || !gw.config.radioCall) return;
  if (p.source !== "rf" || p.via !== "tnc" || (p.kind && p.kind !== "station")) return;
  if (p.call.toUpperCase() === gw.config.radioCall.toUpperCase()) return;
  const send = senderOf(gw, "rf");
  if (!send) return;
  const now = gw.clock.now();
  const st = stateOf(gw);
  const m = st.sent;
  killGone(gw, m, send, now);
  const near = nearestActiveCaches(gw, p.lat, p.lon, OBJECTS_PER_HEARD * 4, gw.config.cacheObjectsRadiusKm);
  let n = 0;
  for (const { cache } of near) {
    if (n >= OBJECTS_PER_HEARD || st.bucket.available(now) < 1) break;
    const last = m.get(cache.id);
    if (last && now - last.at >= 0 && now - last.at < RESEND_MS) continue;
    let line: string;
    try {
      line = cacheObjectLine(gw, cache, true);
    } catch (e) {
      if (e instanceof EncodeError) continue;
      throw e;
    }
    if (send(line) !== "sent") return; // the budget is spent: the next station heard tries again
    st.bucket.take(now);
    m.set(cache.id, { code: codeOf(cache), lat: cache.lat, lon: cache.lon, at: now });
    n++;
  }
}

/** Kills the objects of caches no longer active (archived, disabled, unlisted, deleted), once each. */
function killGone(gw: Core, m: Map<number, Sent>, send: (line: string) => string, now: number): void {
  if (!m.size) return;
  for (const [id, s] of m) if (now - s.at > REMEMBER_MS) m.delete(id);
  for (const [id, s] of m) {
    const row = cacheRow(gw, id);
    if (row && row.status === "active" && row.unlisted === 0) continue;
    // a deleted cache is killed by the name and place we sent
    const c = row ?? { id, source_ref: s.code, name: "", lat: s.lat, lon: s.lon, difficulty: 1, terrain: 1 };
    let line: string;
    try {
      line = cacheObjectLine(gw, { ...c, lat: s.lat, lon: s.lon }, false);
    } catch (e) {
      if (e instanceof EncodeError) {
        m.delete(id);
        continue;
      }
      throw e;
    }
    const r = send(line);
    if (r === "rate-limited") return;
    m.delete(id);
  }
}
