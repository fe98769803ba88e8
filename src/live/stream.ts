/**
 * Cursor-on-Target over HTTP: the snapshot document (`GET /api/cot?bbox=`)
 * and the Server-Sent Events stream (`GET /api/cot/stream?bbox=`): the
 * snapshot's events, a `synced` event, then each station update as it is
 * stored. Update ids are the positions' row ids, so a client that reconnects
 * with `Last-Event-ID` gets what it missed (each station's latest position
 * since then), across a gateway restart too; a cursor that is unknown, too
 * old or too far behind gets the whole snapshot again (docs/api.md).
 */
import type { Core } from "../core/core.ts";
import { inBbox, listStations, type Bbox } from "../stations/registry.ts";
import { selectCaches } from "../v1/service.ts";
import { mirroredCachesInBox } from "../fed/mirror.ts";
import { localGid } from "../fed/feed.ts";
import { cacheEvent, stationEvent, STATION_STALE_MS } from "./cot.ts";
import { fromEvent, withExtras, type LivePosition, type LiveRooms } from "./rooms.ts";

const COT = {
  maxStations: 5000,
  maxCaches: 2000,
  /** a resume replays at most this many positions; further behind, the snapshot again */
  replayMax: 5000,
  /** bytes a stream may have waiting beyond its snapshot before the client is dropped */
  bufferBytes: 512 * 1024,
  /** reconnection delay the stream asks EventSource for, ms */
  retryMs: 3000,
} as const;

const WORLD: Bbox = { west: -180, south: -90, east: 180, north: 90 };

/** The events of the snapshot: current stations (not yet stale) and caches on the public map. */
export function cotSnapshot(gw: Core, base: string, bbox: Bbox | undefined): { events: string[]; truncated: boolean } {
  const now = gw.clock.now();
  const events: string[] = [];
  const st = listStations(gw, { bbox, since: now - STATION_STALE_MS, limit: COT.maxStations });
  for (const s of st.stations) {
    const ts = s.lastPositionAt ?? s.lastHeard;
    if (s.lat === undefined || s.lon === undefined || ts < now - STATION_STALE_MS) continue;
    events.push(
      stationEvent(
        {
          call: s.call,
          kind: s.kind,
          alive: s.alive,
          lat: s.lat,
          lon: s.lon,
          ts,
          source: s.source,
          igate: s.igate,
          symbol: s.symbol,
          course: s.course,
          speedKmh: s.speedKmh,
          altitudeM: s.altitudeM,
          comment: s.comment,
        },
        now,
      ),
    );
  }
  const b = bbox ?? WORLD;
  const native = selectCaches(gw, { bbox: `${b.west},${b.south},${b.east},${b.north}` }, { limit: COT.maxCaches, max: COT.maxCaches });
  for (const r of native.rows) {
    events.push(cacheEvent({ ...r, gid: localGid(gw, "cache", r.id), url: `${base}/cache/${r.id}` }, now));
  }
  const room = COT.maxCaches - native.rows.length;
  const mirrors = room > 0 ? mirroredCachesInBox(gw, b, { limit: room + 1 }).filter((m) => m.status === "active" || m.status === "disabled") : [];
  for (const m of mirrors.slice(0, Math.max(0, room))) events.push(cacheEvent({ ...m, url: `${base}/cache/${encodeURIComponent(m.gid)}` }, now));
  return { events, truncated: st.truncated || native.more || mirrors.length > room };
}

export interface StreamClient {
  bbox: Bbox | undefined;
  send(chunk: string): void;
}

/** Sends each stored position to the open streams whose box holds it (Live, service.ts, calls it once). */
export function followPositions(gw: Core, clients: Set<StreamClient>): void {
  gw.events.on("position", (e) => {
    if (clients.size === 0 || e.positionId === undefined) return;
    let chunk: string | null = null;
    for (const c of clients) {
      if (c.bbox && !inBbox(e, c.bbox)) continue;
      chunk ??= `id: ${e.positionId}\nevent: cot\ndata: ${stationEvent(fromEvent(e), gw.clock.now())}\n\n`;
      c.send(chunk);
    }
  });
}

const maxPositionId = (gw: Core) => (gw.db.query("SELECT coalesce(max(id), 0) AS n FROM positions").get() as { n: number }).n;

/** Where a `Last-Event-ID` lets the stream resume: the position id after which to replay, or null for the snapshot. */
function resumePoint(gw: Core, lastEventId: string | null): number | null {
  if (!lastEventId || !/^\d{1,15}$/.test(lastEventId.trim())) return null;
  const n = Number(lastEventId.trim());
  if (n > maxPositionId(gw)) return null;
  // A pruned cursor (or a database started afresh) cannot say what was missed.
  if (n > 0 && !gw.db.query("SELECT 1 FROM positions WHERE id = ?").get(n)) return null;
  const behind = (gw.db.query("SELECT count(*) AS n FROM (SELECT 1 FROM positions WHERE id > ? LIMIT ?)").get(n, COT.replayMax + 1) as { n: number }).n;
  return behind > COT.replayMax ? null : n;
}

/** Each station's latest position after `after` (inside the box), in id order, with its id. */
function replay(gw: Core, after: number, bbox: Bbox | undefined): Array<{ id: number; p: LivePosition }> {
  const rows = gw.db
    .query(
      `SELECT p.id, p.call, p.ts, p.lat, p.lon, p.alt_m, p.course, p.speed_kmh, p.source, p.igate, s.kind, s.alive, s.symbol, s.comment
       FROM positions p JOIN stations s ON s.call = p.call
       WHERE p.id IN (SELECT max(id) FROM positions WHERE id > ? GROUP BY call) ORDER BY p.id`,
    )
    .all(after) as Array<{
    id: number;
    call: string;
    ts: number;
    lat: number;
    lon: number;
    alt_m: number | null;
    course: number | null;
    speed_kmh: number | null;
    source: string;
    igate: string | null;
    kind: LivePosition["kind"];
    alive: number;
    symbol: string | null;
    comment: string | null;
  }>;
  const out: Array<{ id: number; p: LivePosition }> = [];
  for (const r of rows) {
    if (bbox && !inBbox(r, bbox)) continue;
    const p: LivePosition = { call: r.call, kind: r.kind, alive: r.alive === 1, lat: r.lat, lon: r.lon, ts: r.ts, source: r.source };
    out.push({ id: r.id, p: withExtras(p, { ...r, speedKmh: r.speed_kmh, altitudeM: r.alt_m }) });
  }
  return out;
}

const enc = new TextEncoder();

/**
 * The SSE response. The first chunks (snapshot or replay) and the
 * subscription to updates happen in one synchronous step, so no update falls
 * between them. A client whose unread backlog grows past its first chunks
 * plus COT.bufferBytes is dropped.
 */
export function cotStream(
  gw: Core,
  live: { rooms: LiveRooms; streams: Set<StreamClient> },
  opts: {
    base: string;
    bbox: Bbox | undefined;
    lastEventId: string | null;
    ip: string;
    request: Request;
    server: { timeout(request: Request, seconds: number): void } | null;
  },
): Response {
  const rooms = live.rooms;
  rooms.checkAdmit(opts.ip);
  const clients = live.streams;
  let client: StreamClient | null = null;
  let timer: ReturnType<typeof setInterval> | null = null;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    if (client) clients.delete(client);
    if (timer) clearInterval(timer);
    rooms.streams--;
    rooms.release(opts.ip);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        rooms.retain(opts.ip);
        rooms.streams++;
        let first = `retry: ${COT.retryMs}\n\n`;
        const from = resumePoint(gw, opts.lastEventId);
        if (from === null) {
          for (const e of cotSnapshot(gw, opts.base, opts.bbox).events) first += `event: cot\ndata: ${e}\n\n`;
          first += `id: ${maxPositionId(gw)}\nevent: synced\ndata: {"snapshot":true}\n\n`;
        } else {
          const now = gw.clock.now();
          const missed = replay(gw, from, opts.bbox);
          for (const m of missed) first += `id: ${m.id}\nevent: cot\ndata: ${stationEvent(m.p, now)}\n\n`;
          first += `id: ${maxPositionId(gw)}\nevent: synced\ndata: {"snapshot":false,"replayed":${missed.length}}\n\n`;
        }
        const limit = Buffer.byteLength(first) + COT.bufferBytes;
        const write = (s: string) => {
          if (done) return;
          try {
            controller.enqueue(enc.encode(s));
            // desiredSize counts down from the high-water mark as unread bytes queue up.
            if ((controller.desiredSize ?? 0) < -limit) {
              finish();
              controller.error();
            }
          } catch {
            finish();
          }
        };
        write(first);
        client = { bbox: opts.bbox, send: write };
        clients.add(client);
        timer = setInterval(() => write(": keep-alive\n\n"), gw.config.liveKeepaliveSeconds * 1000);
      },
      cancel() {
        finish();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk?.byteLength ?? 0 },
  );
  // The stream's own keep-alives show it is alive: no idle timeout.
  opts.server?.timeout(opts.request, 0);
  return new Response(body, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" },
  });
}
