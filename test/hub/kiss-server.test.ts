/**
 * The gateway's KISS TCP server (KISS_SERVER) between a fake TNC (the radio,
 * ../helpers/kiss-tnc.ts) and plain KISS clients, as APRS programs connect to
 * Direwolf's port 8001: every frame heard reaches every client byte for byte;
 * a client's frames go on the air only with KISS_SERVER_TX=on, from a call
 * verified here, while RADIO_CALL is verified and within RADIO_TX_PER_MINUTE
 * (the refusals: ../security/radio-holes.test.ts); a client that stops reading is dropped and the
 * radio goes on. The real-program test is direwolf-hub.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { connect } from "node:net";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { radioOf } from "../../src/radio-node/running-radio.ts";
import { encodeFrame, encodeKiss, KissDecoder, type KissFrame } from "../../radio/index.ts";

let tnc: FakeTnc;
let g: Running;
let port: number;

interface KissClient {
  frames: KissFrame[];
  send(frame: Uint8Array, kissPort?: number): void;
  waitFrames(n: number, timeoutMs?: number): Promise<void>;
  close(): void;
}

async function kissClient(): Promise<KissClient> {
  const frames: KissFrame[] = [];
  const dec = new KissDecoder();
  const waiters = new Set<() => void>();
  const s: Socket<undefined> = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_s, d) {
        for (const r of dec.push(d)) if (r.ok) frames.push(r.value);
        for (const w of [...waiters]) w();
      },
    },
  });
  return {
    frames,
    send: (f, p = 0) => void s.write(encodeKiss(f, p)),
    waitFrames: (n, timeoutMs = 5000) =>
      new Promise((resolve, reject) => {
        const check = () => frames.length >= n && (clearTimeout(t), waiters.delete(check), resolve());
        const t = setTimeout(() => (waiters.delete(check), reject(new Error(`KISS client got ${frames.length} frames, not ${n}`))), timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () => s.end(),
  };
}

const kissPort = async () => {
  const p = ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, unknown> & { name: string }> }).ports;
  return p.find((x) => x.name === "kiss-server")! as unknown as Record<string, unknown> & { clients: Array<Record<string, unknown>> };
};

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({ KISS_PORTS: tnc.url, RADIO_CALL: "N0KSS-1", KISS_SERVER: "127.0.0.1:0", KISS_SERVER_TX: "on", RADIO_TX_PER_MINUTE: "3" });
  await tnc.connected();
  await radioOf(g.gw)!.radio.ports[0]!.port.whenConnected();
  port = g.gw.hub!.kiss!.port;
});

afterAll(async () => {
  await g?.stop();
  tnc?.stop();
});

describe("KISS TCP server", () => {
  test("every frame the radio hears reaches every client, byte for byte, on the port's KISS number", async () => {
    const [a, b] = [await kissClient(), await kissClient()];
    for (let i = 0; i < 50 && (await kissPort()).clients.length < 2; i++) await Bun.sleep(10);
    const heard = [tnc2Frame("N0RX-7>APRS,WIDE1-1:!4230.00N/07100.00W>one"), tnc2Frame("N0RX-8>APDW16:>two")];
    for (const f of heard) tnc.hear(f);
    await Promise.all([a.waitFrames(2), b.waitFrames(2)]);
    for (const c of [a, b]) {
      expect(c.frames.map((f) => [f.port, f.command])).toEqual([
        [0, "data"],
        [0, "data"],
      ]);
      expect(c.frames.map((f) => [...f.data])).toEqual(heard.map((f) => [...encodeFrame(f)]));
    }
    const p = await kissPort();
    expect(p.clients.map((c) => c.tx)).toEqual([2, 2]);
    a.close();
    b.close();
  });

  test("a client's frames are refused and counted while RADIO_CALL is not verified, and go out through the transmitter once it is (KISS_SERVER_TX=on), within RADIO_TX_PER_MINUTE", async () => {
    const c = await kissClient();
    const frame = encodeFrame(tnc2Frame("N0KSS-9>APRS,WIDE1-1:>from a local program"));
    const sentBefore = tnc.sent.length;
    c.send(frame);
    for (let i = 0; i < 100 && !((await kissPort()).refused as number); i++) await Bun.sleep(10);
    expect(await kissPort()).toMatchObject({ refused: 1, sent: 0 });
    // the radio is connected and would carry it: once RADIO_CALL is verified, the same frame goes out
    signedInUser(g.gw, "N0KSS", { verified: true });
    c.send(frame);
    const [out] = await tnc.waitSent(1, { from: sentBefore });
    expect(tnc2Text(out!)).toBe("N0KSS-9>APRS,WIDE1-1:>from a local program");
    expect(tnc.sent.length).toBe(sentBefore + 1);
    // three tokens a minute: the one above, two more, then the fourth frame is held back and counted
    for (let i = 1; i <= 3; i++) c.send(encodeFrame(tnc2Frame(`N0KSS-9>APRS:>burst ${i}`)));
    await tnc.waitSent(3, { from: sentBefore });
    for (let i = 0; i < 100 && !((await kissPort()).rateLimited as number); i++) await Bun.sleep(10);
    expect(await kissPort()).toMatchObject({ sent: 3, refused: 1, rateLimited: 1 });
    expect(tnc.sent.slice(sentBefore).map(tnc2Text)).toEqual(["N0KSS-9>APRS,WIDE1-1:>from a local program", "N0KSS-9>APRS:>burst 1", "N0KSS-9>APRS:>burst 2"]);
    const row = (await kissPort()).clients[0]!;
    expect(row).toMatchObject({ server: "kiss", rx: 5, refused: 2 });
    c.close();
  });

  test("a client that stops reading is dropped once its queue is full; the radio and the other clients go on", async () => {
    const fast = await kissClient();
    const slow = connect({ host: "127.0.0.1", port });
    await new Promise<void>((r) => slow.once("connect", () => r()));
    for (let i = 0; i < 50 && (await kissPort()).clients.length < 2; i++) await Bun.sleep(10);
    expect((await kissPort()).clients.length).toBe(2);
    slow.pause();
    const info = "x".repeat(250);
    const N = 20_000;
    for (let i = 0; i < N; i++) {
      tnc.hear(tnc2Frame(`N0FL-${(i % 15) + 1}>APRS:>${i} ${info}`));
      if (i % 100 === 0) await Bun.sleep(1);
    }
    await fast.waitFrames(N, 30_000);
    expect(fast.frames.length).toBe(N);
    const p = await kissPort();
    expect(p.slowDropped).toBe(1);
    expect(p.clients.length).toBe(1);
    // the radio itself heard everything
    expect(radioOf(g.gw)!.radio.ports[0]!.port.status().framesIn).toBeGreaterThanOrEqual(N);
    slow.destroy();
    fast.close();
  }, 60_000);
});
