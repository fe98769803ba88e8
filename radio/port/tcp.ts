/**
 * KISS over TCP, e.g. Direwolf's KISSPORT (8001 by default), on Bun's socket
 * API: Bun.connect, or the host's own connect with the same API (the Node
 * host's, over node:net). Bytes the kernel does not take at once wait here,
 * in order, and go on `drain`.
 */
import type { Socket } from "bun";
import type { Connection, TcpConnect, Transport, TransportHandlers } from "./kiss-port.ts";

export interface TcpOptions {
  connectTimeoutMs?: number;
  /** the host's connect (default Bun.connect) */
  connect?: TcpConnect;
}

export function tcpTransport(host: string, port: number, opts: TcpOptions = {}): Transport {
  const shown = host.includes(":") ? `[${host}]` : host;
  const timeoutMs = opts.connectTimeoutMs ?? 10_000;
  return {
    kind: "tcp",
    id: `tcp://${shown}:${port}`,
    open: (h: TransportHandlers) =>
      new Promise<Connection>((resolve, reject) => {
        // bytes written but not yet taken by the kernel
        const waiting: Uint8Array[] = [];
        // the socket once open (its open handler and Bun.connect's promise both say so)
        let sock: Socket | null = null;
        let state: "connecting" | "open" | "closed" = "connecting";
        const flush = (s: Socket) => {
          while (waiting.length) {
            const b = waiting[0]!;
            const n = s.write(b);
            if (n < 0) return;
            if (n < b.length) {
              waiting[0] = b.subarray(n);
              return;
            }
            waiting.shift();
          }
        };
        // on the socket's open (as soon as it connects), else when Bun.connect resolves
        const opened = (s: Socket) => {
          if (sock === s) return;
          sock = s;
          // answered after the timeout gave up: not wanted any more
          if (state !== "connecting") return void s.terminate();
          clearTimeout(timer);
          state = "open";
          s.setNoDelay(true);
          // notice a TNC host that vanished without closing the connection
          s.setKeepAlive(true, 30_000);
          resolve({
            write: (bytes) => {
              if (state !== "open") return;
              waiting.push(bytes);
              if (waiting.length === 1) flush(s);
            },
            close: () => {
              state = "closed";
              s.terminate();
            },
          });
        };
        const timer = setTimeout(() => {
          if (state !== "connecting") return;
          state = "closed";
          reject(new Error(`no answer from ${shown}:${port} in ${timeoutMs} ms`));
        }, timeoutMs);
        (opts.connect ?? Bun.connect)<undefined>({
          hostname: host,
          port,
          socket: {
            open: opened,
            data: (_s, d) => h.data(d),
            drain: (s) => flush(s),
            close: (_s, err) => {
              if (state === "open") h.close(err ?? new Error("the TNC closed the connection"));
              state = "closed";
            },
            error: () => {
              // close follows, with the error
            },
            connectError: () => {
              // the promise below rejects
            },
          },
        }).then(opened, (e: unknown) => {
          clearTimeout(timer);
          if (state !== "connecting") return;
          state = "closed";
          // Bun says "Failed to connect"; the code says why (ECONNREFUSED, ENOTFOUND...)
          const code = (e as { code?: string }).code;
          reject(new Error(code ? `${code} from ${shown}:${port}` : e instanceof Error ? e.message : String(e)));
        });
      }),
  };
}
