/**
 * The gateway on Node: the bundle `npm run start:node` runs, on a Node with
 * node:sqlite, as a real subprocess, checked over HTTP the way a browser, a
 * client and a peer see it; its federation pages are pulled by a gateway on
 * Bun, and its data survives a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, spawnGateway, startInProcess, type Running, type Spawned } from "../helpers/gateway.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { getPeer } from "../../src/fed/peers.ts";
import { decodePage } from "../../src/lib/fed/page.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { openStore } from "../../src/core/store/db.ts";
import { join } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { rasterArchive } from "../helpers/tiles.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { parseTnc2 } from "../../radio/index.ts";
import { liveClient, wsUpgrade } from "../helpers/ws.ts";
import { connect } from "node:net";
import { fakeAprsIs, type FakeAprsIs } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
const kN = generateKeyPair();
const json = (r: Response) => r.json() as Promise<any>;
const alps = rasterArchive([6, 45, 8, 46.5], 0, 3, [200, 220, 240]);

let smtp: SmtpSink;
let dataDir: string;
let N: Spawned; // the gateway on Node
let B: Running; // a gateway on Bun that pulls from it
let env: Record<string, string>;
let tnc: FakeTnc;
/** an APRS-IS server the gateway on Node logs in to (APRSIS_SERVER) */
let aprsIs: FakeAprsIs;

const nodeFetch = (path: string, init: RequestInit = {}) => fetch(N.url + path, init);
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  nodeFetch(path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  dataDir = tmpDir();
  // an operator's map archive in the data directory's tiles/
  mkdirSync(join(dataDir, "tiles"), { recursive: true });
  writeFileSync(join(dataDir, "tiles", "alps.pmtiles"), alps);
  tnc = fakeTnc();
  aprsIs = fakeAprsIs();
  // BBS_FBB_PORT: FBB forwarding, which needs Bun's TCP listener, and a serial TNC: the gateway on Node must say it leaves
  // them off, and still open the TCP TNC (node:net)
  env = {
    KISS_PORTS: `${tnc.url},serial:/dev/ttyNOPE0@9600`,
    APRSIS_SERVER: `127.0.0.1:${aprsIs.port}`,
    APRSIS_CALL: "N0GW-10",
    INSTANCE: "gw-node",
    FED_PRIVATE_KEY: kN.privateKey,
    INGEST_SECRET: INGEST,
    SMTP_URL: smtp.url,
    MAIL_FROM: "gw@example.org",
    BBS_FBB_PORT: "0",
  };
  N = await spawnGateway({ runtime: "node", dataDir, env });
});
afterAll(async () => {
  await B?.stop();
  await N?.kill();
  await smtp.stop();
  tnc.stop();
  aprsIs.stop();
});

describe("the gateway on Node", () => {
  let cookie = "";
  let cacheId = 0;

  test("it runs on Node with node:sqlite, and says what it leaves to the Bun executable", async () => {
    const pid = N.proc.pid;
    // the process is Node's binary, not Bun's
    const exe = await Bun.file(`/proc/${pid}/cmdline`).text();
    expect(exe.split("\0")[0]).toMatch(/node$/);
    expect(N.output()).toContain("on node, the FBB forwarding listener does not run yet (BBS_FBB_PORT is ignored)");
    expect(N.output()).toContain("on node, the serial TNC (/dev/ttyNOPE0) does not run yet");
    const h = await nodeFetch("/health");
    expect(h.status).toBe(200);
    expect(await json(h)).toMatchObject({ status: "ok", version: expect.any(String) });
    expect(h.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("the radio: a position heard on a KISS TNC over TCP is in the station registry", async () => {
    await tnc.connected();
    expect((await nodeFetch("/api/stations/N0RF-7")).status).toBe(404);
    const f = parseTnc2("N0RF-7>APRS,WIDE1*:!4808.00N/01130.00E[walking on Node");
    if (!f.ok) throw f.error;
    tnc.hear(f.value);
    let station: any = null;
    for (let i = 0; i < 100 && !station; i++) {
      const r = await nodeFetch("/api/stations/N0RF-7");
      if (r.status === 200) station = await json(r);
      else await Bun.sleep(50);
    }
    expect(station).toMatchObject({ call: "N0RF-7" });
    expect(JSON.stringify(station)).toContain("walking on Node");
  });

  test("the APRS-IS uplink: it logs in with its passcode, and a position from the server is in the station registry", async () => {
    for (let i = 0; i < 100 && !aprsIs.received.includes("\n"); i++) await Bun.sleep(50);
    expect(aprsIs.received).toMatch(/^user N0GW-10 pass \d+ vers svc-gateway /);
    expect((await nodeFetch("/api/stations/N0IS-9")).status).toBe(404);
    aprsIs.client!.write("N0IS-9>APRS,TCPIP*,qAC,T2TEST:!4131.00N/07231.00W>from APRS-IS on Node\r\n");
    let station: any = null;
    for (let i = 0; i < 100 && !station; i++) {
      const r = await nodeFetch("/api/stations/N0IS-9");
      if (r.status === 200) station = await json(r);
      else await Bun.sleep(50);
    }
    expect(station).toMatchObject({ call: "N0IS-9" });
    expect(JSON.stringify(station)).toContain("from APRS-IS on Node");
  });

  test("map archives: the built-in basemap and an operator's archive, read by byte range", async () => {
    const list = await json(await nodeFetch("/api/tiles"));
    expect(list.archives.map((a: any) => a.name)).toEqual(["world", "alps"]);
    for (const name of ["world", "alps"]) {
      const head = await nodeFetch(`/tiles/${name}.pmtiles`, { headers: { range: "bytes=0-126" } });
      expect(head.status).toBe(206);
      expect(head.headers.get("content-range")).toMatch(/^bytes 0-126\/\d+$/);
      const bytes = new Uint8Array(await head.arrayBuffer());
      expect(bytes.length).toBe(127);
      expect(new TextDecoder().decode(bytes.subarray(0, 7))).toBe("PMTiles");
      const etag = head.headers.get("etag")!;
      expect((await nodeFetch(`/tiles/${name}.pmtiles`, { headers: { "if-none-match": etag } })).status).toBe(304);
    }
    const whole = await nodeFetch("/tiles/alps.pmtiles");
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(alps);
    expect((await nodeFetch("/tiles/nowhere.pmtiles")).status).toBe(404);
  });

  test("the web app, built by Bun beside the bundle: the page with its CSP, and its scripts compressed", async () => {
    const page = await nodeFetch("/", { headers: { accept: "text/html" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
    const html = await page.text();
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const plain = await nodeFetch(script!, { headers: { "accept-encoding": "identity" } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toContain("javascript");
    const body = await plain.text();
    expect(body.length).toBeGreaterThan(1000);
    const br = await nodeFetch(script!, { headers: { "accept-encoding": "br" }, decompress: false } as RequestInit);
    expect(br.headers.get("content-encoding")).toBe("br");
    expect((await nodeFetch("/assets/no-such-file.js")).status).toBe(404);
  });

  test("CORS preflight answers 204 with the allowed methods and headers", async () => {
    const r = await nodeFetch("/api/caches", {
      method: "OPTIONS",
      headers: { origin: "https://app.example.org", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(r.headers.get("access-control-allow-methods")).toContain("POST");
    expect(r.headers.get("access-control-allow-headers")).toContain("content-type");
  });

  test("the gates: no session is refused; an e-mail code signs in, and the session opens the gate", async () => {
    const refused = await nodeFetch("/auth/session");
    expect(refused.status).toBe(401);
    expect(await json(refused)).toMatchObject({ error: "unauthorized", message: expect.any(String) });
    const hideRefused = await post("/api/caches", { name: "No gate", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 48.1, lon: 11.5 });
    expect(hideRefused.status).toBe(401);

    const start = await post("/auth/email/start", { email: "node-op@example.org" });
    expect(start.status).toBe(202);
    expect(await json(start)).toEqual({ sent: true, via: "smtp", expiresInS: 900 });
    const mail = await smtp.next("node-op@example.org");
    const code = /code (\d{6})/.exec(mail.subject)![1]!;
    const wrong = await post("/auth/email/verify", { email: "node-op@example.org", code: String((Number(code) + 1) % 1_000_000).padStart(6, "0") });
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error).toBe("bad_code");
    const v = await post("/auth/email/verify", { email: "node-op@example.org", code });
    expect(v.status).toBe(200);
    expect((await json(v)).created).toBe(true);
    cookie = v.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie).toMatch(/=.{20,}/);
    const session = await nodeFetch("/auth/session", { headers: { cookie } });
    expect(session.status).toBe(200);
    expect((await json(session)).account.email).toBe("node-op@example.org");
  });

  test("a signed-in user hides a cache; it reads back by bbox and through /api/v1; bad input is a 400 that stores nothing", async () => {
    const call = await post("/auth/callsign", { call: "N0NOD" }, { cookie });
    expect(call.status).toBe(200);
    const box = "/api/caches?bbox=11,48,12,49";
    expect((await json(await nodeFetch(box))).caches).toEqual([]);
    const bad = await post("/api/caches", { name: "Bad", type: "traditional", size: "small", difficulty: 2.3, terrain: 1, lat: 48.2, lon: 11.6 }, { cookie });
    expect(bad.status).toBe(400);
    expect((await json(bad)).message).toContain("difficulty");
    const r = await post(
      "/api/caches",
      { name: "Node Mill", type: "traditional", size: "small", difficulty: 2.5, terrain: 1.5, lat: 48.1234567, lon: 11.5432101, hint: "under the stone" },
      { cookie },
    );
    expect(r.status).toBe(201);
    const hidden = await json(r);
    expect(hidden).toMatchObject({ name: "Node Mill", ownerCall: "N0NOD", status: "active" });
    cacheId = hidden.id;
    const inBox = await json(await nodeFetch(box));
    expect(inBox.caches.map((c: any) => c.name)).toEqual(["Node Mill"]);
    expect((await json(await nodeFetch("/api/caches?bbox=-1,-1,1,1"))).caches).toEqual([]);
    const v1 = await nodeFetch("/api/v1/caches");
    expect(v1.status).toBe(200);
    const list = await json(v1);
    expect(JSON.stringify(list)).toContain("Node Mill");
    const one = await json(await nodeFetch(`/api/v1/caches/${cacheId}`));
    expect(one).toMatchObject({ name: "Node Mill" });
  });

  test("its federation sync page is signed CBOR, and a gateway on Bun pulls and applies it", async () => {
    const page = await nodeFetch("/federation/sync/cache");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("cbor");
    const frames = decodePage(new Uint8Array(await page.arrayBuffer())).frames;
    const names = frames.map((f) => (decodePayload(decodeFrame(f).payload).body as { name?: string }).name);
    expect(names).toContain("Node Mill");

    B = await startInProcess({
      INSTANCE: "gw-bun",
      FED_PRIVATE_KEY: generateKeyPair().privateKey,
      FED_PEERS: N.url,
      FED_LOOPBACK_PEERS: "on",
      INGEST_SECRET: INGEST,
    });
    expect(count(B.gw, "mirror_caches", "origin = 'gw-node'")).toBe(0);
    const r = await B.post("/federation/sync", {}, { headers: { "x-ingest-secret": INGEST } });
    expect(r.status).toBe(200);
    const peer = (await json(r)).peers.find((p: any) => p.instance === "gw-node");
    expect(peer).toMatchObject({ ok: true, error: null });
    expect(B.gw.db.query("SELECT name FROM mirror_caches WHERE origin = 'gw-node'").all()).toEqual([{ name: "Node Mill" }]);
    // pinned to the Node gateway's key, from its descriptor
    expect(getPeer(B.gw, "gw-node")).toMatchObject({ trust: "trusted", keyPin: kN.publicKey, url: N.url });
  });

  test("live rooms over WebSocket: a position from the ingest box reaches its room's client and not another room's; a bad region is refused", async () => {
    const here = await liveClient(N.url, "JN58");
    const there = await liveClient(N.url, "FN42");
    try {
      expect((await here.next()).type).toBe("snapshot");
      expect((await there.next()).type).toBe("snapshot");
      const r = await nodeFetch("/ingest", {
        method: "POST",
        headers: { "x-ingest-secret": INGEST, "content-type": "text/plain" },
        body: "N0NODE-9>APRS,WIDE1-1,qAR,W1AW-10:!4808.00N/01130.00E>088/036 on Node",
      });
      expect(r.status).toBe(200);
      const m = await here.next();
      expect(m).toMatchObject({ type: "position", room: "JN58", call: "N0NODE-9" });
      // a ping answers in order after it: the other room got nothing meanwhile
      there.send({ type: "ping" });
      expect(await there.next()).toEqual({ type: "pong" });
      expect(there.received.filter((x: any) => x.type === "position")).toEqual([]);
      here.send({ type: "dance" });
      expect(await here.next()).toMatchObject({ type: "error", error: "bad_message" });
    } finally {
      await Promise.all([here.close(), there.close()]);
    }
    const port = Number(new URL(N.url).port);
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      const s = connect(port, "127.0.0.1", () => s.write(wsUpgrade(port, "ZZ99")));
      s.on("data", (d) => (text += d));
      s.on("close", () => resolve(text));
    });
    expect(answer).toStartWith("HTTP/1.1 400");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: "bad_region" });
  });

  test("the CLI on Node: frame verify checks a signature, and a backup copies the serving gateway's database", async () => {
    const page = decodePage(new Uint8Array(await (await nodeFetch("/federation/sync/cache")).arrayBuffer()));
    const good = page.frames[0]!;
    const ok = await runCli(["frame", "verify"], { runtime: "node", stdin: good });
    expect({ code: ok.code, stderr: ok.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(ok.stdout)).toMatchObject({ kind: "cache", origin: "gw-node", signerKey: kN.publicKey, body: { name: "Node Mill" } });
    const tampered = good.slice();
    tampered[Buffer.from(good).indexOf("Node Mill")]! ^= 0x20;
    const bad = await runCli(["frame", "verify"], { runtime: "node", stdin: tampered });
    expect({ code: bad.code, out: bad.stdout.split(":")[0] }).toEqual({ code: 1, out: "bad_signature" });

    const file = join(tmpDir(), "copy.db");
    const b = await runCli(["backup", file, "--data", dataDir], { runtime: "node" });
    expect(b.code).toBe(0);
    const copy = openStore(file);
    try {
      expect(copy.query("SELECT name FROM caches").all()).toEqual([{ name: "Node Mill" }]);
    } finally {
      copy.close();
    }
  });

  test("its data survives a restart on Node: the cache and the session are still there", async () => {
    expect(await N.kill("SIGTERM")).toBe(0);
    N = await spawnGateway({ runtime: "node", dataDir, env });
    const inBox = await json(await nodeFetch("/api/caches?bbox=11,48,12,49"));
    expect(inBox.caches.map((c: any) => c.name)).toEqual(["Node Mill"]);
    const session = await nodeFetch("/auth/session", { headers: { cookie } });
    expect(session.status).toBe(200);
    expect((await json(session)).account.email).toBe("node-op@example.org");
    // a session it never issued still does not pass
    expect((await nodeFetch("/auth/session", { headers: { cookie: cookie.replace(/=.*/, "=not-a-session") } })).status).toBe(401);
  });
});

// The listener stays the gateway's own (not @elysiajs/node's listen) for the client's address; the body is srvx's.
describe("requests on Node, through Elysia's Node adapter", () => {
  test("each client is counted by its address: behind a trusted proxy two forwarded clients have a limit each; a body over a route's cap is a 413 that closes the connection and stores nothing", async () => {
    const n = await spawnGateway({
      runtime: "node",
      env: { TRUST_PROXY: "on", TRUSTED_PROXIES: "127.0.0.1", RATE_LIMIT_PER_MINUTE: "1", INGEST_SECRET: INGEST },
    });
    try {
      const as = async (client: string) => (await fetch(`${n.url}/api/v1/caches?bbox=0,0,1,1`, { headers: { "x-forwarded-for": client } })).status;
      expect([await as("198.51.100.1"), await as("198.51.100.2"), await as("198.51.100.1")]).toEqual([200, 200, 429]);
      const big = await fetch(`${n.url}/api/caches`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-ingest-secret": INGEST },
        body: JSON.stringify({ name: "x".repeat(2_000_000) }),
      });
      expect(big.status).toBe(413);
      expect((await big.json()).error).toBe("body_too_large");
      // answered before its body was read: the connection closes (kept, the client's next request waited behind the rest of it)
      expect(big.headers.get("connection")).toBe("close");
      const inBox = await json(await fetch(`${n.url}/api/caches?bbox=-180,-90,180,90`));
      expect(inBox.total).toBe(0);
    } finally {
      await n.kill();
    }
  });
});
