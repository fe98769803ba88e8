/**
 * The BBS over HTTP against a real in-process gateway: composing and the bad
 * input it refuses (nothing stored), who may read, mark and kill personal
 * mail, threads, bulletins and the hidden SVCFED category, NTS traffic,
 * routing by rules and White Pages, the White Pages themselves, partner and
 * rule validation, the ingest box's backend (pool, sent, inbound, kill, and
 * an FBB session relayed byte for byte), and the forwarding scheduler's
 * choices.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { checksumAdd, formatBlockEnd } from "../../src/bbs/fbb/proposal.ts";
import { forwardDue } from "../../src/bbs/forwarding.ts";
import { inTimeBands } from "../../src/bbs/partners.ts";
import { parseAddress } from "../../src/bbs/address.ts";
import { unknownOriginCarrier } from "../helpers/fed.ts";

const INGEST = "ingest-secret-0123456789";
const ops = { "x-ingest-secret": INGEST };
let g: Running;
let alice: TestUser;
let bob: TestUser;
let eve: TestUser;
let claimant: TestUser;
let admin: TestUser;

beforeAll(async () => {
  g = await startInProcess({
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPS",
    BBS_HA: "N0GW.#TST.USA.NOAM",
    BBS_MAX_MESSAGE_BYTES: "4096",
    INSTANCE: "gw-api",
  });
  alice = signedInUser(g.gw, "N0ALI-9", { verified: true });
  bob = signedInUser(g.gw, "N0BOB", { verified: true });
  eve = signedInUser(g.gw, "N0EVE", { verified: true });
  claimant = signedInUser(g.gw, "N0BOB-5"); // claims Bob's call, unverified
  admin = signedInUser(g.gw, "N0OPS", { verified: true });
});
afterAll(() => g.stop());

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const r = await g.get(path, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as any) : null };
}
const as = (u: TestUser) => ({ cookie: u.cookie });
const count = () => (g.gw.db.query("SELECT count(*) AS n FROM bbs_messages").get() as { n: number }).n;

describe("composing", () => {
  test("a personal message to a local user: stored, from the base call, with our R: line", async () => {
    const r = await call("POST", "/api/bbs/messages", { to: "n0bob", subject: "Hello", body: "Hi Bob\n73" }, as(alice));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      type: "P",
      from: "N0ALI",
      to: "N0BOB",
      at: null,
      delivery: "local",
      subject: "Hello",
      body: "Hi Bob\n73",
      read: false,
      origin: "local",
    });
    expect(r.body.bid).toMatch(/^\d+_N0GW$/);
    expect(r.body.route).toEqual([expect.stringMatching(/^R:\d{6}\/\d{4}Z @:N0GW\.#TST\.USA\.NOAM #:\d+ \[gw-api\] \$:\d+_N0GW$/)]);
  });

  test("bad input is refused with a reason and stores nothing", async () => {
    const before = count();
    const bad: Array<[object, number, string]> = [
      [{ to: "N0BOB@", subject: "s", body: "b" }, 400, "bad_address"],
      [{ to: "N0BOB@N0XBB..USA", subject: "s", body: "b" }, 400, "bad_address"],
      [{ to: "N0BOB@#TST.USA", subject: "s", body: "b" }, 400, "bad_address"],
      [{ to: "NOTACALL", subject: "s", body: "b" }, 400, "bad_address"],
      [{ to: "N0BOB@N0XBB.TOOLONGX", subject: "s", body: "b" }, 400, "bad_address"],
      [{ to: "A@B@C", subject: "s", body: "b" }, 400, "bad_address"],
      [{ type: "B", to: "ALL-STARS@WW", subject: "s", body: "b" }, 400, "bad_address"],
      [{ type: "X", to: "N0BOB", subject: "s", body: "b" }, 400, "invalid"],
      [{ to: "N0BOB", subject: "", body: "b" }, 400, "invalid"],
      [{ to: "N0BOB", subject: "x".repeat(81), body: "b" }, 400, "invalid"],
      [{ to: "N0BOB", subject: "s", body: "bell\x07" }, 400, "invalid"],
      [{ to: "N0BOB", subject: "s" }, 400, "invalid"],
      [{ to: "N0BOB", subject: "s", body: "x".repeat(5000) }, 413, "too_large"],
      [{ to: "N0BOB", subject: "s", body: "b", replyTo: 999999 }, 404, "not_found"],
    ];
    for (const [body, status, code] of bad) {
      const r = await call("POST", "/api/bbs/messages", body, as(alice));
      expect({ body, status: r.status, code: r.body.error }).toEqual({ body, status, code });
      expect(r.body.message.length).toBeGreaterThan(5);
    }
    expect((await call("POST", "/api/bbs/messages", "not json", as(alice))).status).toBe(400);
    // a body that fits alone but not with the R: line this BBS adds is refused too
    const edge = await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "s", body: "x".repeat(4060) }, as(alice));
    expect([edge.status, edge.body.error]).toEqual([413, "too_large"]);
    expect(count()).toBe(before);
    expect((await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "s", body: "x".repeat(3900) }, as(alice))).status).toBe(201);
  });

  test("writing needs a verified callsign", async () => {
    expect((await call("POST", "/api/bbs/messages", { to: "N0ALI", subject: "s", body: "b" })).status).toBe(401);
    const r = await call("POST", "/api/bbs/messages", { to: "N0ALI", subject: "s", body: "b" }, as(claimant));
    expect([r.status, r.body.error]).toEqual([403, "callsign_not_verified"]);
  });
});

describe("who reads personal mail", () => {
  let id = 0;
  beforeAll(async () => {
    id = (await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "Private", body: "for Bob only" }, as(alice))).body.id;
  });

  test("the addressee (any SSID of the verified call), the sender and the sysop; nobody else", async () => {
    expect((await call("GET", `/api/bbs/messages/${id}`)).status).toBe(401);
    const e = await call("GET", `/api/bbs/messages/${id}`, undefined, as(eve));
    expect([e.status, e.body.error]).toEqual([403, "not_your_mail"]);
    // an unverified claim of N0BOB reads nothing
    expect((await call("GET", `/api/bbs/messages/${id}`, undefined, as(claimant))).status).toBe(403);
    const s = await call("GET", `/api/bbs/messages/${id}`, undefined, as(alice));
    expect([s.status, s.body.read]).toEqual([200, false]); // the sender reading does not mark it read
    const b = await call("GET", `/api/bbs/messages/${id}`, undefined, as(bob));
    expect([b.status, b.body.body, b.body.read]).toEqual([200, "for Bob only", true]);
    expect((await call("GET", `/api/bbs/messages/${id}`, undefined, as(admin))).status).toBe(200);
    expect((await call("GET", `/api/bbs/messages/${id}`, undefined, ops)).status).toBe(200);
  });

  test("mailbox listings: one's own calls; another call's box is refused except to the sysop", async () => {
    const mine = await call("GET", "/api/bbs/messages", undefined, as(bob));
    expect(mine.body.calls).toEqual(["N0BOB"]);
    expect(mine.body.messages.map((m: any) => m.subject)).toContain("Private");
    expect(mine.body.messages[0].body).toBeUndefined(); // lists carry no bodies
    expect((await call("GET", "/api/bbs/messages?to=N0BOB", undefined, as(eve))).body.error).toBe("not_your_mail");
    expect((await call("GET", "/api/bbs/messages?to=N0BOB", undefined, as(claimant))).status).toBe(403);
    expect((await call("GET", "/api/bbs/messages?to=N0BOB", undefined, as(admin))).body.messages.length).toBeGreaterThan(0);
    expect((await call("GET", "/api/bbs/messages", undefined, as(claimant))).body).toEqual({ calls: [], messages: [], next: null });
    expect((await call("GET", "/api/bbs/messages?to=bad!", undefined, as(bob))).status).toBe(400);
    const sent = await call("GET", "/api/bbs/sent", undefined, as(alice));
    expect(sent.body.messages.map((m: any) => m.subject)).toContain("Private");
    expect((await call("GET", "/api/bbs/sent?from=N0ALI", undefined, as(bob))).status).toBe(403);
    expect((await call("GET", "/api/bbs/messages")).status).toBe(401);
  });

  test("unread filter, marking unread, paging", async () => {
    for (let i = 0; i < 3; i++) await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: `page ${i}`, body: "x" }, as(eve));
    const unread = await call("GET", "/api/bbs/messages?unread=1", undefined, as(bob));
    expect(unread.body.messages.every((m: any) => !m.read)).toBe(true);
    expect(unread.body.messages.map((m: any) => m.id)).not.toContain(id);
    expect((await call("POST", `/api/bbs/messages/${id}/read`, { read: false }, as(bob))).body.read).toBe(false);
    expect((await call("POST", `/api/bbs/messages/${id}/read`, { read: false }, as(alice))).body.error).toBe("not_addressee");
    expect((await call("POST", `/api/bbs/messages/${id}/read`, { read: "yes" }, as(bob))).status).toBe(400);
    const p1 = await call("GET", "/api/bbs/messages?limit=2", undefined, as(bob));
    expect(p1.body.messages).toHaveLength(2);
    const p2 = await call("GET", `/api/bbs/messages?limit=2&before=${p1.body.next}`, undefined, as(bob));
    expect(p2.body.messages[0].id).toBeLessThan(p1.body.messages[1].id);
    expect((await call("GET", "/api/bbs/messages?limit=0", undefined, as(bob))).status).toBe(400);
  });

  test("kill: addressee, sender or sysop; the text goes, the BID stays taken", async () => {
    const m = (await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "to kill", body: "secret" }, as(alice))).body;
    expect((await call("DELETE", `/api/bbs/messages/${m.id}`, {}, as(eve))).body.error).toBe("not_your_mail");
    expect((await call("DELETE", `/api/bbs/messages/${m.id}`, {}, as(bob))).body).toEqual({ killed: m.id });
    expect((await call("GET", `/api/bbs/messages/${m.id}`, undefined, as(bob))).status).toBe(404);
    expect((await call("DELETE", `/api/bbs/messages/${m.id}`, {}, as(bob))).status).toBe(404);
    expect(g.gw.db.query("SELECT subject, body FROM bbs_messages WHERE id = ?").get(m.id)).toEqual({ subject: "", body: "" });
    const again = await call(
      "POST",
      "/api/bbs/forward/inbound",
      { messages: [{ bid: m.bid, type: "P", from: "N0ALI", to: "N0BOB", subject: "again", text: "x" }] },
      ops,
    );
    expect(again.body.results[0]).toMatchObject({ bid: m.bid, result: "duplicate" });
    const killed = await call("GET", "/api/bbs/forward/kill?since=0", undefined, ops);
    expect(killed.body.killed.map((k: any) => k.bid)).toContain(m.bid);
  });

  test("threads: replies join, and only what the reader may read is shown", async () => {
    const root = (await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "Antenna", body: "Which antenna?" }, as(alice))).body;
    const reply = (await call("POST", "/api/bbs/messages", { to: "N0ALI", subject: "Re: Antenna", body: "A dipole.", replyTo: root.id }, as(bob))).body;
    // a message arriving from elsewhere with the same subject between the same calls joins too
    const fwd = await call(
      "POST",
      "/api/bbs/forward/inbound",
      { messages: [{ bid: "THR1_N0X", type: "P", from: "N0BOB", to: "N0ALI", subject: "RE: antenna", text: "And a balun." }] },
      ops,
    );
    expect(fwd.body.results[0].result).toBe("stored");
    const t = await call("GET", `/api/bbs/thread/${reply.id}`, undefined, as(alice));
    expect(t.body.threadId).toBe(root.id);
    expect(t.body.messages.map((m: any) => m.body)).toEqual(["Which antenna?", "A dipole.", "And a balun."]);
    expect((await call("GET", `/api/bbs/thread/${root.id}`, undefined, as(eve))).status).toBe(403);
    expect((await call("GET", "/api/bbs/thread/999999")).status).toBe(404);
    expect((await call("GET", "/api/bbs/thread/abc")).status).toBe(404);
  });
});

describe("bulletins and traffic", () => {
  test("boards by category; SVCFED only when asked for by category", async () => {
    await call("POST", "/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "CQ", body: "hello all" }, as(alice));
    await call("POST", "/api/bbs/messages", { type: "B", to: "KEPS@WW", subject: "Keps", body: "elements" }, as(eve));
    const fed = await call(
      "POST",
      "/api/bbs/forward/inbound",
      { messages: [{ bid: "SVC0000000001", type: "B", from: "N0FED", to: "SVCFED@WW", subject: "frames", text: "machine" }] },
      ops,
    );
    expect(fed.body.results[0]).toMatchObject({ result: "refused" }); // 13 characters: not a BID
    // the carrier's receiver reads every SVCFED bulletin: text that is not its body is refused
    expect(
      (
        await call(
          "POST",
          "/api/bbs/forward/inbound",
          { messages: [{ bid: "SVC000001", type: "B", from: "N0FED", to: "SVCFED@WW", subject: "frames", text: "machine" }] },
          ops,
        )
      ).body.results[0],
    ).toMatchObject({
      result: "refused",
      reason: expect.stringContaining('no "SVCFED 1 ..." header line'),
    });
    // one that is (frames of an origin this instance does not know: kept and carried on, never applied)
    const carried = unknownOriginCarrier();
    expect(
      (
        await call(
          "POST",
          "/api/bbs/forward/inbound",
          { messages: [{ bid: carried.bid, type: "B", from: "N0FED", to: "SVCFED@WW", subject: "frames", text: carried.text }] },
          ops,
        )
      ).body.results[0].result,
    ).toBe("stored");
    const all = await call("GET", "/api/bbs/bulletins");
    expect(all.body.messages.map((m: any) => m.to).sort()).toEqual(["ALL", "KEPS"]);
    expect((await call("GET", "/api/bbs/bulletins?category=keps")).body.messages.map((m: any) => m.subject)).toEqual(["Keps"]);
    const svc = await call("GET", "/api/bbs/bulletins?category=SVCFED");
    expect(svc.body.messages.map((m: any) => [m.subject, m.origin])).toEqual([["frames", "box"]]);
    expect((await call("GET", "/api/bbs/categories")).body.categories.map((c: any) => c.category)).toEqual(["ALL", "KEPS"]);
    expect((await call("GET", "/api/bbs/bulletins?category=BAD!")).status).toBe(400);
    expect((await call("GET", "/api/bbs/bulletins?since=x")).status).toBe(400);
    // anyone reads a bulletin
    expect((await call("GET", `/api/bbs/messages/${all.body.messages[0].id}`)).status).toBe(200);
    // its sender or the sysop kills it; not the reader
    const k = all.body.messages.find((m: any) => m.to === "KEPS");
    expect((await call("DELETE", `/api/bbs/messages/${k.id}`, {}, as(bob))).status).toBe(403);
    expect((await call("DELETE", `/api/bbs/messages/${k.id}`, {}, as(admin))).status).toBe(200);
  });

  test("NTS traffic is for verified operators", async () => {
    const t = await call("POST", "/api/bbs/messages", { type: "T", to: "12345@NTSCA", subject: "QTC 1", body: "traffic" }, as(alice));
    expect(t.status).toBe(201);
    expect((await call("GET", "/api/bbs/messages?type=T", undefined, as(eve))).body.messages.map((m: any) => m.id)).toContain(t.body.id);
    expect((await call("GET", `/api/bbs/messages/${t.body.id}`, undefined, as(eve))).status).toBe(200);
    expect((await call("GET", "/api/bbs/messages?type=T", undefined, as(claimant))).status).toBe(403);
    expect((await call("GET", `/api/bbs/messages/${t.body.id}`, undefined, as(claimant))).status).toBe(403);
  });
});

describe("routing and White Pages", () => {
  const partner = async (call_: string, extra: object = {}) => (await call("POST", "/api/bbs/partners", { call: call_, transport: "box", ...extra }, ops)).body;
  const rule = async (r: object) => {
    const res = await call("POST", "/api/bbs/forward", r, ops);
    expect(res.status).toBe(201);
    return res.body;
  };
  const route = (q: string) => call("GET", `/api/bbs/route?${q}`);

  test("the most specific rule wins; to-rules first; priority breaks ties; * is the default; none holds the mail", async () => {
    await partner("N0XBB");
    await partner("N0YBB");
    await partner("N0ZBB");
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body).toMatchObject({ delivery: "unrouted", partners: [] });
    await rule({ partner: "N0ZBB", pattern: "*", types: "PT" });
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0].partner).toBe("N0ZBB");
    await rule({ partner: "N0YBB", pattern: "NOAM", types: "PT" });
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0].partner).toBe("N0YBB");
    await rule({ partner: "N0XBB", pattern: "#TST", types: "PT", priority: 50 });
    await rule({ partner: "N0YBB", pattern: "#TST", types: "PT", priority: 10 });
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0]).toMatchObject({ partner: "N0YBB", pattern: "#TST" });
    await rule({ partner: "N0XBB", pattern: "N0Q*", types: "PT" });
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0]).toMatchObject({ partner: "N0XBB", pattern: "N0Q*" });
    await rule({ partner: "N0ZBB", field: "to", pattern: "N0C", types: "P" });
    expect((await route("to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0]).toMatchObject({ partner: "N0ZBB", field: "to" });
    // NTS traffic does not take the P-only to-rule
    expect((await route("type=T&to=N0C@N0QBB.%23TST.USA.NOAM")).body.partners[0].partner).toBe("N0XBB");
    // addressed to this BBS: local
    expect((await route("to=N0C@N0GW.%23TST.USA.NOAM")).body).toMatchObject({ delivery: "local", partners: [] });
    expect((await route("to=N0C@")).status).toBe(400);
    expect((await route("type=Q&to=N0C")).status).toBe(400);
  });

  test("bulletins flood to every matching partner, never back to where they came from or to a BBS already in their path", async () => {
    await rule({ partner: "N0XBB", pattern: "WW", types: "B" });
    await rule({ partner: "N0YBB", pattern: "WW", types: "B" });
    await rule({ partner: "N0ZBB", field: "to", pattern: "KEPS", types: "B" });
    expect((await route("type=B&to=ALL@WW")).body.partners.map((p: any) => p.partner)).toEqual(["N0XBB", "N0YBB"]);
    expect((await route("type=B&to=KEPS@WW")).body.partners.map((p: any) => p.partner)).toEqual(["N0XBB", "N0YBB", "N0ZBB"]);
    expect((await route("type=B&to=ALL")).body).toMatchObject({ delivery: "local", partners: [] });
    const r = await call(
      "POST",
      "/api/bbs/forward/inbound",
      {
        partner: "N0XBB",
        messages: [
          {
            bid: "FLOOD1_N0Q",
            type: "B",
            from: "N0Q",
            to: "KEPS@WW",
            subject: "keps",
            text: "R:261120/1200Z @:N0ZBB.#TST.USA.NOAM #:5 [z] $:FLOOD1_N0Q\n\nkeps body",
          },
        ],
      },
      ops,
    );
    const id = r.body.results[0].id;
    const m = await call("GET", `/api/bbs/messages/${id}`);
    expect(m.body.forwarding.map((f: any) => f.partner)).toEqual(["N0YBB"]);
    expect(m.body.route).toHaveLength(2);
    expect(m.body.body).toBe("keps body");
  });

  test("held mail is routed when a rule appears", async () => {
    const held = (await call("POST", "/api/bbs/messages", { to: "N0HLD@N0HBB.%23XX.EU".replace("%23", "#"), subject: "held", body: "x" }, as(alice))).body;
    expect(held.delivery).toBe("transit"); // the * rule routes everything P
    await call(
      "DELETE",
      `/api/bbs/forward/${(await call("GET", "/api/bbs/forward", undefined, ops)).body.rules.find((r: any) => r.pattern === "*").id}`,
      {},
      ops,
    );
    const held2 = (await call("POST", "/api/bbs/messages", { to: "N0HLD@N0HBB.#XX.EUR", subject: "held 2", body: "x" }, as(alice))).body;
    expect(held2.delivery).toBe("unrouted");
    await rule({ partner: "N0ZBB", pattern: "EUR", types: "P" });
    const after = await call("GET", `/api/bbs/messages/${held2.id}`, undefined, as(alice));
    expect(after.body.delivery).toBe("transit");
    expect(after.body.forwarding).toEqual([expect.objectContaining({ partner: "N0ZBB", state: "pending" })]);
  });

  /** A White Pages update message with `lines`, forwarded in by the partner BBS. */
  const wpMsg = (bid: string, lines: string[]) =>
    call("POST", "/api/bbs/forward/inbound", { messages: [{ bid, type: "P", from: "WP", to: "WP@N0GW", subject: "WP Update", text: lines.join("\n") }] }, ops);

  test("White Pages dates: FBB's two-digit years slide, so 930123 is 1993 and newer information still wins", async () => {
    // Old news first, then newer: the newer replaces it.
    expect((await wpMsg("WPY1_N0X", ["On 930123 K0DTY/U @ N0OLD.#TST.USA.NOAM zip 11111 Old Town"])).body.results[0].result).toBe("stored");
    const old = (await call("GET", "/api/bbs/wp?call=K0DTY")).body;
    expect(new Date(old.infoAt).toISOString().slice(0, 10)).toBe("1993-01-23");
    await wpMsg("WPY2_N0X", ["On 240101 K0DTY/U @ N0NEW.#TST.USA.NOAM zip 22222 New Town"]);
    expect((await call("GET", "/api/bbs/wp?call=K0DTY")).body).toMatchObject({ homeBbs: "N0NEW.#TST.USA.NOAM", qth: "Town" });
    // Newer first, then old news: the old does not replace it.
    await wpMsg("WPZ1_N0X", ["On 240101 K0DTZ/U @ N0NEW.#TST.USA.NOAM zip 22222 New Town"]);
    await wpMsg("WPZ2_N0X", ["On 930123 K0DTZ/U @ N0OLD.#TST.USA.NOAM zip 11111 Old Town"]);
    expect((await call("GET", "/api/bbs/wp?call=K0DTZ")).body).toMatchObject({ homeBbs: "N0NEW.#TST.USA.NOAM", name: "New" });
    // A date that does not exist is not read.
    await wpMsg("WPX1_N0X", ["On 241331 K0DTX/U @ N0BAD.#TST.USA.NOAM zip 1 Bad Date"]);
    expect((await call("GET", "/api/bbs/wp?call=K0DTX")).status).toBe(404);
  });

  test("White Pages: WP update messages and R: lines; user-given beats path beats guess; routes use them", async () => {
    expect(
      (await wpMsg("WPA_N0X", ["On 261101 N0WPA/G @ N0OLD.#TST.USA.NOAM zip ? ? ?", "garbage line", "On 261102 N0WPC/U @ N0CBB zip 999 Carl Far Away"])).body
        .results[0].result,
    ).toBe("stored");
    expect((await call("GET", "/api/bbs/wp?call=N0WPA")).body).toMatchObject({ homeBbs: "N0OLD.#TST.USA.NOAM", source: "G", zip: null, name: null });
    // a user-given entry replaces a guess, even an older one
    await wpMsg("WPB_N0X", ["On 261001 N0WPA/U @ N0NEW.#TST.USA.NOAM zip 12345 Ann Springfield"]);
    expect((await call("GET", "/api/bbs/wp?call=n0wpa")).body).toMatchObject({
      homeBbs: "N0NEW.#TST.USA.NOAM",
      source: "U",
      name: "Ann",
      qth: "Springfield",
      zip: "12345",
    });
    // a newer guess does not replace it
    await wpMsg("WPC_N0X", ["On 261120 N0WPA/G @ N0GUESS zip ? ? ?"]);
    expect((await call("GET", "/api/bbs/wp?call=N0WPA")).body.homeBbs).toBe("N0NEW.#TST.USA.NOAM");
    // R: lines: each BBS in the path (I), and the sender's home guessed from the oldest one (G)
    await call(
      "POST",
      "/api/bbs/forward/inbound",
      {
        messages: [
          {
            bid: "RL1_N0ORG",
            type: "B",
            from: "N0SND",
            to: "ALL@WW",
            subject: "path",
            text: "R:261121/1000Z @:N0MID.#MID.USA.NOAM #:2 [Middletown] Z:54321 $:RL1_N0ORG\nR:261121/0900Z @:N0ORG.#ORG.USA.NOAM #:1 [Origin City] $:RL1_N0ORG\n\nbody",
          },
        ],
      },
      ops,
    );
    expect((await call("GET", "/api/bbs/wp?call=N0MID")).body).toMatchObject({ homeBbs: "N0MID.#MID.USA.NOAM", source: "I", qth: "Middletown", zip: "54321" });
    expect((await call("GET", "/api/bbs/wp?call=N0SND")).body).toMatchObject({ homeBbs: "N0ORG.#ORG.USA.NOAM", source: "G" });
    expect((await call("GET", "/api/bbs/wp?q=middle")).body.entries.map((e: any) => e.call)).toEqual(["N0MID"]);
    expect((await call("GET", "/api/bbs/wp?q=N0W")).body.entries.map((e: any) => e.call)).toEqual(["N0WPA", "N0WPC"]);
    expect((await call("GET", "/api/bbs/wp?call=N0NONE")).status).toBe(404);
    expect((await call("GET", "/api/bbs/wp?q=" + "x".repeat(41))).status).toBe(400);
    // personal mail without a route goes to the addressee's home BBS
    const r = await route("to=N0WPA");
    expect(r.body).toMatchObject({ at: "N0NEW.#TST.USA.NOAM", wp: { call: "N0WPA", source: "U" } });
  });
});

describe("partners and rules: validation", () => {
  test("bad partners and rules are refused whole", async () => {
    const bad: Array<[object, number]> = [
      [{ call: "NOT A CALL", transport: "box" }, 400],
      [{ call: "N0TCP", transport: "tcp" }, 400], // tcp needs host and port
      [{ call: "N0TCP", transport: "tcp", host: "h", port: 70000 }, 400],
      [{ call: "N0TCP", transport: "pigeon" }, 400],
      [{ call: "N0TCP", transport: "box", protocol: "mbl" }, 400],
      [{ call: "N0TCP", transport: "box", timeBands: ["25:00-01:00"] }, 400],
      [{ call: "N0TCP", transport: "box", timeBands: ["10:00-10:00"] }, 400],
      [{ call: "N0TCP", transport: "box", types: "PX" }, 400],
      [{ call: "N0TCP", transport: "box", intervalMin: 0 }, 400],
      [{ call: "N0TCP", transport: "box", password: "has space" }, 400],
      [{ call: "N0TCP", transport: "box", colour: "red" }, 400],
      [{ call: "N0XBB", transport: "box" }, 409],
    ];
    const before = (await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length;
    for (const [b, status] of bad) expect({ b, status: (await call("POST", "/api/bbs/partners", b, ops)).status }).toEqual({ b, status });
    expect((await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length).toBe(before);
    for (const r of [
      { partner: "N0NONE", pattern: "WW" },
      { partner: "N0XBB", pattern: "W.W" },
      { partner: "N0XBB", pattern: "WW", field: "cc" },
      { partner: "N0XBB", pattern: "WW", priority: -1 },
      { pattern: "WW" },
    ]) {
      expect((await call("POST", "/api/bbs/forward", r, ops)).status).toBe(400);
    }
  });

  test("update, secrets, delete", async () => {
    const p = (
      await call(
        "POST",
        "/api/bbs/partners",
        { call: "N0UPD", transport: "tcp", host: "127.0.0.1", port: 7300, password: "s3cret", timeBands: ["22:00-06:00"] },
        ops,
      )
    ).body;
    expect(p).toMatchObject({ call: "N0UPD", hasPassword: true, timeBands: ["22:00-06:00"], intervalMin: 60, types: "PBT", enabled: true });
    expect(JSON.stringify(p)).not.toContain("s3cret");
    const u = await call("POST", `/api/bbs/partners/${p.id}`, { enabled: false, intervalMin: 15 }, ops);
    expect(u.body).toMatchObject({ enabled: false, intervalMin: 15, host: "127.0.0.1" });
    const r = (await call("POST", "/api/bbs/forward", { partnerId: p.id, pattern: "eu*" }, ops)).body;
    expect(r).toMatchObject({ partner: "N0UPD", pattern: "EU*", field: "at" });
    expect((await call("POST", `/api/bbs/forward/${r.id}`, { priority: 5 }, ops)).body.priority).toBe(5);
    expect((await call("DELETE", `/api/bbs/partners/${p.id}`, {}, ops)).body).toEqual({ deleted: p.id });
    expect((await call("GET", `/api/bbs/forward/${r.id}`, undefined, ops)).status).toBe(404); // its rules went with it
    expect((await call("GET", `/api/bbs/partners/${p.id}`, undefined, ops)).status).toBe(404);
  });

  test("bad input names the failing field; an update leaves the fields it does not send as they were", async () => {
    const before = (await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length;
    for (const [method, path, body, field] of [
      ["POST", "/api/bbs/partners", { call: "N0FLD", transport: "tcp", host: "h", port: "7300" }, "body.port"],
      ["POST", "/api/bbs/partners", { call: "N0FLD", transport: "box", poll: "yes" }, "body.poll"],
      ["POST", "/api/bbs/forward", { partner: "N0XBB", pattern: "WW", priority: "5" }, "body.priority"],
      ["POST", "/api/bbs/forward/sent", { partner: "N0XBB", results: [{ bid: "B1", outcome: "lost" }] }, "body.results.0.outcome"],
      ["GET", "/api/bbs/bulletins?category=BAD!", undefined, "query.category"],
    ] as const) {
      const r = await call(method, path, body, ops);
      expect({ path, status: r.status, error: r.body.error, field: r.body.field }).toEqual({ path, status: 400, error: "invalid", field });
      expect(r.body.message).toStartWith(`${field}: `);
    }
    expect((await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length).toBe(before);
    // Positive control: the same partner, well formed, is stored; changing one field keeps the others (no default fills them).
    const p = (await call("POST", "/api/bbs/partners", { call: "N0FLD", transport: "box", protocol: "fbb-ascii", poll: true }, ops)).body;
    expect(p).toMatchObject({ call: "N0FLD", transport: "box", protocol: "fbb-ascii", poll: true });
    const u = await call("POST", `/api/bbs/partners/${p.id}`, { enabled: false }, ops);
    expect(u.body).toMatchObject({ enabled: false, transport: "box", protocol: "fbb-ascii", poll: true });
    expect((await call("DELETE", `/api/bbs/partners/${p.id}`, {}, ops)).body).toEqual({ deleted: p.id });
  });
});

describe("the ingest box's backend", () => {
  const b64 = (s: string | Uint8Array) => Buffer.from(typeof s === "string" ? Buffer.from(s, "latin1") : s).toString("base64");
  const text = (d: string) => Buffer.from(d, "base64").toString("latin1");

  test("pool, sent, inbound with per-message results", async () => {
    await call("POST", "/api/bbs/partners", { call: "N0BOX", transport: "box" }, ops);
    await call("POST", "/api/bbs/forward", { partner: "N0BOX", field: "to", pattern: "N0FAR" }, ops);
    const m = (await call("POST", "/api/bbs/messages", { to: "N0FAR@N0FBB", subject: "via the box", body: "over the air" }, as(alice))).body;
    const pool = await call("GET", "/api/bbs/forward/pool?partner=n0box", undefined, ops);
    expect(pool.body.partner).toBe("N0BOX");
    expect(pool.body.messages).toEqual([expect.objectContaining({ bid: m.bid, type: "P", from: "N0ALI", to: "N0FAR", at: "N0FBB", subject: "via the box" })]);
    expect(pool.body.messages[0].text).toMatch(/^R:.*\n\nover the air\n$/);
    expect((await call("GET", "/api/bbs/forward/pool?partner=N0NOPE", undefined, ops)).status).toBe(404);
    expect((await call("GET", "/api/bbs/forward/pool?partner=N0BOX&limit=0", undefined, ops)).status).toBe(400);
    const sent = await call(
      "POST",
      "/api/bbs/forward/sent",
      {
        partner: "N0BOX",
        results: [
          { bid: m.bid, outcome: "sent" },
          { bid: "UNKNOWN1", outcome: "sent" },
        ],
      },
      ops,
    );
    expect(sent.body.results).toEqual([
      { bid: m.bid, result: "recorded" },
      { bid: "UNKNOWN1", result: "unknown" },
    ]);
    expect((await call("GET", "/api/bbs/forward/pool?partner=N0BOX", undefined, ops)).body.messages).toEqual([]);
    expect((await call("POST", "/api/bbs/forward/sent", { partner: "N0BOX", results: [{ bid: m.bid, outcome: "lost" }] }, ops)).status).toBe(400);

    const before = count();
    const inb = await call(
      "POST",
      "/api/bbs/forward/inbound",
      {
        partner: "N0BOX",
        messages: [
          { bid: "IN1_N0RF", type: "p", from: "N0RF-7", to: "N0ALI", subject: "from RF", text: "typed on a handheld" },
          { bid: "IN1_N0RF", type: "P", from: "N0RF", to: "N0ALI", subject: "again", text: "x" },
          { bid: "IN2_N0RF", type: "P", from: "N0RF", to: "N0ALI@", subject: "bad address", text: "x" },
          { bid: "IN3_N0RF", type: "P", from: "N0RF", to: "N0ALI", subject: "x".repeat(81), text: "x" },
          { bid: "IN4_N0RF", type: "P", from: "N0RF", to: "N0ALI", subject: "too big", text: "x".repeat(5000) },
          { type: "P", from: "N0RF", to: "N0ALI", subject: "no bid", text: "x" },
          "not even an object",
        ],
      },
      ops,
    );
    expect(inb.body.results.map((r: any) => r.result)).toEqual(["stored", "duplicate", "refused", "refused", "refused", "refused", "refused"]);
    expect(inb.body.results.slice(1).every((r: any) => typeof r.reason === "string")).toBe(true);
    expect(count()).toBe(before + 1);
    expect((await call("GET", "/api/bbs/messages", undefined, as(alice))).body.messages[0]).toMatchObject({
      from: "N0RF",
      origin: "box",
      receivedFrom: "N0BOX",
      subject: "from RF",
    });
    expect((await call("POST", "/api/bbs/forward/inbound", { messages: [] }, ops)).status).toBe(400);
  });

  test("kill requests from RF users: their own mail only", async () => {
    const mine = (await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "k1", body: "x" }, as(alice))).body;
    const other = (await call("POST", "/api/bbs/messages", { to: "N0EVE", subject: "k2", body: "x" }, as(bob))).body;
    const r = await call("POST", "/api/bbs/forward/kill", { call: "N0ALI-9", bids: [mine.bid, other.bid, "NOPE1"] }, ops);
    expect(r.body.results).toEqual([
      { bid: mine.bid, result: "killed" },
      { bid: other.bid, result: "forbidden" },
      { bid: "NOPE1", result: "not_found" },
    ]);
    expect((await call("POST", "/api/bbs/forward/kill", { bids: [other.bid] }, ops)).body.results[0].result).toBe("killed");
    expect((await call("POST", "/api/bbs/forward/kill", { bids: "x" }, ops)).status).toBe(400);
  });

  test("an FBB session relayed byte for byte: the box's partner forwards both ways through us", async () => {
    await call("POST", "/api/bbs/partners", { call: "N0RLY", transport: "box", protocol: "fbb-ascii" }, ops);
    await call("POST", "/api/bbs/forward", { partner: "N0RLY", field: "to", pattern: "N0RLU" }, ops);
    const out = (await call("POST", "/api/bbs/messages", { to: "N0RLU@N0RLY", subject: "over the relay", body: "relay body" }, as(alice))).body;
    const ex = (body: object) => call("POST", "/api/bbs/forward/session", body, ops);

    let r = await ex({ partner: "N0RLY" });
    expect(r.status).toBe(200);
    const session = r.body.session;
    expect(text(r.body.data)).toBe("[SVC-0.1.0-FHM$]\rN0GW BBS>\r");
    expect((await call("GET", "/api/bbs/forward/session", undefined, ops)).body.sessions).toEqual([
      expect.objectContaining({ session, partner: "N0RLY", role: "answerer", closed: false }),
    ]);

    // the partner's SID and "nothing from me": we propose ours
    r = await ex({ session, data: b64("[FBB-7.0.11-FHM$]\rFF\r") });
    const proposal = `FB P N0ALI N0RLY N0RLU ${out.bid} ${Buffer.byteLength(`${out.route[0]}\r\rrelay body\r`)}`;
    expect(text(r.body.data)).toBe(`${proposal}\r${formatBlockEnd(checksumAdd(0, proposal))}\r`);
    r = await ex({ session, data: b64("FS +\r") });
    expect(text(r.body.data)).toBe(`over the relay\r${out.route[0]}\r\rrelay body\r\x1a\r`);

    // the partner proposes one of its own; we accept, it sends, we have nothing more
    const theirs = "FB P N0RLY N0GW N0ALI 88_N0RLY 20";
    r = await ex({ session, data: b64(`${theirs}\r${formatBlockEnd(checksumAdd(0, theirs))}\r`) });
    expect(text(r.body.data)).toBe("FS +\r");
    r = await ex({ session, data: b64("Over the air\rHello from the relay.\r\x1a\r") });
    expect(text(r.body.data)).toBe("FF\r");
    r = await ex({ session, data: b64("FQ\r") });
    expect(r.body.closed).toBe(true);
    expect(r.body.report).toMatchObject({ ok: true, sent: [{ bid: out.bid, outcome: "sent" }], received: [{ bid: "88_N0RLY", result: "stored" }] });
    const got = g.gw.db.query("SELECT subject, body, origin, received_from FROM bbs_messages WHERE bid = '88_N0RLY'").get();
    expect(got).toEqual({ subject: "Over the air", body: "Hello from the relay.\n", origin: "box", received_from: "N0RLY" });
    expect((await ex({ session: "nope", data: "" })).status).toBe(404);
    expect((await ex({ partner: "N0NOPE" })).status).toBe(404);
    expect((await ex({ partner: "N0RLY", data: "%%%" })).status).toBe(400);
  });

  test("a relayed session that breaks the protocol ends with the reason; the operator can hang one up", async () => {
    const ex = (body: object) => call("POST", "/api/bbs/forward/session", body, ops);
    let r = await ex({ partner: "N0RLY" });
    const session = r.body.session;
    r = await ex({ session, data: b64("[FBB-7.0.11-FHM$]\rFB P N0X N0GW N0ALI 99_N0X 5\rF> 00\r") });
    expect(text(r.body.data)).toContain("*** checksum error in the proposal block\r");
    expect(r.body.closed).toBe(true);
    r = await ex({ partner: "N0RLY" });
    expect((await call("POST", "/api/bbs/forward/kill", { session: r.body.session }, ops)).body).toEqual({ ended: r.body.session });
    r = await ex({ session: r.body.session });
    expect(r.body.closed).toBe(true);
    expect((await call("POST", "/api/bbs/forward/kill", { session: "nope" }, ops)).status).toBe(404);
  });
});

describe("the forwarding scheduler", () => {
  test("time-bands, in UTC, wrapping midnight", () => {
    const at = (h: number, m = 0) => Date.UTC(2026, 0, 1, h, m);
    expect(inTimeBands([], at(12))).toBe(true);
    expect(inTimeBands(["22:00-06:00"], at(23))).toBe(true);
    expect(inTimeBands(["22:00-06:00"], at(5, 59))).toBe(true);
    expect(inTimeBands(["22:00-06:00"], at(6))).toBe(false);
    expect(inTimeBands(["08:00-09:00", "12:00-24:00"], at(13))).toBe(true);
    expect(inTimeBands(["08:00-09:00", "12:00-24:00"], at(10))).toBe(false);
  });

  test("calls only partners in their band, past their interval, with mail waiting or polled", async () => {
    const h = new Date().getUTCHours();
    const pad = (n: number) => String(n % 24).padStart(2, "0");
    const inBand = [`${pad(h)}:00-${pad(h + 1)}:00`];
    const outBand = [`${pad(h + 2)}:00-${pad(h + 3)}:00`];
    // nothing listens on port 1: a call fails and says why
    const mk = async (c: string, extra: object) =>
      (await call("POST", "/api/bbs/partners", { call: c, transport: "tcp", host: "127.0.0.1", port: 1, ...extra }, ops)).body;
    await mk("N0SA", { timeBands: inBand });
    await mk("N0SB", { timeBands: outBand });
    await mk("N0SC", { timeBands: inBand, poll: true });
    await mk("N0SD", { timeBands: inBand, enabled: false });
    for (const p of ["N0SA", "N0SB", "N0SD"]) await call("POST", "/api/bbs/forward", { partner: p, field: "to", pattern: "N0SCH" }, ops);
    await call("POST", "/api/bbs/messages", { to: "N0SCH@N0FAR", subject: "sched", body: "x" }, as(alice));
    // partners from earlier tests (box transport, or nothing to send) are skipped too
    const runs = await forwardDue(g.gw);
    const by = Object.fromEntries(runs.map((r) => [r.partner, r]));
    expect(by.N0SA).toMatchObject({ result: "called", ok: false });
    expect(by.N0SA!.error).toContain("cannot connect to 127.0.0.1:1");
    expect(by.N0SB).toEqual({ partner: "N0SB", result: "skipped", why: "outside its time-bands" });
    expect(by.N0SC).toMatchObject({ result: "called" }); // polled with nothing to send
    expect(by.N0SD).toBeUndefined(); // switched off
    expect(by.N0BOX).toEqual({ partner: "N0BOX", result: "skipped", why: "the ingest box carries its sessions" });
    // the failure is on the partner for the sysop to see; the message stays queued
    const a = (await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.find((p: any) => p.call === "N0SA");
    expect(a).toMatchObject({ pending: 1 });
    expect(a.lastError).toContain("cannot connect");
    // a minute later its interval (60 min) has not passed
    const again = Object.fromEntries((await forwardDue(g.gw)).map((r) => [r.partner, r]));
    expect(again.N0SA).toEqual({ partner: "N0SA", result: "skipped", why: "its interval has not passed" });
  });
});

describe("addresses", () => {
  test("the hierarchical address parser", () => {
    expect(parseAddress("n0abc@n0bbs.#nca.ca.usa.noam", "P")).toEqual({ ok: true, value: { to: "N0ABC", at: "N0BBS.#NCA.CA.USA.NOAM" } });
    expect(parseAddress("ALL@WW", "B")).toEqual({ ok: true, value: { to: "ALL", at: "WW" } });
    expect(parseAddress("12345@NTSCA", "T")).toEqual({ ok: true, value: { to: "12345", at: "NTSCA" } });
    expect(parseAddress("SYSOP", "P").ok).toBe(true);
    for (const bad of [
      "",
      "N0ABC@WW",
      "N0ABC@N0BBS.#",
      "N0ABC@N0BBS.A.B.C.D.E.F",
      "N0ABC@N0BBS.#NCA..USA",
      "ALL@WW",
      "N0ABC@" + "N0BBS." + "ABCDEF.".repeat(5) + "X",
    ]) {
      expect({ bad, ok: parseAddress(bad, "P").ok }).toEqual({ bad, ok: false });
    }
    expect(parseAddress(42, "P").ok).toBe(false);
  });
});

describe("undeclared fields", () => {
  /** The body with a stray member is refused by name (400, field) and changes nothing; the same body without it is taken. */
  async function strayThenOk(method: string, path: string, body: Record<string, unknown>, headers: Record<string, string>, okStatus: number) {
    const bad = await call(method, path, { ...body, colour: "red" }, headers);
    expect({ path, status: bad.status, error: bad.body.error, field: bad.body.field }).toEqual({ path, status: 400, error: "invalid", field: "body.colour" });
    expect(bad.body.message).toStartWith('body.colour: unknown field "colour"; it takes ');
    const ok = await call(method, path, body, headers);
    expect({ path, status: ok.status }).toEqual({ path, status: okStatus });
    return ok.body;
  }

  test("every BBS body names a field it does not take, and takes the same body without it", async () => {
    const before = count();
    const m = await strayThenOk("POST", "/api/bbs/messages", { to: "N0BOB", subject: "stray", body: "x" }, as(alice), 201);
    expect(count()).toBe(before + 1);
    const bad = await call("POST", "/api/bbs/messages", { to: "N0BOB", subject: "s", body: "b", colour: "red" }, as(alice));
    expect(bad.body.message).toBe('body.colour: unknown field "colour"; it takes type, to, subject, body, replyTo');
    expect((await strayThenOk("POST", `/api/bbs/messages/${m.id}/read`, { read: false }, as(bob), 200)).read).toBe(false);

    const partners = (await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length;
    const p = await strayThenOk("POST", "/api/bbs/partners", { call: "N0STR", transport: "box" }, ops, 201);
    expect((await call("GET", "/api/bbs/partners", undefined, ops)).body.partners.length).toBe(partners + 1);
    expect((await strayThenOk("POST", `/api/bbs/partners/${p.id}`, { poll: true }, ops, 200)).poll).toBe(true);
    const rule = await strayThenOk("POST", "/api/bbs/forward", { partner: "N0STR", field: "to", pattern: "N0STF" }, ops, 201);
    expect((await strayThenOk("POST", `/api/bbs/forward/${rule.id}`, { priority: 7 }, ops, 200)).priority).toBe(7);

    // the ingest box's backend, and an object inside a body
    await strayThenOk("POST", "/api/bbs/forward/sent", { partner: "N0STR", results: [{ bid: "STRAY1", outcome: "sent" }] }, ops, 200);
    const nested = await call("POST", "/api/bbs/forward/sent", { partner: "N0STR", results: [{ bid: "STRAY1", outcome: "sent", colour: "red" }] }, ops);
    expect({ status: nested.status, field: nested.body.field }).toEqual({ status: 400, field: "body.results.0.colour" });
    const inbound = { partner: "N0STR", messages: [{ bid: "ST1_N0RF", type: "P", from: "N0RF", to: "N0ALI", subject: "stray", text: "x" }] };
    expect((await strayThenOk("POST", "/api/bbs/forward/inbound", inbound, ops, 200)).results[0].result).toBe("stored");
    const s = await strayThenOk("POST", "/api/bbs/forward/session", { partner: "N0STR" }, ops, 200);
    expect(await strayThenOk("POST", "/api/bbs/forward/kill", { session: s.session }, ops, 200)).toEqual({ ended: s.session });
    expect((await strayThenOk("POST", "/api/bbs/forward/kill", { call: "N0ALI-9", bids: [m.bid] }, ops, 200)).results).toEqual([
      { bid: m.bid, result: "killed" },
    ]);
  });
});
