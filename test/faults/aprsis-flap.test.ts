/**
 * An APRS-IS server that flaps: it drops every connection 5 seconds after the
 * login. The gateway's uplink reconnects with back-off, every outbox line
 * reaches APRS-IS exactly once (none lost, none doubled), and GET
 * /api/ports and the log say what happened.
 *
 * A line written just as the server closes may never be read by it; the
 * gateway writes the last few seconds' lines again after the next login, and
 * the server's dupe check (aprsc drops a line it saw in the last 30 s) keeps
 * any that did arrive from going on twice.
 */
import { afterAll, expect, test } from "bun:test";
import type { Socket } from "bun";
import { captureLog, startInProcess } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { waitFor } from "../helpers/wait.ts";

const FLAP_MS = 5000;
const received: string[] = [];
/** every line read, dupes included */
const read: string[] = [];
let logins = 0;
const server = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(s) {
      s.write("# flapping-aprsc 0.1\r\n");
    },
    data(s: Socket<undefined>, d) {
      for (const line of new TextDecoder().decode(d).split("\r\n").filter(Boolean)) {
        if (!line.startsWith("user ")) {
          read.push(line);
          if (!received.includes(line)) received.push(line); // the dupe check (every line here is within 30 s)
          continue;
        }
        logins++;
        s.write(`# logresp ${line.split(" ")[1]} verified, server T2FLAP\r\n`);
        setTimeout(() => s.end(), FLAP_MS);
      }
    },
  },
});
afterAll(() => server.stop(true));

test("the uplink rides out a server that drops it every 5 s: it reconnects, sends every outbox line exactly once, and says so", async () => {
  const { log, lines: logged } = captureLog("info");
  const g = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${server.port}`, APRSIS_CALL: "N0FLP-10" }, { log });
  try {
    const port = async () => ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, unknown>> }).ports.find((p) => p.name === "aprs-is")!;
    await waitFor(async () => (await port()).transmitting === true, "the first login");
    const u = signedInUser(g.gw, "N0FLP-7", { verified: true });
    const lines: string[] = [];
    // one status a second across two flaps
    for (let n = 0; n < 12; n++) {
      const r = await g.post("/api/tx/aprs", { kind: "status", text: `flap status ${n}` }, { headers: { cookie: u.cookie } });
      expect(r.status).toBe(200);
      lines.push(((await r.json()) as { item: { line: string } }).item.line);
      await Bun.sleep(1000);
    }
    const items = async () =>
      ((await (await g.get("/api/tx/aprs", { headers: { cookie: u.cookie } })).json()) as { items: Array<{ line: string; state: string }> }).items;
    await waitFor(async () => (await items()).every((i) => i.state === "sent"), "every item sent", { timeoutMs: 15_000 });
    // every line the gateway calls sent reached the server, once
    const counts = Object.fromEntries(lines.map((l) => [l, received.filter((r) => r === l).length]));
    expect(counts).toEqual(Object.fromEntries(lines.map((l) => [l, 1])));
    expect(received).toHaveLength(lines.length);
    // written again: only the last few seconds' lines before each drop
    expect(read.length - lines.length).toBeLessThanOrEqual(4 * (logins - 1));
    expect(logins).toBeGreaterThanOrEqual(3);
    const p = await port();
    expect(p.reconnects as number).toBeGreaterThanOrEqual(2);
    expect(String(p.lastError)).toContain("closed");
    expect(p.tx).toBe(12);
    const drops = logged.filter((l) => l.includes(`127.0.0.1:${server.port}`) && /retrying in \d+ s/.test(l));
    expect(drops.length).toBeGreaterThanOrEqual(2);
    expect((await g.get("/health")).status).toBe(200);
  } finally {
    await g.stop();
  }
}, 40_000);

test("a line the server never read because it was closing goes out again after the next login", async () => {
  // This server closes on the first line it reads, without keeping it: the gateway's write succeeded, the line is lost.
  const kept: string[] = [];
  let closedOnce = false;
  const lossy = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.write("# lossy-aprsc 0.1\r\n");
      },
      data(s: Socket<undefined>, d) {
        for (const line of new TextDecoder().decode(d).split("\r\n").filter(Boolean)) {
          if (line.startsWith("user ")) s.write(`# logresp ${line.split(" ")[1]} verified, server T2LOSS\r\n`);
          else if (!closedOnce) {
            closedOnce = true;
            s.end();
          } else if (!kept.includes(line)) kept.push(line);
        }
      },
    },
  });
  const g = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${lossy.port}`, APRSIS_CALL: "N0LOS-10" });
  try {
    const ports = async () =>
      ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, unknown>> }).ports.find((p) => p.name === "aprs-is")!;
    await waitFor(async () => (await ports()).transmitting === true, "the first login");
    const u = signedInUser(g.gw, "N0LOS-7", { verified: true });
    const r = await g.post("/api/tx/aprs", { kind: "status", text: "lost on the close" }, { headers: { cookie: u.cookie } });
    const line = ((await r.json()) as { item: { line: string } }).item.line;
    await waitFor(() => kept.includes(line), "the line read after the reconnect", { timeoutMs: 15_000 });
    expect(closedOnce).toBe(true);
    expect((await ports()).tx).toBe(1);
  } finally {
    await g.stop();
    lossy.stop(true);
  }
}, 30_000);
