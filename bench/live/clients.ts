/**
 * The live benchmark's WebSocket clients, in their own process:
 *   bun bench/live/clients.ts WS_BASE CLIENTS ROOMS
 * Opens CLIENTS sockets to `${WS_BASE}/ws?region=<room>` spread over ROOMS
 * squares, prints `READY` once every one has its snapshot, then records the
 * delivery latency of each position whose comment carries `t=<epoch ms>`
 * (sent time, by the ingester's clock: same machine). On `DONE <expected>`
 * on stdin it waits for the stragglers (at most 5 s) and prints one JSON line.
 */
import { percentile } from "../lib/stats.ts";
import { cpuSeconds } from "./proc.ts";

export const roomsFor = (n: number) => Array.from({ length: n }, (_, d) => `FN${d}2`);

if (import.meta.main) {
  const [base, nArg, roomsArg] = process.argv.slice(2);
  const n = Number(nArg);
  const rooms = roomsFor(Number(roomsArg));
  const lat: number[] = [];
  let ready = 0;
  let closed = 0;
  let measuring = false;
  const now = () => performance.timeOrigin + performance.now();
  const open = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${base}/ws?region=${rooms[i % rooms.length]}`);
      let first = true;
      ws.onmessage = (e) => {
        if (first) {
          first = false;
          ready++;
          return resolve();
        }
        if (!measuring) return;
        const s = String(e.data);
        const k = s.indexOf("t=");
        if (k < 0) return;
        lat.push(now() - Number.parseFloat(s.slice(k + 2)));
      };
      ws.onerror = () => reject(new Error(`socket ${i} failed`));
      ws.onclose = () => closed++;
    });
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, k) => open(i + k)));
  measuring = true;
  const cpu0 = cpuSeconds(process.pid);
  console.log(`READY ${ready}`);
  for await (const line of console) {
    const m = /^DONE (\d+)/.exec(line);
    if (!m) continue;
    const expected = Number(m[1]);
    const end = Date.now() + 5000;
    while (lat.length < expected && Date.now() < end) await Bun.sleep(20);
    console.log(
      JSON.stringify({
        delivered: lat.length,
        expected,
        p50: percentile(lat, 50),
        p99: percentile(lat, 99),
        max: percentile(lat, 100),
        closed,
        cpuS: cpuSeconds(process.pid) - cpu0,
      }),
    );
    process.exit(0);
  }
}
