/**
 * The ACME TLS-ALPN-01 challenge (RFC 8737) on the HTTPS port: an ACME server connects with the server name it validates and ALPN
 * `acme-tls/1`, and must be offered a self-signed certificate carrying the
 * key authorization (acmeIdentifier). node:tls picks a certificate by server
 * name only, so each new connection's ClientHello is read first: one asking
 * acme-tls/1 for a name with a pending challenge gets the challenge
 * certificate and nothing else; every other connection goes on to the HTTPS
 * server untouched (the bytes read are given back to the socket).
 * On the Node host this reads in front of node:https (answerTlsAlpn); on
 * the Bun host the HTTPS port's front door (front-door.ts) does the reading.
 */
import type { Server, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { tls as nodeTls } from "../lib/builtins.ts";
import type { PemPair } from "./x509.ts";

export const ACME_TLS_ALPN = "acme-tls/1";

/** What a ClientHello asks: the server name and the ALPN protocols. */
export interface Hello {
  servername: string | null;
  alpn: string[];
}

/**
 * Reads the first TLS record of a connection: "more" while it is incomplete,
 * null when it is no ClientHello (plain http on the HTTPS port, garbage).
 */
export function parseClientHello(b: Buffer): Hello | "more" | null {
  if (b.length < 5) return b.length > 0 && b[0] !== 22 ? null : "more";
  if (b[0] !== 22) return null;
  const recordEnd = 5 + b.readUInt16BE(3);
  if (b.length < recordEnd) return recordEnd > 5 + 16_384 + 2048 ? null : "more";
  try {
    let p = 5;
    if (b[p] !== 1) return null;
    p += 4 + 2 + 32; // handshake header, client version, random
    p += 1 + b[p]!; // session id
    p += 2 + b.readUInt16BE(p); // cipher suites
    p += 1 + b[p]!; // compression methods
    if (p + 2 > recordEnd) return { servername: null, alpn: [] };
    const end = Math.min(recordEnd, p + 2 + b.readUInt16BE(p));
    p += 2;
    const hello: Hello = { servername: null, alpn: [] };
    while (p + 4 <= end) {
      const type = b.readUInt16BE(p);
      const len = b.readUInt16BE(p + 2);
      const data = b.subarray(p + 4, p + 4 + len);
      p += 4 + len;
      if (type === 0 && data.length >= 5 && data[2] === 0)
        hello.servername = data
          .subarray(5, 5 + data.readUInt16BE(3))
          .toString("latin1")
          .toLowerCase();
      if (type === 16) for (let q = 2; q < data.length; q += 1 + data[q]!) hello.alpn.push(data.subarray(q + 1, q + 1 + data[q]!).toString("latin1"));
    }
    return hello;
  } catch {
    return null;
  }
}

/**
 * Puts the TLS-ALPN-01 answer in front of a node:tls server's connections:
 * `challenge(name)` is the certificate for a pending challenge, or null.
 */
export function answerTlsAlpn(server: Server, challenge: (servername: string) => PemPair | null): void {
  const onward = server.listeners("connection") as Array<(socket: Socket) => void>;
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    let buf = Buffer.alloc(0);
    const decide = () => {
      socket.off("data", onData);
      socket.off("end", decide);
      clearTimeout(timer);
      socket.pause();
      if (buf.length) socket.unshift(buf);
      const hello = parseClientHello(buf);
      const pair = hello && hello !== "more" && hello.servername && hello.alpn.includes(ACME_TLS_ALPN) ? challenge(hello.servername) : null;
      if (pair) return answerChallenge(socket, pair);
      for (const fn of onward) fn.call(server, socket);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (parseClientHello(buf) !== "more") decide();
    };
    // a client that says nothing first is handed on as it is (the HTTPS server's own timeouts apply)
    const timer = setTimeout(decide, 10_000);
    socket.on("data", onData);
    socket.on("end", decide);
  });
}

/** Completes the handshake with the challenge certificate, then closes: all the ACME server checks. */
export function answerChallenge(socket: Duplex, pair: PemPair): void {
  const { createSecureContext, TLSSocket } = nodeTls();
  const tls = new TLSSocket(socket, { isServer: true, secureContext: createSecureContext(pair), ALPNProtocols: [ACME_TLS_ALPN] });
  const done = setTimeout(() => tls.destroy(), 10_000);
  tls.once("secure", () => tls.end());
  tls.once("close", () => clearTimeout(done));
  tls.on("error", () => tls.destroy());
}
