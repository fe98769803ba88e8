/**
 * The live region rooms over real WebSockets: positions from the ingest box
 * (POST /ingest), APRS-IS and the local TNC, and logs on caches, reach the
 * rooms of their Maidenhead field and square and no others; a client gets the
 * rooms' current state first; a client that stops reading is dropped while
 * the others get every message; the per-address cap and bad input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { liveClient, stuckClient, wsUpgrade, type LiveClient } from "../helpers/ws.ts";
import { parseTnc2 } from "../../radio/index.ts";

import { waitFor } from "../helpers/wait.ts";
import { fakeAprsIs, type FakeAprsIs } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
const MAX_PER_IP = 8;
let g: Running;
let tnc: FakeTnc;
let aprsIs: FakeAprsIs;
let owner: TestUser;
let finder: TestUser;

beforeAll(async () => {
  tnc = fakeTnc();
  aprsIs = fakeAprsIs();
  g = await startInProcess({
    INGEST_SECRET: INGEST,
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    APRSIS_SERVER: `127.0.0.1:${aprsIs.port}`,
    APRSIS_CALL: "N0GW-10",
    LIVE_MAX_PER_IP: String(MAX_PER_IP),
  });
  await tnc.connected();
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
});
afterAll(async () => {
  await g.stop();
  tnc.stop();
  aprsIs.stop();
});

const ingest = (lines: string[]) => g.post("/ingest", lines.join("\n"), { headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" } });
const open: LiveClient[] = [];
async function client(region: string): Promise<LiveClient> {
  const c = await liveClient(g.url, region);
  open.push(c);
  return c;
}
async function closeAll() {
  await Promise.all(open.splice(0).map((c) => c.close()));
}

describe("region rooms", () => {
  test("a position from POST /ingest reaches its field's and its square's rooms, and no other room", async () => {
    const square = await client("FN42");
    const field = await client("fn"); // any letter case
    const next = await client("FN43");
    const other = await client("EM");
    for (const c of [square, field, next, other]) expect((await c.next()).type).toBe("snapshot");
    expect((await ingest(["N0ROOM-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036 in FN42"])).status).toBe(200);
    const a = await square.next();
    expect(a).toMatchObject({
      type: "position",
      room: "FN42",
      call: "N0ROOM-9",
      kind: "station",
      alive: true,
      source: "rf",
      igate: "W1AW-10",
      symbol: "/>",
      course: 88,
      comment: "in FN42",
    });
    expect(a.lat).toBeCloseTo(42.619, 3);
    expect(a.lon).toBeCloseTo(-71.3472, 3);
    expect(a.speedKmh).toBeCloseTo(66.7, 1);
    expect(await field.next()).toMatchObject({ type: "position", room: "FN", call: "N0ROOM-9" });
    // The next thing the FN43 and EM rooms hear is a position in their own region: nothing came before it.
    await ingest(["N0NEXT>APRS:!4330.00N/07130.00W-in FN43", "N0TEX>APRS:!3000.00N/09700.00W-in EM"]);
    expect(await next.next()).toMatchObject({ type: "position", room: "FN43", call: "N0NEXT" });
    expect(await other.next()).toMatchObject({ type: "position", room: "EM", call: "N0TEX" });
    expect(await field.next()).toMatchObject({ room: "FN", call: "N0NEXT" });
    expect(square.received.length).toBe(2);
    await closeAll();
  });

  test("positions heard on the local TNC and from APRS-IS reach the rooms too", async () => {
    const room = await client("FN31");
    expect((await room.next()).type).toBe("snapshot");
    const f = parseTnc2("N0RF-7>APRS,WIDE1*:!4130.00N/07230.00W[walking");
    if (!f.ok) throw f.error;
    tnc.hear(f.value);
    expect(await room.next()).toMatchObject({ type: "position", room: "FN31", call: "N0RF-7", source: "rf", igate: "N0GW-10", comment: "walking" });
    await waitFor(() => aprsIs.client !== null);
    aprsIs.client!.write("N0IS-9>APRS,TCPIP*,qAC,T2TEST:!4131.00N/07231.00W>from APRS-IS\r\n");
    expect(await room.next()).toMatchObject({ type: "position", room: "FN31", call: "N0IS-9", source: "aprsis", comment: "from APRS-IS" });
    await closeAll();
  });

  test("a find on a cache reaches its rooms; a log on an unlisted cache never does", async () => {
    const room = await client("FN42");
    expect((await room.next()).type).toBe("snapshot");
    const cache = await (
      await g.post(
        "/api/caches",
        { name: "Live Box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 42.5, lon: -71.5 },
        { headers: { cookie: owner.cookie } },
      )
    ).json();
    const secret = await (
      await g.post(
        "/api/caches",
        { name: "Secret Box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 42.51, lon: -71.51, unlisted: true },
        { headers: { cookie: owner.cookie } },
      )
    ).json();
    expect((await g.post(`/api/caches/${secret.id}/logs`, { kind: "find", text: "psst" }, { headers: { cookie: finder.cookie } })).status).toBe(201);
    expect((await g.post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "TFTC" }, { headers: { cookie: finder.cookie } })).status).toBe(201);
    const m = await room.next();
    expect(m).toMatchObject({
      type: "log",
      room: "FN42",
      kind: "find",
      call: "N0FND",
      cache: { id: cache.id, gid: cache.gid, name: "Live Box", type: "traditional", lat: 42.5, lon: -71.5 },
    });
    expect(m.logId).toBeGreaterThan(0);
    expect(JSON.stringify(room.received)).not.toContain("Secret Box");
    await closeAll();
  });

  test("a client that (re)connects gets the current state of its rooms first", async () => {
    await ingest(["N0ROOM-9>APRS,WIDE1-1,qAR,W1AW-10:!4238.00N/07121.00W>moved on"]);
    const c = await client("FN42,FN31");
    const snap = await c.next();
    expect(snap).toMatchObject({ type: "snapshot", regions: ["FN42", "FN31"], rooms: ["FN42", "FN31"], truncated: false });
    const calls = snap.stations.map((s: { call: string }) => s.call).sort();
    expect(calls).toEqual(["N0IS-9", "N0RF-7", "N0ROOM-9"]);
    const moved = snap.stations.find((s: { call: string }) => s.call === "N0ROOM-9");
    expect(moved).toMatchObject({ comment: "moved on", kind: "station", alive: true });
    expect(moved.lat).toBeCloseTo(42.6333, 3);
    expect(snap.logs).toEqual([expect.objectContaining({ kind: "find", call: "N0FND", cache: expect.objectContaining({ name: "Live Box" }) })]);
    await closeAll();
  });

  test("subscribe and unsubscribe on an open connection, ping, and bad messages", async () => {
    const c = await client("EM");
    await c.next();
    c.send({ type: "subscribe", regions: ["fn42", "FN42"] });
    expect(await c.next()).toMatchObject({ type: "snapshot", regions: ["FN42"], rooms: ["EM", "FN42"] });
    c.send({ type: "unsubscribe", regions: ["EM"] });
    expect(await c.next()).toEqual({ type: "rooms", rooms: ["FN42"] });
    await ingest(["N0TEX-2>APRS:!3000.00N/09700.00W-in EM again", "N0ROOM-9>APRS,WIDE1-1,qAR,W1AW-10:!4239.00N/07121.00W>again"]);
    expect(await c.next()).toMatchObject({ type: "position", room: "FN42", call: "N0ROOM-9" });
    c.send({ type: "ping" });
    expect(await c.next()).toEqual({ type: "pong" });
    for (const bad of [
      "garbage",
      { type: "dance" },
      { type: "subscribe" },
      { type: "subscribe", regions: ["ZZ99"] },
      { type: "subscribe", regions: Array.from({ length: 65 }, (_, i) => `FN${String(i % 100).padStart(2, "0")}`) },
    ]) {
      c.send(bad);
      const e = await c.next();
      expect(e.type).toBe("error");
      expect(["bad_message", "bad_region", "too_many_rooms"]).toContain(e.error);
    }
    // Still in its room, and nothing else changed.
    c.send({ type: "ping" });
    expect(await c.next()).toEqual({ type: "pong" });
    await closeAll();
  });

  test("bad regions are refused before the upgrade; GET without an upgrade is 426; one address holds LIVE_MAX_PER_IP connections", async () => {
    const upgrade = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
    for (const region of ["", "ZZ", "FN4", "FN42ab", "FN,XX"]) {
      const r = await g.get(`/ws?region=${region}`, { headers: upgrade });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe("bad_region");
    }
    const plain = await g.get("/ws?region=FN");
    expect(plain.status).toBe(426);
    for (let i = 0; i < MAX_PER_IP; i++) await client("FN");
    const over = await g.get("/ws?region=FN", { headers: upgrade });
    expect(over.status).toBe(429);
    expect(((await over.json()) as { error: string }).error).toBe("too_many_connections");
    await open.pop()!.close();
    await waitFor(() => g.gw.live.rooms.stats().websockets === MAX_PER_IP - 1);
    const again = await client("FN");
    expect((await again.next()).type).toBe("snapshot");
    await closeAll();
    await waitFor(() => g.gw.live.rooms.stats().websockets === 0);
  });

  test("a client that stops reading is dropped; the others get every message in order", async () => {
    const good = await client("FN30");
    await good.next();
    const stuck = await stuckClient(g.gw.server!.port!, wsUpgrade(g.gw.server!.port!, "FN30"));
    await waitFor(() => g.gw.live.rooms.stats().websockets === 2);
    // Enough traffic to fill the kernel's socket buffers and then the bounded one.
    const batches = 25;
    const per = 1000;
    for (let b = 0; b < batches; b++) {
      const lines = Array.from(
        { length: per },
        (_, k) => `N${b}S${k}>APRS:!4030.${String(k % 100).padStart(2, "0")}N/07330.${String(b).padStart(2, "0")}W>a slow phone on a bad link ${b}.${k}`,
      );
      expect((await ingest(lines)).status).toBe(200);
    }
    await waitFor(() => good.received.length === 1 + batches * per, "every batch", { timeoutMs: 30_000 });
    const seq = good.received.slice(1).map((m) => m.comment.split(" ").pop());
    expect(seq[0]).toBe("0.0");
    expect(seq[seq.length - 1]).toBe(`${batches - 1}.${per - 1}`);
    expect(g.gw.live.rooms.stats().websockets).toBe(1);
    // The stuck client got less than was sent (what the kernel had buffered), and its connection is closed.
    const sent = good.received.slice(1).reduce((n, m) => n + JSON.stringify(m).length, 0);
    const got = await stuck.drainUntilClosed();
    expect(got).toBeLessThan(sent);
    await closeAll();
  }, 120_000);
});

describe("log kinds", () => {
  test("maintenance and event logs reach the room and the snapshot with their own kind", async () => {
    const room = await client("KK");
    expect(await room.next()).toMatchObject({ type: "snapshot", logs: [] });
    const hide = async (body: Record<string, unknown>) => {
      const r = await g.post(
        "/api/caches",
        { type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 10.5, lon: 20.5, ...body },
        { headers: { cookie: owner.cookie } },
      );
      expect(r.status).toBe(201);
      return (await r.json()).id as number;
    };
    const box = await hide({ name: "Desert Box" });
    const date = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const meet = await hide({ name: "Desert Meet", type: "event", size: "other", event: { date, start: "10:00", end: "12:00", timeZone: "Africa/Ndjamena" } });
    const sent: Array<[TestUser, number, string]> = [
      [finder, box, "needs-maintenance"],
      [owner, box, "owner-maintenance"],
      [finder, meet, "will-attend"],
    ];
    for (const [who, id, kind] of sent) {
      expect((await g.post(`/api/caches/${id}/logs`, { kind, text: kind }, { headers: { cookie: who.cookie } })).status).toBe(201);
      expect(await room.next()).toMatchObject({ type: "log", room: "KK", kind, cache: { id } });
    }
    const again = await client("KK");
    const snap = await again.next();
    expect(snap.logs.map((l: { kind: string }) => l.kind)).toEqual(["will-attend", "owner-maintenance", "needs-maintenance"]);
    await closeAll();
  });
});
