/**
 * The map's live connection: a WebSocket to /ws in the Maidenhead squares
 * covering the view (or its fields when zoomed out; none when the whole
 * world is in view, where the layers' polling carries on). Moving the map
 * subscribes and unsubscribes on the same socket; a dropped socket
 * reconnects with back-off and starts again from a fresh snapshot.
 * Message shapes: docs/api.md "Live".
 */
import type L from "leaflet";
import { regionsCovering } from "../../src/lib/maidenhead.ts";
import { viewBbox } from "../game/layer.ts";

/** What the rooms carry: the server's own shapes (a position, a log), shared, not copied. */
import type { LivePosition } from "../../src/live/rooms.ts";
import type { LiveLog } from "../../src/live/logs.ts";
export type { LiveLog, LivePosition };
export type LiveState = "connecting" | "live" | "off";

export interface LiveHandlers {
  position(p: LivePosition): void;
  log(l: LiveLog, fresh: boolean): void;
  state(s: LiveState): void;
}

/** Rooms a connection may join (the server's limit). */
const MAX_ROOMS = 64;

function viewRegions(map: L.Map): string[] | null {
  const [west, south, east, north] = viewBbox(map).split(",").map(Number) as [number, number, number, number];
  return regionsCovering({ west, south, east, north }, MAX_ROOMS);
}

export function liveRooms(map: L.Map, on: LiveHandlers): () => void {
  let ws: WebSocket | null = null;
  let rooms = new Set<string>();
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | null = null;
  let backoff = 1000;

  const connect = () => {
    retry = null;
    const regions = viewRegions(map);
    if (stopped) return;
    if (!regions) return on.state("off");
    on.state("connecting");
    rooms = new Set(regions);
    const sock = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws?region=${regions.join(",")}`);
    ws = sock;
    sock.onmessage = (e) => {
      const m = JSON.parse(String(e.data));
      if (m.type === "snapshot") {
        backoff = 1000;
        on.state("live");
        for (const p of m.stations as LivePosition[]) on.position(p);
        for (const l of (m.logs as LiveLog[]).slice().reverse()) on.log(l, false);
      } else if (m.type === "position") on.position(m);
      else if (m.type === "log") on.log(m, true);
    };
    sock.onclose = () => {
      if (ws !== sock) return;
      ws = null;
      if (stopped) return;
      on.state("off");
      retry = setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 30_000);
    };
  };

  const moved = () => {
    const regions = viewRegions(map);
    if (!regions) {
      if (ws) {
        const s = ws;
        ws = null;
        s.close();
      }
      return on.state("off");
    }
    if (!ws) {
      if (!retry) connect();
      return;
    }
    if (ws.readyState !== WebSocket.OPEN) return;
    const next = new Set(regions);
    const gone = [...rooms].filter((r) => !next.has(r));
    const fresh = regions.filter((r) => !rooms.has(r));
    if (gone.length) ws.send(JSON.stringify({ type: "unsubscribe", regions: gone }));
    if (fresh.length) ws.send(JSON.stringify({ type: "subscribe", regions: fresh }));
    rooms = next;
  };

  map.on("moveend", moved);
  connect();
  return () => {
    stopped = true;
    map.off("moveend", moved);
    if (retry) clearTimeout(retry);
    ws?.close();
  };
}
