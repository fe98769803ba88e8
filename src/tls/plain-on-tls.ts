/**
 * A client that speaks plain http to the HTTPS port (someone typed
 * http://gateway:8443/) gets a readable answer rather than a closed
 * connection: every TLS connection starts with a handshake record (byte
 * 0x16), an HTTP request with a method name in ASCII. For node:tls servers
 * (the Node host); on the Bun host the HTTPS port's front door answers the
 * same (front-door.ts).
 */
import type { Server, Socket } from "node:net";
import { fromAcceptLanguage, translator } from "../i18n/server.ts";

const TLS_HANDSHAKE = 0x16;

/** The answer to plain http on the HTTPS port: 400, with the https address of what was asked. */
export function plainHttpAnswer(head: string, httpsPort: number): string {
  const path = /^[A-Z]+ (\/\S*) HTTP\/1\.[01]\r?\n/.exec(head)?.[1] ?? "/";
  const host = /\r?\nhost:[ \t]*([A-Za-z0-9.:[\]-]{1,300})/i.exec(head)?.[1];
  const name = host ? new URL(`http://${host}`).hostname : null;
  const to = name ? `https://${name}${httpsPort === 443 ? "" : `:${httpsPort}`}${path}` : null;
  // in the reader's language (src/i18n), as the request's Accept-Language asks
  const lang = fromAcceptLanguage(/\r?\naccept-language:[ \t]*([^\r\n]{1,300})/i.exec(head)?.[1]);
  const t = translator(lang);
  const body = `${t("plainHttp.body")}${to ? ` ${t("plainHttp.open", { url: to })}` : ""}\n`;
  return `HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-language: ${lang}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`;
}

/** Answers plain-http connections to a node:tls `server` on `port()`; TLS connections go on untouched. */
export function answerPlainHttp(server: Server, port: () => number): void {
  const onward = server.listeners("connection") as Array<(socket: Socket) => void>;
  server.removeAllListeners("connection");
  server.on("connection", (socket: Socket) => {
    // a reset before the first byte must not go unheard (the TLS server listens for errors only once handed on)
    const onError = () => socket.destroy();
    socket.on("error", onError);
    socket.once("data", (first: Buffer) => {
      socket.pause();
      if (first[0] === TLS_HANDSHAKE) {
        socket.off("error", onError);
        socket.unshift(first);
        for (const fn of onward) fn.call(server, socket);
        return;
      }
      // the request head as far as it came in the first packet: enough for its line and Host
      socket.end(plainHttpAnswer(first.subarray(0, 8192).toString("latin1"), port()));
    });
    // a socket handed on paused (the TLS-ALPN-01 reader in front: alpn.ts) flows again
    socket.resume();
  });
}
