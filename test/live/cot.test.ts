/**
 * Cursor-on-Target: the snapshot document checked by xmllint against the CoT
 * 2.0 event schema and read event by event by @tak-ps/node-cot (the CoT
 * library of the CloudTAK client); boxes across the antimeridian; the SSE
 * stream with its snapshot, live updates, ids, Last-Event-ID resume (across a
 * restart too) and keep-alive comments; a stream client that stops reading is
 * dropped.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import CoT from "@tak-ps/node-cot";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { stuckClient } from "../helpers/ws.ts";
import { ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

import { waitFor } from "../helpers/wait.ts";

const INGEST = "ingest-secret-0123456789";
const XSD = join(ROOT, "test/fixtures/xsd/cot-events.xsd");
let g: Running;
let cacheId: number;

const ingest = (r: Running, lines: string[], heardAt?: number) =>
  r.post("/ingest", heardAt ? { heardAt, packets: lines } : lines.join("\n"), {
    headers: { "x-ingest-secret": INGEST, ...(heardAt ? {} : { "content-type": "text/plain" }) },
  });

beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, LIVE_KEEPALIVE_SECONDS: "1" });
  await ingest(g, [
    "N0COT-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036/A=000328 driving <home>",
    "N0OBJ>APRS:;TOWER    *092345z4230.00N/07115.00Wr repeater",
    "ZL1EAST>APRS:!1500.00S/17930.00E-east of the line",
    "KH6WEST>APRS:!1500.00S/17930.00W-west of the line",
  ]);
  await ingest(g, ["N0OLD>APRS:!4236.00N/07121.00W-heard long ago"], Date.now() - 3 * 3_600_000);
  const owner = signedInUser(g.gw, "N0OWN", { verified: true });
  const h = { headers: { cookie: owner.cookie } };
  cacheId = (
    await (
      await g.post("/api/caches", { name: "Tea & <Biscuits>", type: "multi", size: "regular", difficulty: 2.5, terrain: 1.5, lat: 42.55, lon: -71.2 }, h)
    ).json()
  ).id;
  await g.post(
    "/api/caches",
    { name: "Unlisted One", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 42.56, lon: -71.21, unlisted: true },
    h,
  );
});
afterAll(() => g.stop());

function xmllint(doc: string): { code: number; err: string } {
  const file = join(tmpDir(), "cot.xml");
  writeFileSync(file, doc);
  const p = Bun.spawnSync(["xmllint", "--noout", "--schema", XSD, file], { stderr: "pipe" });
  return { code: p.exitCode, err: p.stderr.toString() };
}

/** The `<event>`s of a snapshot document, each read by node-cot. */
const events = (doc: string) => [...doc.matchAll(/<event [\s\S]*?<\/event>/g)].map((m) => new CoT(m[0]));

describe("GET /api/cot", () => {
  test("a CoT 2.0 document of the stations and caches in the box, valid by the schema and read by a TAK library", async () => {
    const r = await g.get("/api/cot?bbox=-72,42,-70,43");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/xml; charset=utf-8");
    const doc = await r.text();
    expect(xmllint(doc)).toEqual({ code: 0, err: expect.stringContaining("validates") });
    const evs = events(doc);
    const byUid = new Map(evs.map((e) => [e.uid(), e]));
    expect([...byUid.keys()].sort()).toEqual(["APRS.N0COT-9", "APRS.TOWER", `local:cache:${cacheId}`].sort());
    const st = byUid.get("APRS.N0COT-9")!;
    expect(st.callsign()).toBe("N0COT-9");
    const f = st.to_geojson() as any;
    expect(f.properties).toMatchObject({ type: "a-n-G", how: "m-g", course: 88, remarks: expect.stringContaining("driving <home>") });
    expect(f.properties.speed).toBeCloseTo(66.7 / 3.6, 1);
    expect(f.geometry.coordinates[0]).toBeCloseTo(-71.3472, 3);
    expect(f.geometry.coordinates[1]).toBeCloseTo(42.619, 3);
    expect(f.geometry.coordinates[2]).toBeCloseTo(100, 0); // /A=000328 feet
    const start = Date.parse(f.properties.start);
    expect(Date.parse(f.properties.stale) - start).toBe(2 * 3_600_000);
    expect(Math.abs(Date.parse(f.properties.time) - Date.now())).toBeLessThan(60_000);
    const cache = byUid.get(`local:cache:${cacheId}`)!.to_geojson() as any;
    expect(cache.properties).toMatchObject({
      callsign: "Tea & <Biscuits>",
      type: "b-m-p-s-m",
      how: "h-e",
      remarks: expect.stringContaining(`/cache/${cacheId}`),
    });
    expect(doc).not.toContain("Unlisted One");
    expect(doc).not.toContain("N0OLD"); // stale: heard 3 h ago
  });

  test("a box across the antimeridian; no box is the whole world; a bad box is a 400", async () => {
    const across = events(await (await g.get("/api/cot?bbox=179,-20,-179,-10")).text())
      .map((e) => e.uid())
      .sort();
    expect(across).toEqual(["APRS.KH6WEST", "APRS.ZL1EAST"]);
    const world = await (await g.get("/api/cot")).text();
    expect(xmllint(world).code).toBe(0);
    expect(events(world).length).toBe(5);
    for (const bad of ["1,2,3", "a,b,c,d", "-72,43,-70,42", "-200,0,0,10"]) {
      const r = await g.get(`/api/cot?bbox=${bad}`);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe("bad_bbox");
    }
  });
});

interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** Reads an SSE response block by block. */
function sse(res: Response) {
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const blocks: SseEvent[] = [];
  return {
    async next(timeoutMs = 5000): Promise<SseEvent> {
      const end = Date.now() + timeoutMs;
      while (!blocks.length) {
        const i = buf.indexOf("\n\n");
        if (i >= 0) {
          const ev: SseEvent = {};
          for (const line of buf.slice(0, i).split("\n")) {
            if (line.startsWith(":")) ev.comment = line.slice(1).trim();
            else {
              const k = line.slice(0, line.indexOf(":")) as keyof SseEvent;
              ev[k] = line.slice(line.indexOf(":") + 1).trimStart();
            }
          }
          buf = buf.slice(i + 2);
          blocks.push(ev);
          continue;
        }
        if (Date.now() > end) throw new Error("no SSE event in time");
        const { value, done } = await Promise.race([reader.read(), Bun.sleep(end - Date.now()).then(() => ({ value: undefined, done: false }))]);
        if (done) throw new Error("stream ended");
        if (value) buf += dec.decode(value, { stream: true });
      }
      return blocks.shift()!;
    },
    /** events up to and including `synced` */
    async untilSynced(): Promise<SseEvent[]> {
      const out: SseEvent[] = [];
      for (;;) {
        const e = await this.next();
        out.push(e);
        if (e.event === "synced") return out;
      }
    },
    close: () => reader.cancel(),
  };
}

describe("GET /api/cot/stream", () => {
  test("snapshot, then live updates with ids, keep-alive comments; only updates inside the box", async () => {
    const res = await g.get("/api/cot/stream?bbox=-72,42,-70,43");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const s = sse(res);
    expect(await s.next()).toEqual({ retry: "3000" });
    const first = await s.untilSynced();
    const snap = first.filter((e) => e.event === "cot");
    expect(snap.every((e) => e.id === undefined)).toBe(true);
    expect(snap.map((e) => new CoT(e.data!).uid()).sort()).toEqual(["APRS.N0COT-9", "APRS.TOWER", `local:cache:${cacheId}`].sort());
    const synced = first[first.length - 1]!;
    expect(JSON.parse(synced.data!)).toEqual({ snapshot: true });
    await ingest(g, ["ZL1EAST>APRS:!1501.00S/17930.00E-outside the box", "N0COT-9>APRS,WIDE1-1,qAR,W1AW-10:!4238.14N/07120.83W>088/036 moved"]);
    let e = await s.next();
    while (e.comment === "keep-alive") e = await s.next();
    expect(e.event).toBe("cot");
    expect(Number(e.id)).toBeGreaterThan(Number(synced.id));
    const cot = new CoT(e.data!);
    expect(cot.uid()).toBe("APRS.N0COT-9");
    expect((cot.to_geojson() as any).properties.remarks).toContain("moved");
    expect(xmllint(`<events>${e.data}</events>`).code).toBe(0);
    // Nothing but keep-alives while nothing happens in the box.
    const quiet = await s.next(3000);
    expect(quiet).toEqual({ comment: "keep-alive" });
    await s.close();
  });

  test("Last-Event-ID resumes with what was missed (each station's latest), across a restart; an unknown id gets the snapshot", async () => {
    const dataDir = tmpDir();
    let r = await startInProcess({ INGEST_SECRET: INGEST }, { dataDir });
    await ingest(r, ["N0A>APRS:!4237.00N/07120.00W-a one"]);
    let s = sse(await r.get("/api/cot/stream"));
    await s.next();
    const last = (await s.untilSynced()).pop()!.id!;
    await s.close();
    await ingest(r, ["N0A>APRS:!4237.50N/07120.00W-a two", "N0B>APRS:!4237.00N/07121.00W-b one"]);
    await ingest(r, ["N0A>APRS:!4238.00N/07120.00W-a three"]);
    await r.stop();
    r = await startInProcess({ INGEST_SECRET: INGEST }, { dataDir });
    try {
      s = sse(await r.get("/api/cot/stream", { headers: { "last-event-id": last } }));
      await s.next();
      const got = await s.untilSynced();
      const missed = got.filter((e) => e.event === "cot");
      expect(missed.map((e) => (new CoT(e.data!).to_geojson() as any).properties.remarks.split(" · ")[0])).toEqual(["b one", "a three"]);
      expect(missed.every((e) => /^\d+$/.test(e.id!))).toBe(true);
      expect(Number(missed[1]!.id)).toBeGreaterThan(Number(missed[0]!.id));
      expect(JSON.parse(got.pop()!.data!)).toEqual({ snapshot: false, replayed: 2 });
      await s.close();
      for (const unknown of ["999999", "banana"]) {
        s = sse(await r.get("/api/cot/stream", { headers: { "last-event-id": unknown } }));
        await s.next();
        const again = await s.untilSynced();
        expect(JSON.parse(again.pop()!.data!)).toEqual({ snapshot: true });
        expect(again.length).toBe(2); // N0A and N0B as they are now
        await s.close();
      }
      // Streams that went away no longer count against their address.
      await waitFor(() => r.gw.live.rooms.stats().streams === 0, "the closed streams to be released", { timeoutMs: 5000 });
      expect(r.gw.live.rooms.perIp.size).toBe(0);
    } finally {
      await r.stop();
    }
  });

  test("a stream client that stops reading is dropped", async () => {
    const port = g.gw.server!.port!;
    const before = g.gw.live.rooms.stats().streams;
    const stuck = await stuckClient(port, `GET /api/cot/stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await waitFor(() => g.gw.live.rooms.stats().streams === before + 1);
    for (let b = 0; b < 40 && g.gw.live.rooms.stats().streams > before; b++) {
      const lines = Array.from(
        { length: 500 },
        (_, k) => `N${b}T${k}>APRS:!4230.${String(k % 100).padStart(2, "0")}N/07130.${String(b).padStart(2, "0")}W>a TAK client on a bad link ${b}.${k}`,
      );
      await ingest(g, lines);
    }
    expect(g.gw.live.rooms.stats().streams).toBe(before);
    await stuck.drainUntilClosed();
  }, 60_000);
});
