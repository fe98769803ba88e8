/**
 * FBB forwarding over the gateways' own radios: two gateways joined by a KISS
 * "null modem" (an instant, lossless channel), each a BBS with its own
 * BBS_AX25_CALL and the other as an ax25 partner. Mail and bulletins cross
 * over an AX.25 connected-mode circuit in both directions, compressed (B1)
 * and in ASCII; a duplicate BID is refused; strangers are refused; a circuit
 * that drops in the middle of a message leaves nothing half stored and the
 * message goes on the next call. Then the same through two real Direwolf TNCs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { nullModem } from "../helpers/kiss-tnc.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { forwardDue } from "../../src/bbs/forwarding.ts";
import { loadConfig } from "../../src/core/config.ts";
import { parseKissPorts, Radio, type Ax25Link } from "../../radio/index.ts";
import { direwolfInstalled, startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";
import { fromLatin1, LinkReader, LinkTimeout, type ByteLink } from "../../src/bbs/fbb/link.ts";
import { waitFor } from "../helpers/wait.ts";

const INGEST = "ingest-secret-0123456789";
const ops = { "x-ingest-secret": INGEST };
const modem = nullModem();
let A: Running;
let B: Running;
let toB: number; // A's partner id for B
let toA: number; // B's partner id for A

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}
async function created(g: Running, path: string, body: Record<string, unknown>) {
  const r = await json(await g.post(path, body, { headers: ops }));
  expect(r.status).toBe(201);
  return r.body;
}
async function compose(g: Running, cookie: string, m: Record<string, unknown>) {
  const r = await json(await g.post("/api/bbs/messages", m, { headers: { cookie } }));
  expect(r.status).toBe(201);
  return r.body;
}
const forwardNow = async (g: Running, id: number) => (await json(await g.post(`/api/bbs/partners/${id}/forward`, {}, { headers: ops }))).body;
const mailbox = async (g: Running, cookie: string) => (await json(await g.get("/api/bbs/messages", { headers: { cookie } }))).body.messages as any[];
const queueState = (g: Running, bid: string) =>
  (g.gw.db.query("SELECT q.state FROM bbs_queue q JOIN bbs_messages m ON m.id = q.message_id WHERE m.bid = ?").get(bid) as { state: string } | null)?.state;
const idle = (g: Running) => radioOf(g.gw)!.radio.ports[0]!.station.activeLinks().length === 0;
const untilIdle = () => waitFor(() => idle(A) && idle(B), "both radios idle", { everyMs: 50, timeoutMs: 5000 });

const env = (me: string, port: string) => ({
  INSTANCE: `gw-${me.toLowerCase()}`,
  INGEST_SECRET: INGEST,
  BBS_HA: `${me}.#TST.USA.NOAM`,
  KISS_PORTS: port,
  RADIO_CALL: `${me}-5`,
  BBS_AX25_CALL: `${me}-1`,
  LOG_LEVEL: process.env.BBS_DEBUG ? "debug" : "error",
});

let alice: { cookie: string };
let bob: { cookie: string };

beforeAll(async () => {
  A = await startInProcess(env("N0AAA", modem.a));
  B = await startInProcess(env("N0BBB", modem.b));
  await Promise.all([A, B].map((g) => radioOf(g.gw)!.radio.ports[0]!.port.whenConnected()));
  // the stations' callsigns are verified here: they may transmit (and answer connections)
  signedInUser(A.gw, "N0AAA", { verified: true });
  signedInUser(B.gw, "N0BBB", { verified: true });
  alice = signedInUser(A.gw, "N0ALI", { verified: true });
  bob = signedInUser(B.gw, "N0BOB", { verified: true });
  toB = (await created(A, "/api/bbs/partners", { call: "N0BBB", transport: "ax25", ax25Call: "N0BBB-1", protocol: "fbb-b1" })).id;
  toA = (await created(B, "/api/bbs/partners", { call: "N0AAA", transport: "ax25", ax25Call: "N0AAA-1", protocol: "fbb-b1" })).id;
  await created(A, "/api/bbs/forward", { partner: "N0BBB", field: "at", pattern: "N0BBB", types: "PT" });
  await created(A, "/api/bbs/forward", { partner: "N0BBB", field: "at", pattern: "WW", types: "B" });
  await created(B, "/api/bbs/forward", { partner: "N0AAA", field: "at", pattern: "N0AAA", types: "P" });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
  modem.stop();
});

describe("ax25 partners: configuration", () => {
  test("ax25Call and via are validated whole; they belong to ax25 partners only", async () => {
    const bad = [
      { call: "N0XA", transport: "ax25", ax25Call: "N0XA-16" },
      { call: "N0XA", transport: "ax25", ax25Call: "not a call" },
      { call: "N0XA", transport: "ax25", via: "RELAY" },
      { call: "N0XA", transport: "ax25", via: ["RELAY", "WIDE2-99"] },
      { call: "N0XA", transport: "ax25", via: Array(9).fill("RELAY") },
      { call: "N0XA", transport: "tcp", host: "127.0.0.1", port: 6300, ax25Call: "N0XA-1" },
      { call: "N0XA", transport: "box", via: ["RELAY"] },
    ];
    for (const body of bad) {
      const r = await json(await A.post("/api/bbs/partners", body, { headers: ops }));
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe("invalid");
      expect(r.body.message).toMatch(/ax25Call|via/);
    }
    // a second partner on the same call-SSID on the air
    const dup = await json(await A.post("/api/bbs/partners", { call: "N0BBB-1", transport: "ax25" }, { headers: ops }));
    expect(dup).toMatchObject({ status: 409, body: { error: "partner_exists" } });
    expect(dup.body.message).toContain("N0BBB-1 is already where partner N0BBB is on the air");
    expect((A.gw.db.query("SELECT count(*) AS n FROM bbs_partners").get() as { n: number }).n).toBe(1);

    // defaults: ax25Call is the call, direct; switching to tcp drops them
    const p = await created(A, "/api/bbs/partners", { call: "n0xa-2", transport: "ax25", via: ["relay", "WIDE1-1"] });
    expect(p).toMatchObject({ call: "N0XA-2", transport: "ax25", ax25Call: "N0XA-2", via: ["RELAY", "WIDE1-1"] });
    const moved = await json(await A.post(`/api/bbs/partners/${p.id}`, { transport: "tcp", host: "127.0.0.1", port: 6300 }, { headers: ops }));
    expect(moved.body).toMatchObject({ transport: "tcp", ax25Call: null, via: [] });
    await A.gw.db.query("DELETE FROM bbs_partners WHERE id = ?").run(p.id);
  });

  test("BBS_AX25_CALL: another SSID than RADIO_CALL and the node's; a gateway without it says what to set", async () => {
    const load = (e: Record<string, string>) => loadConfig({ dataDir: tmpDir(), env: e }).errors.filter((x) => x.setting === "BBS_AX25_CALL");
    expect(load({ RADIO_CALL: "N0GW-5", BBS_AX25_CALL: "N0GW-5" })[0]!.message).toContain("must differ from RADIO_CALL");
    expect(load({ RADIO_CALL: "N0GW-5", NODE_ALIAS: "GWNODE", NODE_CALL: "N0GW-7", BBS_AX25_CALL: "N0GW-7" })[0]!.message).toContain("node call");
    expect(load({ BBS_AX25_CALL: "N0GW-1" })[0]!.message).toContain("needs RADIO_CALL");
    expect(load({ RADIO_CALL: "N0GW-5", BBS_AX25_CALL: "N0GW-1" })).toEqual([]);

    const c = await startInProcess({ INGEST_SECRET: INGEST, BBS_HA: "N0CCC.#TST.USA.NOAM", INSTANCE: "gw-c" });
    try {
      const p = await created(c, "/api/bbs/partners", { call: "N0AAA", transport: "ax25", ax25Call: "N0AAA-1", poll: true });
      const r = await forwardNow(c, p.id);
      expect(r).toMatchObject({ ok: false });
      expect(r.error).toContain("set BBS_AX25_CALL");
      expect(await forwardDue(c.gw)).toEqual([{ partner: "N0AAA", result: "skipped", why: expect.stringContaining("set BBS_AX25_CALL") }]);
    } finally {
      await c.stop();
    }
  });
});

describe("FBB forwarding between two gateways over an AX.25 circuit", () => {
  test("one call carries mail and a bulletin to B and B's mail back, B1 compressed, binary intact", async () => {
    // every I frame B hears: the compressed blocks are binary (FEND, FESC, 0xFF in them)
    const heard: number[] = [];
    const off = radioOf(B.gw)!.radio.onMonitor((e) => {
      if (e.dir === "rx" && e.frame.type === "I") heard.push(...e.frame.info);
    });
    const words = ["QSL", "café", "73", "grid FN42", "Übertragung", "de", "N0ALI", "packet", "1200 bd", "#TST"];
    const long = Array.from(
      { length: 300 },
      (_, i) => `${i}: ${words.map((_w, j) => words[(i * 7 + j * 3) % words.length]).join(" ")} ${(i * 2654435761) % 1000003}`,
    ).join("\n");
    const p1 = await compose(A, alice.cookie, { type: "P", to: "N0BOB@N0BBB.#TST.USA.NOAM", subject: "Hello Bob, over the air", body: long });
    const b1 = await compose(A, alice.cookie, { type: "B", to: "ALL@WW", subject: "Net tonight", body: "Net at 2000Z on 145.500.\nAll welcome." });
    const p2 = await compose(B, bob.cookie, { type: "P", to: "N0ALI@N0AAA", subject: "Re: Hello", body: "Got it, thanks. 73" });

    const run = await forwardNow(A, toB);
    off();
    expect(run).toMatchObject({ ok: true, error: null, compression: "b1" });
    expect(run.partnerSid).toMatch(/^\[SVC-.*B1F.*\$\]$/);
    expect(run.sent).toEqual(
      expect.arrayContaining([
        { bid: p1.bid, outcome: "sent" },
        { bid: b1.bid, outcome: "sent" },
      ]),
    );
    expect(run.received).toEqual([{ bid: p2.bid, result: "stored" }]);
    for (const byte of [0xc0, 0xdb, 0xff]) expect(heard).toContain(byte);

    // On B: Bob's mail whole (UTF-8 intact), with both BBSes' R: lines; the bulletin
    const box = await mailbox(B, bob.cookie);
    expect(box.map((m) => m.bid)).toEqual([p1.bid]);
    const got = (await json(await B.get(`/api/bbs/messages/${box[0].id}`, { headers: { cookie: bob.cookie } }))).body;
    expect(got).toMatchObject({
      from: "N0ALI",
      to: "N0BOB",
      subject: "Hello Bob, over the air",
      body: long + "\n",
      origin: "fbb",
      receivedFrom: "N0AAA",
      delivery: "local",
    });
    expect(got.route).toHaveLength(2);
    expect(got.route[0]).toContain("@:N0BBB.#TST.USA.NOAM");
    const bulls = (await json(await B.get("/api/bbs/bulletins?category=ALL"))).body.messages;
    expect(bulls.map((m: any) => m.bid)).toEqual([b1.bid]);
    // On A: Bob's reply; A's queue says sent
    expect(await mailbox(A, alice.cookie)).toEqual([expect.objectContaining({ bid: p2.bid, from: "N0BOB", subject: "Re: Hello" })]);
    expect(queueState(A, p1.bid)).toBe("sent");
    expect(queueState(B, p2.bid)).toBe("sent");
    // each side recorded the session: A called B's BBS call, B answered A's
    const onA = (await json(await A.get(`/api/bbs/partners/${toB}`, { headers: ops }))).body;
    expect(onA.sessions.at(-1)).toMatchObject({ ok: true, role: "caller", via: "ax25 N0BBB-1", compression: "b1" });
    const onB = (await json(await B.get(`/api/bbs/partners/${toA}`, { headers: ops }))).body;
    expect(onB.sessions.at(-1)).toMatchObject({ ok: true, role: "answerer", via: "ax25 N0AAA-1", compression: "b1" });
    expect(onB.lastError).toBeNull();
    await untilIdle();
    expect(idle(A) && idle(B)).toBe(true);
  });

  test("ASCII when a side does not offer B1; B calls A from the scheduler", async () => {
    const sw = await json(await A.post(`/api/bbs/partners/${toB}`, { protocol: "fbb-ascii" }, { headers: ops }));
    expect(sw.body.protocol).toBe("fbb-ascii");
    const fromBob = await compose(B, bob.cookie, { type: "P", to: "N0ALI@N0AAA", subject: "ascii from B", body: "Plain text,\nthree lines,\nno compression." });
    const fromAlice = await compose(A, alice.cookie, { type: "P", to: "N0BOB@N0BBB", subject: "ascii from A", body: "Back to you in ASCII." });

    const runs = await forwardDue(B.gw);
    expect(runs).toEqual([{ partner: "N0AAA", result: "called", ok: true, error: null, received: 1, sent: 1 }]);
    const onA = (await json(await A.get(`/api/bbs/partners/${toB}`, { headers: ops }))).body;
    expect(onA.sessions.at(-1)).toMatchObject({ ok: true, role: "answerer", compression: "none", via: "ax25 N0BBB-1" });
    const mine = (await mailbox(A, alice.cookie)).find((m) => m.bid === fromBob.bid);
    const got = (await json(await A.get(`/api/bbs/messages/${mine.id}`, { headers: { cookie: alice.cookie } }))).body;
    expect(got).toMatchObject({ subject: "ascii from B", body: "Plain text,\nthree lines,\nno compression.\n", receivedFrom: "N0BBB" });
    expect((await mailbox(B, bob.cookie)).map((m) => m.bid)).toContain(fromAlice.bid);
    // nothing is due any more: its interval has not passed, and nothing waits
    expect(await forwardDue(B.gw)).toEqual([{ partner: "N0AAA", result: "skipped", why: "its interval has not passed" }]);
    await untilIdle();
  });

  test("subjects beyond Latin-1 arrive intact, in ASCII and in B1", async () => {
    for (const protocol of ["fbb-ascii", "fbb-b1"]) {
      await A.post(`/api/bbs/partners/${toB}`, { protocol }, { headers: ops });
      const subject = `Net — 5 € — ۀ ${protocol}`;
      const m = await compose(A, alice.cookie, { type: "P", to: "N0BOB@N0BBB", subject, body: "73" });
      const run = await forwardNow(A, toB);
      expect(run).toMatchObject({ ok: true, compression: protocol === "fbb-b1" ? "b1" : "none", sent: [{ bid: m.bid, outcome: "sent" }] });
      expect(B.gw.db.query("SELECT subject FROM bbs_messages WHERE bid = ?").get(m.bid)).toEqual({ subject });
      await untilIdle();
    }
  });

  test("a BID the partner already has is refused with FS -, and stored once", async () => {
    const m = await compose(A, alice.cookie, { type: "P", to: "N0BOB@N0BBB", subject: "came another way", body: "via the box" });
    // B got this BID another way first (its ingest box)
    const inbound = await json(
      await B.post(
        "/api/bbs/forward/inbound",
        { messages: [{ bid: m.bid, type: "P", from: "N0ALI", to: "N0BOB@N0BBB", subject: "came another way", text: "via the box" }] },
        { headers: ops },
      ),
    );
    expect(inbound.body.results).toEqual([expect.objectContaining({ bid: m.bid, result: "stored" })]);
    const run = await forwardNow(A, toB);
    expect(run).toMatchObject({ ok: true, sent: [{ bid: m.bid, outcome: "rejected" }] });
    expect(queueState(A, m.bid)).toBe("rejected");
    expect((B.gw.db.query("SELECT count(*) AS n FROM bbs_messages WHERE bid = ?").get(m.bid) as { n: number }).n).toBe(1);
    await untilIdle();
  });

  test("a partner behind a digipeater is called through it, and a failed connect is reported on the partner", async () => {
    const p = await created(A, "/api/bbs/partners", { call: "N0FAR", transport: "ax25", ax25Call: "N0FAR-1", via: ["RELAY"], poll: true });
    const ra = radioOf(A.gw)!.radio;
    // nobody repeats for RELAY here: once our SABM has gone out, give up the attempt
    const off = ra.onMonitor((e) => {
      if (e.dir === "tx" && e.frame.type === "SABM" && e.frame.path.map((d) => d.call).join() === "RELAY")
        setTimeout(() => ra.ports[0]!.station.activeLinks().forEach((l) => l.abort()), 0);
    });
    const r = await forwardNow(A, p.id);
    off();
    expect(r).toMatchObject({ ok: false, error: "cannot connect to N0FAR-1 via RELAY: link to N0FAR-1 ended: shutdown" });
    const after = (await json(await A.get(`/api/bbs/partners/${p.id}`, { headers: ops }))).body;
    expect(after).toMatchObject({ ax25Call: "N0FAR-1", via: ["RELAY"], lastError: r.error });
    expect(after.lastAttemptAt).toBeNumber();
    await json(await A.post(`/api/bbs/partners/${p.id}`, { enabled: false }, { headers: ops }));
  });

  test("a station that is not an ax25 partner is refused with a reason and disconnected", async () => {
    // a third station on A's side of the channel (it hears B, B hears it)
    const ports = parseKissPorts(modem.a);
    if (!ports.ok) throw ports.error;
    const other = new Radio({ ports: ports.value, call: "N9BAD-3", extraCalls: ["N0TCP"] }).start();
    try {
      await other.ports[0]!.port.whenConnected();
      await created(B, "/api/bbs/partners", { call: "N0TCP", transport: "tcp", host: "127.0.0.1", port: 6300 });
      for (const [from, why] of [
        ["N9BAD-3", "*** N9BAD-3 is not a forwarding partner of this BBS"],
        ["N0TCP", "*** N0TCP is not set up here for forwarding over the radio (its transport is tcp)"],
      ] as const) {
        const link: Ax25Link = await other.connect("N0BBB-1", { from });
        let text = "";
        link.onData((d) => (text += Buffer.from(d).toString("latin1")));
        expect(await link.closed()).toBe("remote");
        expect(text).toBe(why + "\r");
      }
    } finally {
      await other.stop();
    }
  });

  test("the circuit drops in the middle of a message: nothing half stored, it goes on the next call", async () => {
    await A.post(`/api/bbs/partners/${toB}`, { protocol: "fbb-ascii" }, { headers: ops });
    const body = Array.from({ length: 600 }, (_, i) => `line ${i} of a long message that will be cut off on the air`).join("\n");
    const m = await compose(A, alice.cookie, { type: "P", to: "N0BOB@N0BBB", subject: "cut off", body });
    const rb = radioOf(B.gw)!.radio;
    let got = 0;
    let cut = false;
    const off = rb.onMonitor((e) => {
      if (cut || e.dir !== "rx" || e.frame.type !== "I") return;
      got += e.frame.info.length;
      if (got > 8000) {
        cut = true; // B's end of the circuit vanishes (power cut): A's next frames get DM
        for (const l of rb.ports[0]!.station.activeLinks()) l.abort();
      }
    });
    const run = await forwardNow(A, toB);
    off();
    expect(cut).toBe(true);
    expect(run.ok).toBe(false);
    expect(run.error).toContain("closed");
    expect(queueState(A, m.bid)).toBe("pending");
    expect(B.gw.db.query("SELECT 1 FROM bbs_messages WHERE bid = ?").get(m.bid)).toBeNull();
    expect(B.gw.db.query("SELECT 1 FROM bbs_bids WHERE bid = ?").get(m.bid)).toBeNull();
    const onB = (await json(await B.get(`/api/bbs/partners/${toA}`, { headers: ops }))).body;
    expect(onB.sessions.at(-1)).toMatchObject({ ok: false, error: "the connection closed in the middle of a message" });
    await untilIdle();

    const again = await forwardNow(A, toB);
    expect(again).toMatchObject({ ok: true, sent: [{ bid: m.bid, outcome: "sent" }] });
    expect(queueState(A, m.bid)).toBe("sent");
    const row = B.gw.db.query("SELECT body FROM bbs_messages WHERE bid = ?").get(m.bid) as { body: string };
    expect(row.body).toBe(body + "\n");
  }, 120_000);
});

describe("a slow circuit", () => {
  test("waiting for the partner's answer does not time out while our own bytes are still going out", async () => {
    // a carrier whose answer comes 300 ms after the question, with the reader's idle limit at 100 ms
    const slow = (sending: () => boolean): ByteLink => ({
      description: "slow",
      read: () => new Promise((r) => setTimeout(() => r(fromLatin1("FS +\r")), 300)),
      write() {},
      close() {},
      sending,
    });
    const t0 = Date.now();
    let busyUntil = t0 + 250; // our message takes 250 ms to be acknowledged
    expect(
      await new LinkReader(
        slow(() => Date.now() < busyUntil),
        100,
      ).readLine(),
    ).toBe("FS +");
    // once everything is acknowledged, silence counts again
    busyUntil = 0;
    await expect(
      new LinkReader(
        slow(() => Date.now() < busyUntil),
        100,
      ).readLine(),
    ).rejects.toBeInstanceOf(LinkTimeout);
  });
});

describe.if(direwolfInstalled())("through a pair of real Direwolf TNCs (1200 baud AFSK)", () => {
  let pair: DirewolfPair;
  let C: Running;
  let D: Running;
  beforeAll(async () => {
    pair = await startDirewolfPair();
    C = await startInProcess(env("N0CCC", `tcp://127.0.0.1:${pair.a.kissPort}`));
    D = await startInProcess(env("N0DDD", `tcp://127.0.0.1:${pair.b.kissPort}`));
    await Promise.all([C, D].map((g) => radioOf(g.gw)!.radio.ports[0]!.port.whenConnected()));
    signedInUser(C.gw, "N0CCC", { verified: true });
    signedInUser(D.gw, "N0DDD", { verified: true });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([C?.stop(), D?.stop()]);
    await pair?.stop();
  });

  test("a compressed message each way in one session; the B1 bytes survive Direwolf's KISS and the air", async () => {
    const toD = (await created(C, "/api/bbs/partners", { call: "N0DDD", transport: "ax25", ax25Call: "N0DDD-1" })).id;
    await created(D, "/api/bbs/partners", { call: "N0CCC", transport: "ax25", ax25Call: "N0CCC-1" });
    await created(C, "/api/bbs/forward", { partner: "N0DDD", field: "at", pattern: "N0DDD", types: "P" });
    await created(D, "/api/bbs/forward", { partner: "N0CCC", field: "at", pattern: "N0CCC", types: "P" });
    const carol = signedInUser(C.gw, "N0CAR", { verified: true });
    const dave = signedInUser(D.gw, "N0DAV", { verified: true });
    const body = Array.from({ length: 40 }, (_, i) => `${i} ${((i * 2654435761) % 1000003).toString(36)} café QSL 73`).join("\n");
    // "ۀ" (U+06C0) is DB 80 in UTF-8: the title carries the byte KISS escapes as FESC TFESC
    const m1 = await compose(C, carol.cookie, { type: "P", to: "N0DAV@N0DDD", subject: "over Direwolf ۀ", body });
    const m2 = await compose(D, dave.cookie, { type: "P", to: "N0CAR@N0CCC", subject: "and back", body: "Received, 73." });
    const heard: number[] = [];
    const off = radioOf(D.gw)!.radio.onMonitor((e) => {
      if (e.dir === "rx" && e.frame.type === "I") heard.push(...e.frame.info);
    });
    const run = await forwardNow(C, toD);
    off();
    expect(run).toMatchObject({
      ok: true,
      error: null,
      compression: "b1",
      sent: [{ bid: m1.bid, outcome: "sent" }],
      received: [{ bid: m2.bid, result: "stored" }],
    });
    // FESC (0xDB) went through both KISS codecs escaped, and the B1 data (CRC checked) arrived whole
    expect(heard).toContain(0xdb);
    expect(D.gw.db.query("SELECT subject FROM bbs_messages WHERE bid = ?").get(m1.bid)).toEqual({ subject: "over Direwolf ۀ" });
    expect((D.gw.db.query("SELECT body FROM bbs_messages WHERE bid = ?").get(m1.bid) as { body: string }).body).toBe(body + "\n");
    expect((await mailbox(C, carol.cookie)).map((m) => m.bid)).toEqual([m2.bid]);
  }, 180_000);
});
