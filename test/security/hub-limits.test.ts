/**
 * The hub servers under abuse (issue 25 item 8), against a running gateway:
 *
 *   H2  an anonymous APRS-IS login whose filter is `b/` + 44 `*` + `Z` froze
 *       the gateway (a backtracking glob on every packet): matching is now
 *       linear, /health keeps answering, and the filter still means what it
 *       says; a filter's terms and patterns are bounded, with a `# ` line
 *   L1  thousands of connections exhausted the descriptors: the KISS and
 *       APRS-IS servers cap connections per address and in total; the extra
 *       ones are closed at once (APRS-IS: with a `# ` line), the others and
 *       HTTP go on
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket as NetSocket } from "node:net";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { aprsIsPasscode } from "../../src/lib/aprs/passcode.ts";
import { MAX_FILTER_TERMS } from "../../src/hub/filter.ts";

const INGEST = "hub-limits-ingest-secret";
let g: Running;
let isPort: number;
let kissPort: number;
const opened: LineClient[] = [];

beforeAll(async () => {
  g = await startInProcess({
    APRSIS_LISTEN: "127.0.0.1:0",
    KISS_SERVER: "127.0.0.1:0",
    INGEST_SECRET: INGEST,
    HUB_CLIENTS_PER_ADDRESS: "3",
    HUB_CLIENTS_MAX: "5",
  });
  isPort = g.gw.hub!.aprsIs!.port;
  kissPort = g.gw.hub!.kiss!.port;
});
afterAll(async () => {
  for (const c of opened) c.close();
  await g?.stop();
});
const ports = async () => ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, any>> }).ports;
// every test starts with no client connected (the caps are small)
afterEach(async () => {
  for (const c of opened.splice(0)) c.close();
  for (let i = 0; i < 200 && (await ports()).some((p) => p.clients?.length); i++) await Bun.sleep(10);
});

const ingest = (lines: string[]) =>
  fetch(`${g.url}/ingest`, { method: "POST", headers: { "content-type": "text/plain", "x-ingest-secret": INGEST }, body: lines.join("\n") });
const sources = (c: LineClient) => c.lines.filter((l) => !l.startsWith("#")).map((l) => l.slice(0, l.indexOf(">")));

/** A line client connecting to the server from `localAddress` (another loopback address is another client). */
function lineClientFrom(localAddress: string): Promise<LineClient> {
  return new Promise((resolve, reject) => {
    const lines: string[] = [];
    let partial = "";
    const waiters = new Set<() => void>();
    let onClose!: () => void;
    const closed = new Promise<void>((r) => (onClose = r));
    const s = connect({ host: "127.0.0.1", port: isPort, localAddress }, () =>
      resolve({
        lines,
        closed,
        send: (line) => void s.write(`${line}\r\n`),
        waitFor: (re, opts = {}) =>
          new Promise((ok, fail) => {
            const check = () => {
              const hit = lines.slice(opts.from ?? 0).find((l) => re.test(l));
              if (hit !== undefined) clearTimeout(t), waiters.delete(check), ok(hit);
            };
            const t = setTimeout(() => (waiters.delete(check), fail(new Error(`no line matching ${re}; got:\n${lines.join("\n")}`))), opts.timeoutMs ?? 5000);
            waiters.add(check);
            check();
          }),
        close: () => void s.destroy(),
      }),
    );
    s.on("error", reject);
    s.on("data", (d) => {
      partial += d.toString("latin1");
      let nl: number;
      while ((nl = partial.indexOf("\n")) >= 0) {
        lines.push(partial.slice(0, nl).replace(/\r$/, ""));
        partial = partial.slice(nl + 1);
      }
      for (const w of [...waiters]) w();
    });
    s.on("close", () => {
      onClose();
      for (const w of [...waiters]) w();
    });
  });
}

/** A client logged in as `call` with `filter` (pass -1: no passcode at all), after its logresp. */
async function login(call: string, filter: string, pass: number = -1, from = "127.0.0.1"): Promise<LineClient> {
  const c = from === "127.0.0.1" ? await lineClient(isPort) : await lineClientFrom(from);
  opened.push(c);
  await c.waitFor(/^# svc-gateway/);
  c.send(`user ${call} pass ${pass} vers Attack 1.0 filter ${filter}`);
  await c.waitFor(/^# logresp/);
  return c;
}

describe("H2: APRS-IS filters cost linear time and are bounded", () => {
  test("the filter b/ + 44 * + Z, without a passcode: /health keeps answering, and the filter still matches what it should", async () => {
    const evil = await login("N0EVL", `b/${"*".repeat(44)}Z`);
    const ok = await login("N0OK", "b/N0CALL*", aprsIsPasscode("N0OK"));
    const lines = [];
    // sources of every length up to 9 characters, none ending in Z but the last ones
    for (let i = 0; i < 200; i++) lines.push(`N0C${String(i).padStart(3, "0")}-${(i % 15) + 1}>APRS,qAR,N0IG:>packet ${i}`);
    lines.push("N0CALL-9>APRS,qAR,N0IG:>for b/N0CALL*", "K1ABZ>APRS,qAR,N0IG:>ends in Z", "N0CALLZ>APRS,qAR,N0IG:>both");
    const posting = ingest(lines);
    // HTTP answers while the packets are being served
    const health = await g.get("/health");
    expect(health.status).toBe(200);
    expect((await posting).status).toBe(200);
    await evil.waitFor(/^N0CALLZ>/);
    await ok.waitFor(/^N0CALLZ>/);
    expect(sources(evil)).toEqual(["K1ABZ", "N0CALLZ"]);
    expect(sources(ok)).toEqual(["N0CALL-9", "N0CALLZ"]);
    expect((await g.get("/health")).status).toBe(200);
  });

  test("a filter past 32 terms, or with a pattern over 16 characters, is cut with a # line saying what was ignored; the rest applies", async () => {
    const many = Array.from({ length: MAX_FILTER_TERMS + 8 }, (_, i) => `b/N0T${i}`).join(" ");
    const c = await login("N0MANY", many);
    const note = await c.waitFor(/^# filter: /);
    expect(note).toContain("8 term(s) ignored");
    expect(note).toContain(`b/N0T${MAX_FILTER_TERMS}`);
    const long = await login("N0LONG", `b/${"A".repeat(17)}* p/${"B".repeat(20)} b/N0SHORT*`);
    expect(await long.waitFor(/^# filter: /)).toBe(
      `# filter: 2 term(s) ignored (not understood, a pattern over 16 characters, or past 32 terms): b/${"A".repeat(17)}* p/${"B".repeat(20)}`,
    );
    expect((await ingest([`N0T${MAX_FILTER_TERMS + 1}>APRS,qAR,N0IG:>cut`, "N0T0>APRS,qAR,N0IG:>kept", "N0SHORT-1>APRS,qAR,N0IG:>short"])).status).toBe(200);
    await c.waitFor(/^N0T0>/);
    await long.waitFor(/^N0SHORT-1>/);
    expect(sources(c)).toEqual(["N0T0"]);
    expect(sources(long)).toEqual(["N0SHORT-1"]);
  });
});

describe("L1: connections are capped per address and in total", () => {
  test("APRS-IS: a fourth connection from one address gets a # line and is closed; past five in all, so is one from another address; the others keep working, and HTTP answers", async () => {
    const first = [await login("N0CAP-1", "b/N0LIVE*"), await login("N0CAP-2", "b/N0LIVE*"), await login("N0CAP-3", "b/N0LIVE*")];
    const extra = await lineClient(isPort);
    opened.push(extra);
    await extra.closed;
    expect(extra.lines).toEqual(["# server full: 127.0.0.1 has its 3 connections (HUB_CLIENTS_PER_ADDRESS); try again later"]);
    // another loopback address is another client: two more fit, the sixth does not
    const other = [await login("N0CAP-4", "b/N0LIVE*", -1, "127.0.0.2"), await login("N0CAP-5", "b/N0LIVE*", -1, "127.0.0.2")];
    const sixth = await lineClientFrom("127.0.0.3");
    opened.push(sixth);
    await sixth.closed;
    expect(sixth.lines).toEqual(["# server full: the server has its 5 connections (HUB_CLIENTS_MAX); try again later"]);
    expect((await g.get("/health")).status).toBe(200);
    expect((await ingest(["N0LIVE>APRS,qAR,N0IG:>still served"])).status).toBe(200);
    for (const c of [...first, ...other]) await c.waitFor(/^N0LIVE>/);
    expect((await ports()).find((p) => p.name === "aprsis-server")).toMatchObject({ capped: 2 });
    // a place frees up when one leaves
    first[0]!.close();
    for (let i = 0; i < 100 && (await ports()).find((p) => p.name === "aprsis-server")!.clients.length > 4; i++) await Bun.sleep(10);
    await login("N0CAP-6", "b/N0LIVE*");
  });

  test("KISS: a fourth connection from one address is closed at once; the first three stay", async () => {
    const socks: NetSocket[] = [];
    const open = () =>
      new Promise<NetSocket>((resolve) => {
        const s = connect({ host: "127.0.0.1", port: kissPort }, () => resolve(s));
        socks.push(s);
      });
    const kiss = async () => (await ports()).find((p) => p.name === "kiss-server")!;
    for (let i = 0; i < 3; i++) await open();
    for (let i = 0; i < 100 && (await kiss()).clients.length < 3; i++) await Bun.sleep(10);
    const fourth = await open();
    await new Promise<void>((r) => fourth.once("close", () => r()));
    const p = await kiss();
    expect(p).toMatchObject({ capped: 1 });
    expect(p.clients.length).toBe(3);
    expect(socks.slice(0, 3).every((s) => !s.destroyed)).toBe(true);
    for (const s of socks) s.destroy();
  });
});
