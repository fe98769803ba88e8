/**
 * The APRS-IS client against an APRS-IS-speaking TCP server on loopback:
 * login line with the computed passcode and filter, lines into the registry,
 * reconnect after the server drops it, status in /api/ports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Socket, TCPSocketListener } from "bun";
import { startInProcess, type Running } from "../helpers/gateway.ts";

let server: TCPSocketListener<undefined>;
const logins: string[] = [];
const clients: Array<Socket<undefined>> = [];
let waiters: Array<() => void> = [];
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
          logins.push(line);
          const call = line.split(" ")[1];
          s.write(`# logresp ${call} verified, server T2TEST\r\n`);
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

const until = async (cond: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error("timed out");
    await Bun.sleep(20);
  }
};

describe("APRS-IS client", () => {
  test("logs in, feeds the registry, reconnects with back-off, reports in /api/ports", async () => {
    const first = nextLogin();
    g = await startInProcess({ APRSIS_SERVER: `127.0.0.1:${server.port}`, APRSIS_CALL: "N0CALL-10", APRSIS_FILTER: "r/42.6/-71.3/100" });
    await first;
    expect(logins[0]).toMatch(/^user N0CALL-10 pass 13023 vers svc-gateway \S+ filter r\/42\.6\/-71\.3\/100$/);
    await until(async () => (await (await g.get("/api/ports")).json()).ports.find((p: { name: string }) => p.name === "aprs-is")?.state === "up");
    // Lines arrive in pieces, as TCP delivers them.
    clients[0]!.write("N0IS-9>APRS,WIDE2-1,qAR,W1AW-10:!4237.14N/07120.83W>088/03");
    clients[0]!.write("6 from APRS-IS\r\n# keepalive\r\nDL1ABC>APRS,TCPIP*,qAC,T2GER:!5230.00N/01322.50E-Berlin\r\n");
    await until(async () => (await g.get("/api/stations/DL1ABC")).status === 200);
    const st = await (await g.get("/api/stations/N0IS-9")).json();
    expect(st).toMatchObject({ speedKmh: 66.7, comment: "from APRS-IS", source: "rf", igate: "W1AW-10" });
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
      await until(async () => {
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
