/**
 * Federation faults against a running gateway: every FED_PEERS name fails to
 * resolve, and a peer that answers at 1 byte per second. The gateway keeps
 * serving; pulls fail in bounded time without piling up; GET /api/ports
 * (`federation`) and the log name the failure.
 */
import { afterAll, expect, test } from "bun:test";
import type { Socket } from "bun";
import { captureLog, startInProcess } from "../helpers/gateway.ts";
import { waitFor } from "../helpers/wait.ts";

const SECRET = "fault-fed-ingest-secret-0123";
type Port = { name: string; state: string; configured: number; pulling: number; failing: Array<{ peer: string; error: string }>; lastError: string | null };
const federation = async (get: (p: string) => Promise<Response>) =>
  ((await (await get("/api/ports")).json()) as { ports: Port[] }).ports.find((p) => p.name === "federation")!;

test("DNS fails for every peer: the gateway keeps serving, and /api/ports and the log name each peer that did not resolve", async () => {
  const peers = ["https://svc-peer-one.invalid", "https://svc-peer-two.invalid"];
  const { log, lines: logged } = captureLog("info");
  const g = await startInProcess({ FED_PEERS: peers.join(","), INGEST_SECRET: SECRET }, { log });
  try {
    const r = await g.post("/federation/sync", {}, { headers: { "x-ingest-secret": SECRET } });
    expect(r.status).toBe(200);
    const report = (await r.json()) as { bootstrap: Array<{ url: string; code: string }> };
    expect(report.bootstrap.map((b) => b.url).sort()).toEqual(peers);
    const port = await federation(g.get);
    expect(port).toMatchObject({ state: "failing", configured: 2 });
    expect(port.failing.map((f) => f.peer).sort()).toEqual(peers);
    // the name did not resolve (no answer from a DNS server at all says the same)
    for (const f of port.failing) expect(f.error).toMatch(/^unreachable: .*(ENOTFOUND|EAI_AGAIN|EAI_NONAME|resolve)/i);
    for (const url of peers) expect(logged.filter((l) => l.includes(`FED_PEERS ${url} did not answer`)).length).toBe(1);
    // a second pull fails the same way: nothing new in the log
    expect((await g.post("/federation/sync", {}, { headers: { "x-ingest-secret": SECRET } })).status).toBe(200);
    for (const url of peers) expect(logged.filter((l) => l.includes(`FED_PEERS ${url} did not answer`)).length).toBe(1);
    expect((await g.get("/health")).status).toBe(200);
    expect((await g.get("/api/caches?bbox=6.9,44.9,7.3,45.3")).status).toBe(200);
  } finally {
    await g.stop();
  }
}, 30_000);

test("a peer answering at 1 byte per second: pulls time out, overlapping pulls share one connection, the gateway keeps serving", async () => {
  let open = 0;
  let most = 0;
  let connections = 0;
  const timers = new Set<ReturnType<typeof setInterval>>();
  const slow = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        open++;
        connections++;
        most = Math.max(most, open);
      },
      data(s: Socket<undefined>) {
        const answer = new TextEncoder().encode('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 64\r\n\r\n{"instance":"slow"}');
        let i = 0;
        const t = setInterval(() => {
          if (i >= answer.length) return clearInterval(t);
          s.write(answer.subarray(i, ++i));
        }, 1000);
        timers.add(t);
      },
      close() {
        open--;
      },
    },
  });
  const url = `http://127.0.0.1:${slow.port}`;
  const { log, lines: logged } = captureLog("info");
  const g = await startInProcess({ FED_PEERS: url, FED_LOOPBACK_PEERS: "on", INGEST_SECRET: SECRET }, { log });
  try {
    const sync = () => g.post("/federation/sync", {}, { headers: { "x-ingest-secret": SECRET } });
    // three pulls asked for at once, and the scheduled one
    const pulls = [sync(), sync(), sync()];
    const job = g.gw.scheduler.runNow("federation-pull");
    await waitFor(() => connections > 0, "the slow peer dialled");
    // meanwhile the gateway serves, and says a pull is in flight
    expect((await g.get("/health")).status).toBe(200);
    expect((await federation(g.get)).pulling).toBe(1);
    const answers = await Promise.all(pulls);
    await job;
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(((await a.json()) as { bootstrap: Array<{ url: string; code: string }> }).bootstrap).toEqual([
        expect.objectContaining({ url, code: expect.stringMatching(/^(timeout|unreachable)$/) }),
      ]);
    }
    expect(most).toBe(1);
    expect(connections).toBe(1);
    const port = await federation(g.get);
    expect(port).toMatchObject({ state: "failing", pulling: 0 });
    expect(port.failing[0]!.peer).toBe(url);
    expect(logged.filter((l) => l.includes(`FED_PEERS ${url} did not answer`)).length).toBe(1);
    await waitFor(() => open === 0, "the slow connection closed");
  } finally {
    for (const t of timers) clearInterval(t);
    await g.stop();
    slow.stop(true);
  }
}, 30_000);
