/**
 * The gateway's radio over a KISS TCP TNC the test drives: what it hears
 * reaches the station registry (as RF heard by this station), the MHeard list
 * and the port counters; what the outbox holds goes on the air only for
 * verified callsigns, with RADIO_PATH, within the rate limits.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import type { Clock } from "../../src/hosts/gateway.ts";
import { waitFor } from "../helpers/wait.ts";

let tnc: FakeTnc;
let g: Running;
let t = Date.now();

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    RADIO_TX_PER_MINUTE: "3",
    RADIO_BEACON_MIN_S: "600",
    INGEST_SECRET: "ingest-secret-0123456789",
  });
  (g.gw as { clock: Clock }).clock = { now: () => t };
  await tnc.connected();
});
afterAll(async () => {
  await g.stop();
  tnc.stop();
});

const frame = tnc2Frame;
const text = tnc2Text;
describe("the gateway's radio", () => {
  test("APRS heard on the port reaches the registry as RF heard by this station; MHeard and /api/ports count it", async () => {
    tnc.hear(frame("N0RF-9>APRS,WIDE1*,WIDE2-1:!4237.14N/07120.83W>heard on the air"));
    tnc.hear(frame("N0RF-9>APRS,WIDE1*,WIDE2-1:>status too"));
    const st = await waitFor(async () => {
      const r = await g.get("/api/stations/N0RF-9");
      return r.status === 200 && ((await r.json()) as { packets: number; source: string; igate: string; lat: number });
    });
    expect(st).toMatchObject({ source: "rf", igate: "N0GW-10" });
    expect(st.lat).toBeCloseTo(42.619, 3);
    const pkts = (await (await g.get("/api/stations/N0RF-9/packets")).json()).packets as Array<{ via: string; source: string }>;
    expect(pkts.length).toBe(2);
    expect(pkts.every((p) => p.source === "rf")).toBe(true);

    const heard = (await (await g.get("/api/node/mheard")).json()).heard as Array<{ call: string; frames: number; via: string; port: string }>;
    expect(heard.find((h) => h.call === "N0RF-9")).toMatchObject({ frames: 2, via: "WIDE1*,WIDE2-1", port: tnc.url, station: true });

    const ports = (await (await g.get("/api/ports")).json()).ports as Array<Record<string, unknown>>;
    expect(ports.find((p) => p.name === tnc.url)).toMatchObject({ kind: "kiss-tcp", state: "up", rx: 2, framesIn: 2, call: "N0GW-10", transmit: false });
  });

  test("the outbox goes on the air only for verified callsigns, with RADIO_PATH, within the rate limits; an ack heard settles a message", async () => {
    const gr = radioOf(g.gw)!;
    const from = tnc.sent.length;
    // an unverified user cannot use /api/tx/aprs at all; a line from an unverified source in the queue is refused by the TNC
    const { enqueue } = await import("../../src/stations/outbox.ts");
    const stray = enqueue(g.gw, { kind: "status", src: "N0NOPE", line: "N0NOPE>APZSVC,TCPIP*:>not verified" });
    const u = signedInUser(g.gw, "N0TX-7", { verified: true });
    const post = (body: unknown) => g.post("/api/tx/aprs", body, { headers: { cookie: u.cookie } });
    const msg = (await (await post({ addressee: "W1AW-9", text: "meet at the cache" })).json()).item;
    const pos1 = (await (await post({ kind: "position", lat: 42.5, lon: -71.25, comment: "first" })).json()).item;
    const pos2 = (await (await post({ kind: "position", lat: 42.6, lon: -71.25, comment: "too soon" })).json()).item;
    await post({ kind: "status", text: "one" });
    const st2 = (await (await post({ kind: "status", text: "two" })).json()).item;

    gr.tx.tick();
    const out = await tnc.waitSent(3, { from });
    // three tokens: the message, the first position, the first status; the stray refused, the second position deferred
    expect(out.map(text)).toEqual([
      `N0TX-7>APZSVC,WIDE1-1,WIDE2-1::W1AW-9   :meet at the cache{${msg.msgId}`,
      expect.stringMatching(/^N0TX-7>APZSVC,WIDE1-1,WIDE2-1:[!=].*first$/),
      "N0TX-7>APZSVC,WIDE1-1,WIDE2-1:>one",
    ]);
    const state = (id: number) =>
      g.gw.db.query("SELECT state, error, next_at AS nextAt FROM aprs_outbox WHERE id = ?").get(id) as { state: string; error: string | null; nextAt: number };
    expect(state(stray.id)).toMatchObject({ state: "failed", error: "N0NOPE is not a verified callsign on this instance" });
    expect(state(pos1.id).state).toBe("sent");
    expect(state(pos2.id)).toMatchObject({ state: "queued", nextAt: t + 600_000 });
    expect(state(st2.id).state).toBe("queued");
    expect(gr.tx.stats).toMatchObject({ refused: 1, deferred: 1 });

    // the bucket refills at 3 a minute: after 20 s one more frame may go
    t += 20_000;
    gr.tx.tick();
    expect((await tnc.waitSent(1, { from: from + 3 })).map(text)).toEqual(["N0TX-7>APZSVC,WIDE1-1,WIDE2-1:>two"]);
    expect(state(pos2.id).state).toBe("queued");

    // the addressee's ack heard on the air settles the message; no retry goes out
    tnc.hear(frame(`W1AW-9>APRS,WIDE1*::N0TX-7   :ack${msg.msgId}`));
    await waitFor(async () => state(msg.id).state === "acked");
    // ten minutes on, the held-back position goes out
    t += 600_000;
    gr.tx.tick();
    expect(text((await tnc.waitSent(1, { from: from + 4 }))[0]!)).toMatch(/too soon$/);
    expect(tnc.sent.length).toBe(from + 5);
    expect(state(pos2.id).state).toBe("sent");
    expect(state(msg.id).state).toBe("acked");
  });

  test("a message not acked is retried through the TNC", async () => {
    const gr = radioOf(g.gw)!;
    const u = signedInUser(g.gw, "N0RTY", { verified: true });
    const from = tnc.sent.length;
    const msg = (await (await g.post("/api/tx/aprs", { addressee: "W1AW-9", text: "are you there" }, { headers: { cookie: u.cookie } })).json()).item;
    t += 60_000;
    gr.tx.tick();
    await tnc.waitSent(1, { from });
    t += 31_000;
    gr.tx.tick();
    const both = await tnc.waitSent(2, { from });
    expect(both.map(text)).toEqual([0, 1].map(() => `N0RTY>APZSVC,WIDE1-1,WIDE2-1::W1AW-9   :are you there{${msg.msgId}`));
    expect((g.gw.db.query("SELECT attempts FROM aprs_outbox WHERE id = ?").get(msg.id) as { attempts: number }).attempts).toBe(2);
  });

  test("counter samples: what each counter grew by per minute", async () => {
    const before = g.gw.db.query("SELECT count(*) AS n FROM port_counters").get() as { n: number };
    await g.gw.scheduler.runNow("radio");
    tnc.hear(frame("N0RF-9>APRS:>one more"));
    await waitFor(async () => radioOf(g.gw)!.radio.status()[0]!.framesIn >= 4);
    await g.gw.scheduler.runNow("radio");
    const rows = g.gw.db.query("SELECT port, rx_frames AS rx, tx_frames AS tx FROM port_counters ORDER BY id").all() as Array<{
      port: string;
      rx: number;
      tx: number;
    }>;
    expect(rows.length).toBe(before.n + 2);
    expect(rows.at(-2)).toMatchObject({ port: tnc.url, rx: 3 });
    expect(rows.at(-1)).toMatchObject({ port: tnc.url, rx: 1, tx: 0 });
    // The sysop's traffic history reads them back.
    const history = await (await g.get(`/api/node/counters?port=${encodeURIComponent(tnc.url)}`)).json();
    expect(history.samples.slice(-2).map((s: { rxFrames: number; txFrames: number }) => [s.rxFrames, s.txFrames])).toEqual([
      [3, rows.at(-2)!.tx],
      [1, 0],
    ]);
    expect((await g.get("/api/node/counters")).status).toBe(400);
    expect((await (await g.get("/api/node/counters?port=nope")).json()).samples).toEqual([]);
  });
});
