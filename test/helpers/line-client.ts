/**
 * A plain TCP line client, as an APRS-IS client program talks to a server:
 * it writes lines and keeps every line it receives for the test to read.
 */
import type { Socket } from "bun";

export interface LineClient {
  /** every line received so far, without CR LF */
  lines: string[];
  send(line: string): void;
  /** the first line (counting from `from`) matching `re`; rejects after timeoutMs with what came */
  waitFor(re: RegExp, opts?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** resolves once the server closed the connection */
  closed: Promise<void>;
  close(): void;
}

export async function lineClient(port: number, host = "127.0.0.1"): Promise<LineClient> {
  const lines: string[] = [];
  let partial = "";
  const waiters = new Set<() => void>();
  let onClose!: () => void;
  const closed = new Promise<void>((r) => (onClose = r));
  const socket: Socket<undefined> = await Bun.connect({
    hostname: host,
    port,
    socket: {
      data(_s, chunk) {
        partial += new TextDecoder("latin1").decode(chunk);
        let nl: number;
        while ((nl = partial.indexOf("\n")) >= 0) {
          lines.push(partial.slice(0, nl).replace(/\r$/, ""));
          partial = partial.slice(nl + 1);
        }
        for (const w of [...waiters]) w();
      },
      close() {
        onClose();
        for (const w of [...waiters]) w();
      },
    },
  });
  return {
    lines,
    closed,
    send: (line) => void socket.write(line + "\r\n"),
    waitFor(re, opts = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.slice(opts.from ?? 0).find((l) => re.test(l));
          if (hit !== undefined) {
            clearTimeout(t);
            waiters.delete(check);
            resolve(hit);
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no line matching ${re} in ${opts.timeoutMs ?? 5000} ms; got:\n${lines.join("\n")}`));
        }, opts.timeoutMs ?? 5000);
        waiters.add(check);
        check();
      });
    },
    close: () => socket.end(),
  };
}
