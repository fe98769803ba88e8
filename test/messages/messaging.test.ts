/**
 * The messaging screen's server side against a real gateway and a fake TNC:
 * a message written through POST /api/messages goes out on the air, is sent
 * again after 30, 60, 120 and 240 s, fails after 5 sends, stops at its ack
 * (ackNN or the APRS 1.1 reply-ack {MM}NN), fails on rejNN; groups and
 * bulletins go once without a message id; a message heard for the user's
 * verified call reaches their WebSocket, or their push service when no
 * socket is open. Time is the gateway's clock, moved by the test.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { liveClient } from "../helpers/ws.ts";
import { pushClient, startPushService } from "../helpers/push.ts";
import { waitFor } from "../helpers/wait.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";

let tnc: FakeTnc;
let g: Running;
let t = Date.UTC(2026, 10, 27, 10, 0, 0);
const push = startPushService();
let me: TestUser;

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess(
    {
      KISS_PORTS: tnc.url,
      RADIO_CALL: "N0GW-10",
      RADIO_TX_PER_MINUTE: "60",
      APRS_GROUPS: "EVENT,CQ",
      PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
    },
    { clock: { now: () => t } },
  );
  await tnc.connected();
  me = signedInUser(g.gw, "N0TX-7", { verified: true });
  signedInUser(g.gw, "N0GW-10", { verified: true });
});
afterAll(async () => {
  await g.stop();
  tnc.stop();
  push.stop();
});

const as = (u: TestUser, init: RequestInit = {}): RequestInit => ({ ...init, headers: { ...(init.headers as Record<string, string>), cookie: u.cookie } });
const send = async (to: string, text: string, u = me) => {
  const r = await g.post("/api/messages", { to, text }, as(u));
  expect(r.status).toBe(200);
  return (await r.json()).message as { id: string; msgId: string | null; state: string; to: string };
};
const conversation = async (call: string, u = me) =>
  (await (await g.get(`/api/messages/with/${call}`, as(u))).json()).messages as Array<{ id: string; direction: string; text: string; state?: string }>;
const stateOf = async (call: string, id: string) => (await conversation(call)).find((m) => m.id === id)?.state;
const tick = () => radioOf(g.gw)!.tx.tick();
/** Moves the clock and runs the transmitter: the frames sent meanwhile, as text. */
const after = (ms: number) => {
  t += ms;
  const from = tnc.sent.length;
  tick();
  return from;
};
const sentSince = async (from: number, n: number) => (n === 0 ? [] : (await tnc.waitSent(n, { from })).map(tnc2Text));

describe("messages sent from the web app", () => {
  test("go out on the air, are sent again after 30, 60, 120 and 240 s, and fail after 5 sends", async () => {
    const m = await send("W1AW-9", "anyone at the summit?");
    expect(m).toMatchObject({ state: "queued", to: "W1AW-9" });
    expect(m.msgId).toMatch(/^\d+$/);
    const line = `N0TX-7>APZSVC,WIDE1-1,WIDE2-1::W1AW-9   :anyone at the summit?{${m.msgId}`;
    let from = after(0);
    expect(await sentSince(from, 1)).toEqual([line]);
    expect(await stateOf("W1AW-9", m.id)).toBe("sent");
    for (const wait of [30_000, 60_000, 120_000, 240_000]) {
      from = after(wait - 1000);
      expect(tnc.sent.length).toBe(from); // not yet
      from = after(1000);
      expect(await sentSince(from, 1)).toEqual([line]);
      expect(await stateOf("W1AW-9", m.id)).toBe("retrying");
    }
    from = after(479_000);
    expect(tnc.sent.length).toBe(from);
    from = after(1000);
    expect(tnc.sent.length).toBe(from); // 5 sends: no sixth
    expect(await stateOf("W1AW-9", m.id)).toBe("failed");
    const c = await conversation("W1AW-9");
    expect(c.find((x) => x.id === m.id)).toMatchObject({ direction: "out", text: "anyone at the summit?", state: "failed" });
  });

  test("stop at the addressee's ack", async () => {
    const m = await send("K1ACK", "on my way");
    await sentSince(after(0), 1);
    tnc.hear(tnc2Frame(`K1ACK>APRS,WIDE1*::N0TX-7   :ack${m.msgId}`));
    await waitFor(async () => (await stateOf("K1ACK", m.id)) === "acked", "the ack settles the message");
    const from = after(30 * 60_000);
    expect(tnc.sent.length).toBe(from);
  });

  test("a reply carrying the APRS 1.1 reply-ack {MM}NN acks the message, and is shown as the reply", async () => {
    const m = await send("K1RPL-5", "where are you");
    await sentSince(after(0), 1);
    t += 5000;
    tnc.hear(tnc2Frame(`K1RPL-5>APRS,WIDE1*::N0TX-7   :at the trailhead{AB}${m.msgId}`));
    await waitFor(async () => (await stateOf("K1RPL-5", m.id)) === "acked", "the reply-ack settles the message");
    const c = await conversation("K1RPL-5");
    expect(c.map((x) => [x.direction, x.text, x.state])).toEqual([
      ["out", "where are you", "acked"],
      ["in", "at the trailhead", undefined],
    ]);
    const from = after(30 * 60_000);
    expect(tnc.sent.length).toBe(from);
    // an ack of someone else's message id settles nothing
    const other = await send("K1RPL-5", "second one");
    await sentSince(after(0), 1);
    tnc.hear(tnc2Frame(`K1RPL-5>APRS,WIDE1*::N0TX-7   :ok{AC}99999`));
    tnc.hear(tnc2Frame(`K1XXX>APRS,WIDE1*::N0TX-7   :ack${other.msgId}`));
    await waitFor(async () => (await conversation("K1RPL-5")).some((x) => x.text === "ok"), "the reply is heard");
    expect(await stateOf("K1RPL-5", other.id)).toBe("sent");
  });

  test("a rej makes the message failed", async () => {
    const m = await send("K1REJ", "can you relay");
    await sentSince(after(0), 1);
    tnc.hear(tnc2Frame(`K1REJ>APRS::N0TX-7   :rej${m.msgId}`));
    await waitFor(async () => (await stateOf("K1REJ", m.id)) === "failed", "the rej fails the message");
  });

  test("groups, ALL and bulletins go once, without a message id, each its own conversation", async () => {
    const sent = [await send("EVENT", "net starts at 1900"), await send("ALL", "QRV on 146.52"), await send("BLN1", "trail closed at mile 12")];
    for (const m of sent) expect(m.msgId).toBeNull();
    const from = after(0);
    expect(await sentSince(from, 3)).toEqual([
      "N0TX-7>APZSVC,WIDE1-1,WIDE2-1::EVENT    :net starts at 1900",
      "N0TX-7>APZSVC,WIDE1-1,WIDE2-1::ALL      :QRV on 146.52",
      "N0TX-7>APZSVC,WIDE1-1,WIDE2-1::BLN1     :trail closed at mile 12",
    ]);
    const later = after(30 * 60_000);
    expect(tnc.sent.length).toBe(later);
    // a group message heard from someone else joins the group's conversation
    tnc.hear(tnc2Frame("K1GRP>APRS,WIDE1*::EVENT    :copy, see you there"));
    const list = await waitFor(async () => {
      const cs = (await (await g.get("/api/messages/conversations", as(me))).json()).conversations as Array<{
        call: string;
        kind: string;
        count: number;
        last: { text: string; state?: string };
      }>;
      return cs.find((c) => c.call === "EVENT" && c.count === 2) && cs;
    }, "the group conversation");
    expect(list.find((c) => c.call === "EVENT")).toMatchObject({ kind: "group", last: { text: "copy, see you there" } });
    expect(list.find((c) => c.call === "ALL")).toMatchObject({ kind: "group", last: { state: "sent" } });
    expect(list.find((c) => c.call === "BLN1")).toMatchObject({ kind: "bulletin" });
    expect(list.find((c) => c.call === "W1AW-9")).toMatchObject({ kind: "station", last: { state: "failed" } });
  });

  test("sending needs a verified callsign; bad text is refused and nothing goes out", async () => {
    const plain = signedInUser(g.gw, "N0UNV");
    const r = await g.post("/api/messages", { to: "W1AW", text: "hi" }, as(plain));
    expect(r.status).toBe(403);
    expect((await r.json()).error).toBe("callsign_not_verified");
    for (const body of [{ to: "W1AW", text: "x".repeat(68) }, { to: "W1AW", text: "a|b" }, { to: "TOO-LONG-CALL", text: "hi" }, { to: "W1AW" }])
      expect((await g.post("/api/messages", body, as(me))).status).toBe(400);
    const from = after(0);
    expect(tnc.sent.length).toBe(from);
    expect((await g.get("/api/messages/conversations")).status).toBe(401);
  });
});

describe("messages heard for the user", () => {
  test("reach the user's WebSocket live, with the state of what they sent (sent, acked)", async () => {
    const ws = await liveClient(g.url, "", { cookie: me.cookie });
    expect((await ws.next()).type).toBe("snapshot");
    tnc.hear(tnc2Frame("K1LIV>APRS,WIDE1*::N0TX-7   :are you on the ridge?{42"));
    expect(await ws.next()).toMatchObject({
      type: "aprs-message",
      conversation: "K1LIV",
      message: { direction: "in", from: "K1LIV", to: "N0TX-7", text: "are you on the ridge?", msgId: "42" },
    });
    t += 5000;
    const m = await send("K1LIV", "yes, near the cairn");
    await sentSince(after(0), 1);
    // on the air: the sender's screen hears "sent" without polling, then the ack
    expect(await ws.next()).toMatchObject({ type: "message-state", conversation: "K1LIV", message: { id: m.id, state: "sent", attempts: 1 } });
    tnc.hear(tnc2Frame(`K1LIV>APRS,WIDE1*::N0TX-7   :ack${m.msgId}`));
    expect(await ws.next()).toMatchObject({ type: "message-state", conversation: "K1LIV", message: { id: m.id, state: "acked" } });
    // another user's socket hears nothing of it
    expect(push.received.length).toBe(0);
    await ws.close();
    // without a socket open, the user's message goes to no one live but by push (next test)
    expect((await conversation("K1LIV")).map((x) => x.text)).toEqual(["are you on the ridge?", "yes, near the cairn"]);
  });

  test("go out by web push when the user has no socket open; the sender's retries are pushed once", async () => {
    const browser = pushClient();
    const sub = await fetch(`${g.url}/api/push/subscription`, {
      method: "PUT",
      headers: { cookie: me.cookie, "content-type": "application/json" },
      body: JSON.stringify(browser.subscription(`${push.url}/push/me`)),
    });
    expect(sub.status).toBe(201);
    await waitFor(() => liveSockets() === 0, "no socket of the user open");
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0TX-7   :meet at the bridge{7"));
    await waitFor(() => push.received.length === 1, "a push");
    expect(JSON.parse(browser.decrypt(push.received[0]!.body))).toEqual({
      title: "APRS message from K1PSH",
      body: "meet at the bridge",
      url: "/messages/K1PSH",
    });
    t += 31_000;
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0TX-7   :meet at the bridge{7"));
    // a message to another call, and an ack, push nothing
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0OTHER  :not for you{8"));
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0TX-7   :ack1"));
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0TX-7   :second{9"));
    await waitFor(() => push.received.length === 2, "the second message's push");
    expect(JSON.parse(browser.decrypt(push.received[1]!.body)).body).toBe("second");
    // with a socket open, no push
    const ws = await liveClient(g.url, "", { cookie: me.cookie });
    await ws.next();
    tnc.hear(tnc2Frame("K1PSH>APRS,WIDE1*::N0TX-7   :third{10"));
    expect(await ws.next()).toMatchObject({ type: "aprs-message", message: { text: "third" } });
    expect(push.received.length).toBe(2);
    await ws.close();
  });
});

function liveSockets(): number {
  return [...g.gw.live.rooms.perUser.values()].reduce((a, b) => a + b, 0);
}

describe("across a restart", () => {
  test("a message waiting for its ack is sent again by the restarted gateway when its time comes, and its ack still settles it", async () => {
    const tnc2 = fakeTnc();
    let now = Date.UTC(2026, 10, 27, 12, 0, 0);
    const env = { KISS_PORTS: tnc2.url, RADIO_CALL: "N0GW-10", RADIO_TX_PER_MINUTE: "60" };
    const first = await startInProcess(env, { clock: { now: () => now } });
    await tnc2.connected();
    const u = signedInUser(first.gw, "N0RST-7", { verified: true });
    signedInUser(first.gw, "N0GW-10", { verified: true });
    const r = await first.post("/api/messages", { to: "K1RST", text: "still there?" }, as(u));
    const m = (await r.json()).message as { id: string; msgId: string };
    radioOf(first.gw)!.tx.tick();
    await tnc2.waitSent(1);
    await first.stop();
    const second = await startInProcess(env, { dataDir: first.dataDir, clock: { now: () => now } });
    try {
      await waitFor(() => radioOf(second.gw)?.radio.ports[0]?.port.status().connected, "the TNC connected again");
      now += 29_000;
      radioOf(second.gw)!.tx.tick();
      expect(tnc2.sent.length).toBe(1);
      now += 2000;
      radioOf(second.gw)!.tx.tick();
      expect((await tnc2.waitSent(2)).map(tnc2Text)[1]).toBe(`N0RST-7>APZSVC,WIDE1-1,WIDE2-1::K1RST    :still there?{${m.msgId}`);
      tnc2.hear(tnc2Frame(`K1RST>APRS::N0RST-7  :ack${m.msgId}`));
      await waitFor(async () => {
        const c = (await (await second.get("/api/messages/with/K1RST", as(u))).json()).messages as Array<{ id: string; state: string }>;
        return c.find((x) => x.id === m.id)?.state === "acked";
      }, "acked after the restart");
    } finally {
      await second.stop();
      tnc2.stop();
    }
  });
});
