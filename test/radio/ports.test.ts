import { afterAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { closeSync, constants, existsSync, openSync, readSync, writeSync } from "node:fs";
import { join } from "node:path";
import { decodeFrame, encodeFrame } from "../../radio/frame.ts";
import { formatTnc2, parseTnc2 } from "../../radio/tnc2.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { loadConfig } from "../../src/core/config.ts";
import { encodeKiss, KissDecoder } from "../../radio/kiss.ts";
import { parseKissPorts, parseRadioCall } from "../../radio/port/config.ts";
import { KissPort, type PortState } from "../../radio/port/kiss-port.ts";
import { openKissPort } from "../../radio/port/open.ts";
import { serialTransport } from "../../radio/port/serial.ts";
import { tcpTransport } from "../../radio/port/tcp.ts";
import { ptyPair } from "../helpers/socat.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { waitFor } from "../helpers/wait.ts";

const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** Resolves once `port` has delivered `n` frames, with them. */
function collect(port: KissPort, n: number, timeoutMs = 10_000): Promise<Uint8Array[]> {
  const got: Uint8Array[] = [];
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`got ${got.length} of ${n} frames`)), timeoutMs);
    const off = port.onFrame((f) => {
      got.push(f.slice());
      if (got.length === n) {
        clearTimeout(t);
        off();
        resolve(got);
      }
    });
  });
}

function reachState(port: KissPort, want: PortState, timeoutMs = 10_000): Promise<void> {
  if (port.state === want) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`port stayed ${port.state}, wanted ${want}`)), timeoutMs);
    const off = port.onState((s) => {
      if (s === want) {
        clearTimeout(t);
        off();
        resolve();
      }
    });
  });
}

describe("radio settings", () => {
  test("KISS_PORTS: tcp and serial entries, baud, off; bad entries are refused with the reason", () => {
    expect(
      parseKissPorts("tcp://127.0.0.1:8001, serial:/dev/ttyUSB0@19200,serial:/dev/serial/by-id/usb-TNC_1-if00,tcp://[::1]:9001,tcp://tnc.local:8001"),
    ).toEqual({
      ok: true,
      value: [
        { kind: "tcp", host: "127.0.0.1", port: 8001 },
        { kind: "serial", path: "/dev/ttyUSB0", baud: 19200 },
        { kind: "serial", path: "/dev/serial/by-id/usb-TNC_1-if00", baud: 9600 },
        { kind: "tcp", host: "::1", port: 9001 },
        { kind: "tcp", host: "tnc.local", port: 8001 },
      ],
    });
    expect(parseKissPorts("off")).toEqual({ ok: true, value: [] });
    for (const bad of [
      "tcp://host",
      "tcp://host:0",
      "tcp://host:70000",
      "udp://host:8001",
      "serial:ttyUSB0",
      "serial:/dev/ttyUSB0@1234",
      "serial:/dev/ttyUSB0@fast",
      "tcp://a:1,tcp://a:1",
      " , ",
    ]) {
      const r = parseKissPorts(bad);
      expect(r.ok ? bad : r.error.code).toBe("config-bad-port");
    }
    expect(parseRadioCall(" n0call-0 ")).toEqual({ ok: true, value: "N0CALL" });
    expect(parseRadioCall("N0CALL-16").ok).toBe(false);
  });

  test("config.ts reads KISS_PORTS and RADIO_CALL; unset means Direwolf on localhost:8001 if present", () => {
    const dflt = loadConfig({ dataDir: tmpDir(), env: {} });
    expect(dflt.config.kissPorts).toEqual([{ kind: "tcp", host: "127.0.0.1", port: 8001, auto: true }]);
    expect(dflt.config.radioCall).toBeNull();
    const set = loadConfig({ dataDir: tmpDir(), env: { KISS_PORTS: "serial:/dev/ttyACM0@57600", RADIO_CALL: "n0gw-10" } });
    expect(set.errors).toEqual([]);
    expect(set.config.kissPorts).toEqual([{ kind: "serial", path: "/dev/ttyACM0", baud: 57600 }]);
    expect(set.config.radioCall).toBe("N0GW-10");
    const bad = loadConfig({ dataDir: tmpDir(), env: { KISS_PORTS: "com3", RADIO_CALL: "TOOLONGCALL" } });
    expect(bad.errors.map((e) => e.setting).sort()).toEqual(["KISS_PORTS", "RADIO_CALL"]);
  });
});

describe("KISS over TCP", () => {
  let server: TCPSocketListener<undefined> | null = null;
  const clients: Socket<undefined>[] = [];
  const received: Uint8Array[] = [];
  afterAll(() => server?.stop(true));

  test("frames both ways, counters, reconnect with backoff after the TNC drops the connection", async () => {
    const decoder = new KissDecoder();
    server = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open: (s) => void clients.push(s),
        data: (_s, d) => {
          for (const r of decoder.push(d)) if (r.ok) received.push(r.value.data);
        },
        close: (s) => void clients.splice(clients.indexOf(s), 1),
      },
    });
    const port = new KissPort(tcpTransport("127.0.0.1", server.port), { minBackoffMs: 20, params: { 0: { txDelay: 25, fullDuplex: false } } }).start();
    await port.whenConnected();
    // the TNC parameters go out first on every connection
    await waitFor(() => received.length >= 2);
    expect(port.status()).toMatchObject({ kind: "tcp", id: `tcp://127.0.0.1:${server.port}`, state: "connected", connected: true, reconnects: 0 });

    // TNC -> port: two frames in one write, then one split across three
    const a = bytes(40, 1);
    const b = Uint8Array.of(0xc0, 0xdb, 1, 2);
    const c = bytes(300, 7);
    const got = collect(port, 3);
    const wire = Buffer.concat([encodeKiss(a), encodeKiss(b), encodeKiss(c)]);
    clients[0]!.write(wire.subarray(0, wire.length - 200));
    await Bun.sleep(5);
    clients[0]!.write(wire.subarray(wire.length - 200, wire.length - 3));
    await Bun.sleep(5);
    clients[0]!.write(wire.subarray(wire.length - 3));
    expect(await got).toEqual([a, b, c]);

    // port -> TNC
    received.length = 0;
    expect(port.sendFrame(c)).toBe(true);
    await waitFor(() => received.length === 1);
    expect(received[0]).toEqual(c);
    const s = port.status();
    expect(s.framesIn).toBe(3);
    expect(s.framesOut).toBe(1);
    expect(s.bytesIn).toBe(wire.length);
    expect(s.bytesOut).toBe(encodeKiss(c).length + 4 * 2 /* two parameter frames */);

    // garbage from the TNC is counted, not fatal
    clients[0]!.write(Uint8Array.of(0xc0, 0x00, 0xdb, 0x01, 0xc0));
    await waitFor(() => port.status().errors === 1);

    // the TNC hangs up: the port notices, waits, reconnects, and frames flow again
    clients[0]!.end();
    await reachState(port, "waiting");
    expect(port.sendFrame(a)).toBe(false);
    expect(port.status().dropped).toBe(1);
    await reachState(port, "connected");
    expect(port.status().reconnects).toBe(1);
    const again = collect(port, 1);
    clients[0]!.write(encodeKiss(a));
    expect(await again).toEqual([a]);
    await port.close();
    expect(port.status().state).toBe("closed");
  });

  test("nobody listening: a configured port counts errors and keeps trying; the default port is quietly absent", async () => {
    const l = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const free = l.port;
    l.stop(true);
    const configured = new KissPort(tcpTransport("127.0.0.1", free), { minBackoffMs: 10, maxBackoffMs: 40 }).start();
    const auto = openKissPort({ kind: "tcp", host: "127.0.0.1", port: free, auto: true }, { minBackoffMs: 10, maxBackoffMs: 40 }).start();
    await waitFor(() => configured.status().errors >= 3);
    expect(configured.status()).toMatchObject({ connected: false, auto: false });
    expect(configured.status().lastError).toMatch(/refused|ECONNREFUSED/i);
    expect(auto.status()).toMatchObject({ connected: false, auto: true, errors: 0 });
    // it comes up once something listens there
    const late = Bun.listen({ hostname: "127.0.0.1", port: free, socket: { data() {} } });
    await auto.whenConnected(5000);
    await configured.whenConnected(5000);
    await Promise.all([auto.close(), configured.close()]);
    late.stop(true);
  });
});

describe("KISS over a serial line (Bun binding, no native addon)", () => {
  test("frames both ways through a pty at the configured baud, a writer faster than the line, hangup and reconnect", async () => {
    const pair = await ptyPair();
    const port = new KissPort(serialTransport(pair.a, 19200), { minBackoffMs: 50 }).start();
    await port.whenConnected();
    expect(Bun.spawnSync(["stty", "-F", pair.a, "speed"]).stdout.toString().trim()).toBe("19200");
    expect(port.status()).toMatchObject({ kind: "serial", id: `serial:${pair.a}@19200`, connected: true });

    const fd = openSync(pair.b, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    // far side -> port
    const frames = Array.from({ length: 20 }, (_, i) => bytes(100 + i, i));
    const got = collect(port, frames.length);
    writeSync(fd, Buffer.concat(frames.map((f) => encodeKiss(f))));
    expect(await got).toEqual(frames);

    // port -> far side: 120 kB, many times what the pty buffers, so writes hit EAGAIN and must retry
    const big = Array.from({ length: 400 }, (_, i) => bytes(300, i));
    for (const f of big) expect(port.sendFrame(f)).toBe(true);
    const out = await readFrames(fd, big.length, 20_000);
    expect(out).toEqual(big);
    closeSync(fd);

    // the device goes away (unplugged): the port notices and waits; it comes back at the same path
    await pair.stop();
    await reachState(port, "waiting");
    expect(port.status().errors).toBeGreaterThanOrEqual(1);
    const again = await ptyPairAt(pair.a, pair.b);
    await port.whenConnected(5000);
    expect(port.status().reconnects).toBe(1);
    const fd2 = openSync(pair.b, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    const one = collect(port, 1);
    writeSync(fd2, encodeKiss(frames[3]!));
    expect(await one).toEqual([frames[3]!]);
    closeSync(fd2);
    await port.close();
    await again.stop();
  }, 60_000);
});

describe("the compiled executable", () => {
  test("drives a serial KISS TNC with no native addon embedded", async () => {
    const dir = tmpDir("svc-exe-");
    const exe = join(dir, "serial-kiss");
    const b = Bun.spawnSync([BUN, "build", "--compile", "--outfile", exe, join(import.meta.dir, "fixtures/serial-kiss.ts")], { stderr: "pipe" });
    expect(b.exitCode).toBe(0);
    // nothing native to embed: the package that panics Bun is not even installed
    expect(existsSync(join(ROOT, "node_modules/@serialport/bindings-cpp"))).toBe(false);
    const pair = await ptyPair(dir);
    const fd = openSync(pair.b, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    const proc = Bun.spawn([exe, pair.a, "4800", "N0GW-1>APRS,WIDE2-1:>from the executable"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { PATH: "/usr/bin:/bin" },
    });
    // read what it sent
    const [sent] = await readFrames(fd, 1);
    const f = sent && decodeFrame(sent);
    const t = f && f.ok ? formatTnc2(f.value) : null;
    expect(t?.ok && Buffer.from(t.value).toString()).toBe("N0GW-1>APRS,WIDE2-1:>from the executable");
    expect(Bun.spawnSync(["stty", "-F", pair.a, "speed"]).stdout.toString().trim()).toBe("4800");
    // and what it hears
    const reply = parseTnc2("N0DW-2>APRS:>heard you");
    if (!reply.ok) throw reply.error;
    writeSync(fd, encodeKiss(encodeFrame(reply.value)));
    expect(await new Response(proc.stdout).text()).toBe("N0DW-2>APRS:>heard you\n");
    expect(await proc.exited).toBe(0);
    closeSync(fd);
    await pair.stop();
  });
});

async function ptyPairAt(a: string, b: string) {
  const proc = Bun.spawn(["socat", `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], { stdout: "ignore", stderr: "ignore" });
  await waitFor(() => Bun.spawnSync(["test", "-e", b]).exitCode === 0);
  return { stop: async () => (proc.kill(), await proc.exited) };
}

/** Reads `n` KISS data frames from a non-blocking tty fd. */
async function readFrames(fd: number, n: number, timeoutMs = 10_000): Promise<Uint8Array[]> {
  const decoder = new KissDecoder();
  const out: Uint8Array[] = [];
  const buf = Buffer.alloc(65536);
  const deadline = Date.now() + timeoutMs;
  while (out.length < n && Date.now() < deadline) {
    let got = 0;
    try {
      got = readSync(fd, buf);
    } catch {} // EAGAIN: nothing yet
    if (!got) {
      await Bun.sleep(2);
      continue;
    }
    for (const r of decoder.push(buf.subarray(0, got))) if (r.ok) out.push(r.value.data);
  }
  return out;
}
