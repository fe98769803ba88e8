/**
 * UI frames through a real pair of Direwolf TNCs (FIFO "audio", 1200 baud
 * AFSK): over KISS TCP and over a serial line (a pty bridged to KISS TCP).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decodeFrame, encodeFrame, uiFrame, type Ax25Frame } from "../../radio/frame.ts";
import { KissPort } from "../../radio/port/kiss-port.ts";
import { serialTransport } from "../../radio/port/serial.ts";
import { tcpTransport } from "../../radio/port/tcp.ts";
import { formatTnc2, parseTnc2 } from "../../radio/tnc2.ts";
import { startDirewolfPair, type DirewolfPair } from "../helpers/direwolf.ts";

let pair: DirewolfPair;
let a: KissPort;
let b: KissPort;

beforeAll(async () => {
  pair = await startDirewolfPair();
  a = new KissPort(tcpTransport("127.0.0.1", pair.a.kissPort)).start();
  b = new KissPort(tcpTransport("127.0.0.1", pair.b.kissPort)).start();
  await Promise.all([a.whenConnected(), b.whenConnected()]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await pair?.stop();
});

const tnc2 = (line: string | Uint8Array): Ax25Frame => {
  const r = parseTnc2(line);
  if (!r.ok) throw r.error;
  return r.value;
};
const text = (f: Ax25Frame) => {
  const t = formatTnc2(f);
  if (!t.ok) throw t.error;
  return Buffer.from(t.value).toString("latin1");
};

/** The next `n` frames `port` hears, decoded. */
function hear(port: KissPort, n: number, timeoutMs = 20_000): Promise<{ bytes: Uint8Array; frame: Ax25Frame }[]> {
  const got: { bytes: Uint8Array; frame: Ax25Frame }[] = [];
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => (off(), reject(new Error(`heard ${got.length} of ${n} frames`))), timeoutMs);
    const off = port.onFrame((bytes) => {
      const f = decodeFrame(bytes);
      if (!f.ok) return reject(f.error);
      got.push({ bytes: bytes.slice(), frame: f.value });
      if (got.length === n) {
        clearTimeout(t);
        off();
        resolve(got);
      }
    });
  });
}

describe("UI frames through two Direwolf TNCs", () => {
  test("KISS TCP: frames go out of Direwolf 1 and come out of Direwolf 2 byte for byte, and the other way at the same time", async () => {
    // binary info with the KISS special bytes, a path with one hop already repeated
    const binary = uiFrame({
      dest: { call: "APZSVC", ssid: 0 },
      src: { call: "N0GW", ssid: 1 },
      path: [
        { call: "RELAY", ssid: 0, repeated: true },
        { call: "WIDE2", ssid: 1, repeated: false },
      ],
      info: Uint8Array.from([0x3e, 0xc0, 0xdb, 0xdc, 0xdd, 0x00, 0xff, 0x0d, 0x0a, 0x41]),
    });
    const burst = [1, 2, 3].map((i) => tnc2(`N0GW-1>APRS,WIDE1-1:>burst ${i} ${"x".repeat(i * 20)}`));
    const back = tnc2("N0GW-2>APZSVC,WIDE2-2:!4903.50N/07201.75W-going the other way");
    const logB = pair.b.log().length;
    const logA = pair.a.log().length;

    const atB = hear(b, 4);
    const atA = hear(a, 1);
    // one KISS command to Direwolf 1 as well: it reports the TXDELAY it was given
    expect(a.setParams({ txDelay: 25 })).toBe(true);
    for (const f of [binary, ...burst]) expect(a.sendFrame(encodeFrame(f))).toBe(true);
    expect(b.sendFrame(encodeFrame(back))).toBe(true);

    const [heardB, heardA] = await Promise.all([atB, atA]);
    expect(heardB.map((h) => h.bytes)).toEqual([binary, ...burst].map(encodeFrame));
    expect(heardB[0]!.frame.path).toEqual(binary.path);
    expect(heardA[0]!.bytes).toEqual(encodeFrame(back));

    // Direwolf's own monitor lines agree with our TNC2 text
    for (const f of burst) await pair.b.waitForLog(new RegExp(escapeRe(text(f))), { from: logB });
    await pair.a.waitForLog(new RegExp(escapeRe(text(back))), { from: logA });
    await pair.b.waitForLog(/N0GW-1>APZSVC,RELAY\*,WIDE2-1:/, { from: logB });
    await pair.a.waitForLog(/KISS protocol set TXDELAY = 25 /, { from: logA });
    expect(a.status()).toMatchObject({ framesOut: 4, framesIn: 1, errors: 0 });
    expect(b.status()).toMatchObject({ framesOut: 1, framesIn: 4, errors: 0 });
  });

  test("serial path: a pty bridged to Direwolf 1's KISS port, opened as a serial TNC", async () => {
    const tty = await pair.serialTnc(pair.a);
    const serial = new KissPort(serialTransport(tty.path, 9600)).start();
    await serial.whenConnected();
    const out = tnc2("N0GW-3>APRS,WIDE1-1:>over the serial line \xb0");
    const back = tnc2("N0GW-2>APRS:>back to the serial line");
    const atB = hear(b, 1);
    const atSerial = hear(serial, 1);
    expect(serial.sendFrame(encodeFrame(out))).toBe(true);
    expect(b.sendFrame(encodeFrame(back))).toBe(true);
    const [[fromSerial], [toSerial]] = await Promise.all([atB, atSerial]);
    expect(text(fromSerial!.frame)).toBe(text(out));
    expect(fromSerial!.bytes).toEqual(encodeFrame(out));
    expect(toSerial!.bytes).toEqual(encodeFrame(back));
    expect(serial.status()).toMatchObject({ kind: "serial", framesOut: 1, framesIn: 1, errors: 0 });
    await serial.close();
  });
});

function escapeRe(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
