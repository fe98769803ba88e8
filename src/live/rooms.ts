/**
 * The live region rooms behind `GET /ws?region=`. A room is a Maidenhead
 * field (`FN`) or square (`FN42`); every stored position is published to the
 * room of its field and the room of its square, every log on a cache on the
 * public map likewise (docs/api.md "Live").
 *
 * Fan-out is Bun's own pub/sub (one topic per room, the copy to each socket
 * made natively), so a position costs the gateway two JSON strings however
 * many clients listen. A client that does not read is never waited for: its
 * socket buffers at most WS.backpressureBytes, then Bun closes it
 * (closeOnBackpressureLimit); a dead one is closed after WS.idleTimeoutS
 * without an answer to Bun's pings.
 *
 * A client first gets a snapshot (the stations now in its rooms and the
 * day's logs there), then the live messages: the snapshot is built and sent
 * in the same turn of the event loop as the subscription, so nothing falls
 * between the two.
 */
import type { Core } from "../core/core.ts";
import type { GatewayEvents } from "../core/events.ts";
import { AppError, badRequest } from "../lib/errors.ts";
import { parseRegion, regionBox, regionsOf } from "../lib/maidenhead.ts";
import { listStations, type Station } from "../stations/registry.ts";
import { liveLog, recentLogs, type LiveLog } from "./logs.ts";

/** A client's WebSocket as the rooms use it: Bun's ServerWebSocket is one, and so is the Node host's (src/hosts/node.ts). */
export interface RoomSocket {
  send(data: string): unknown;
  close(code?: number, reason?: string): void;
  /** topics are rooms: the server's publish() reaches every socket subscribed */
  subscribe(topic: string): void;
  unsubscribe(topic: string): void;
}

/** The WebSocket limits (server-wide in Bun; the gateway has this one WebSocket route). */
export const WS = {
  /** rooms one connection may be in */
  maxRooms: 64,
  /** bytes Bun may buffer for one client before it is dropped */
  backpressureBytes: 512 * 1024,
  /** seconds without a frame (Bun pings meanwhile) before a dead client is closed */
  idleTimeoutS: 60,
  /** largest client message */
  maxPayloadBytes: 4096,
  /** client messages per window, and the window */
  clientMessages: 30,
  clientWindowMs: 10_000,
  /** what a snapshot holds at most */
  snapshotStations: 1000,
  snapshotLogs: 100,
  snapshotLogAgeMs: 24 * 3_600_000,
} as const;

/** A station's position as the rooms carry it (snapshot entries and `position` messages). */
export interface LivePosition {
  call: string;
  kind: "station" | "object" | "item";
  alive: boolean;
  lat: number;
  lon: number;
  /** when the position was heard, unix ms */
  ts: number;
  source?: string;
  igate?: string;
  symbol?: string;
  course?: number;
  speedKmh?: number;
  altitudeM?: number;
  comment?: string;
}

const topic = (region: string) => "room:" + region;

/** Regions from `?region=` (comma-separated), normalised and de-duplicated; 400 when bad. A signed-in user may name none (their own channel only). */
export function parseRegions(raw: string | undefined, signedIn = false): string[] {
  if (signedIn && (!raw || !raw.trim())) return [];
  if (!raw || !raw.trim()) throw badRequest("bad_region", "region is required: a Maidenhead field (FN) or square (FN42), or several separated by commas");
  return checkRegions(raw.split(","));
}

function checkRegions(list: unknown[]): string[] {
  const out = new Set<string>();
  for (const r of list) {
    const region = typeof r === "string" ? parseRegion(r) : null;
    if (!region) throw badRequest("bad_region", `${JSON.stringify(r)} is not a Maidenhead field (FN) or square (FN42)`);
    out.add(region);
  }
  if (out.size > WS.maxRooms) throw badRequest("too_many_rooms", `a connection is in at most ${WS.maxRooms} rooms`);
  return [...out];
}

/** A signed-in user's own channel: their messages and alerts (src/live/user-channel.ts). */
export const userTopic = (userId: number) => "user:" + userId;

interface Client {
  ip: string;
  userId: number | null;
  rooms: Set<string>;
  windowStart: number;
  messages: number;
}

export interface LiveStats {
  websockets: number;
  streams: number;
  rooms: number;
}

/** Connection counts per client address, shared by the WebSockets and the CoT streams. */
export class LiveRooms {
  readonly clients = new Map<RoomSocket, Client>();
  readonly perIp = new Map<string, number>();
  /** open sockets of each signed-in user: a user with none is told by web push */
  readonly perUser = new Map<number, number>();
  streams = 0;
  constructor(private gw: Core) {}

  /** Refuses (429) a client address that already holds LIVE_MAX_PER_IP live connections. */
  checkAdmit(ip: string): void {
    if ((this.perIp.get(ip) ?? 0) >= this.gw.config.liveMaxPerIp) {
      throw new AppError(
        429,
        "too_many_connections",
        `one address may hold ${this.gw.config.liveMaxPerIp} live connections (WebSockets and CoT streams); close one first`,
      );
    }
  }

  retain(ip: string): void {
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
  }

  release(ip: string): void {
    const n = (this.perIp.get(ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, n);
  }

  stats(): LiveStats {
    const rooms = new Set<string>();
    for (const c of this.clients.values()) for (const r of c.rooms) rooms.add(r);
    return { websockets: this.clients.size, streams: this.streams, rooms: rooms.size };
  }

  /** Whether the user has a live socket open (the app is open somewhere). */
  userOnline(userId: number): boolean {
    return (this.perUser.get(userId) ?? 0) > 0;
  }

  open(ws: RoomSocket, ip: string, regions: string[], userId: number | null = null): void {
    try {
      this.checkAdmit(ip);
    } catch {
      ws.close(1008, "too many live connections from this address");
      return;
    }
    this.retain(ip);
    const c: Client = { ip, userId, rooms: new Set(), windowStart: this.gw.clock.now(), messages: 0 };
    this.clients.set(ws, c);
    if (userId !== null) {
      this.perUser.set(userId, (this.perUser.get(userId) ?? 0) + 1);
      ws.subscribe(userTopic(userId));
    }
    this.join(ws, c, regions);
  }

  close(ws: RoomSocket): void {
    const c = this.clients.get(ws);
    if (!c) return;
    this.clients.delete(ws);
    this.release(c.ip);
    if (c.userId !== null) {
      const n = (this.perUser.get(c.userId) ?? 1) - 1;
      if (n <= 0) this.perUser.delete(c.userId);
      else this.perUser.set(c.userId, n);
    }
  }

  /** A client message: subscribe, unsubscribe or ping (docs/api.md). */
  message(ws: RoomSocket, msg: unknown): void {
    const c = this.clients.get(ws);
    if (!c) return;
    const now = this.gw.clock.now();
    if (now - c.windowStart >= WS.clientWindowMs) {
      c.windowStart = now;
      c.messages = 0;
    }
    if (++c.messages > WS.clientMessages) {
      ws.close(1008, `more than ${WS.clientMessages} messages in ${WS.clientWindowMs / 1000} s`);
      return;
    }
    const m = msg as { type?: unknown; regions?: unknown } | null;
    try {
      if (!m || typeof m !== "object" || typeof m.type !== "string")
        throw badRequest("bad_message", 'messages are JSON objects with a "type": subscribe, unsubscribe or ping');
      if (m.type === "ping") return void ws.send('{"type":"pong"}');
      if (m.type !== "subscribe" && m.type !== "unsubscribe") throw badRequest("bad_message", `unknown message type ${JSON.stringify(m.type)}`);
      if (!Array.isArray(m.regions) || m.regions.length === 0) throw badRequest("bad_region", '"regions" is a list of Maidenhead fields or squares');
      const regions = checkRegions(m.regions);
      if (m.type === "unsubscribe") {
        for (const r of regions) {
          c.rooms.delete(r);
          ws.unsubscribe(topic(r));
        }
        ws.send(JSON.stringify({ type: "rooms", rooms: [...c.rooms] }));
        return;
      }
      const fresh = regions.filter((r) => !c.rooms.has(r));
      if (c.rooms.size + fresh.length > WS.maxRooms)
        throw badRequest("too_many_rooms", `a connection is in at most ${WS.maxRooms} rooms; unsubscribe from some first`);
      this.join(ws, c, fresh);
    } catch (e) {
      const err = e instanceof AppError ? e : badRequest("bad_message", String(e));
      ws.send(JSON.stringify({ type: "error", error: err.code, message: err.message }));
    }
  }

  /** Sends the snapshot of `regions`, then subscribes: nothing can be published in between. */
  private join(ws: RoomSocket, c: Client, regions: string[]): void {
    for (const r of regions) c.rooms.add(r);
    ws.send(JSON.stringify(snapshot(this.gw, regions, [...c.rooms])));
    for (const r of regions) ws.subscribe(topic(r));
  }
}

/** What a live position may carry besides its place; a text left empty or a number not known is left out. */
type Extras = {
  igate?: string | null;
  symbol?: string | null;
  course?: number | null;
  speedKmh?: number | null;
  altitudeM?: number | null;
  comment?: string | null;
};

/** Sets the extras `x` has on `p`, in the order the live JSON lists them. */
export function withExtras(p: LivePosition, x: Extras): LivePosition {
  if (x.igate) p.igate = x.igate;
  if (x.symbol) p.symbol = x.symbol;
  if (x.course != null) p.course = x.course;
  if (x.speedKmh != null) p.speedKmh = x.speedKmh;
  if (x.altitudeM != null) p.altitudeM = x.altitudeM;
  if (x.comment) p.comment = x.comment;
  return p;
}

function fromStation(s: Station): LivePosition | null {
  if (s.lat === undefined || s.lon === undefined) return null;
  const p: LivePosition = { call: s.call, kind: s.kind, alive: s.alive, lat: s.lat, lon: s.lon, ts: s.lastPositionAt ?? s.lastHeard };
  if (s.source) p.source = s.source;
  return withExtras(p, s);
}

export function fromEvent(e: GatewayEvents["position"]): LivePosition {
  const p: LivePosition = { call: e.call, kind: e.kind ?? "station", alive: e.alive ?? true, lat: e.lat, lon: e.lon, ts: e.ts, source: e.source };
  return withExtras(p, { ...e, altitudeM: e.altM });
}

export interface Snapshot {
  type: "snapshot";
  /** the regions this snapshot covers (the ones just joined) */
  regions: string[];
  /** every room the connection is in now */
  rooms: string[];
  stations: LivePosition[];
  logs: LiveLog[];
  /** more stations than WS.snapshotStations: the most recently heard are sent */
  truncated: boolean;
  at: number;
}

/** The current state of some rooms: stations whose position lies in them, the day's logs there. */
export function snapshot(gw: Core, regions: string[], rooms: string[]): Snapshot {
  const inRegions = (lat: number, lon: number) => {
    const [field, square] = regionsOf(lat, lon);
    return regions.includes(field) || regions.includes(square);
  };
  const byCall = new Map<string, LivePosition>();
  let truncated = false;
  for (const r of regions) {
    const { stations, truncated: t } = listStations(gw, { bbox: regionBox(r), limit: WS.snapshotStations });
    truncated ||= t;
    for (const s of stations) {
      const p = fromStation(s);
      // Box edges belong to the next region: the locator decides.
      if (p && inRegions(p.lat, p.lon)) byCall.set(p.call, p);
    }
  }
  let stations = [...byCall.values()].sort((a, b) => b.ts - a.ts);
  if (stations.length > WS.snapshotStations) {
    stations = stations.slice(0, WS.snapshotStations);
    truncated = true;
  }
  const logs = recentLogs(gw, { since: gw.clock.now() - WS.snapshotLogAgeMs, limit: WS.snapshotLogs, inside: inRegions });
  return { type: "snapshot", regions, rooms, stations, logs, truncated, at: gw.clock.now() };
}

/**
 * Publishes to both rooms of a position: `body()` (a JSON object's text) is
 * built only when a room has listeners, and gets the type and room in front.
 */
function publish(gw: Core, type: string, lat: number, lon: number, body: () => string | null): void {
  const server = gw.server;
  if (!server) return;
  let text: string | null | undefined;
  for (const region of regionsOf(lat, lon)) {
    const t = topic(region);
    if (server.subscriberCount(t) === 0) continue;
    if (text === undefined) text = body();
    if (text === null) return;
    server.publish(t, `{"type":"${type}","room":"${region}",${text.slice(1)}`);
  }
}

/** Listens for positions and logs and publishes them to their rooms. */
export function startRooms(gw: Core): void {
  gw.events.on("position", (e) => publish(gw, "position", e.lat, e.lon, () => JSON.stringify(fromEvent(e))));
  gw.events.on("log", (e) => {
    publish(gw, "log", e.lat, e.lon, () => {
      const l = liveLog(gw, e.logId);
      return l && JSON.stringify(l);
    });
  });
}
