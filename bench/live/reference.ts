/**
 * The reference for the live benchmark: the same fan-out with nothing else,
 * a bare Bun.serve whose /ws?region= subscribes to a topic and whose POST
 * /ingest publishes each line's position message to its square's room (no
 * APRS decoding, no database, no events). Prints `listening PORT`.
 *   bun bench/live/reference.ts
 */
import { regionsOf } from "../../src/lib/maidenhead.ts";

const server = Bun.serve<{ region: string }>({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req, srv) {
    const url = new URL(req.url);
    if (url.pathname === "/ws") {
      const region = url.searchParams.get("region") ?? "";
      return srv.upgrade(req, { data: { region } }) ? undefined : new Response("upgrade failed", { status: 400 });
    }
    // Lines as the benchmark sends them: CALL>APRS:!DDMM.mmN/DDDMM.mmW>comment
    const text = await req.text();
    for (const line of text.split("\n")) {
      const m = /^([^>]+)>[^:]*:!(\d\d)(\d\d\.\d\d)N\/(\d{3})(\d\d\.\d\d)W>(.*)$/.exec(line);
      if (!m) continue;
      const lat = Number(m[2]) + Number(m[3]) / 60;
      const lon = -(Number(m[4]) + Number(m[5]) / 60);
      const body = JSON.stringify({ call: m[1], kind: "station", alive: true, lat, lon, ts: Date.now(), source: "ingest", symbol: "/>", comment: m[6] });
      for (const room of regionsOf(lat, lon)) srv.publish(room, `{"type":"position","room":"${room}",${body.slice(1)}`);
    }
    return Response.json({ ok: true });
  },
  websocket: {
    open(ws) {
      ws.send(JSON.stringify({ type: "snapshot", stations: [], logs: [] }));
      ws.subscribe(ws.data.region);
    },
    message() {},
  },
});
console.log(`listening ${server.port}`);
