/**
 * FBB forwarding between two real gateways over TCP: one calls, the other
 * answers, mail and bulletins cross both ways in one session, compressed
 * (B1) or ASCII. Then protocol violations against a gateway's listener from a
 * raw socket: each ends the session with `*** reason`, and nothing half
 * arrived is stored.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { bbsGateway } from "../helpers/fbb.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fbbPort } from "../../src/bbs/forwarding.ts";
import { encodeCompressed } from "../../src/bbs/fbb/compressed.ts";
import { checksumAdd, formatBlockEnd } from "../../src/bbs/fbb/proposal.ts";
import { telnetEncode } from "../../src/bbs/fbb/tcp.ts";

const INGEST = "ingest-secret-0123456789";
const ops = { "x-ingest-secret": INGEST };

let a: Running;
let b: Running;
beforeAll(async () => {
  a = await bbsGateway("gw-a", "N0AAA.#TST.USA.NOAM", INGEST);
  b = await bbsGateway("gw-b", "N0BBB.#TST.USA.NOAM", INGEST);
});
afterAll(async () => {
  await a.stop();
  await b.stop();
});

async function json(r: Response) {
  const body = await r.json();
  return { status: r.status, body: body as any };
}

async function partner(g: Running, p: Record<string, unknown>) {
  const r = await json(await g.post("/api/bbs/partners", p, { headers: ops }));
  expect(r.status).toBe(201);
  return r.body;
}

async function rule(g: Running, r: Record<string, unknown>) {
  const res = await json(await g.post("/api/bbs/forward", r, { headers: ops }));
  expect(res.status).toBe(201);
  return res.body;
}

async function compose(g: Running, cookie: string, m: Record<string, unknown>) {
  const r = await json(await g.post("/api/bbs/messages", m, { headers: { cookie } }));
  expect(r.status).toBe(201);
  return r.body;
}

/** A raw TCP peer: send text or bytes, collect what comes back until the gateway hangs up. */
async function rawPeer(port: number) {
  let received = "";
  let closed = false;
  const waiters: Array<() => void> = [];
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, d) {
        received += Buffer.from(d).toString("latin1");
        for (const w of waiters.splice(0)) w();
      },
      close() {
        closed = true;
        for (const w of waiters.splice(0)) w();
      },
    },
  });
  const until = async (pred: () => boolean, ms = 10_000) => {
    const end = Date.now() + ms;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out; received so far: ${JSON.stringify(received)}`);
      await Promise.race([new Promise<void>((r) => waiters.push(r)), Bun.sleep(100)]);
    }
  };
  return {
    // TCP carries FBB as telnet: binary data goes with 0xFF doubled.
    send: (x: string | Uint8Array) => socket.write(typeof x === "string" ? Buffer.from(x, "latin1") : telnetEncode(x)),
    received: () => received,
    closed: () => closed,
    waitFor: (text: string | RegExp) => until(() => (typeof text === "string" ? received.includes(text) : text.test(received))),
    waitClosed: () => until(() => closed),
  };
}

describe("gateway to gateway over TCP", () => {
  test("one call carries mail and bulletins both ways, compressed with B1", async () => {
    const pa = await partner(a, { call: "N0BBB", transport: "tcp", host: "127.0.0.1", port: fbbPort(b.gw), protocol: "fbb-b1", password: "secret-ab" });
    await partner(b, { call: "N0AAA", transport: "tcp", host: "127.0.0.1", port: fbbPort(a.gw), protocol: "fbb-b1", password: "secret-ab" });
    await rule(a, { partner: "N0BBB", field: "at", pattern: "N0BBB", types: "PT" });
    await rule(a, { partner: "N0BBB", field: "at", pattern: "WW", types: "B" });
    await rule(b, { partner: "N0AAA", field: "at", pattern: "N0AAA", types: "P" });

    const alice = signedInUser(a.gw, "N0ALI", { verified: true });
    const bob = signedInUser(b.gw, "N0BOB", { verified: true });
    const long = Array.from({ length: 200 }, (_, i) => `Line ${i}: 73 de N0ALI, testing the compressed path with some text.`).join("\n");
    const p1 = await compose(a, alice.cookie, { type: "P", to: "N0BOB@N0BBB.#TST.USA.NOAM", subject: "Hello Bob", body: long });
    const b1 = await compose(a, alice.cookie, { type: "B", to: "ALL@WW", subject: "Net tonight", body: "Net at 2000Z on 145.500.\nAll welcome." });
    const p2 = await compose(b, bob.cookie, { type: "P", to: "N0ALI@N0AAA", subject: "Re: Hello Bob", body: "Got it, thanks." });
    expect(p1.delivery).toBe("transit");
    expect(p1.forwarding).toEqual([expect.objectContaining({ partner: "N0BBB", state: "pending" })]);

    const run = await json(await a.post(`/api/bbs/partners/${pa.id}/forward`, {}, { headers: ops }));
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ ok: true, error: null, compression: "b1" });
    expect(run.body.sent).toEqual(
      expect.arrayContaining([
        { bid: p1.bid, outcome: "sent" },
        { bid: b1.bid, outcome: "sent" },
      ]),
    );
    expect(run.body.received).toEqual([{ bid: p2.bid, result: "stored" }]);

    // On B: Bob's mail arrived whole, with both BBSes' R: lines; the bulletin too.
    const box = await json(await b.get("/api/bbs/messages", { headers: { cookie: bob.cookie } }));
    expect(box.body.messages.map((m: any) => m.bid)).toEqual([p1.bid]);
    const got = await json(await b.get(`/api/bbs/messages/${box.body.messages[0].id}`, { headers: { cookie: bob.cookie } }));
    expect(got.body).toMatchObject({
      from: "N0ALI",
      to: "N0BOB",
      subject: "Hello Bob",
      body: long + "\n",
      origin: "fbb",
      receivedFrom: "N0AAA",
      delivery: "local",
    });
    expect(got.body.route).toHaveLength(2);
    expect(got.body.route[0]).toStartWith("R:");
    expect(got.body.route[0]).toContain("@:N0BBB.#TST.USA.NOAM");
    expect(got.body.route[1]).toContain("@:N0AAA.#TST.USA.NOAM");
    const bulls = await json(await b.get("/api/bbs/bulletins?category=ALL"));
    expect(bulls.body.messages.map((m: any) => m.bid)).toEqual([b1.bid]);

    // On A: the reply from Bob, in the same thread as Alice's message.
    const abox = await json(await a.get("/api/bbs/messages", { headers: { cookie: alice.cookie } }));
    expect(abox.body.messages).toEqual([expect.objectContaining({ bid: p2.bid, from: "N0BOB", threadId: p1.id })]);
    // The queue on A is empty now: forwarded means marked sent.
    const after = await json(await a.get(`/api/bbs/messages/${p1.id}`, { headers: { cookie: alice.cookie } }));
    expect(after.body.forwarding).toEqual([expect.objectContaining({ partner: "N0BBB", state: "sent" })]);

    // A second call with nothing to send: FF / FQ, nothing moves.
    const again = await json(await a.post(`/api/bbs/partners/${pa.id}/forward`, {}, { headers: ops }));
    expect(again.body).toMatchObject({ ok: true, sent: [], received: [] });
  });

  test("plain ASCII forwarding when the partner is configured without compression", async () => {
    const c = await startInProcess({ INGEST_SECRET: INGEST, BBS_HA: "N0CCC.#TST.USA.NOAM", BBS_FBB_PORT: "0", INSTANCE: "gw-c" });
    try {
      const pa = await partner(a, { call: "N0CCC", transport: "tcp", host: "127.0.0.1", port: fbbPort(c.gw), protocol: "fbb-ascii" });
      await rule(a, { partner: "N0CCC", field: "to", pattern: "N0CAR", types: "P" });
      const alice = signedInUser(a.gw, "N0AL2", { verified: true });
      await compose(a, alice.cookie, { type: "P", to: "N0CAR@N0ZZZ.#TST.USA.NOAM", subject: "ascii", body: "plain" });
      // C does not know A yet: refused, nothing sent, the message stays queued.
      const run = await json(await a.post(`/api/bbs/partners/${pa.id}/forward`, {}, { headers: ops }));
      expect(run.body.ok).toBe(false);
      expect(run.body.error).toContain("N0AAA is not a forwarding partner of this BBS");
      expect((await json(await a.get(`/api/bbs/partners/${pa.id}`, { headers: ops }))).body).toMatchObject({ pending: 1, lastError: run.body.error });
      // Once C takes A as a partner (ASCII), the message goes across.
      await partner(c, { call: "N0AAA", transport: "box", protocol: "fbb-ascii" });
      const ok = await json(await a.post(`/api/bbs/partners/${pa.id}/forward`, {}, { headers: ops }));
      expect(ok.body).toMatchObject({ ok: true, compression: "none" });
      expect(ok.body.sent).toHaveLength(1);
      const onC = c.gw.db.query("SELECT subject, body, received_from, delivery FROM bbs_messages WHERE to_call = 'N0CAR'").get();
      // C has no route onward to N0ZZZ: it holds the message as unrouted.
      expect(onC).toEqual({ subject: "ascii", body: "plain\n", received_from: "N0AAA", delivery: "unrouted" });
    } finally {
      await c.stop();
    }
  });

  test("a wrong password or an unknown caller is refused before any SID", async () => {
    const port = fbbPort(b.gw)!;
    const stranger = await rawPeer(port);
    stranger.send("N9NOPE");
    await stranger.waitClosed();
    expect(stranger.received()).toContain("*** N9NOPE is not a forwarding partner");
    expect(stranger.received()).not.toContain("[SVC-");
    const wrong = await rawPeer(port);
    wrong.send("N0AAA not-the-password\r");
    await wrong.waitClosed();
    expect(wrong.received()).toContain("*** wrong password");
  });
});

describe("protocol violations end the session cleanly and store nothing half", () => {
  const count = () => (b.gw.db.query("SELECT count(*) AS n FROM bbs_messages").get() as { n: number }).n;

  async function session(compressed: boolean) {
    const peer = await rawPeer(fbbPort(b.gw)!);
    peer.send("N0AAA secret-ab\r");
    await peer.waitFor("BBS>");
    peer.send(compressed ? "[FBB-7.0.11-AB1FHM$]\r" : "[FBB-7.0.11-AFHM$]\r");
    return peer;
  }
  const block = (lines: string[]) => {
    let sum = 0;
    for (const l of lines) sum = checksumAdd(sum, l);
    return lines.map((l) => l + "\r").join("") + formatBlockEnd(sum) + "\r";
  };

  test("a wrong proposal checksum", async () => {
    const before = count();
    const peer = await session(false);
    peer.send("FB P N0XX N0BBB N0BOB 900_N0XX 10\rF> 00\r");
    await peer.waitClosed();
    expect(peer.received()).toContain("*** checksum error in the proposal block");
    expect(count()).toBe(before);
  });

  test("a line that is not the protocol", async () => {
    const peer = await session(false);
    peer.send("HELLO THERE\r");
    await peer.waitClosed();
    expect(peer.received()).toContain('*** expected a proposal, FF or FQ, got "HELLO THERE"');
  });

  test("a wrong answer to our proposals", async () => {
    // Give B something for N0AAA, then answer its proposal with the wrong count.
    const bob = signedInUser(b.gw, "N0BO2", { verified: true });
    await compose(b, bob.cookie, { type: "P", to: "N0ALI@N0AAA", subject: "for the test", body: "x" });
    const peer = await session(false);
    peer.send("FF\r");
    await peer.waitFor("F> ");
    peer.send("FS ++\r");
    await peer.waitClosed();
    expect(peer.received()).toContain("*** expected an answer to 1 proposal(s)");
  });

  test("a broken compressed block: nothing stored, the BID is not burnt", async () => {
    const before = count();
    const peer = await session(true);
    peer.send(block(["FA P N0XX N0BBB N0BOB 901_N0XX 40", "FA P N0XX N0BBB N0BOB 902_N0XX 40"]));
    await peer.waitFor("FS ++");
    const good = encodeCompressed("first", new TextEncoder().encode("first message, fine\r\n"), "b1");
    const bad = encodeCompressed("second", new TextEncoder().encode("second message, to be broken\r\n"), "b1");
    bad[bad.length - 5] ^= 0x55; // corrupt a data byte: checksum error
    peer.send(Uint8Array.from([...good, ...bad]));
    await peer.waitClosed();
    expect(peer.received()).toContain("*** checksum error in the compressed message");
    // The first message arrived whole and is kept; the broken one is not stored and can come again.
    expect(count()).toBe(before + 1);
    expect(b.gw.db.query("SELECT bid FROM bbs_messages WHERE bid IN ('901_N0XX', '902_N0XX')").all()).toEqual([{ bid: "901_N0XX" }]);
    expect(b.gw.db.query("SELECT 1 FROM bbs_bids WHERE bid = '902_N0XX'").get()).toBeNull();
  });

  test("an oversized message is refused at the proposal, and cut off if it lies about its size", async () => {
    const before = count();
    const peer = await session(false);
    peer.send(block(["FB P N0XX N0BBB N0BOB 903_N0XX 99999999", "FB P N0XX N0BBB N0BOB 904_N0XX 10"]));
    await peer.waitFor("FS -+");
    peer.send("liar\r" + "x".repeat(70_000) + "\r\x1a\r");
    await peer.waitClosed();
    expect(peer.received()).toContain("*** more than");
    expect(count()).toBe(before);
  });

  test("a duplicate BID is answered with - and nothing is stored twice", async () => {
    const known = (b.gw.db.query("SELECT bid FROM bbs_messages LIMIT 1").get() as { bid: string }).bid;
    const before = count();
    const peer = await session(false);
    peer.send(block([`FB B N0XX WW ALL ${known} 10`]));
    await peer.waitFor("FS -");
    peer.send("FF\r");
    // B takes its turn (its proposals, or FQ): the duplicate is behind us.
    await peer.waitFor(/FS -\r[\s\S]*(F> [0-9A-F]{2}|FQ)\r/);
    expect(count()).toBe(before);
  });
});
