/**
 * Faults on the radio side, against a running gateway with a fake KISS TCP
 * TNC: garbage from the TNC, and a TNC that drops the connection in the
 * middle of a frame. The gateway keeps serving, reconnects, stores every
 * whole frame heard, and says what happened in GET /api/ports and the log.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { encodeKiss } from "../../radio/kiss.ts";
import { encodeFrame } from "../../radio/frame.ts";
import { captureLog, startInProcess, type Running } from "../helpers/gateway.ts";
import { fakeTnc, tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { waitFor } from "../helpers/wait.ts";

let tnc: FakeTnc;
let g: Running;
const { log, lines: logged } = captureLog("info");

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({ KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10" }, { log });
  await tnc.connected();
});
afterAll(async () => {
  await g?.stop();
  tnc?.stop();
});

const line = (call: string, n: number) => `${call}>APRS,WIDE1-1:!4903.${String(n % 60).padStart(2, "0")}N/07201.75W-fault ${n}`;
const stored = (call: string) => (g.gw.db.query("SELECT count(*) AS n FROM packets WHERE src = ?").get(call) as { n: number }).n;
const port = async () => ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, unknown>> }).ports.find((p) => p.name === tnc.url)!;

test("garbage from the TNC: counted as errors in /api/ports, the port stays up, and the frames around it are stored", async () => {
  for (let n = 0; n < 5; n++) tnc.hear(tnc2Frame(line("N0GB-1", n)));
  await waitFor(() => stored("N0GB-1") === 5, "the frames before the garbage");
  const before = (await port()).errors as number;
  // bytes with no KISS framing, a bad escape, a frame too short to be AX.25, random bytes between FENDs
  tnc.raw(new TextEncoder().encode("AT Z\r\nNO CARRIER\r\n"));
  tnc.raw(Uint8Array.of(0xc0, 0x00, 0xdb, 0x01, 0xc0));
  tnc.raw(Uint8Array.of(0xc0, 0x00, 0x41, 0x42, 0xc0));
  tnc.raw(encodeKiss(crypto.getRandomValues(new Uint8Array(40))));
  for (let n = 5; n < 10; n++) tnc.hear(tnc2Frame(line("N0GB-1", n)));
  await waitFor(() => stored("N0GB-1") === 10, "the frames after the garbage");
  const p = await port();
  expect(p).toMatchObject({ state: "up", reconnects: 0 });
  expect(p.errors as number).toBeGreaterThan(before);
  expect(p.lastError).toEqual(expect.any(String));
  expect(logged.some((l) => l.includes(`radio port ${tnc.url}: bad data from the TNC`))).toBe(true);
  expect((await g.get("/health")).status).toBe(200);
});

test("a TNC that drops mid-frame: the port reconnects, frames after it are stored, and /api/ports and the log say so", async () => {
  for (let n = 0; n < 3; n++) tnc.hear(tnc2Frame(line("N0DR-1", n)));
  await waitFor(() => stored("N0DR-1") === 3, "the frames before the drop");
  // half a frame, then the line drops
  const half = encodeKiss(encodeFrame(tnc2Frame(line("N0HALF", 0))), 0);
  tnc.raw(half.subarray(0, half.length >> 1));
  await Bun.sleep(20);
  tnc.hangUp();
  await waitFor(async () => (await port()).reconnects === 1, "the reconnect");
  await tnc.connected();
  for (let n = 3; n < 8; n++) tnc.hear(tnc2Frame(line("N0DR-1", n)));
  await waitFor(() => stored("N0DR-1") === 8, "the frames after the reconnect");
  // the half frame was never whole: nothing of it is stored, and it did not spoil the next frame
  expect(stored("N0HALF")).toBe(0);
  const p = await port();
  expect(p).toMatchObject({ state: "up", reconnects: 1 });
  expect(String(p.lastError)).toMatch(/closed|ended|lost/i);
  expect(p.lastErrorAt).toEqual(expect.any(Number));
  expect(logged.some((l) => l.includes(`radio port ${tnc.url}`) && /retrying/.test(l))).toBe(true);
  expect(logged.filter((l) => l.includes(`radio port ${tnc.url} connected`)).length).toBe(2);
  expect((await g.get("/health")).status).toBe(200);
});
