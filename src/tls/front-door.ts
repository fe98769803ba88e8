/**
 * The Bun host's HTTPS port. Bun.serve terminates TLS with no hook before its
 * handshake: it cannot offer the ACME TLS-ALPN-01 certificate (it picks by
 * server name only) and it closes a plain-http connection without a word. So
 * on the Bun host the HTTPS port is this small TCP listener, and Bun.serve
 * listens on a loopback port behind it. Each connection's first bytes decide:
 * - a ClientHello asking ALPN `acme-tls/1` for a name with a pending challenge
 *   gets the challenge certificate (alpn.ts), and nothing else;
 * - plain http gets a readable 400 naming the https address (plain-on-tls.ts);
 * - every other connection is joined, bytes as they are, to Bun.serve.
 * Bun.serve then sees every client as 127.0.0.1: `clientOf` gives back the
 * client's own address by the port the joining connection came from, so rate
 * limits, logs and the sysop's pages keep the real address.
 */
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { Duplex } from "node:stream";
import { answerChallenge, ACME_TLS_ALPN, parseClientHello } from "./alpn.ts";
import { plainHttpAnswer } from "./plain-on-tls.ts";
import type { PemPair } from "./x509.ts";

export interface FrontDoor {
  readonly port: number;
  /** The client's address of a connection Bun.serve sees from 127.0.0.1:`localPort`; null for any other. */
  clientOf(localPort: number): string | null;
  stop(): Promise<void>;
}

export interface FrontDoorOptions {
  port: number;
  hostname: string;
  /** Bun.serve's loopback port now (it changes when a new certificate binds it again) */
  inner: () => number;
  /** TLS=acme with tls-alpn-01: the challenge certificate for a server name, or null */
  challenge?: (servername: string) => PemPair | null;
}

/** A client that sends nothing for this long before its first record is dropped. */
const HELLO_TIMEOUT_MS = 10_000;

/** `socket` with `first` in front of what it reads (Bun's net.Socket loses bytes given back with unshift). */
function withFirst(socket: Socket, first: Buffer): Duplex {
  const d = new Duplex({
    read: () => void socket.resume(),
    write: (chunk, _enc, cb) => void socket.write(chunk, cb),
    final: (cb) => {
      socket.end();
      cb();
    },
    destroy: (err, cb) => {
      socket.destroy();
      cb(err);
    },
  });
  d.push(first);
  socket.on("data", (c: Buffer) => {
    if (!d.push(c)) socket.pause();
  });
  socket.on("end", () => d.push(null));
  socket.on("error", (e) => d.destroy(e));
  socket.resume();
  return d;
}

export async function openFrontDoor(opts: FrontDoorOptions): Promise<FrontDoor> {
  /** joining connection's local port -> client address */
  const clients = new Map<number, string>();
  const open = new Set<Socket>();

  const join = (socket: Socket, first: Buffer) => {
    const inner = connect({ host: "127.0.0.1", port: opts.inner() });
    open.add(inner);
    let localPort: number | undefined;
    const forget = () => {
      if (localPort !== undefined) clients.delete(localPort);
      open.delete(inner);
    };
    inner.once("connect", () => {
      localPort = inner.localPort;
      if (localPort !== undefined) clients.set(localPort, (socket.remoteAddress ?? "").replace(/^::ffff:/, ""));
      inner.write(first);
      socket.pipe(inner);
      inner.pipe(socket);
      socket.resume();
    });
    // an error drops both at once; an orderly close ends the other side after what it still has to write
    inner.on("error", () => socket.destroy());
    socket.on("error", () => inner.destroy());
    inner.on("close", () => {
      forget();
      if (!socket.destroyed) socket.end();
    });
    socket.on("close", () => inner.destroy());
  };

  const server = createServer({ pauseOnConnect: false }, (socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
    let buf: Buffer = Buffer.alloc(0);
    const timer = setTimeout(() => socket.destroy(), HELLO_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
      const hello = parseClientHello(buf);
      if (hello === "more") return;
      clearTimeout(timer);
      socket.off("data", onData);
      socket.pause();
      if (hello === null) {
        // not TLS: plain http typed at the https port (or garbage), answered in words
        if (buf[0] !== 0x16) socket.end(plainHttpAnswer(buf.subarray(0, 8192).toString("latin1"), (server.address() as AddressInfo).port));
        else socket.destroy();
        return;
      }
      const pair = hello.servername && hello.alpn.includes(ACME_TLS_ALPN) ? (opts.challenge?.(hello.servername) ?? null) : null;
      if (pair) return answerChallenge(withFirst(socket, buf), pair);
      join(socket, buf);
    };
    socket.on("data", onData);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: opts.port, host: opts.hostname, exclusive: true }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    clientOf: (localPort) => clients.get(localPort) ?? null,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
