/**
 * The gateway's APRS-IS server (APRSIS_LISTEN) against plain TCP clients that
 * speak as APRSdroid or Xastir do: login and logresp, every server-side filter
 * on packets the gateway ingests, q constructs, duplicate suppression, uploads
 * from verified and unverified logins, slow clients, and the clients listed in
 * /api/ports and disconnected by a sysop.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";

const INGEST = "hub-ingest-secret";
let g: Running;
let port: number;
let server: string;
const opened: LineClient[] = [];

const ingest = (body: string, query = "") =>
  fetch(`${g.url}/ingest${query}`, { method: "POST", headers: { "content-type": "text/plain", "x-ingest-secret": INGEST }, body });

/** A client logged in as `call` (verified unless `pass` says otherwise) with `filter`, after its logresp. */
async function client(call: string, filter: string | null, pass: number | string = aprsIsPasscode(call)): Promise<LineClient> {
  const c = await lineClient(port);
  opened.push(c);
  await c.waitFor(/^# svc-gateway/);
  c.send(`user ${call} pass ${pass} vers TestClient 1.0${filter ? ` filter ${filter}` : ""}`);
  await c.waitFor(/^# logresp/);
  return c;
}

/** Packets (not comments) a client received, by source call. */
const sources = (c: LineClient) => c.lines.filter((l) => !l.startsWith("#")).map((l) => l.slice(0, l.indexOf(">")));

beforeAll(async () => {
  // every client here comes from 127.0.0.1: more than the default 8 per address (the cap: ../security/hub-limits.test.ts)
  g = await startInProcess({
    APRSIS_LISTEN: "127.0.0.1:0",
    INGEST_SECRET: INGEST,
    RADIO_CALL: "N0HUB-10",
    ADMIN_CALLSIGNS: "N0OPS",
    HUB_CLIENTS_PER_ADDRESS: "64",
    // the keep-alive and login timers, shortened from aprsc's 20 s and 30 s so their test takes seconds
    APRSIS_KEEPALIVE_S: "2",
    APRSIS_LOGIN_TIMEOUT_S: "5",
  });
  port = g.gw.hub!.aprsIs!.port;
  server = g.gw.hub!.aprsIs!.name;
});

afterAll(async () => {
  for (const c of opened) c.close();
  await g?.stop();
});

describe("APRS-IS server", () => {
  test("answers a login with logresp: verified for the passcode of the call, unverified for a wrong or missing one", async () => {
    expect(server).toBe("N0HUB-GW");
    const good = await client("N0LOG-7", null);
    expect(good.lines).toContain(`# logresp N0LOG-7 verified, server ${server}`);
    const wrong = await client("N0LOG-8", null, 12345);
    expect(wrong.lines).toContain(`# logresp N0LOG-8 unverified, server ${server}`);
    const none = await client("N0LOG-9", null, -1);
    expect(none.lines).toContain(`# logresp N0LOG-9 unverified, server ${server}`);
  });

  test("each filter serves exactly the packets aprsc's filter language says, negation included", async () => {
    // N0MMM's own position, known before it logs in: m/ and f/ measure from it
    expect((await ingest("N0MMM>APRS,qAR,N0IG:!3500.00N/10000.00W-home")).status).toBe(200);
    const end = " b/N0END";
    const filters: Record<string, string> = {
      r: "r/42.5/-71.0/50",
      p: "p/K1",
      b: "b/N0AAA-*",
      o: "o/BALLOON*",
      t: "t/sw",
      s: "s/->",
      s2: "s//#",
      d: "d/N0DIG-3",
      a: "a/49/1/47/3",
      e: "e/T2TEST",
      u: "u/APZXYZ",
      m: "m/10",
      f: "f/N0MMM/10",
      neg: "r/42.5/-71.0/50 -o/BALLOON*",
    };
    const cs: Record<string, LineClient> = {};
    for (const [k, f] of Object.entries(filters)) cs[k] = await client(k === "m" ? "N0MMM" : `N0F${k.toUpperCase()}`.slice(0, 9), f + end);
    const lines = [
      "N0AAA-1>APRS,N0DIG-3*,WIDE2-1,qAR,N0IG:!4230.00N/07100.00W>near boston",
      "K1BBB>APZXYZ,TCPIP*,qAC,T2TEST:=4800.00N/00200.00E-paris",
      "N0CCC>APRS,qAR,N0IG:;BALLOON1 *111111z4231.00N/07101.00WOup",
      "N0DDD>APRS,qAR,N0IG::N0EEE-5  :hello{1",
      "W1FFF>APRS,qAR,N0IG:>on the air",
      "N0WX>APRS,qAR,N0IG:_10090556c220s004g005t077r000p000P000h50b09900wRSW",
      "N0GGG>APRS,qAS,N0IG:!3500.50NS10000.50W#digi",
      "N0END>APRS,qAR,N0IG:>end",
    ];
    expect((await ingest(lines.join("\n"))).status).toBe(200);
    for (const c of Object.values(cs)) await c.waitFor(/^N0END>/);
    const got = Object.fromEntries(
      Object.entries(cs).map(([k, c]) => [
        k,
        sources(c)
          .filter((s) => s !== "N0END")
          .sort(),
      ]),
    );
    expect(got).toEqual({
      r: ["N0AAA-1", "N0CCC"],
      p: ["K1BBB"],
      b: ["N0AAA-1"],
      o: ["N0CCC"],
      t: ["N0WX", "W1FFF"],
      s: ["K1BBB", "N0AAA-1"],
      s2: ["N0GGG"],
      d: ["N0AAA-1"],
      a: ["K1BBB"],
      e: ["K1BBB"],
      u: ["K1BBB"],
      m: ["N0GGG"],
      f: ["N0GGG"],
      neg: ["N0AAA-1"],
    });
    // the server says which filter is active after #filter, and the new one applies
    const c = cs.p!;
    const from = c.lines.length;
    c.send("#filter b/N0NEW");
    await c.waitFor(/^# filter b\/N0NEW is active/, { from });
    await ingest("K1ZZZ>APRS,qAR,N0IG:>old filter\nN0NEW>APRS,qAR,N0IG:>new filter");
    await c.waitFor(/^N0NEW>/, { from });
    expect(sources(c).slice(-1)).toEqual(["N0NEW"]);
    expect(sources(c)).not.toContain("K1ZZZ");
  });

  test("q constructs: RF lines get qAR and their IGate, lines with one keep it; NOGATE is not served; a packet heard twice within 30 s is served once", async () => {
    const c = await client("N0QQQ", "p/N0Q");
    await ingest("N0QRF>APRS,WIDE1*:>heard by the box", "?igate=N0BOX");
    await ingest("N0QNG>APRS,NOGATE:>stay local", "?igate=N0BOX");
    await ingest("N0QDU>APRS,qAR,N0IGA:>twice");
    await ingest("N0QDU>APRS,qAR,N0IGB:>twice");
    await ingest("N0QEN>APRS,qAR,N0IGA:>end");
    await c.waitFor(/^N0QEN>/);
    const pk = c.lines.filter((l) => !l.startsWith("#"));
    expect(pk).toEqual(["N0QRF>APRS,WIDE1*,qAR,N0BOX:>heard by the box", "N0QDU>APRS,qAR,N0IGA:>twice", "N0QEN>APRS,qAR,N0IGA:>end"]);
    // both copies of the duplicate were stored (two IGates heard it): only serving suppresses it
    const stored = g.gw.db.query("SELECT count(*) AS n FROM packets WHERE src = 'N0QDU'").get() as { n: number };
    expect(stored.n).toBe(2);
  });

  test("a verified client's uploads enter the gateway as APRS-IS (qAC for its own call, qAS for another's) and reach other clients, not itself; an unverified client's are dropped", async () => {
    const watcher = await client("N0WAT", "p/N0UP p/N0BAD p/N0REL");
    const up = await client("N0UP", "p/N0UP p/N0BAD p/N0REL");
    const bad = await client("N0BAD", "p/N0UP", 999);
    up.send("N0UP>APRS,TCPIP*:>hello from a phone");
    up.send("N0REL>APRS,TCPIP*:>relayed by N0UP");
    bad.send("N0BAD>APRS,TCPIP*:>not verified");
    // a line from the watcher after the others: once it is served, the earlier ones were handled
    watcher.send("N0UPEND>APRS,TCPIP*:>end");
    await watcher.waitFor(/^N0REL>/);
    await up.waitFor(/^N0UPEND>/);
    expect(watcher.lines).toContain(`N0UP>APRS,TCPIP*,qAC,${server}:>hello from a phone`);
    expect(watcher.lines).toContain("N0REL>APRS,TCPIP*,qAS,N0UP:>relayed by N0UP");
    expect(up.lines).toContain(`N0UPEND>APRS,TCPIP*,qAS,N0WAT:>end`);
    // not echoed to its sender, and the unverified line went nowhere
    expect(sources(up)).not.toContain("N0UP");
    expect(sources(watcher)).not.toContain("N0BAD");
    expect(sources(up)).not.toContain("N0BAD");
    const st = await g.get("/api/stations/N0UP");
    expect(st.status).toBe(200);
    expect(await st.json()).toMatchObject({ source: "aprsis", status: "hello from a phone" });
    expect((await g.get("/api/stations/N0BAD")).status).toBe(404);
    expect(g.gw.hub!.aprsIs!.stats.unverified).toBeGreaterThanOrEqual(1);
  });

  test("/api/ports lists the clients (addresses for a sysop only), and a sysop disconnects one", async () => {
    const c = await client("N0PRT-3", "r/10/10/10");
    c.send("N0PRT-3>APRS,TCPIP*:>counted");
    const ports = async (cookie?: string) => {
      const r = await g.get("/api/ports", cookie ? { headers: { cookie } } : undefined);
      const p = ((await r.json()) as { ports: Array<{ name: string; clients?: Array<Record<string, unknown>> }> }).ports;
      return p.find((x) => x.name === "aprsis-server")!;
    };
    let mine: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !(mine && (mine.rx as number) > 0); i++) {
      mine = (await ports()).clients!.find((x) => x.login === "N0PRT-3");
      await Bun.sleep(20);
    }
    expect(mine).toMatchObject({ server: "aprs-is", login: "N0PRT-3", verified: true, filter: "r/10/10/10", software: "TestClient 1.0", rx: 1, address: null });
    const sysop = signedInUser(g.gw, "N0OPS", { verified: true });
    const seen = (await ports(sysop.cookie)).clients!.find((x) => x.login === "N0PRT-3")!;
    expect(seen.address).toMatch(/^127\.0\.0\.1:\d+$/);

    const other = signedInUser(g.gw, "N0NOT", { verified: true });
    const refused = await fetch(`${g.url}/api/hub/clients/${seen.id}`, { method: "DELETE", headers: { cookie: other.cookie } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ error: "not_sysop" });
    const missing = await fetch(`${g.url}/api/hub/clients/aprs-is-99999`, { method: "DELETE", headers: { cookie: sysop.cookie } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "not_found" });
    // still connected after both refusals
    expect((await ports()).clients!.some((x) => x.id === seen.id)).toBe(true);

    const r = await fetch(`${g.url}/api/hub/clients/${seen.id}`, { method: "DELETE", headers: { cookie: sysop.cookie } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ disconnected: seen.id });
    await c.closed;
    expect((await ports()).clients!.some((x) => x.id === seen.id)).toBe(false);
  });

  test("logged-in clients get a # keep-alive every APRSIS_KEEPALIVE_S; a connection that never logs in is closed after APRSIS_LOGIN_TIMEOUT_S", async () => {
    const c = await client("N0KAL", "b/N0NONE");
    const silent = await lineClient(port);
    opened.push(silent);
    await silent.waitFor(/^# svc-gateway/);
    const from = c.lines.length;
    const t0 = Date.now();
    const ka = await c.waitFor(/^# svc-gateway \S+ .* N0HUB-GW$/, { from, timeoutMs: 10_000 });
    expect(ka).toMatch(/GMT/);
    // the logged-in client stays; the silent one is closed at the first tick after 5 s
    await silent.closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4_000);
    c.send("N0KAL>APRS,TCPIP*:>still here");
    for (let i = 0; i < 50 && !(await g.get("/api/stations/N0KAL")).ok; i++) await Bun.sleep(20);
    expect((await g.get("/api/stations/N0KAL")).status).toBe(200);
  }, 60_000);

  test("a client that stops reading is dropped once its queue is full; the others keep getting packets", async () => {
    const fast = await client("N0FAST", "p/N0SLOW");
    // a client that logs in, then never reads again
    const slow = connect({ host: "127.0.0.1", port });
    await new Promise<void>((r) => slow.once("connect", () => r()));
    slow.write(`user N0SLOW pass ${aprsIsPasscode("N0SLOW")} vers Stuck 1 filter p/N0SLOW\r\n`);
    const slowClient = async () => {
      for (let i = 0; i < 50; i++) {
        const p = ((await (await g.get("/api/ports")).json()) as { ports: Array<{ name: string; clients?: Array<Record<string, unknown>> }> }).ports.find(
          (x) => x.name === "aprsis-server",
        )!;
        const c = p.clients!.find((x) => x.login === "N0SLOW");
        if (c) return c;
        await Bun.sleep(20);
      }
      return undefined;
    };
    expect(await slowClient()).toBeDefined();
    slow.pause();
    const pad = "x".repeat(200);
    const before = g.gw.hub!.aprsIs!.stats.slowDropped;
    // 40,000 packets of ~230 bytes: far more than the socket buffers and the 256 KiB queue hold
    for (let i = 0; i < 40_000; i++) {
      g.gw.events.emit("aprsPacket", {
        line: `N0SLOW>APRS,qAR,N0IG:>${i} ${pad}`,
        src: "N0SLOW",
        dst: "APRS",
        path: "qAR,N0IG",
        info: `>${i} ${pad}`,
        ts: Date.now(),
        source: "rf",
        igate: "N0IG",
        via: "aprsis",
        packet: null,
      });
      if (i % 200 === 0) await Bun.sleep(1);
    }
    expect(g.gw.hub!.aprsIs!.stats.slowDropped).toBe(before + 1);
    expect(await slowClient()).toBeUndefined();
    await fast.waitFor(/^N0SLOW>APRS,qAR,N0IG:>39999 /, { timeoutMs: 20_000 });
    slow.destroy();
  }, 60_000);
});
