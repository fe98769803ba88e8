/**
 * The soak: a realistic mixed load, faster than real life, against a real
 * gateway process (`svc-gateway serve` on a temp data directory), for hours:
 *   bun run bench soak [--hours 2] [--every-min 5] [--exe PATH]
 *
 * - APRS-IS: a small fake APRS-IS server the gateway logs in to as its
 *   upstream (APRSIS_SERVER) sends --aprs-rate packets/s (default 750: three
 *   times the global feed's ~250/s), the mix of test/aprs/corpus.txt
 *   (positions, Mic-E, weather, telemetry, messages, objects) from 20,000
 *   stations spread over the world;
 * - 20 web clients panning the map as the web app does (the clustered
 *   /api/stations and /api/caches bbox queries, the station list when zoomed
 *   in), each in a live room (/ws?region=) it moves with the view;
 * - three peers pulling every 20 s (a minute at 3x): the descriptor, then
 *   every sync feed from their cursor, compressed as a link negotiates;
 * - on a compressed day (--day-min, default 15 wall minutes): the nightly
 *   prune (POST /api/admin/jobs/prune/run, PACKETS_TTL_HOURS=1 so it finds
 *   work), four GPX imports of 300 caches (four files in turn: new, then
 *   updates), new caches by users, and BBS mail forwarded hourly over FBB to
 *   a partner gateway.
 * Every --every-min wall minutes it prints the gateway's RSS, JS heap, open
 * descriptors, WAL size and event-loop p99 (GET /api/admin/runtime), then RSS
 * and the live heap right after a full collection (?gc: a single sample of RSS
 * mostly shows where the collector happens to be) and the lowest of the RSS
 * reads taken every second since the previous sample (what the process held for
 * good, wherever a burst fell), and at the end their slopes after the first 15
 * minutes (MB/hour), the descriptor change and the peak RSS: figures, not
 * asserts. The headline RSS slope is of the lowest read over the 15 minutes
 * before each sample: the executable shrinks at most every 10 minutes, and a
 * shorter window would sometimes miss the foot of the sawtooth. Where RSS
 * grows, the slopes of its parts after a full collection say where: the live heap, JavaScriptCore's machine code (the process's
 * anonymous executable mappings, read from /proc/PID/smaps), the rest of its
 * own memory (the allocator's pages outside the live heap), and file pages.
 */
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import type { Socket } from "bun";
import { Database } from "bun:sqlite";
import { createSession, SESSION_COOKIE } from "../src/accounts/sessions.ts";
import { decodePage } from "../src/lib/fed/page.ts";
import { DEFLATE_DICT1_TYPE, decompressPage } from "../src/lib/fed/compress.ts";
import { fbbPort } from "../src/bbs/forwarding.ts";
import { locator } from "../src/lib/maidenhead.ts";
import { runCli, spawnGateway, startInProcess, type Running, type Spawned } from "../test/helpers/gateway.ts";
import { catalogGpx } from "../test/helpers/catalog.ts";

import { corpusLines } from "./lib/corpus.ts";
import { freePort } from "../test/helpers/ports.ts";
import { evictFromPageCache } from "./lib/page-cache.ts";

const SECRET = "soak-ingest-secret-0123456789";
const SYSOP = { "x-ingest-secret": SECRET };
const STATIONS = 20_000;
const CLIENTS = 20;
const PEERS = 3;
const FEEDS = ["tombstone", "key", "account-move", "cache", "find", "bulletin"];

const counts = {
  aprsSent: 0,
  web: 0,
  webErrors: 0,
  wsOpened: 0,
  wsMessages: 0,
  wsErrors: 0,
  peerPulls: 0,
  peerFrames: 0,
  peerErrors: 0,
  imports: 0,
  importErrors: 0,
  caches: 0,
  cacheErrors: 0,
  bbsComposed: 0,
  bbsForwards: 0,
  bbsSent: 0,
  bbsErrors: 0,
  prunes: 0,
  pruned: 0,
  pruneErrors: 0,
};

/** web requests not answered 200, by "path status" */
const webRefused: Record<string, number> = {};

/** The corpus's packets from STATIONS calls, uncompressed positions moved around the world. */
function feedLines(n: number): string[] {
  const base = corpusLines({ bytes: true });
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const l = base[i % base.length]!;
    const s = i % STATIONS;
    const call = `N${s % 10}${String.fromCharCode(65 + (((s / 10) % 26) | 0))}${String.fromCharCode(65 + (((s / 260) % 26) | 0))}${String.fromCharCode(65 + (((s / 6760) % 26) | 0))}`;
    let line = `${call}-${(s % 15) + 1}${l.slice(l.indexOf(">"))}`;
    // uncompressed positions: a latitude 25-64 and a longitude 0-179 per station
    const lat = String(25 + ((s * 7) % 40)).padStart(2, "0");
    const lon = String((s * 13) % 180).padStart(3, "0");
    line = line.replace(/([!=/@][^:]*?)\d{2}(\d{2}\.\d{2}[NS].)\d{3}(\d{2}\.\d{2}[EW])/, `$1${lat}$2${lon}$3`);
    out.push(line);
  }
  return out;
}

/** A fake APRS-IS server: answers the login, then streams `rate` lines a second to every client, with keep-alives. */
function fakeAprsIs(rate: number) {
  const lines = feedLines(200_000);
  let next = 0;
  const clients = new Map<Socket<{ pending: string; loggedIn: boolean }>, true>();
  const flush = (s: Socket<{ pending: string; loggedIn: boolean }>) => {
    if (!s.data.pending) return;
    const n = s.write(s.data.pending);
    s.data.pending = n >= s.data.pending.length ? "" : s.data.pending.slice(Math.max(0, n));
  };
  const server = Bun.listen<{ pending: string; loggedIn: boolean }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(s) {
        s.data = { pending: "# aprsc 2.1.19 soak\r\n", loggedIn: false };
        flush(s);
      },
      data(s, d) {
        const text = d.toString();
        const m = /^user (\S+)/m.exec(text);
        if (m && !s.data.loggedIn) {
          s.data.loggedIn = true;
          s.data.pending += `# logresp ${m[1]} verified, server T2SOAK\r\n`;
          clients.set(s, true);
          flush(s);
        }
      },
      drain: flush,
      close(s) {
        clients.delete(s);
      },
    },
  });
  const TICK = 100;
  let owed = 0;
  const tick = setInterval(() => {
    owed += (rate * TICK) / 1000;
    const k = Math.floor(owed);
    owed -= k;
    let chunk = "";
    for (let i = 0; i < k; i++) {
      chunk += `${lines[next]}\r\n`;
      next = (next + 1) % lines.length;
    }
    for (const s of clients.keys()) {
      // a client that cannot keep up loses lines, as on a real server (at most 4 MB waits)
      if (s.data.pending.length < 4_000_000) s.data.pending += chunk;
      flush(s);
    }
    if (clients.size) counts.aprsSent += k;
  }, TICK);
  const keepAlive = setInterval(() => {
    for (const s of clients.keys()) {
      s.data.pending += "# aprsc 2.1.19 soak keepalive\r\n";
      flush(s);
    }
  }, 20_000);
  return {
    port: server.port,
    stop() {
      clearInterval(tick);
      clearInterval(keepAlive);
      server.stop(true);
    },
  };
}

const rnd = (a: number, b: number) => a + Math.random() * (b - a);
const every = (ms: number, fn: () => Promise<unknown>) => {
  let busy = false;
  return setInterval(() => {
    if (busy) return;
    busy = true;
    fn()
      .catch(() => {})
      .finally(() => (busy = false));
  }, ms);
};

async function get(url: string, init?: RequestInit): Promise<Response> {
  const r = await fetch(url, init);
  await r.arrayBuffer();
  return r;
}

/** One web client: pans and zooms around, moving its live room with the view. */
function webClient(url: string, stop: { stopped: boolean }) {
  let ws = null as WebSocket | null;
  let room = "";
  const join = (region: string) => {
    if (region === room) return;
    room = region;
    ws?.close();
    const s = new WebSocket(`${url.replace(/^http/, "ws")}/ws?region=${region}`);
    counts.wsOpened++;
    s.onmessage = () => counts.wsMessages++;
    s.onerror = () => counts.wsErrors++;
    ws = s;
  };
  let lat = rnd(30, 60);
  let lon = rnd(0, 170);
  return (async () => {
    while (!stop.stopped) {
      // a town, a region or a country in view: cells as the web app asks for a 1366x800 window
      const span = [0.1, 1, 6][Math.floor(Math.random() * 3)]!;
      lat = Math.max(-80, Math.min(80, lat + rnd(-span, span)));
      lon = Math.max(-170, Math.min(170, lon + rnd(-span, span)));
      const bbox = [lon - span, lat - span / 2, lon + span, lat + span / 2].map((v) => v.toFixed(5)).join(",");
      try {
        const rs = await Promise.all([
          get(`${url}/api/stations?cluster=1&cells=62&bbox=${bbox}`),
          get(`${url}/api/caches?singles=1&cells=62&bbox=${bbox}`),
          ...(span < 1 ? [get(`${url}/api/stations?bbox=${bbox}&limit=200`)] : []),
        ]);
        counts.web += rs.length;
        for (const r of rs.filter((r) => r.status !== 200)) {
          counts.webErrors++;
          webRefused[`${new URL(r.url).pathname} ${r.status}`] = (webRefused[`${new URL(r.url).pathname} ${r.status}`] ?? 0) + 1;
        }
      } catch {
        counts.webErrors++;
      }
      join(locator(lat, lon, 4));
      await Bun.sleep(rnd(1000, 3000));
    }
    ws?.close();
  })();
}

/** One peer's pull: the descriptor, then each feed from its cursor until `more` is false. */
async function peerPull(url: string, cursors: Map<string, number>) {
  counts.peerPulls++;
  const d = await fetch(`${url}/.well-known/svc`);
  await d.arrayBuffer();
  if (d.status !== 200) throw new Error(`descriptor ${d.status}`);
  for (const type of FEEDS) {
    for (let pages = 0; pages < 50; pages++) {
      const since = cursors.get(type) ?? 0;
      const r = await fetch(`${url}/federation/sync/${type}?since=${since}&limit=500&compress=deflateDict1`);
      const bytes = new Uint8Array(await r.arrayBuffer());
      if (r.status !== 200) throw new Error(`sync ${type} ${r.status}`);
      // a page too small to gain from compression comes as plain CBOR: the content type says which (as src/fed/sync.ts reads it)
      const compressed = r.headers.get("content-type")?.split(";")[0]?.trim() === DEFLATE_DICT1_TYPE;
      const page = decodePage(decompressPage(bytes, compressed ? "deflateDict1" : "none"));
      counts.peerFrames += page.frames.length;
      cursors.set(type, Number(page.next));
      if (!page.more) break;
    }
  }
}

interface Sample {
  atMin: number;
  rssMb: number;
  /** RSS and live heap right after a full garbage collection (GET /api/admin/runtime?gc) */
  gcRssMb: number;
  /** the RSS's two parts as the gateway reads them: pages of files (the executable's own, mostly) and its own memory */
  fileMb: number | null;
  anonMb: number | null;
  liveHeapMb: number;
  /** after that collection: the RSS's file pages and own memory, and the machine code within the latter (smaps) */
  gcFileMb: number | null;
  gcAnonMb: number | null;
  codeMb: number | null;
  heapUsedMb: number;
  /** what the JavaScript heap spans: live objects and the free space kept between collections */
  heapCapacityMb: number | null;
  /** full collections the gateway asked for itself so far (its heap governor) */
  heapCollections: number | null;
  /**
   * the lowest of the per-second RSS reads since the previous sample: what the process held
   * for good in that window, wherever its bursts fell (a sample may land on a day's jobs)
   */
  floorMb: number | null;
  openFds: number;
  /** the descriptors read in one pass from /proc: sockets (the clients' connections in flight come and go) and the rest */
  fdKinds: { sockets: number; others: number } | null;
  walMb: number;
  loopP99Ms: number | null;
}

function procRssMb(pid: number): { rss: number; peak: number } {
  const s = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, "m").exec(s)?.[1] ?? NaN);
  return { rss: Math.round(kb("VmRSS") / 102.4) / 10, peak: Math.round(kb("VmHWM") / 102.4) / 10 };
}

/** A process's open descriptors, sockets apart from the rest. */
function fdKinds(pid: number): { sockets: number; others: number } | null {
  try {
    const kinds = { sockets: 0, others: 0 };
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:")) kinds.sockets++;
        else kinds.others++;
      } catch {} // closed while we looked
    }
    return kinds;
  } catch {
    return null;
  }
}

/** The resident size of a process's anonymous executable mappings, MB: JavaScriptCore's compiled machine code. */
function machineCodeMb(pid: number): number | null {
  try {
    let kb = 0;
    let anonExec = false;
    for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
      const head = /^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (head) anonExec = head[1]!.includes("x") && head[2] === "";
      else if (anonExec && line.startsWith("Rss:")) kb += Number(line.split(/\s+/)[1]);
    }
    return Math.round(kb / 102.4) / 10;
  } catch {
    return null;
  }
}

/**
 * The lowest per-second RSS read in the `windowMin` minutes before each sample, for the samples whose
 * window lies wholly after the warm-up. The executable shrinks at most every 10 minutes (the heap
 * governor), so RSS is a sawtooth: a slope drawn through reads inside its teeth is biased upward (by
 * about 2 x half-height x spacing / span squared, some 0.5 MB/hour over 105 minutes), and lows over a
 * window shorter than the spacing alternate between a tooth's foot and its middle. A window longer
 * than the spacing always holds a foot: what the process kept.
 */
export function windowLows(
  samples: { atMin: number }[],
  reads: { atMin: number; mb: number }[],
  warmupMin: number,
  windowMin: number,
): { atMin: number; mb: number }[] {
  // half a minute of slack: samples fall a little after their minute
  const out: { atMin: number; mb: number }[] = [];
  for (const s of samples) {
    if (s.atMin - windowMin < warmupMin - 0.5) continue;
    let low = Number.POSITIVE_INFINITY;
    for (const r of reads) if (r.atMin > s.atMin - windowMin && r.atMin <= s.atMin) low = Math.min(low, r.mb);
    if (Number.isFinite(low)) out.push({ atMin: s.atMin, mb: low });
  }
  return out;
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? num / den : NaN;
}

export async function run(argv: string[] = []) {
  const { values } = parseArgs({
    args: argv,
    options: {
      hours: { type: "string", default: "2" },
      "every-min": { type: "string", default: "5" },
      "day-min": { type: "string", default: "15" },
      "aprs-rate": { type: "string", default: "750" },
      exe: { type: "string" },
    },
  });
  const hours = Number(values.hours);
  const everyMin = Number(values["every-min"]);
  const dayMs = Number(values["day-min"]) * 60_000;
  const rate = Number(values["aprs-rate"]);
  const warmupMin = Math.min(15, (hours * 60) / 3);

  const dir = mkdtempSync(join(tmpdir(), "svc-soak-"));

  const keys = await runCli(["keygen"]);
  const key = /FED_PRIVATE_KEY=(\S+)/.exec(keys.stdout)?.[1];
  if (!key) throw new Error(`keygen printed no key:\n${keys.stdout}${keys.stderr}`);
  const aprs = fakeAprsIs(rate);
  const fbb = await freePort();
  // the BBS partner: a gateway in this process that takes the soak gateway's mail over FBB
  const partner: Running = await startInProcess({ INGEST_SECRET: SECRET, BBS_HA: "N0PAR.#TST.USA.NOAM", BBS_FBB_PORT: "0", INSTANCE: "soak-partner" });
  // an executable just built is whole in the page cache, and every page fault maps its neighbours too:
  // RSS as after a boot instead, as bench startup's idle figure (lib/page-cache.ts)
  if (values.exe) evictFromPageCache(values.exe);
  const gw: Spawned = await spawnGateway({
    dataDir: dir,
    cmd: values.exe ? [values.exe] : undefined,
    env: {
      LOG_LEVEL: "error",
      INSTANCE: "soak",
      FED_PRIVATE_KEY: key,
      FED_APRS_CALL: "N0SOAK",
      APRSIS_SERVER: `127.0.0.1:${aprs.port}`,
      APRSIS_CALL: "N0SOAK",
      INGEST_SECRET: SECRET,
      BBS_HA: "N0SOAK.#TST.USA.NOAM",
      BBS_FBB_PORT: String(fbb),
      PACKETS_TTL_HOURS: "1",
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_WRITES_PER_MINUTE: "1000000",
      LIVE_MAX_PER_IP: "1000",
      // JavaScriptCore's and the allocator's options pass through, e.g. BUN_JSC_forceRAMSize=1073741824
      // to size the heap as on a 1 GB Pi, or MIMALLOC_PURGE_DELAY=0
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("BUN_JSC_") || k.startsWith("MIMALLOC_"))),
    },
  });
  const url = gw.url;
  const pid = gw.proc.pid;
  // users and their sessions, written beside the running gateway (the executable's schema may be older than this tree's)
  const db = new Database(join(dir, "svc-gateway.db"));
  db.run("PRAGMA busy_timeout = 5000");
  const cookies = Array.from({ length: 8 }, (_, w) => {
    const now = Date.now();
    const id = Number(db.query("INSERT INTO users (created_at) VALUES (?)").run(now).lastInsertRowid);
    db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (?, ?, 1, ?, ?)").run(id, `N${w}SOK`, now, now);
    return `${SESSION_COOKIE}=${createSession(db as never, id, now)}`;
  });
  db.close();
  const post = (path: string, body: unknown, headers: Record<string, string>) =>
    fetch(url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  // FBB: the soak gateway forwards mail for N0PAR to the partner, which takes it from N0SOAK
  const pr = await post(
    "/api/bbs/partners",
    { call: "N0PAR", transport: "tcp", host: "127.0.0.1", port: fbbPort(partner.gw), protocol: "fbb-b1", password: "soak" },
    SYSOP,
  );
  const partnerId = ((await pr.json()) as { id: number }).id;
  await post("/api/bbs/forward", { partner: "N0PAR", field: "at", pattern: "N0PAR", types: "PT" }, SYSOP);
  await partner.post(
    "/api/bbs/partners",
    { call: "N0SOAK", transport: "tcp", host: "127.0.0.1", port: fbb, protocol: "fbb-b1", password: "soak" },
    { headers: SYSOP },
  );

  console.log(
    `\n## soak: ${hours} h against ${values.exe ?? "bun src/main.ts"} (pid ${pid}, ${dir})\n` +
      `APRS-IS ${rate} packets/s from ${STATIONS} stations; ${CLIENTS} web clients; ${PEERS} peers every 20 s; ` +
      `a day every ${values["day-min"]} min (prune, 4 GPX imports, BBS forwarding hourly)\n`,
  );
  const stop = { stopped: false };
  const clients = Array.from({ length: CLIENTS }, () => webClient(url, stop));
  const timers: Array<ReturnType<typeof setInterval>> = [];
  for (let p = 0; p < PEERS; p++) {
    const cursors = new Map<string, number>();
    setTimeout(() => timers.push(every(20_000, () => peerPull(url, cursors).catch(() => void counts.peerErrors++))), p * 7000);
  }
  let imports = 0;
  timers.push(
    every(dayMs / 4, async () => {
      const gpx = catalogGpx(300, { prefix: `GS${String.fromCharCode(65 + (imports++ % 4))}` });
      const r = await fetch(`${url}/api/import/gpx`, { method: "POST", body: gpx, headers: { cookie: cookies[0]!, "content-type": "application/gpx+xml" } });
      await r.arrayBuffer();
      if (r.status === 200) counts.imports++;
      else counts.importErrors++;
    }),
  );
  let made = 0;
  timers.push(
    every(dayMs / 48, async () => {
      const n = made++;
      const r = await post(
        "/api/caches",
        { name: `Soak ${n}`, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: rnd(30, 60), lon: rnd(0, 170), description: "A soak cache." },
        { cookie: cookies[1 + (n % 7)]! },
      );
      await r.arrayBuffer();
      if (r.status < 300) counts.caches++;
      else counts.cacheErrors++;
    }),
  );
  timers.push(
    every(dayMs / 24, async () => {
      for (let i = 0; i < 3; i++) {
        const r = await post(
          "/api/bbs/messages",
          { type: "P", to: "N0BOB@N0PAR.#TST.USA.NOAM", subject: `Soak ${counts.bbsComposed}`, body: "Hello.\n".repeat(40) },
          { cookie: cookies[2]! },
        );
        await r.arrayBuffer();
        if (r.status === 201) counts.bbsComposed++;
        else counts.bbsErrors++;
      }
      const f = await post(`/api/bbs/partners/${partnerId}/forward`, {}, SYSOP);
      const body = (await f.json()) as { ok?: boolean; sent?: unknown[] };
      counts.bbsForwards++;
      if (body.ok) counts.bbsSent += body.sent?.length ?? 0;
      else counts.bbsErrors++;
    }),
  );
  timers.push(
    every(dayMs, async () => {
      const r = await post("/api/admin/jobs/prune/run", {}, SYSOP);
      const body = (await r.json()) as { result?: Record<string, { deleted: number }>; error?: string };
      if (r.status === 200 && !body.error) {
        counts.prunes++;
        counts.pruned += Object.values(body.result ?? {}).reduce((s, x) => s + (x?.deleted ?? 0), 0);
      } else counts.pruneErrors++;
    }),
  );

  const samples: Sample[] = [];
  const t0 = Date.now();
  type Figures = {
    rssMb: number;
    rssFileMb: number | null;
    rssAnonMb: number | null;
    heapUsedMb: number;
    heapCapacityMb: number | null;
    heapCollections?: number;
    openFds: number;
    walBytes: number | null;
    eventLoop: { p99Ms: number } | null;
  };
  const figures = async (gc: boolean) => (await (await fetch(`${url}/api/admin/runtime${gc ? "?gc=1" : ""}`, { headers: SYSOP })).json()) as Figures;
  // RSS read every second: when the peak came (a sample every few minutes misses a peak of a few seconds),
  // and the lowest read of each sample's window
  const highest = { mb: 0, atMin: 0 };
  let floor = Number.POSITIVE_INFINITY;
  const reads: { atMin: number; mb: number }[] = [];
  const watch = setInterval(() => {
    try {
      const { rss } = procRssMb(pid);
      const atMin = (Date.now() - t0) / 60_000;
      reads.push({ atMin, mb: rss });
      if (rss > highest.mb) Object.assign(highest, { mb: rss, atMin });
      floor = Math.min(floor, rss);
    } catch {}
  }, 1000);
  const sample = async () => {
    const floorMb = Number.isFinite(floor) ? floor : null;
    floor = Number.POSITIVE_INFINITY;
    const f = await figures(false);
    const rssMb = procRssMb(pid).rss;
    const live = await figures(true);
    const s: Sample = {
      atMin: (Date.now() - t0) / 60_000,
      rssMb,
      gcRssMb: procRssMb(pid).rss,
      fileMb: f.rssFileMb,
      anonMb: f.rssAnonMb,
      liveHeapMb: live.heapUsedMb,
      gcFileMb: live.rssFileMb,
      gcAnonMb: live.rssAnonMb,
      codeMb: machineCodeMb(pid),
      heapUsedMb: f.heapUsedMb,
      heapCapacityMb: f.heapCapacityMb,
      heapCollections: f.heapCollections ?? null,
      floorMb,
      openFds: live.openFds,
      fdKinds: fdKinds(pid),
      walMb: Math.round((f.walBytes ?? 0) / 104857.6) / 10,
      loopP99Ms: f.eventLoop?.p99Ms ?? null,
    };
    samples.push(s);
    const c = counts;
    console.log(
      `${s.atMin.toFixed(1).padStart(6)} min  RSS ${s.rssMb.toFixed(1)} MB (files ${s.fileMb ?? "-"}, own ${s.anonMb ?? "-"}; after GC ${s.gcRssMb.toFixed(1)}; lowest since the last sample ${s.floorMb ?? "-"})  heap ${s.heapUsedMb} of ${s.heapCapacityMb ?? "-"} MB (live ${s.liveHeapMb}, ${s.heapCollections ?? "-"} asked GCs)  code ${s.codeMb ?? "-"} MB  fds ${s.openFds} (sockets ${s.fdKinds?.sockets ?? "-"})  WAL ${s.walMb} MB  loop p99 ${s.loopP99Ms ?? "-"} ms` +
        `  | aprs ${c.aprsSent} web ${c.web}/${c.webErrors}err ws ${c.wsOpened}/${c.wsMessages}msg peers ${c.peerPulls}/${c.peerFrames}fr/${c.peerErrors}err` +
        ` gpx ${c.imports}/${c.importErrors}err caches ${c.caches} bbs ${c.bbsSent}sent/${c.bbsErrors}err prune ${c.prunes}/${c.pruned}rows`,
    );
  };
  await sample();
  const sampler = every(everyMin * 60_000, sample);
  await Bun.sleep(hours * 3_600_000);
  clearInterval(sampler);
  clearInterval(watch);
  await sample();

  stop.stopped = true;
  for (const t of timers) clearInterval(t);
  await Promise.all(clients);
  const peak = procRssMb(pid).peak;
  const died = gw.proc.exitCode !== null;
  await gw.kill();
  await partner.stop();
  aprs.stop();

  const late = samples.filter((s) => s.atMin >= warmupMin);
  const perHour = (f: (s: Sample) => number | null) => {
    const known = late.filter((s) => f(s) !== null);
    return slope(
      known.map((s) => s.atMin / 60),
      known.map((s) => f(s)!),
    );
  };
  const rssSlope = perHour((s) => s.rssMb);
  const gcRssSlope = perHour((s) => s.gcRssMb);
  const floorSlope = perHour((s) => s.floorMb);
  const lowWindowMin = Math.max(15, everyMin);
  const lows = windowLows(samples, reads, warmupMin, lowWindowMin);
  const lowSlope = slope(
    lows.map((l) => l.atMin / 60),
    lows.map((l) => l.mb),
  );
  const liveSlope = perHour((s) => s.liveHeapMb);
  const first = late[0];
  const last = late.at(-1);
  console.log(`\nafter the first ${warmupMin.toFixed(0)} min (${late.length} samples):`);
  console.log(
    lows.length >= 2
      ? `  RSS slope          ${lowSlope.toFixed(2)} MB/hour of the lowest per-second read in the ${lowWindowMin} minutes before each sample (${lows.length} windows from ${lows[0]?.atMin.toFixed(0)} min)   (target < 1 MB/hour)`
      : `  RSS slope          - (the lowest read over ${lowWindowMin} minutes wants a run of at least ${(warmupMin + lowWindowMin + 2 * everyMin).toFixed(0)} minutes)`,
  );
  console.log(
    `                     ${floorSlope.toFixed(2)} MB/hour of the lowest since the previous sample; ${rssSlope.toFixed(2)} MB/hour as sampled; ${gcRssSlope.toFixed(2)} MB/hour after a GC`,
  );
  // after a collection: own memory = live heap + machine code + the rest (the allocator's pages outside the live heap)
  const rest = (s: Sample) => (s.gcAnonMb === null || s.codeMb === null ? null : s.gcAnonMb - s.codeMb - s.liveHeapMb);
  console.log(
    `  RSS's parts' slopes after a GC: live heap ${liveSlope.toFixed(2)}, machine code ${perHour((s) => s.codeMb).toFixed(2)}, the rest of own memory ${perHour(rest).toFixed(2)}, file pages ${perHour((s) => s.gcFileMb).toFixed(2)} MB/hour`,
  );
  console.log(
    `  RSS                ${first?.rssMb} -> ${last?.rssMb} MB (after GC ${first?.gcRssMb} -> ${last?.gcRssMb}); peak ${peak} MB, the highest of the per-second reads ${highest.mb} MB at ${highest.atMin.toFixed(1)} min   (target < 128 MB)`,
  );
  const spanOf = (v: number[]) => (v.length ? `${Math.min(...v)}-${Math.max(...v)}` : "-");
  const range = (f: (s: Sample) => number | null) => spanOf(late.map(f).filter((x): x is number => x !== null));
  console.log(`  lowest in ${lowWindowMin} min    ${spanOf(lows.map((l) => l.mb))} MB`);
  console.log(`  RSS's parts        files ${range((s) => s.fileMb)} MB, own memory ${range((s) => s.anonMb)} MB as sampled`);
  console.log(
    `  heap               ${first?.heapUsedMb} -> ${last?.heapUsedMb} MB (live ${first?.liveHeapMb} -> ${last?.liveHeapMb}); spans ${range((s) => s.heapCapacityMb)} MB`,
  );
  console.log(`  open descriptors   ${first?.openFds} -> ${last?.openFds} (change ${(last?.openFds ?? 0) - (first?.openFds ?? 0)})   (target 0)`);
  console.log(
    `                     other than sockets ${first?.fdKinds?.others ?? "-"} -> ${last?.fdKinds?.others ?? "-"} (spans ${range((x) => x.fdKinds?.others ?? null)}); sockets, the connections in flight, spans ${range((x) => x.fdKinds?.sockets ?? null)}`,
  );
  console.log(`  WAL                ${first?.walMb} -> ${last?.walMb} MB`);
  console.log(`  event loop p99     max ${Math.max(...late.map((s) => s.loopP99Ms ?? 0))} ms over the samples`);
  console.log(`  counts             ${JSON.stringify(counts)}`);
  if (counts.webErrors) console.log(`  web not 200        ${JSON.stringify(webRefused)}`);
  if (died) console.log(`  THE GATEWAY EXITED during the soak:\n${gw.output().slice(-4000)}`);
  else if (gw.output().trim()) console.log(`  gateway errors (last 2000 chars):\n${gw.output().slice(-2000)}`);
  rmSync(dir, { recursive: true, force: true });
  return { samples, rssSlope, gcRssSlope, liveSlope, counts };
}

if (import.meta.main) await run(process.argv.slice(2));
