/**
 * The hub benchmark's TCP clients, in their own process:
 *   bun bench/hub/clients.ts PORT CLIENTS LOGIN
 * Opens CLIENTS sockets to 127.0.0.1:PORT; with LOGIN=1 each logs in to the
 * APRS-IS server with the filter filters[i] and waits for its logresp. Prints
 * `READY`, then records, for every packet line carrying `t=<epoch ms>`, the
 * delivery latency. On `DONE` on stdin it waits until nothing has arrived for
 * 500 ms and prints one JSON line: deliveries, p50/p99/max latency, and the
 * time of the last delivery.
 */
import { percentile } from "../lib/stats.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";

/** Mixed filters, as a field day's clients might set them (cycled over the clients). */
export const FILTERS = [
  "r/42.5/-72.5/100",
  "r/41/-74/50 t/m",
  "b/N1AA* b/N2BB*",
  "p/N3 p/K",
  "t/w",
  "s/-> s//#",
  "a/45/-75/43/-72",
  "m/80",
  "f/N0GW-10/150 -t/w",
  "e/N0IG-1 -p/K",
];

if (import.meta.main) {
  const [portArg, nArg, loginArg] = process.argv.slice(2);
  const port = Number(portArg);
  const n = Number(nArg);
  const login = loginArg === "1";
  const lat: number[] = [];
  let last = 0;
  let deliveries = 0;
  const now = () => performance.timeOrigin + performance.now();
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      let buf = "";
      let ready = !login;
      Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open(s) {
            if (login) {
              const call = `N0C${i}`;
              s.write(`user ${call} pass ${aprsIsPasscode(call)} vers Bench 1 filter ${FILTERS[i % FILTERS.length]}\r\n`);
            } else resolve();
          },
          data(_s, d) {
            buf += new TextDecoder().decode(d);
            let k;
            while ((k = buf.indexOf("\n")) >= 0) {
              const line = buf.slice(0, k);
              buf = buf.slice(k + 1);
              if (!ready) {
                if (line.startsWith("# logresp")) {
                  ready = true;
                  resolve();
                }
                continue;
              }
              const t = line.indexOf("t=");
              if (line.startsWith("#") || t < 0) continue;
              last = now();
              deliveries++;
              lat.push(last - Number.parseFloat(line.slice(t + 2)));
            }
          },
          connectError: (_s, e) => reject(e),
        },
      }).catch(reject);
    });
  for (let i = 0; i < n; i += 25) await Promise.all(Array.from({ length: Math.min(25, n - i) }, (_, k) => open(i + k)));
  console.log("READY");
  for await (const line of console) {
    if (line.startsWith("RESET")) {
      lat.length = 0;
      deliveries = 0;
      last = 0;
      console.log("OK");
      continue;
    }
    if (!line.startsWith("DONE")) continue;
    let seen = -1;
    while (seen !== deliveries) {
      seen = deliveries;
      await Bun.sleep(500);
    }
    console.log(JSON.stringify({ deliveries, p50: percentile(lat, 50), p99: percentile(lat, 99), max: percentile(lat, 100), last }));
  }
}
