/**
 * An APRS-IS server that flaps: it drops every connection 5 seconds after the
 * login. The gateway's uplink reconnects with back-off, every outbox line
 * reaches the server exactly once (none lost, none doubled), and GET
 * /api/ports and the log say what happened.
 */
import { afterAll, expect, test } from "bun:test";
import type { Socket } from "bun";
import { captureLog, startInProcess } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { waitFor } from "../helpers/wait.ts";

const FLAP_MS = 5000;
const received: string[] = [];
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
          received.push(line);
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
