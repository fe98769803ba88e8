/** The transmit queue: a verified user's message through /outbox to an ack heard back by ingest. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { decode } from "../../src/lib/aprs/index.ts";
import type { Clock } from "../../src/hosts/gateway.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let t = Date.now();
beforeAll(async () => {
  g = await startInProcess({ INGEST_SECRET: INGEST, FED_APRS_CALL: "N0GW" });
  (g.gw as { clock: Clock }).clock = { now: () => t };
});
afterAll(() => g.stop());

const box = { "x-ingest-secret": INGEST };
const lease = async () =>
  (await (await g.get("/outbox", { headers: box })).json()).items as Array<{ id: number; line: string; state: string; attempts: number; msgId: string }>;
const sent = (ids: number[]) => g.post("/outbox/ack", { sent: ids }, { headers: box });
const heard = (line: string) => fetch(`${g.url}/ingest`, { method: "POST", headers: { ...box, "content-type": "text/plain" }, body: line });

describe("APRS transmit through the outbox", () => {
  test("a verified user's message is leased, sent, retried, and settled by the ack", async () => {
    const u = signedInUser(g.gw, "N0TX-7", { verified: true });
    const r = await g.post("/api/tx/aprs", { addressee: "W1AW-9", text: "meet at the cache" }, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(200);
    const { item } = await r.json();
    expect(item).toMatchObject({ kind: "message", src: "N0TX-7", addressee: "W1AW-9", state: "queued" });
    expect(decode(item.line)).toMatchObject({
      ok: true,
      packet: { src: "N0TX-7", type: "message", addressee: "W1AW-9", text: "meet at the cache", msgId: item.msgId },
    });
    const first = await lease();
    expect(first.map((i) => i.id)).toEqual([item.id]);
    expect(first[0]).toMatchObject({ state: "leased", attempts: 1 });
    expect(await lease()).toEqual([]); // leased: nobody else gets it
    expect(await (await sent([item.id])).json()).toEqual({ updated: 1 });
    expect(await lease()).toEqual([]); // waiting for the ack
    t += 31_000; // no ack within 30 s: sent again
    const again = await lease();
    expect(again[0]).toMatchObject({ id: item.id, attempts: 2 });
    await sent([item.id]);
    // The addressee's ack, heard by the ingest box, settles it.
    await heard(`W1AW-9>APRS,WIDE1-1,qAR,N0BOX::N0TX-7   :ack${item.msgId}`);
    const mine = (await (await g.get("/api/tx/aprs", { headers: { cookie: u.cookie } })).json()).items;
    expect(mine[0]).toMatchObject({ id: item.id, state: "acked" });
    t += 10 * 60_000;
    expect(await lease()).toEqual([]);
  });

  test("a message never acked fails after its attempts; a lease that is not reported comes back", async () => {
    const u = signedInUser(g.gw, "N0TY", { verified: true });
    const { item } = await (await g.post("/api/tx/aprs", { addressee: "N0NONE", text: "anyone?" }, { headers: { cookie: u.cookie } })).json();
    for (let k = 1; k <= 5; k++) {
      const l = await lease();
      expect(l.map((i) => [i.id, i.attempts])).toEqual([[item.id, k]]);
      await sent([item.id]);
      t += 500_000;
    }
    expect(await lease()).toEqual([]);
    const mine = (await (await g.get("/api/tx/aprs", { headers: { cookie: u.cookie } })).json()).items;
    expect(mine[0]).toMatchObject({ state: "failed", error: "no ack after 5 attempts" });
    const { item: pos } = await (
      await g.post("/api/tx/aprs", { kind: "position", lat: 42.5, lon: -71.25, symbol: "/>", comment: "hiking" }, { headers: { cookie: u.cookie } })
    ).json();
    expect((await lease()).map((i) => i.id)).toEqual([pos.id]);
    t += 61_000; // the box never reported it: leased again
    expect((await lease()).map((i) => i.id)).toEqual([pos.id]);
    await sent([pos.id]);
    t += 3_600_000;
    expect(await lease()).toEqual([]);
  });

  test("a message to this instance's own APRS call gets an ack queued", async () => {
    await heard("K1ABC>APRS,TCPIP*,qAC,T2X::N0GW     :hello gateway{77");
    const items = await lease();
    expect(items.map((i) => i.line)).toEqual(["N0GW>APZSVC,TCPIP*::K1ABC    :ack77"]);
    await sent(items.map((i) => i.id));
  });

  test("transmit needs a verified callsign; bad input is 400 and queues nothing", async () => {
    const plain = signedInUser(g.gw, "N0UNV");
    const refused = await g.post("/api/tx/aprs", { addressee: "W1AW", text: "hi" }, { headers: { cookie: plain.cookie } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe("callsign_not_verified");
    const v = signedInUser(g.gw, "N0VV", { verified: true });
    for (const b of [
      { addressee: "W1AW", text: "x".repeat(80) },
      { addressee: "W1AW", text: "a|b" },
      { kind: "position", lat: 95, lon: 0 },
      { kind: "dance" },
      "nope",
    ])
      expect((await g.post("/api/tx/aprs", b, { headers: { cookie: v.cookie } })).status).toBe(400);
    // A field the route does not take is refused by name, and queues nothing.
    const stray = await g.post("/api/tx/aprs", { addressee: "W1AW", text: "hi", colour: "red" }, { headers: { cookie: v.cookie } });
    expect({ status: stray.status, answer: await stray.json() }).toEqual({
      status: 400,
      answer: {
        error: "invalid",
        message: 'body.colour: unknown field "colour"; it takes kind, addressee, text, lat, lon, symbol, comment',
        field: "body.colour",
      },
    });
    expect(await lease()).toEqual([]);
    const badAck = await g.post("/outbox/ack", { sent: [1, "x"] }, { headers: box });
    expect({ status: badAck.status, answer: await badAck.json() }).toMatchObject({ status: 400, answer: { error: "invalid", field: "body.sent.1" } });
    // The control: the same message without the stray field is queued.
    expect((await g.post("/api/tx/aprs", { addressee: "W1AW", text: "hi" }, { headers: { cookie: v.cookie } })).status).toBe(200);
    const queued = await lease();
    expect(queued.map((i) => i.line)).toEqual([expect.stringMatching(/^N0VV>.*::W1AW {5}:hi\{/)]);
    await sent(queued.map((i) => i.id));
  });
  test("an acknowledgement with unknown fields, or with nothing in it, is refused and changes nothing", async () => {
    const u = signedInUser(g.gw, "N0ACK-7", { verified: true });
    const q = await g.post("/api/tx/aprs", { addressee: "W1AW-9", text: "ack shape" }, { headers: { cookie: u.cookie } });
    expect(q.status).toBeLessThan(300);
    const [item] = (await lease()).filter((i) => i.line.includes("ack shape"));
    expect(item).toBeDefined();
    const states = () => g.gw.db.query("SELECT state, sent_at FROM aprs_outbox WHERE id = ?").get(item!.id);
    const before = states();
    // An unknown field is named (the first, where there are several), beside a known one too, and inside a failed item.
    const id = item!.id;
    for (const [body, field] of [
      [{ snet: [id] }, "body.snet"],
      [{ acked: [id], done: true }, "body.acked"],
      [{ done: true }, "body.done"],
      [{ sent: [id], done: true }, "body.done"],
      [{ failed: [{ id, error: "no tnc", why: "x" }] }, "body.failed.0.why"],
    ] as const) {
      const r = await g.post("/outbox/ack", body, { headers: box });
      const answer = (await r.json()) as { error: string; message: string; field: string };
      const name = field.split(".").at(-1);
      expect({ body, status: r.status, answer }).toEqual({
        body,
        status: 400,
        answer: { error: "invalid", message: expect.stringContaining(`${field}: unknown field "${name}"`), field },
      });
      expect(states()).toEqual(before);
    }
    const empty = await g.post("/outbox/ack", {}, { headers: box });
    expect({ status: empty.status, error: (await empty.json()).error }).toEqual({ status: 400, error: "invalid" });
    expect(states()).toEqual(before);
    // Positive control: the right field settles it.
    expect((await sent([item!.id])).status).toBe(200);
    expect(states()).not.toEqual(before);
  });
});
