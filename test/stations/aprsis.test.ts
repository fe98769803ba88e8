/**
 * The APRS-IS client against an APRS-IS-speaking TCP server on loopback:
 * login line with the computed passcode and filter, lines into the registry,
 * reconnect after the server drops it, status in /api/ports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { enqueue } from "../../src/stations/outbox.ts";
import { waitFor } from "../helpers/wait.ts";
import { localSighting } from "../../src/game/corroborate.ts";

let server: TCPSocketListener<undefined>;
const logins: string[] = [];
/** lines the clients sent after logging in */
const received: string[] = [];
const clients: Array<Socket<undefined>> = [];
const waiters: Array<() => void> = [];
const nextLogin = () => new Promise<void>((r) => waiters.push(r));
let g: Running;

beforeAll(async () => {
  server = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        clients.push(s);
        s.write("# aprsc 2.1.19-g730c5c0\r\n");
      },
      data(s, d) {
        const text = new TextDecoder().decode(d);
        for (const line of text.split("\r\n").filter(Boolean)) {
          if (!line.startsWith("user ")) {
            received.push(line);
            continue;
          }
          logins.push(line);
          const call = line.split(" ")[1]!;
          // N0UNV plays a login whose passcode the server refuses.
          s.write(`# logresp ${call} ${call.startsWith("N0UNV") ? "unverified" : "verified"}, server T2TEST\r\n`);
          waiters.shift()?.();
        }
      },
    },
  });
});
afterAll(async () => {
  await g?.stop();
  server.stop(true);
});

describe("APRS-IS client", () => {
  test("logs in, feeds the registry, reconnects with back-off, reports in /api/ports", async () => {
    const first = nextLogin();
    g = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${server.port}`, APRSIS_CALL: "N0CALL-10", APRSIS_FILTER: "r/42.6/-71.3/100" });
    await first;
    expect(logins[0]).toMatch(/^user N0CALL-10 pass 13023 vers svc-gateway \S+ filter r\/42\.6\/-71\.3\/100$/);
    await waitFor(async () => (await (await g.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "aprs-is")?.state === "up");
    // Lines arrive in pieces, as TCP delivers them.
    clients[0]!.write("N0IS-9>APRS,WIDE2-1,qAR,W1AW-10:!4237.14N/07120.83W>088/03");
    clients[0]!.write("6 from APRS-IS\r\n# keepalive\r\nDL1ABC>APRS,TCPIP*,qAC,T2GER:!5230.00N/01322.50E-Berlin\r\n");
    await waitFor(async () => (await g.get("/api/stations/DL1ABC")).status === 200);
    const st = await (await g.get("/api/stations/N0IS-9")).json();
    expect(st).toMatchObject({ speedKmh: 66.7, comment: "from APRS-IS", source: "rf", igate: "W1AW-10" });
    // APRS-IS's word that W1AW-10 heard it on RF is no RF sighting here (issue 27, item 6)
    expect(localSighting(g.gw, "N0IS-9", 42.619, -71.347, g.gw.clock.now())).toBeNull();
    expect(g.gw.db.query("SELECT via FROM positions WHERE call = 'DL1ABC'").get()).toEqual({ via: "aprsis" });
    // The server drops us: the client comes back.
    const second = nextLogin();
    clients[0]!.end();
    await second;
    expect(logins).toHaveLength(2);
    const port = (await (await g.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "aprs-is");
    expect(port).toMatchObject({ kind: "aprs-is", server: `127.0.0.1:${server.port}`, call: "N0CALL-10", filter: "r/42.6/-71.3/100", reconnects: 1, rx: 2 });
    expect(port.lastError).toContain("closed");
  });

  test("with nothing listening it keeps retrying and says why", async () => {
    const dead = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = dead.port;
    dead.stop(true);
    const h = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${port}`, FED_APRS_CALL: "N0GW" });
    try {
      await waitFor(async () => {
        const p = (await (await h.get("/api/ports")).json()).ports.find((x: { name: string }) => x.name === "aprs-is");
        return p.state === "down" && p.reconnects >= 1;
      });
      const p = (await (await h.get("/api/ports")).json()).ports.find((x: { name: string }) => x.name === "aprs-is");
      expect(p.lastError).toContain("cannot connect");
      expect(p.nextRetryAt).toBeGreaterThan(Date.now());
    } finally {
      await h.stop();
    }
  });
});

describe("APRS-IS client sending the outbox", () => {
  const port = async (r: Running) => (await (await r.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "aprs-is");
  const items = async (r: Running, cookie: string) =>
    (await (await r.get("/api/tx/aprs", { headers: { cookie } })).json()).items as Array<{ id: number; state: string; line: string; error: string | null }>;

  test("over a verified login: a verified user's message goes out, and the ack heard back settles it; an unverified source does not", async () => {
    const first = nextLogin();
    const h = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${server.port}`, APRSIS_CALL: "N0IGT-10", APRSIS_FILTER: "r/42.6/-71.3/100" });
    try {
      await first;
      await waitFor(async () => (await port(h)).transmitting === true);
      const u = signedInUser(h.gw, "N0TX-7", { verified: true });
      const r = await h.post("/api/tx/aprs", { addressee: "W1AW-9", text: "see you at the cache" }, { headers: { cookie: u.cookie } });
      const { item } = await r.json();
      await waitFor(() => received.includes(item.line));
      expect(item.line).toMatch(/^N0TX-7>APZSVC,TCPIP\*::W1AW-9 {3}:see you at the cache\{\d+$/);
      await waitFor(async () => (await items(h, u.cookie))[0]!.state === "sent");
      // The addressee acks through APRS-IS; the client hears it.
      clients.at(-1)!.write(`W1AW-9>APRS,TCPIP*,qAC,T2TEST::N0TX-7   :ack${item.msgId}\r\n`);
      await waitFor(async () => (await items(h, u.cookie))[0]!.state === "acked");
      // A line whose source nobody here verified is refused, never sent.
      const foreign = enqueue(h.gw, { kind: "status", src: "K9NOPE", line: "K9NOPE>APZSVC,TCPIP*:>not mine" });
      const state = () => (h.gw.db.query("SELECT state FROM aprs_outbox WHERE id = ?").get(foreign.id) as { state: string }).state;
      await waitFor(() => state() === "failed");
      expect(h.gw.db.query("SELECT error FROM aprs_outbox WHERE id = ?").get(foreign.id)).toEqual({
        error: "K9NOPE is not a verified callsign on this instance",
      });
      expect(received.some((l) => l.startsWith("K9NOPE"))).toBe(false);
      expect(await port(h)).toMatchObject({ transmitting: true, tx: 1, txRefused: 1 });
    } finally {
      await h.stop();
    }
  });

  test("an unverified login, or APRSIS_TX=false, sends nothing", async () => {
    const envs: Array<Record<string, string>> = [{ APRSIS_CALL: "N0UNV-10" }, { APRSIS_CALL: "N0IGT-11", APRSIS_TX: "false" }];
    for (const env of envs) {
      const login = nextLogin();
      const h = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${server.port}`, ...env });
      try {
        await login;
        await waitFor(async () => (await port(h)).state === "up");
        const u = signedInUser(h.gw, "N0QT", { verified: true });
        const { item } = await (await h.post("/api/tx/aprs", { kind: "status", text: "quiet" }, { headers: { cookie: u.cookie } })).json();
        expect(await port(h)).toMatchObject({ transmitting: false, tx: 0 });
        expect((await items(h, u.cookie))[0]).toMatchObject({ id: item.id, state: "queued" });
        expect(received).not.toContain(item.line);
      } finally {
        await h.stop();
      }
    }
  });
});
