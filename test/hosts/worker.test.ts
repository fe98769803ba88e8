/**
 * The gateway on workerd: the bundle `npm run start:worker` runs, in
 * miniflare, as a real server on a port. What a worker cannot run is not in
 * the bundle at all; its data lives in the Durable Object's SQLite and
 * survives a restart; its cron trigger runs the jobs that fell due.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { Miniflare } from "miniflare";
import { buildWorkerBundle, fireScheduled, workerOptions } from "../../scripts/worker.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { join } from "node:path";
import { request as httpRequest } from "node:http";
import { liveClient } from "../helpers/ws.ts";
import { waitFor } from "../helpers/wait.ts";

const SECRET = "worker-ingest-secret-0123";
const BBOX = "6.9,44.9,7.3,45.3";
const cache = (name: string) => ({ name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 45.1, lon: 7.1, ownerCall: "N0WRK" });
const names = async (url: string) =>
  ((await (await fetch(`${url}/api/caches?bbox=${BBOX}`)).json()) as { caches: Array<{ name: string }> }).caches.map((c) => c.name).sort();

let bundle: string;
let upstream: Running;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  upstream = await startInProcess({ INSTANCE: "upstream-of-worker", FED_PRIVATE_KEY: generateKeyPair().privateKey, INGEST_SECRET: SECRET });
  expect((await upstream.post("/api/caches", cache("From the upstream peer"), { headers: { "x-ingest-secret": SECRET } })).status).toBe(201);
}, 120_000);
afterAll(() => upstream?.stop());

async function start(env: Record<string, string>, persistTo?: string): Promise<{ mf: Miniflare; url: string; output: () => string }> {
  let output = "";
  const mf = new Miniflare({
    ...workerOptions(bundle, { port: 0, env: { LOG_LEVEL: "error", INGEST_SECRET: SECRET, ...env }, persistTo }),
    // what the worker logs (console.log/error in workerd)
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      for (const s of [stdout, stderr]) s.on("data", (b: Buffer) => (output += b.toString()));
    },
  });
  return { mf, url: (await mf.ready).origin, output: () => output };
}

test("the worker bundle holds none of what cannot run on a worker: serial TNCs, TCP servers and listeners, the checkpointer, the run lock, APRS-IS", () => {
  const text = readFileSync(bundle, "utf8");
  const has = (re: RegExp) => re.test(text);
  // controls: the bundle's modules are named as expected, and the kept parts of the files in question are there
  expect(has(/^\/\/ src\/core\/store\/sqlite-do\.ts$/m)).toBe(true);
  expect(has(/function radioOf\d*\(/)).toBe(true); // node/radio.ts, whose startRadio must be left out
  expect(has(/function callPartner\d*\(/)).toBe(true); // bbs/forwarding.ts, whose listener must be left out
  const absent = {
    startRadio: has(/function startRadio\d*\(/),
    serialTransport: has(/function serialTransport\d*\(|\/\/ radio\/port\/(bun-)?serial\.ts/),
    startHub: has(/function startHub\d*\(|\/\/ src\/hub\/(kiss|aprsis)-server\.ts/),
    startBbs: has(/function startBbs\d*\(/),
    listen: has(/Bun\.listen\(|function listenTcp\d*\(/),
    checkpointer: has(/function startCheckpointer\d*\(|\/\/ src\/core\/store\/checkpoint\.ts/),
    runLock: has(/function holdRunLock\d*\(/),
    aprsIs: has(/function startAprsIs\d*\(/),
    workerThreads: has(/new Worker\(/),
  };
  expect(absent).toEqual({
    startRadio: false,
    serialTransport: false,
    startHub: false,
    startBbs: false,
    listen: false,
    checkpointer: false,
    runLock: false,
    aprsIs: false,
    workerThreads: false,
  });
});

test("the settings for what a worker cannot run are ignored with one warning each; the gateway serves", async () => {
  const w = await start({
    INSTANCE: "worker-d",
    LOG_LEVEL: "warn",
    KISS_PORTS: "tcp://127.0.0.1:8001",
    KISS_SERVER: "127.0.0.1:0",
    APRSIS_LISTEN: "127.0.0.1:0",
    BBS_FBB_PORT: "6300",
    TLS: "local",
  });
  try {
    // the gateway starts (the first request builds the Durable Object), and serves
    expect((await fetch(`${w.url}/health`)).status).toBe(200);
    const warned = (setting: string) => new RegExp(`on workerd, .* does not run \\(${setting} is ignored\\)`).test(w.output());
    // the runtime's output arrives through a pipe: the last warning first
    await waitFor(() => warned("TLS"), "the warning for TLS");
    expect({
      KISS_PORTS: warned("KISS_PORTS"),
      KISS_SERVER: warned("KISS_SERVER"),
      APRSIS_LISTEN: warned("APRSIS_LISTEN"),
      BBS_FBB_PORT: warned("BBS_FBB_PORT"),
      TLS: warned("TLS"), // the platform serves https
      BACKUP_DIR: warned("BACKUP_DIR"),
    }).toEqual({
      KISS_PORTS: true,
      KISS_SERVER: true,
      APRSIS_LISTEN: true,
      BBS_FBB_PORT: true,
      TLS: true,
      BACKUP_DIR: false, // not set
    });
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("its data is in the Durable Object's SQLite: a cache hidden there is there after a restart", async () => {
  const dir = tmpDir();
  const first = await start({ INSTANCE: "worker-a" }, dir);
  try {
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
    const hide = await fetch(`${first.url}/api/caches`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-ingest-secret": SECRET },
      body: JSON.stringify(cache("Kept in the Durable Object")),
    });
    expect(hide.status).toBe(201);
  } finally {
    await first.mf.dispose();
  }
  const again = await start({ INSTANCE: "worker-a" }, dir);
  try {
    expect(await names(again.url)).toEqual(["Kept in the Durable Object"]);
  } finally {
    await again.mf.dispose();
  }
}, 60_000);

test("the cron trigger runs the jobs that fell due since the last one: the federation pull every five minutes", async () => {
  const w = await start({ INSTANCE: "worker-b", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_PEERS: upstream.url, FED_LOOPBACK_PEERS: "on" });
  try {
    const five = Math.floor(Date.now() / 300_000) * 300_000;
    // a trigger two minutes before a five-minute mark: the pull is not due
    await fireScheduled(w.mf, new Date(five - 120_000));
    expect(await names(w.url)).toEqual([]);
    // the next trigger, on the mark: it is
    await fireScheduled(w.mf, new Date(five));
    expect(await names(w.url)).toEqual(["From the upstream peer"]);
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("a live room on the Durable Object's WebSockets: a position reaches its client, and the object answers the client's close", async () => {
  const w = await start({ INSTANCE: "worker-c" });
  try {
    const ws = await liveClient(w.url, "JN35");
    expect((await ws.next(10_000)).type).toBe("snapshot");
    const ingest = await fetch(`${w.url}/ingest`, {
      method: "POST",
      headers: { "x-ingest-secret": SECRET, "content-type": "text/plain" },
      body: "N0LIV-9>APRS,WIDE1-1:!4506.00N/00706.00E>on the worker",
    });
    expect(ingest.status).toBe(200);
    let msg = await ws.next(10_000);
    while (msg.type !== "position") msg = await ws.next(10_000);
    expect(msg).toMatchObject({ type: "position", call: "N0LIV-9", room: "JN35" });
    // a clean close (1000), not the connection dropped (1006) once the client gives up waiting
    const code = await Promise.race([ws.close(), Bun.sleep(5_000).then(() => "no answer to the close")]);
    expect(code).toBe(1000);
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("its address is PUBLIC_URL; without it a stranger's Host header gets no links to itself, and a warning says to set it", async () => {
  const sitemap = async (url: string) =>
    /^Sitemap: (.*)$/m.exec(await (await fetch(`${url}/robots.txt`, { headers: { host: "stranger.example.org" } })).text())?.[1];
  const set = await start({ INSTANCE: "worker-e", LOG_LEVEL: "warn", PUBLIC_URL: "https://svc.example.net" });
  try {
    expect(await sitemap(set.url)).toBe("https://svc.example.net/sitemap.xml");
  } finally {
    await set.mf.dispose();
  }
  const unset = await start({ INSTANCE: "worker-f", LOG_LEVEL: "warn" });
  try {
    expect(await sitemap(unset.url)).toBe("http://localhost/sitemap.xml");
    await waitFor(() => /PUBLIC_URL is not set/.test(unset.output()), "the PUBLIC_URL warning");
  } finally {
    await unset.mf.dispose();
  }
  expect(set.output()).not.toContain("PUBLIC_URL is not set");
}, 60_000);

test("it says what it runs: /.well-known/source names the checkout's commit, and /source redirects to that commit's tree", async () => {
  const head = Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
  expect(head).toMatch(/^[0-9a-f]{40}$/);
  const w = await start({ INSTANCE: "worker-src" });
  try {
    const info = (await (await fetch(`${w.url}/.well-known/source`)).json()) as { commit: string | null; repository: string; tree: string };
    expect(info.commit).toBe(head);
    const r = await fetch(`${w.url}/source`, { redirect: "manual" });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${info.repository}/tree/${head}`);
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("a request body a gate refused unread leaves the client's connection usable: back-to-back refused posts all get their 401", async () => {
  const w = await start({ INSTANCE: "worker-g", PUBLIC_URL: "http://worker.example" });
  try {
    const answers: Record<string, number> = {};
    for (let i = 0; i < 300; i++) {
      let key: string;
      try {
        const r = await fetch(`${w.url}/api/bbs/forward/sent`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        key = String(r.status);
        await r.arrayBuffer();
      } catch (e) {
        key = (e as { code?: string }).code ?? String(e);
      }
      answers[key] = (answers[key] ?? 0) + 1;
    }
    expect(answers).toEqual({ "401": 300 });
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("each client is counted by its own address: one client's 20 bad sign-in codes leave another's sign-in open", async () => {
  const w = await start({ INSTANCE: "worker-ip", PUBLIC_URL: "http://worker.example" });
  // two clients on this machine, each from its own loopback address (the connection's peer, which miniflare names in CF-Connecting-IP)
  const verify = (from: string) =>
    new Promise<number>((resolve, reject) => {
      const u = new URL(w.url);
      const r = httpRequest(
        { host: u.hostname, port: u.port, path: "/auth/email/verify", method: "POST", localAddress: from, headers: { "content-type": "application/json" } },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode!));
        },
      );
      r.on("error", reject);
      r.end(JSON.stringify({ email: "someone@example.org", code: "000000" }));
    });
  try {
    const a: number[] = [];
    for (let i = 0; i < 21; i++) a.push(await verify("127.0.0.2"));
    expect(a.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(a[20]).toBe(429);
    expect(await verify("127.0.0.3")).toBe(401);
    expect(await verify("127.0.0.2")).toBe(429);
  } finally {
    await w.mf.dispose();
  }
}, 60_000);

test("npm run start:worker serves on the port it is given, with the Durable Object's data in --data across a restart", async () => {
  const data = tmpDir();
  const serve = async () => {
    const proc = Bun.spawn([BUN, "--no-env-file", join(ROOT, "scripts/worker.ts"), "--port", "0", "--data", data], {
      env: { ...process.env, INGEST_SECRET: SECRET, LOG_LEVEL: "error", PUBLIC_URL: "http://worker.example" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = proc.stdout.getReader();
    let out = "";
    const url = await waitFor(async () => {
      const { value, done } = await reader.read();
      if (done) throw new Error(`scripts/worker.ts ended: ${out}`);
      out += new TextDecoder().decode(value);
      return /running on workerd at (http:\/\/[^/\s]+)/.exec(out)?.[1];
    }, "the start line");
    // SIGTERM: miniflare's exit hook stops workerd and ends the process
    return { url, stop: async () => (proc.kill("SIGTERM"), await proc.exited) };
  };
  const first = await serve();
  try {
    const hide = await fetch(`${first.url}/api/caches`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-ingest-secret": SECRET },
      body: JSON.stringify(cache("Kept under --data")),
    });
    expect(hide.status).toBe(201);
  } finally {
    await first.stop();
  }
  const again = await serve();
  try {
    expect(await names(again.url)).toEqual(["Kept under --data"]);
  } finally {
    await again.stop();
  }
}, 90_000);
