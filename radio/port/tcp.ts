/** KISS over TCP, e.g. Direwolf's KISSPORT (8001 by default). */
import { connect, type Socket } from "node:net";
import type { Connection, Transport, TransportHandlers } from "./kiss-port.ts";

export interface TcpOptions {
  connectTimeoutMs?: number;
}

export function tcpTransport(host: string, port: number, opts: TcpOptions = {}): Transport {
  const shown = host.includes(":") ? `[${host}]` : host;
  return {
    kind: "tcp",
    id: `tcp://${shown}:${port}`,
    open: (h: TransportHandlers) =>
      new Promise<Connection>((resolve, reject) => {
        const sock: Socket = connect({ host, port });
        let open = false;
        const timer = setTimeout(
          () => sock.destroy(new Error(`no answer from ${shown}:${port} in ${opts.connectTimeoutMs ?? 10_000} ms`)),
          opts.connectTimeoutMs ?? 10_000,
        );
        sock.once("connect", () => {
          clearTimeout(timer);
          open = true;
          sock.setNoDelay(true);
          // notice a TNC host that vanished without closing the connection
          sock.setKeepAlive(true, 30_000);
          resolve({
            write: (bytes) => void sock.write(bytes),
            close: () => sock.destroy(),
          });
        });
        sock.on("data", (d: Buffer) => h.data(new Uint8Array(d.buffer, d.byteOffset, d.length)));
        let err: Error | undefined;
        sock.on("error", (e) => {
          err = e;
          if (!open) {
            clearTimeout(timer);
            reject(e);
          }
        });
        sock.on("close", () => {
          if (open) h.close(err ?? new Error("the TNC closed the connection"));
        });
      }),
  };
}
