/**
 * Radio-side holes a red-team run of main got through (issue 25 item 8), each
 * attack done again against a running gateway with a fake TNC as its radio
 * (the fake plays the digipeater that repeats what we send), each beside its
 * legitimate path as the control:
 *
 *   H1  a program on the KISS server transmits as the sysop's call; the
 *       digipeater's echo must not verify a call nor make a find Tier A, and
 *       KISS clients transmit only with KISS_SERVER_TX=on, only as calls
 *       verified here; a bare KISS_SERVER port listens on loopback only
 *   M2  a device key names an IGate in what it posts to /ingest (query, batch
 *       field, packet field, rf position, a qAR line): never an RF sighting
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { deviceKey, signedBody, signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { encodeFrame, encodeKiss } from "../../radio/index.ts";
import { aprsPos } from "../helpers/aprs.ts";

const INGEST = "radio-holes-ingest-secret";
let tnc: FakeTnc;
let g: Running; // KISS_SERVER_TX=on; N0SYS is the sysop, RADIO_CALL N0SYS-10
let sysop: TestUser;
let owner: TestUser;

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0SYS-10",
    ADMIN_CALLSIGNS: "N0SYS",
    KISS_SERVER: "127.0.0.1:0",
    KISS_SERVER_TX: "on",
    RADIO_TX_PER_MINUTE: "60",
    INGEST_SECRET: INGEST,
  });
  await tnc.connected();
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
});
afterAll(async () => {
  await g?.stop();
  tnc?.stop();
});

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser, r: Running = g) => ({
  get: (p: string) => r.get(p, { headers: { cookie: u.cookie } }),
  post: (p: string, body: unknown) => r.post(p, body, { headers: { cookie: u.cookie } }),
});

/** A KISS client of `r`'s KISS server: it only sends. */
async function kissClient(r: Running): Promise<{ send(line: string): void; close(): void }> {
  const s: Socket<undefined> = await Bun.connect({ hostname: "127.0.0.1", port: r.gw.hub!.kiss!.port, socket: { data() {} } });
  return { send: (line) => void s.write(encodeKiss(encodeFrame(tnc2Frame(line)), 0)), close: () => s.end() };
}

const kissStats = async (r: Running) => ((await json(await r.get("/api/ports"))).ports as Array<Record<string, any>>).find((p) => p.name === "kiss-server")!;

async function until<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 5000): Promise<NonNullable<T>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** The frame as a digipeater repeats it: same source, destination and information, the path used up. */
const digipeated = (line: string) => line.replace(/^([^>]+>[^,:]+)(,[^:]*)?:/, "$1,N0DIG-1*:");

async function newCache(lat: number, lon: number) {
  const r = await as(owner).post("/api/caches", { name: `Cache ${lat},${lon}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon });
  expect(r.status).toBe(201);
  return json(r);
}
const findTier = (logId: number) => (g.gw.db.query("SELECT tier FROM logs WHERE id = ?").get(logId) as { tier: string }).tier;

describe("H1: what we transmit is never proof when it comes back", () => {
  test("a KISS client sends the sysop's call with a takeover code; the digipeater's echo is stored but verifies nothing, while a message really heard on the air does", async () => {
    const mallory = signedInUser(g.gw, "N0MAL");
    expect((await as(mallory).post("/auth/callsigns", { add: "N0SYS" })).status).toBe(200);
    const ch = await json(await as(mallory).post("/verify/aprs/start", { call: "N0SYS" }));
    expect(ch).toMatchObject({ status: "pending", takeover: true, accepts: ["radio", "box"] });

    const c = await kissClient(g);
    const line = `N0SYS>APRS,WIDE1-1::${ch.addressee.padEnd(9)}:VERIFY ${ch.code}`;
    const from = tnc.sent.length;
    c.send(line);
    // N0SYS is verified here: the frame goes on the air, as the sysop allowed (KISS_SERVER_TX=on)
    const [out] = await tnc.waitSent(1, { from });
    expect(tnc2Text(out!)).toBe(line);
    // ... and a digipeater repeats it: the gateway hears it back
    tnc.hear(tnc2Frame(digipeated(line)));
    const stored = await until("the echo stored", () =>
      g.gw.db.query("SELECT source, igate, proof FROM aprs_messages WHERE src = 'N0SYS' AND instr(text, ?) > 0").get(ch.code),
    );
    expect(stored).toEqual({ source: "rf", igate: "N0SYS-10", proof: "relayed" });
    expect(g.gw.db.query("SELECT via FROM packets WHERE src = 'N0SYS' AND instr(raw, ?) > 0").get(ch.code)).toEqual({ via: "echo" });
    expect((await as(mallory).post("/verify/aprs/confirm", { call: "N0SYS" })).status).toBe(409);
    expect((await json(await as(mallory).get("/verify/aprs/status?call=N0SYS"))).status).toBe("pending");
    expect(await json(await as(sysop).get("/auth/callsign"))).toEqual({ call: "N0SYS", verified: true });
    expect((await as(mallory).get("/api/admin/audit")).status).toBe(403);

    // the control: a challenge answered by a station really heard on the air verifies
    const ham = signedInUser(g.gw, "N0HAM");
    const hc = await json(await as(ham).post("/verify/aprs/start", { call: "N0HAM" }));
    tnc.hear(tnc2Frame(`N0HAM-7>APRS,N0DIG-1*::${hc.addressee.padEnd(9)}:VERIFY ${hc.code}`));
    await until("N0HAM verified", async () => (await json(await as(ham).get("/verify/aprs/status?call=N0HAM"))).status === "verified");
    c.close();
  });

  test("a position sent through us and repeated by a digipeater does not make a find Tier A; a position really heard does", async () => {
    const bob = signedInUser(g.gw, "N0BOB", { verified: true });
    const cache = await newCache(47.5, 9.5);
    const find = await json(await as(bob).post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "from my sofa" }));
    expect(find.tier).toBe("b");

    const c = await kissClient(g);
    const line = `N0BOB-7>APRS,WIDE1-1:${aprsPos(47.5, 9.5)}`;
    const from = tnc.sent.length;
    c.send(line);
    await tnc.waitSent(1, { from });
    tnc.hear(tnc2Frame(digipeated(line)));
    const pos = await until("the echoed position stored", () => g.gw.db.query("SELECT source, via FROM positions WHERE call = 'N0BOB-7'").get());
    expect(pos).toEqual({ source: "rf", via: "echo" });
    expect(findTier(find.id)).toBe("b");
    // nor does a find logged now, next to the echoed position
    const cache2 = await newCache(47.5001, 9.5001);
    const find2 = await json(await as(bob).post(`/api/caches/${cache2.id}/logs`, { kind: "find", text: "again" }));
    expect(find2.tier).toBe("b");

    // the control: N0BOB's own transmission, heard on our radio, corroborates both
    tnc.hear(tnc2Frame(`N0BOB-9>APRS,N0DIG-1*:${aprsPos(47.5, 9.5)}`));
    await until("the find promoted", () => findTier(find.id) === "a");
    expect(findTier(find2.id)).toBe("a");
    c.close();
  });

  test("a position a user queues on the web (the outbox) goes out on our radio; repeated by a digipeater it does not make the user's find Tier A", async () => {
    const home = signedInUser(g.gw, "N0HOM", { verified: true });
    const cache = await newCache(45.5, 6.5);
    const find = await json(await as(home).post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "logged from home" }));
    expect(find.tier).toBe("b");
    const from = tnc.sent.length;
    expect((await as(home).post("/api/tx/aprs", { kind: "position", lat: 45.5, lon: 6.5 })).status).toBe(200);
    const [out] = await tnc.waitSent(1, { from, timeoutMs: 15_000 });
    const line = tnc2Text(out!);
    expect(line.startsWith("N0HOM>")).toBe(true);
    tnc.hear(tnc2Frame(digipeated(line)));
    expect(await until("the echo stored", () => g.gw.db.query("SELECT source, via FROM positions WHERE call = 'N0HOM'").get())).toEqual({
      source: "rf",
      via: "echo",
    });
    expect(findTier(find.id)).toBe("b");
  });

  test("the radio box transmits the outbox for us: a line it leased and then hears back through a digipeater is an echo too", async () => {
    const b = await startInProcess({ INGEST_SECRET: INGEST });
    try {
      const own = signedInUser(b.gw, "N0OWN", { verified: true });
      const user = signedInUser(b.gw, "N0BXU", { verified: true });
      const asIn = (u: TestUser) => as(u, b);
      const cache = await json(
        await asIn(own).post("/api/caches", { name: "Box cache", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 44.5, lon: 5.5 }),
      );
      const find = await json(await asIn(user).post(`/api/caches/${cache.id}/logs`, { kind: "find" }));
      expect(find.tier).toBe("b");
      expect((await asIn(user).post("/api/tx/aprs", { kind: "position", lat: 44.5, lon: 5.5 })).status).toBe(200);
      const box = { headers: { "x-ingest-secret": INGEST } };
      const leased = (await json(await b.get("/outbox", box))).items as Array<{ id: number; line: string }>;
      expect(leased.length).toBe(1);
      expect((await b.post("/outbox/ack", { sent: [leased[0]!.id] }, box)).status).toBe(200);
      // the box hears its own transmission repeated, and posts it as its radio heard it
      const echo = await b.post("/ingest?igate=N0BOX-10", `${digipeated(leased[0]!.line)}\n`, {
        headers: { ...box.headers, "content-type": "text/plain" },
      });
      expect(echo.status).toBe(200);
      expect(b.gw.db.query("SELECT source, igate, via FROM positions WHERE call = 'N0BXU'").get()).toEqual({ source: "rf", igate: "N0BOX-10", via: "echo" });
      const tier = () => (b.gw.db.query("SELECT tier FROM logs WHERE id = ?").get(find.id) as { tier: string }).tier;
      expect(tier()).toBe("b");
      // the control: the user's own radio, heard by the box, corroborates
      const heard = await b.post("/ingest?igate=N0BOX-10", `N0BXU-7>APRS,N0DIG-1*:${aprsPos(44.5, 5.5)}\n`, {
        headers: { ...box.headers, "content-type": "text/plain" },
      });
      expect(heard.status).toBe(200);
      await until("the find promoted", () => tier() === "a");
    } finally {
      await b.stop();
    }
  });

  test("KISS_SERVER_TX=on: a frame whose source is not verified here is refused and never reaches the TNC; RADIO_CALL (any SSID) goes out", async () => {
    const c = await kissClient(g);
    const before = await kissStats(g);
    const from = tnc.sent.length;
    c.send("N0EVL>APRS,WIDE1-1::N0SYS    :VERIFY ABCDEF");
    await until("the refusal counted", async () => (await kissStats(g)).notAllowed > before.notAllowed);
    c.send("N0SYS-10>APRS,WIDE1-1:>the station itself");
    c.send("N0SYS-5>APRS:>another SSID of RADIO_CALL");
    const out = await tnc.waitSent(2, { from });
    expect(out.map(tnc2Text)).toEqual(["N0SYS-10>APRS,WIDE1-1:>the station itself", "N0SYS-5>APRS:>another SSID of RADIO_CALL"]);
    expect(
      tnc.sent
        .slice(from)
        .map(tnc2Text)
        .some((l) => l.startsWith("N0EVL")),
    ).toBe(false);
    expect(await kissStats(g)).toMatchObject({ notAllowed: before.notAllowed + 1, sent: before.sent + 2, txOff: 0, transmit: true });
    c.close();
  });

  test("KISS_SERVER_TX off (the default): a client's frames never reach the TNC and are counted; a bare KISS_SERVER port listens on loopback", async () => {
    const tnc2 = fakeTnc();
    const g2 = await startInProcess({ KISS_PORTS: tnc2.url, RADIO_CALL: "N0TWO-10", KISS_SERVER: "0" });
    try {
      await tnc2.connected();
      await radioOf(g2.gw)!.radio.ports[0]!.port.whenConnected();
      signedInUser(g2.gw, "N0TWO", { verified: true });
      const p = await kissStats(g2);
      expect(p.listen).toBe(`127.0.0.1:${g2.gw.hub!.kiss!.port}`);
      expect(p.transmit).toBe(false);
      const c = await kissClient(g2);
      c.send("N0TWO-10>APRS,WIDE1-1:>RADIO_CALL itself, from a local program");
      c.send("N0TWO-10>APRS:>twice");
      await until("the frames counted", async () => (await kissStats(g2)).txOff === 2);
      expect(await kissStats(g2)).toMatchObject({ refused: 2, txOff: 2, sent: 0 });
      // the radio itself transmits (its frames are not the client's): nothing of the client's went out
      expect(tnc2.sent.map(tnc2Text).filter((l) => l.includes("local program") || l.includes("twice"))).toEqual([]);
      c.close();
    } finally {
      await g2.stop();
      tnc2.stop();
    }
  });
});

describe("M2: a device key's posts are never RF sightings", () => {
  test("naming an IGate in the query, the batch, a packet or an rf position is refused with 403 not_an_igate and stores nothing; a qAR line is stored as the key's own, not as heard on RF; the box's qAR line still corroborates", async () => {
    const eve = signedInUser(g.gw, "N0EVE", { verified: true });
    const kp = deviceKey(g.gw, "N0EVE", eve.id);
    const cache = await newCache(46.5, 7.5);
    const find = await json(await as(eve).post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "tier A please" }));
    expect(find.tier).toBe("b");
    const pos = aprsPos(46.5, 7.5);
    const post = (body: Record<string, unknown>, query = "") => g.post(`/ingest${query}`, signedBody(kp, "POST", "/ingest", body));
    const positions = () => (g.gw.db.query("SELECT count(*) AS n FROM positions WHERE call LIKE 'N0EVE%'").get() as { n: number }).n;

    const ways: Array<[string, Record<string, unknown>, string?]> = [
      ["query igate", { packets: [`N0EVE-7>APRS,WIDE1-1:${pos}`] }, "?igate=W1AW-10"],
      ["batch igate", { igate: "W1AW-10", packets: [`N0EVE-7>APRS,WIDE1-1:${pos}`] }],
      ["packet igate", { packets: [{ line: `N0EVE-7>APRS,WIDE1-1:${pos}`, igate: "W1AW-10" }] }],
      ["rf position", { positions: [{ call: "N0EVE-7", lat: 46.5, lon: 7.5, source: "rf", igate: "W1AW-10" }] }],
    ];
    for (const [way, body, query] of ways) {
      const r = await post(body, query);
      expect([way, r.status]).toEqual([way, 403]);
      expect(await json(r)).toMatchObject({ error: "not_an_igate" });
    }
    expect(positions()).toBe(0);
    expect(findTier(find.id)).toBe("b");

    // a line whose path says an IGate heard it (qAR): the key's own position, stored as posted by it
    const r = await post({ packets: [`N0EVE-7>APRS,WIDE1-1,qAR,W1AW-10:${pos}`] });
    expect(r.status).toBe(200);
    expect(g.gw.db.query("SELECT source, igate FROM positions WHERE call = 'N0EVE-7'").get()).toEqual({ source: "ingest", igate: null });
    expect(findTier(find.id)).toBe("b");
    // nor does a find logged next to it reach Tier A
    const cache2 = await newCache(46.5001, 7.5001);
    expect((await json(await as(eve).post(`/api/caches/${cache2.id}/logs`, { kind: "find" }))).tier).toBe("b");
    // the key's plain packets still go in (the control)
    expect((await post({ packets: [`N0EVE-7>APRS,TCPIP*:>still here`] })).status).toBe(200);

    // the operator's ingest box reporting the same line as heard by an IGate corroborates
    const box = await g.post("/ingest", { packets: [`N0EVE-9>APRS,WIDE1-1,qAR,W1AW-10:${pos}`] }, { headers: { "x-ingest-secret": INGEST } });
    expect(box.status).toBe(200);
    await until("the find promoted", () => findTier(find.id) === "a");
  });
});
