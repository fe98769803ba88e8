/**
 * Forwarding with the real F6FBB BBS (Debian `fbb`, xfbbd 7.0.11) over TCP.
 *
 * Exchange 1, ASCII, the gateway calling: right after FBB starts (it imports
 * its mail at start-up), the gateway logs in to FBB's telnet port; FBB
 * forwards a personal message and a bulletin, the gateway forwards its own,
 * in one session. A duplicate BID is refused both ways.
 * Exchange 2, B1 compressed, FBB calling: FBB imports new mail and forwards
 * on a minute boundary (so this exchange takes up to a minute or two); the
 * gateway answers, takes FBB's mail compressed and sends its own compressed.
 * What FBB stored is read from FBB's own files (dirmes.sys, mail/*.mes).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { bbsGateway, fbbAvailable, startFbb, type Fbb } from "../helpers/fbb.ts";
import { activeSessions, fbbPort, recentSessions } from "../../src/bbs/forwarding.ts";
import { waitFor } from "../helpers/wait.ts";
import { freePort } from "../helpers/ports.ts";

const INGEST = "ingest-secret-0123456789";
const ops = { "x-ingest-secret": INGEST };

let g: Running;
let fbb: Fbb;
let alice: TestUser;
let partnerId: number;
const t0 = Date.now();

async function json(r: Response) {
  return { status: r.status, body: (await r.json()) as any };
}

/** Waits for a condition the gateway reaches by itself (FBB calls on its own schedule). */
const until = <T>(what: string, probe: () => T | null | undefined | false, timeoutMs = 130_000) =>
  waitFor(probe, () => `${what}\nFBB log:\n${fbb.log()}`, { timeoutMs, everyMs: 250 });

const gwMessage = (where: string, ...args: Array<string | number>) =>
  g.gw.db
    .query(
      `SELECT bid, type, from_call AS "from", to_call AS "to", at_bbs AS at, subject, body, route, origin, received_from AS receivedFrom FROM bbs_messages WHERE ${where}`,
    )
    .get(...args) as any;

const long = (tag: string) => Array.from({ length: 60 }, (_, i) => `${tag} line ${i}: the quick brown fox jumps over the lazy dog 0123456789`).join("\n");

/** Messages the ingest box hands in for forwarding (POST /api/bbs/forward/inbound). */
const handIn = async (messages: object[]) => json(await g.post("/api/bbs/forward/inbound", { messages }, { headers: ops }));

describe.skipIf(!fbbAvailable())("forwarding with a real F6FBB", () => {
  beforeAll(async () => {
    g = await bbsGateway("gw-test", "N0GW.#TST.USA.NOAM", INGEST);
    const telnetPort = await freePort();
    const p = await json(
      await g.post("/api/bbs/partners", { call: "N0FBB", transport: "tcp", host: "127.0.0.1", port: telnetPort, protocol: "fbb-ascii" }, { headers: ops }),
    );
    partnerId = p.body.id;
    for (const r of [
      { partner: "N0FBB", field: "at", pattern: "N0FBB", types: "PT" },
      { partner: "N0FBB", field: "at", pattern: "WW", types: "B" },
    ])
      expect((await g.post("/api/bbs/forward", r, { headers: ops })).status).toBe(201);

    alice = signedInUser(g.gw, "N0ALI", { verified: true });
    const compose = async (m: object) => expect((await g.post("/api/bbs/messages", m, { headers: { cookie: alice.cookie } })).status).toBe(201);
    await compose({
      type: "P",
      to: "N0SYS@N0FBB.#TST.USA.NOAM",
      subject: "Gateway personal (ascii)",
      body: "Hello sysop,\nthis came from the gateway.\n73 N0ALI",
    });
    await compose({ type: "B", to: "ALL@WW", subject: "Gateway bulletin (ascii)", body: "A bulletin from the gateway." });
    // The box hands in two messages: DUPE1 (which FBB already has; we will offer it)
    // and GWDUP1 (local here; FBB will offer it to us).
    const inb = await handIn([
      { bid: "DUPE1", type: "P", from: "N0BOX", to: "N0XYZ@N0FBB.#TST.USA.NOAM", subject: "dupe one", text: "known to FBB" },
      { bid: "GWDUP1", type: "P", from: "N0BOX", to: "N0ALI", subject: "dupe two", text: "known to the gateway" },
    ]);
    expect(inb.body.results.map((r: any) => r.result)).toEqual(["stored", "stored"]);

    fbb = await startFbb({
      call: "N0FBB",
      ha: "N0FBB.#TST.USA.NOAM",
      gatewayCall: "N0GW",
      gatewayPort: fbbPort(g.gw)!,
      telnetPort,
      clockSpeed: 10,
      mailIn: [
        "SP N0ALI @ N0GW < N0SYS",
        "FBB personal (ascii)",
        "Hello Alice, this is the FBB sysop.",
        "/EX",
        "SB ALL @ WW < N0SYS",
        "FBB bulletin (ascii)",
        "Bulletin text from FBB.",
        "/EX",
        "SB ALL @ WW < N0SYS $GWDUP1",
        "Already on the gateway",
        "The gateway has this BID.",
        "/EX",
        "SP N0XYZ @ N0ELSE < N0SYS $DUPE1",
        "FBB only",
        "Not routed to the gateway.",
        "/EX",
        "",
      ].join("\n"),
    });
    // FBB builds its files and imports the mail before it answers: well over a minute on a loaded 2-core machine
  }, 150_000);

  afterAll(async () => {
    await fbb?.stop();
    await g?.stop();
  });

  /** Forward now; if FBB is calling us at that moment, wait for its session and call again. */
  async function forwardNow() {
    let call: any;
    for (let i = 0; i < 5; i++) {
      call = (await json(await g.post(`/api/bbs/partners/${partnerId}/forward`, {}, { headers: ops }))).body;
      if (!String(call.error).includes("already in a session")) break;
      await until("FBB's own call to end", () => activeSessions(g.gw).length === 0);
    }
    return call;
  }

  test("exchange 1 (ASCII, the gateway calls): mail and bulletins cross both ways; duplicate BIDs refused both ways", async () => {
    await fbb.imported();
    const session = await forwardNow();
    expect(session).toMatchObject({ ok: true, error: null, compression: "none" });
    expect(session.partnerSid).toContain("FBB-7.0.11");

    // FBB -> gateway: the personal message and the bulletin, whole, with FBB's R: line.
    const p = gwMessage("subject = ?", "FBB personal (ascii)");
    expect(p).toMatchObject({ type: "P", from: "N0SYS", to: "N0ALI", origin: "fbb", receivedFrom: "N0FBB" });
    expect(p.body).toContain("Hello Alice, this is the FBB sysop.");
    expect(p.route).toContain("@:N0FBB.#TST.USA.NOAM");
    expect(p.bid).toMatch(/^\d+_N0FBB$/);
    const b = gwMessage("subject = ?", "FBB bulletin (ascii)");
    expect(b).toMatchObject({ type: "B", to: "ALL", at: "WW", from: "N0SYS" });
    expect(b.body).toContain("Bulletin text from FBB.");
    const box = await json(await g.get("/api/bbs/messages", { headers: { cookie: alice.cookie } }));
    expect(box.body.messages.map((m: any) => m.subject)).toContain("FBB personal (ascii)");

    // Duplicate FBB -> gateway: GWDUP1 answered "-", not stored twice.
    expect(session.received).toContainEqual({ bid: "GWDUP1", result: "rejected" });
    expect((g.gw.db.query("SELECT count(*) AS n FROM bbs_messages WHERE bid = 'GWDUP1'").get() as any).n).toBe(1);
    expect(gwMessage("bid = 'GWDUP1'").subject).toBe("dupe two");

    // Gateway -> FBB: both accepted; DUPE1 refused by FBB as a duplicate.
    expect(session.sent).toContainEqual({ bid: "DUPE1", outcome: "rejected" });
    const ours = session.sent.filter((x: any) => x.outcome === "sent").map((x: any) => x.bid);
    expect(ours).toHaveLength(2);
    const stored = fbb.messages();
    const mine = stored.filter((m) => ours.includes(m.bid));
    expect(mine.map((m) => [m.type, m.from, m.to, m.title]).sort()).toEqual([
      ["B", "N0ALI", "ALL", "Gateway bulletin (ascii)"],
      ["P", "N0ALI", "N0SYS", "Gateway personal (ascii)"],
    ]);
    const mp = mine.find((m) => m.type === "P")!;
    expect(mp.text).toContain("@:N0GW.#TST.USA.NOAM");
    expect(mp.text).toContain("this came from the gateway.\n73 N0ALI");
    // FBB kept exactly one DUPE1: its own.
    expect(stored.filter((m) => m.bid === "DUPE1").map((m) => m.title)).toEqual(["FBB only"]);
    // The gateway's queue: sent, and DUPE1 rejected (not offered again).
    const q = g.gw.db.query("SELECT m.bid, q.state FROM bbs_queue q JOIN bbs_messages m ON m.id = q.message_id ORDER BY m.bid").all();
    expect(q).toEqual(expect.arrayContaining([{ bid: "DUPE1", state: "rejected" }, ...ours.map((bid: string) => ({ bid, state: "sent" }))]));
  }, 150_000);

  test("exchange 2 (B1, FBB calls): compressed mail crosses both ways", async () => {
    expect((await g.post(`/api/bbs/partners/${partnerId}`, { protocol: "fbb-b1" }, { headers: ops })).status).toBe(200);
    // FBB calls on every (fast-clock) minute: a call begun before the switch is still ASCII.
    // Count only sessions that end after every such call has ended (the list keeps the last 10).
    await until("a call begun before the switch to end", () => activeSessions(g.gw).length === 0);
    const switched = Date.now();
    const compose = async (m: object) => (await json(await g.post("/api/bbs/messages", m, { headers: { cookie: alice.cookie } }))).body;
    const handIn = async (m: object) => {
      const r = await json(await g.post("/api/bbs/forward/inbound", { messages: [m] }, { headers: ops }));
      expect(r.body.results.map((x: any) => x.result)).toEqual(["stored"]);
    };
    // Duplicates again, this time in B1 mode. GWDUP2: the gateway has it before FBB, which will offer it, imports it.
    await handIn({ bid: "GWDUP2", type: "B", from: "N0BOX", to: "ALL", subject: "dupe four", text: "known to the gateway, local bulletin" });
    fbb.importMail(
      [
        "SP N0ALI @ N0GW < N0SYS",
        "FBB personal (B1)",
        long("fbb"),
        "/EX",
        "SB ALL @ WW < N0SYS",
        "FBB bulletin (B1)",
        "Compressed bulletin from FBB.",
        "/EX",
        "SB ALL @ WW < N0SYS $GWDUP2",
        "Already on the gateway (B1)",
        "x",
        "/EX",
        "SP N0XYZ @ N0ELSE < N0SYS $DUPE2",
        "FBB only (B1)",
        "x",
        "/EX",
        "",
      ].join("\n"),
    );
    // DUPE2: only once FBB holds its own copy does the gateway queue one to offer (offered earlier, FBB would take it)
    await fbb.imported();
    await handIn({ bid: "DUPE2", type: "P", from: "N0BOX", to: "N0XYZ@N0FBB.#TST.USA.NOAM", subject: "dupe three", text: "known to FBB" });
    const gp = await compose({ type: "P", to: "N0SYS@N0FBB.#TST.USA.NOAM", subject: "Gateway personal (B1)", body: long("gw") });
    const gb = await compose({ type: "B", to: "ALL@WW", subject: "Gateway bulletin (B1)", body: "Compressed bulletin from the gateway." });
    // FBB takes the mail in and calls us on a minute boundary.
    await until("FBB's B1 mail on the gateway", () => gwMessage("subject = ?", "FBB personal (B1)") && gwMessage("subject = ?", "FBB bulletin (B1)"));
    const offered = () =>
      recentSessions(g.gw, partnerId)
        .filter((x) => x.at >= switched)
        .flatMap((x) => x.sent)
        .map((x) => x.bid);
    await until("the gateway's own mail offered to FBB", () => [gp.bid, gb.bid, "DUPE2"].every((b) => offered().includes(b)));
    await until("that session to end", () => activeSessions(g.gw).length === 0);
    const since = recentSessions(g.gw, partnerId).filter((x) => x.at >= switched);
    expect(since.map((x) => [x.ok, x.role, x.compression])).toEqual(since.map(() => [true, "answerer", "b1"]));
    expect(since[0]!.partnerSid).toContain("B1F");
    expect(since.flatMap((x) => x.received).filter((r) => r.result === "stored")).toHaveLength(2);
    expect(since.flatMap((x) => x.sent)).toEqual(
      expect.arrayContaining([
        { bid: gp.bid, outcome: "sent" },
        { bid: gb.bid, outcome: "sent" },
        { bid: "DUPE2", outcome: "rejected" },
      ]),
    );
    expect(since.flatMap((x) => x.received)).toContainEqual({ bid: "GWDUP2", result: "rejected" });
    expect((g.gw.db.query("SELECT count(*) AS n FROM bbs_messages WHERE bid IN ('GWDUP2', 'DUPE2')").get() as any).n).toBe(2);

    // FBB -> gateway, compressed: whole bodies.
    const p = gwMessage("subject = ?", "FBB personal (B1)");
    expect(p).toMatchObject({ type: "P", from: "N0SYS", to: "N0ALI", receivedFrom: "N0FBB" });
    expect(p.body).toContain(long("fbb"));
    expect(gwMessage("subject = ?", "FBB bulletin (B1)").body).toContain("Compressed bulletin from FBB.");
    // Gateway -> FBB, compressed: FBB stored both, bodies intact.
    const stored = fbb.messages();
    const fp = stored.find((m) => m.bid === gp.bid)!;
    expect(fp).toMatchObject({ type: "P", from: "N0ALI", to: "N0SYS", title: "Gateway personal (B1)" });
    expect(fp.text).toContain(long("gw"));
    expect(stored.find((m) => m.bid === gb.bid)).toMatchObject({ type: "B", to: "ALL", at: "WW", title: "Gateway bulletin (B1)" });
    expect(stored.filter((m) => m.bid === "DUPE2").map((m) => m.title)).toEqual(["FBB only (B1)"]);
    console.log(`real FBB exchanges took ${Math.round((Date.now() - t0) / 1000)} s`);
  }, 150_000);
});
