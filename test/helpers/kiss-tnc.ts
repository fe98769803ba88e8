/**
 * KISS TNCs on loopback TCP for gateway tests that need a radio but not a
 * real one: a fake TNC the test drives (it sees every frame the gateway
 * transmits and can make the gateway hear frames), and a null modem joining
 * two gateways' KISS ports (an instant, lossless channel). The real-TNC tests
 * use Direwolf (direwolf.ts).
 */
import type { Socket, TCPSocketListener } from "bun";
import { encodeKiss, KissDecoder } from "../../radio/kiss.ts";
import { decodeFrame, encodeFrame, type Ax25Frame } from "../../radio/frame.ts";
import { formatTnc2, parseTnc2 } from "../../radio/index.ts";

export interface FakeTnc {
  port: number;
  /** `tcp://127.0.0.1:PORT`, for KISS_PORTS */
  url: string;
  /** every AX.25 frame the gateway sent, decoded, in order */
  sent: Ax25Frame[];
  /** makes the gateway hear a frame */
  hear(frame: Ax25Frame | Uint8Array): void;
  /** resolves once `n` frames (counting from `from`) have been sent */
  waitSent(n: number, opts?: { from?: number; timeoutMs?: number }): Promise<Ax25Frame[]>;
  /** writes bytes to the gateway as they are: no KISS framing (a TNC's garbage, half a frame) */
  raw(bytes: Uint8Array): void;
  /** the TNC drops the connection (the gateway reconnects) */
  hangUp(): void;
  /** resolves once the gateway is connected */
  connected(): Promise<void>;
  stop(): void;
}

export function fakeTnc(): FakeTnc {
  const clients: Socket<undefined>[] = [];
  const sent: Ax25Frame[] = [];
  const waiters = new Set<() => void>();
  const decoder = new KissDecoder();
  const wake = () => [...waiters].forEach((w) => w());
  const server: TCPSocketListener<undefined> = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => {
        clients.push(s);
        wake();
      },
      data: (_s, d) => {
        for (const r of decoder.push(new Uint8Array(d))) {
          if (!r.ok || r.value.command !== "data") continue;
          const f = decodeFrame(r.value.data);
          if (f.ok) sent.push(f.value);
        }
        wake();
      },
      close: (s) => void clients.splice(clients.indexOf(s), 1),
    },
  });
  const until = (ok: () => boolean, what: string, timeoutMs: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (!ok()) return;
        clearTimeout(t);
        waiters.delete(check);
        resolve();
      };
      const t = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`fake TNC: ${what} (sent so far: ${sent.length})`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  return {
    port: server.port,
    url: `tcp://127.0.0.1:${server.port}`,
    sent,
    hear(frame) {
      const bytes = frame instanceof Uint8Array ? frame : encodeFrame(frame);
      for (const c of clients) c.write(encodeKiss(bytes, 0));
    },
    async waitSent(n, opts = {}) {
      const from = opts.from ?? 0;
      await until(() => sent.length - from >= n, `waiting for ${n} frames`, opts.timeoutMs ?? 10_000);
      return sent.slice(from, from + n);
    },
    raw(bytes) {
      for (const c of clients) c.write(bytes);
    },
    hangUp() {
      for (const c of [...clients]) c.end();
      clients.length = 0;
    },
    connected: () => until(() => clients.length > 0, "nobody connected", 10_000),
    stop: () => server.stop(true),
  };
}

/** Two KISS TCP ports whose bytes cross to each other: `tcp://` URLs for two gateways' KISS_PORTS. */
export function nullModem(): { a: string; b: string; stop(): void } {
  const sides: Socket<undefined>[][] = [[], []];
  const servers = [0, 1].map((i) =>
    Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open: (s) => void sides[i]!.push(s),
        data: (_s, d) => sides[1 - i]!.forEach((o) => o.write(d)),
        close: (s) => void sides[i]!.splice(sides[i]!.indexOf(s), 1),
      },
    }),
  );
  return {
    a: `tcp://127.0.0.1:${servers[0]!.port}`,
    b: `tcp://127.0.0.1:${servers[1]!.port}`,
    stop: () => servers.forEach((s) => s.stop(true)),
  };
}

/** A frame from TNC2 text (`N0CALL-9>APRS,WIDE1*:...`), for a fake TNC to hear. */
export function tnc2Frame(line: string): Ax25Frame {
  const r = parseTnc2(line);
  if (!r.ok) throw r.error;
  return r.value;
}

/** A frame as TNC2 text, to compare what went on the air. */
export function tnc2Text(f: Ax25Frame): string {
  const r = formatTnc2(f);
  if (!r.ok) throw r.error;
  return new TextDecoder().decode(r.value);
}
