/** The ingest pipeline end to end: /ingest on a real server, the registry it feeds, the events it fires. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { deviceKey, signedBody, signedInUser } from "../helpers/accounts.ts";
import type { GatewayEvents } from "../../src/core/events.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
const positions: GatewayEvents["position"][] = [];
const messages: GatewayEvents["aprsMessage"][] = [];
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, FED_APRS_CALL: "N0GW" });
  g.gw.events.on("position", (e) => positions.push(e));
  g.gw.events.on("aprsMessage", (e) => messages.push(e));
});
afterAll(() => g.stop());

const ingestText = (body: string | Uint8Array, query = "") =>
  fetch(`${g.url}/ingest${query}`, { method: "POST", headers: { "content-type": "text/plain", "x-ingest-secret": INGEST }, body: body as BodyInit });
const ingestJson = (body: unknown, headers: Record<string, string> = { "x-ingest-secret": INGEST }) => g.post("/ingest", body, { headers });
const json = async (path: string) => (await g.get(path)).json();
const count = (sql: string, ...args: Array<string | number>) => (g.gw.db.query(sql).get(...args) as { n: number }).n;

describe("POST /ingest with TNC2 lines", () => {
  test("stores every line, keeps who heard it and when, fires events", async () => {
    const enc = new TextEncoder();
    const body = new Uint8Array([
      ...enc.encode("N0CALL-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036 rolling\r\n"),
      ...enc.encode("DL1ABC>APRS,TCPIP*,qAC,T2GER:=5230.00N/01322.50E-Berlin\n"),
      ...enc.encode("KB1KTR-8>TR3U6T,WIDE2*,qAR,W1XM:`c1"),
      0x1f,
      ...enc.encode('l!t>/>"4^}caf'),
      0xe9,
      0x0a,
      ...enc.encode("N0WX>APRS,TCPIP*,qAC,T2X:@092345z4903.50N/07201.75W_220/004g005t077r000p000P000h50b09900wRSW\n"),
      ...enc.encode("N0MSG>APRS,TCPIP*,qAC,T2X::N0CALL-9 :see you{12\n"),
      ...enc.encode("N0CALL>APRS:this is not APRS\n"),
      ...enc.encode("# a comment line from the server\n"),
      ...enc.encode("N0GATE>APRS,TCPIP*:}W1TP-7>APRS,TCPIP,N0GATE*:!4100.00N/07300.00W>inner\n"),
    ]);
    const before = Date.now();
    const r = await ingestText(body);
    expect(r.status).toBe(200);
    const rep = await r.json();
    expect(rep.packets).toMatchObject({ received: 7, stored: 7, duplicates: 0, positions: 5, errors: { unsupported_format: 1 } });
    // Heard on RF by the IGate the q construct names; internet lines are not RF.
    const rf = await json("/api/stations/N0CALL-9");
    expect(rf).toMatchObject({
      call: "N0CALL-9",
      lat: 42.619,
      lon: -71.3471667,
      symbol: "/>",
      course: 88,
      speedKmh: 66.7,
      comment: "rolling",
      source: "rf",
      igate: "W1AW-10",
      packets: 1,
    });
    expect(rf.heard[0]).toMatchObject({ path: "WIDE1-1,qAR,W1AW-10", source: "rf", igate: "W1AW-10", via: "ingest" });
    expect(rf.lastHeard).toBeGreaterThanOrEqual(before);
    expect(await json("/api/stations/DL1ABC")).toMatchObject({ source: "ingest", messaging: true });
    const p = g.gw.db.query("SELECT call, source, igate, via, lat FROM positions WHERE call = 'N0CALL-9'").get();
    expect(p).toEqual({ call: "N0CALL-9", source: "rf", igate: "W1AW-10", via: "ingest", lat: 42.619 });
    // The raw ring keeps the bytes as heard.
    const raw = g.gw.db.query("SELECT raw FROM packets WHERE src = 'KB1KTR-8'").get() as { raw: Uint8Array };
    expect(raw.raw instanceof Uint8Array).toBe(true);
    expect(raw.raw[raw.raw.length - 1]).toBe(0xe9);
    expect(await json("/api/stations/KB1KTR-8")).toMatchObject({ device: "Kenwood TH-D7A", comment: "café", igate: "W1XM" });
    // Third-party: the inner station is the one on the map.
    expect(await json("/api/stations/W1TP-7")).toMatchObject({ lat: 41, lon: -73, comment: "inner" });
    // Weather becomes the station's latest weather and a reading.
    expect((await json("/api/stations/N0WX")).wx).toMatchObject({ tempC: 25, humidityPct: 50 });
    // Events: one per position; the message.
    expect(positions.map((e) => e.call).sort()).toEqual(["DL1ABC", "KB1KTR-8", "N0CALL-9", "N0WX", "W1TP-7"]);
    expect(positions.find((e) => e.call === "N0CALL-9")).toMatchObject({ source: "rf", igate: "W1AW-10", via: "ingest", kind: "station" });
    expect(typeof positions[0]!.positionId).toBe("number");
    expect(messages).toEqual([
      expect.objectContaining({ src: "N0MSG", addressee: "N0CALL-9", kind: "message", text: "see you", msgId: "12", source: "ingest" }),
    ]);
    expect((await json("/api/messages?to=N0CALL-9")).messages[0]).toMatchObject({ src: "N0MSG", text: "see you", msgId: "12" });
  });

  test("the same packet from the same hearer twice is stored once; another IGate's copy is kept", async () => {
    const line = "N0DUP>APRS,WIDE2-1,qAR,W1AW-10:!4237.14N/07120.83W>dupe";
    const a = await (await ingestText(line + "\n" + line + "\n")).json();
    expect(a.packets).toMatchObject({ stored: 1, duplicates: 1 });
    const b = await (await ingestText(line.replace("W1AW-10", "K1IG-10"))).json();
    expect(b.packets.stored).toBe(1);
    expect(count("SELECT count(*) AS n FROM positions WHERE call = 'N0DUP'")).toBe(2);
  });

  test("?igate= marks lines heard on RF by that IGate", async () => {
    await ingestText("N0RF>APRS,WIDE1-1:!4000.00N/07400.00W-local\n", "?igate=N0BOX-10");
    expect(g.gw.db.query("SELECT source, igate FROM positions WHERE call = 'N0RF'").get()).toEqual({ source: "rf", igate: "N0BOX-10" });
    expect((await ingestText("x", "?igate=not%20a%20call")).status).toBe(400);
  });
});

describe("POST /ingest with JSON batches", () => {
  test("packets and positions with their own times and IGates", async () => {
    const t = Date.now() - 60_000;
    const r = await ingestJson({
      heardAt: t,
      packets: ["N0J1>APRS:!4000.00N/07400.00W-one", { line: "N0J2>APRS:!4001.00N/07401.00W-two", heardAt: t + 5, igate: "N0IG-10" }],
      positions: [{ call: "n0j3-9", lat: 40.5, lon: -74.5, ts: t + 7, speedKmh: 12, course: 90, symbol: "/>", source: "browser" }],
    });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ packets: { stored: 2, positions: 2 }, positions: { stored: 1 } });
    expect(g.gw.db.query("SELECT ts, source, igate FROM positions WHERE call = 'N0J1'").get()).toEqual({ ts: t, source: "ingest", igate: null });
    expect(g.gw.db.query("SELECT ts, source, igate FROM positions WHERE call = 'N0J2'").get()).toEqual({ ts: t + 5, source: "rf", igate: "N0IG-10" });
    expect(await json("/api/stations/N0J3-9")).toMatchObject({ lat: 40.5, lon: -74.5, source: "browser", lastHeard: t + 7 });
  });

  test("bad items are refused whole with 400 (finds too, checked by the game); nothing is written", async () => {
    const before = count("SELECT count(*) AS n FROM packets");
    const bad = [
      { packets: "not a list" },
      { packets: [{ nope: 1 }] },
      { positions: [{ call: "N0X", lat: 95, lon: 0 }] },
      { positions: [{ call: "N0X", lat: 1, lon: 0, source: "rf" }] },
      { packets: ["N0X>APRS:>ok"], surprise: true },
      [1, 2],
    ];
    for (const b of bad) expect((await ingestJson(b)).status).toBe(400);
    const finds = await ingestJson({ packets: ["N0X>APRS:>ok"], finds: [{ cache: 1 }] });
    expect(finds.status).toBe(400);
    expect((await finds.json()).message).toContain("finds.0");
    expect(count("SELECT count(*) AS n FROM packets")).toBe(before);
  });

  test("a field a batch or its items do not take refuses the whole batch by name; without it the batch is stored", async () => {
    const good = () => ({
      heardAt: Date.now() - 30_000,
      packets: ["N0UF1>APRS:!4000.00N/07400.00W-one", { line: "N0UF2>APRS:!4001.00N/07401.00W-two", igate: "N0IG-10" }],
      positions: [{ call: "N0UF3-9", lat: 40.5, lon: -74.5, speedKmh: 3 }],
    });
    const stored = () => count("SELECT count(*) AS n FROM positions WHERE call IN ('N0UF1', 'N0UF2', 'N0UF3-9')");
    const cases: Array<[(b: ReturnType<typeof good>) => unknown, string, string]> = [
      [(b) => ({ ...b, surprise: true }), "body.surprise", "packets, positions, finds, heardAt, igate, key, at, sig"],
      [(b) => ({ ...b, packets: [b.packets[0], { ...(b.packets[1] as object), colour: "red" }] }), "packets.1.colour", "line, heardAt, igate"],
      [
        (b) => ({ ...b, positions: [{ ...b.positions[0], colour: "red" }] }),
        "positions.0.colour",
        "call, lat, lon, ts, altitudeM, speedKmh, course, symbol, comment, source, igate",
      ],
    ];
    for (const [stray, field, takes] of cases) {
      const r = await ingestJson(stray(good()));
      expect({ field, status: r.status, answer: await r.json() }).toEqual({
        field,
        status: 400,
        answer: { error: "invalid", message: `${field}: unknown field "${field.split(".").at(-1)}"; it takes ${takes}`, field },
      });
      expect(stored()).toBe(0);
    }
    // What a schema cannot say is still checked by hand, and names its field too.
    const rf = await ingestJson({ positions: [{ call: "N0UF4", lat: 1, lon: 2, source: "rf" }] });
    expect({ status: rf.status, field: (await rf.json()).field }).toEqual({ status: 400, field: "positions.0.igate" });
    const ig = await ingestJson({ packets: [{ line: "N0UF4>APRS:>x", igate: "not a call" }] });
    expect({ status: ig.status, field: (await ig.json()).field }).toEqual({ status: 400, field: "packets.0.igate" });
    // The control: the same batch without the stray fields is stored.
    const ok = await ingestJson(good());
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ packets: { stored: 2 }, positions: { stored: 1 } });
    expect(stored()).toBe(3);
  });

  test("a device key may ingest its own callsign's positions and packets, nobody else's", async () => {
    const owner = signedInUser(g.gw, "N0DEV");
    const kp = deviceKey(g.gw, "N0DEV", owner.id);
    const mine = signedBody(kp, "POST", "/ingest", {
      positions: [{ call: "N0DEV-7", lat: 41.1, lon: -72.2 }],
      packets: ["N0DEV-9>APRS:!4000.00N/07400.00W>mobile"],
    });
    const ok = await ingestJson(mine, {});
    expect(ok.status).toBe(200);
    expect((await json("/api/stations/N0DEV-7")).lat).toBe(41.1);
    const theirs = signedBody(kp, "POST", "/ingest", { positions: [{ call: "W1AW", lat: 41.1, lon: -72.2 }] });
    const refused = await ingestJson(theirs, {});
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe("not_your_station");
    expect((await ingestJson({ positions: [] }, {})).status).toBe(401);
    const stranger = signedBody(deviceKey(g.gw, "N0ELSE"), "POST", "/ingest", {});
    expect((await ingestJson({ ...stranger, sig: stranger.sig.replace(/^./, stranger.sig[0] === "A" ? "B" : "A") }, {})).status).toBe(401);
  });
});
