/**
 * The Radio facade the gateway uses, configured the way the gateway is
 * (KISS_PORTS, RADIO_CALL through src/core/config.ts), over a TCP "null modem":
 * two KISS TCP ports whose bytes cross to each other (a lossless, instant
 * channel; the real-TNC tests are in direwolf*.test.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { loadConfig } from "../../src/core/config.ts";
import { formatAddress } from "../../radio/address.ts";
import { isNodesFrame, decodeNodes } from "../../radio/netrom.ts";
import { PID_NETROM, type Ax25Frame } from "../../radio/frame.ts";
import { Radio } from "../../radio/radio.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { nullModem } from "../helpers/kiss-tnc.ts";

let modem: ReturnType<typeof nullModem> | undefined;
const radios: Radio[] = [];

function radioFor(env: Record<string, string>) {
  const { config, errors } = loadConfig({ dataDir: tmpDir(), env });
  expect(errors).toEqual([]);
  const r = new Radio({ ports: config.kissPorts, call: config.radioCall }).start();
  radios.push(r);
  return r;
}

let a: Radio;
let b: Radio;
let listenOnly: Radio;

beforeAll(async () => {
  modem = nullModem();
  a = radioFor({ KISS_PORTS: modem.a, RADIO_CALL: "n0gw-1" });
  b = radioFor({ KISS_PORTS: modem.b, RADIO_CALL: "N0GW-2" });
  listenOnly = radioFor({ KISS_PORTS: modem.b });
  await Promise.all(radios.flatMap((r) => r.ports.map((p) => p.port.whenConnected())));
});

afterAll(async () => {
  await Promise.all(radios.map((r) => r.stop()));
  modem?.stop();
});

function nextUi(r: Radio, match: (f: Ax25Frame) => boolean): Promise<[Ax25Frame, string]> {
  return new Promise((resolve) => {
    const off = r.onUi((f, port) => {
      if (!match(f)) return;
      off();
      resolve([f, port]);
    });
  });
}

test("UI frames and NODES broadcasts go out under RADIO_CALL and are heard, with the port they came in on", async () => {
  const heard = nextUi(b, (f) => f.pid === 0xf0);
  const heardToo = nextUi(listenOnly, (f) => f.pid === 0xf0);
  expect(a.sendUi({ dest: "APZSVC", via: ["WIDE1-1"], info: ">hello from the gateway" })).toBe(1);
  const [f, port] = await heard;
  expect(formatAddress(f.src)).toBe("N0GW-1");
  expect(new TextDecoder().decode(f.info)).toBe(">hello from the gateway");
  expect(port).toBe(b.ports[0]!.id);
  await heardToo;

  const nodes = nextUi(b, isNodesFrame);
  a.sendUi({ dest: "NODES", pid: PID_NETROM, info: Uint8Array.from([0xff, ...Buffer.from("GWNODE")]) });
  const [n] = await nodes;
  expect(decodeNodes(n.info)).toEqual({ ok: true, value: { alias: "GWNODE", entries: [] } });

  const [st] = a.status();
  expect(st).toMatchObject({ kind: "tcp", connected: true, framesOut: 2, errors: 0 });
  expect(b.status()[0]).toMatchObject({ framesIn: 2 });
});

test("a connected-mode link between two radios; the receive-only radio neither answers nor transmits", async () => {
  const accepted = new Promise<string>((resolve) =>
    b.listen((link, port) => {
      link.onData((d) => link.send(d)); // echo
      resolve(port);
    }),
  );
  listenOnly.listen(() => {
    throw new Error("a radio without RADIO_CALL must not accept links");
  });
  const link = await a.connect("N0GW-2", { params: { paclen: 64 } });
  expect(await accepted).toBe(b.ports[0]!.id);
  const got: number[] = [];
  const echoed = new Promise<void>((resolve) =>
    link.onData((d) => {
      got.push(...d);
      if (got.length === 300) resolve();
    }),
  );
  const msg = Buffer.from("x".repeat(300));
  link.send(msg);
  await echoed;
  expect(Buffer.from(got).equals(msg)).toBe(true);
  await link.disconnect();
  expect(link.reason).toBe("local");
  expect(() => listenOnly.sendUi({ dest: "APRS", info: "x" })).toThrow("RADIO_CALL");
  expect(await listenOnly.connect("N0GW-1").catch((e) => e.message)).toMatch("RADIO_CALL");
  expect(listenOnly.status()[0]!.framesOut).toBe(0);
});
