/**
 * The write-ahead log under write load: 8 writers flat out against a real
 * gateway process (`svc-gateway serve`), for 60 s: POST /ingest (100 TNC2
 * lines a request), POST /api/caches and PUT /api/prefs (8 KB, the largest
 * accepted) from signed-in users. Prints the largest svc-gateway.db-wal seen,
 * its size 10 s after the load stopped, and writes per second by kind.
 * Targets: peak < 64 MB, idle < 4 MB, throughput >= 0.8x the reference.
 *
 * The reference is the same load against another checkout (e.g. main):
 *   git worktree add /tmp/wal-base 08d7e6c && ln -s $PWD/node_modules /tmp/wal-base/
 *   WAL_BASE=/tmp/wal-base bun run bench wal
 * WAL_SECONDS shortens the run (default 60). The per-account write limit is
 * raised for the run: the WAL must stay bounded by itself, not because users
 * are turned away.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { table } from "./lib/stats.ts";
import { freePort } from "../test/helpers/ports.ts";

const WRITERS = 8;
const SECRET = "bench-wal-secret-0123456789";
const KINDS = ["ingest", "cache", "prefs"] as const;
type Kind = (typeof KINDS)[number];

interface LoadResult {
  ok: Record<Kind, number>;
  refused: Record<string, number>;
  /** acknowledged writes in each 10 s of the run */
  windows: number[];
}

/** The load itself, in a child process so it does not share the gateway's or the sampler's event loop. */
async function load(url: string, cookies: string[], seconds: number): Promise<LoadResult> {
  const start = performance.now();
  const end = start + seconds * 1000;
  const ok: Record<Kind, number> = { ingest: 0, cache: 0, prefs: 0 };
  const windows = Array.from({ length: Math.ceil(seconds / 10) }, () => 0);
  const refused: Record<string, number> = {};
  const prefs = JSON.stringify({ note: "p".repeat(8000) });
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const kind = KINDS[w % KINDS.length]!;
      const cookie = cookies[w]!;
      for (let n = 0; performance.now() < end; n++) {
        let r: Response;
        try {
          if (kind === "ingest") {
            const lines = Array.from(
              { length: 100 },
              (_, k) => `B${w}N${k % 50}-${(n % 15) + 1}>APRS,TCPIP*:!4903.${String(k % 60).padStart(2, "0")}N/07201.75W-bench ${n} line ${k}`,
            );
            r = await fetch(url + "/ingest", { method: "POST", headers: { "x-ingest-secret": SECRET, "content-type": "text/plain" }, body: lines.join("\n") });
          } else if (kind === "cache") {
            const body = {
              name: `Bench ${w} ${n}`,
              type: "traditional",
              size: "small",
              difficulty: 2,
              terrain: 2,
              lat: 49 + (n % 1000) / 1000,
              lon: 7 + w / 10,
              description: "d".repeat(500),
            };
            r = await fetch(url + "/api/caches", { method: "POST", headers: { cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
          } else {
            r = await fetch(url + "/api/prefs", {
              method: "PUT",
              headers: { cookie, "content-type": "application/json" },
              body: prefs.replace("pp", String(n % 10) + "p"),
            });
          }
          await r.arrayBuffer();
          if (r.status < 300) {
            ok[kind]++;
            windows[Math.min(windows.length - 1, Math.floor((performance.now() - start) / 10_000))]!++;
          } else refused[`${kind} ${r.status}`] = (refused[`${kind} ${r.status}`] ?? 0) + 1;
        } catch {
          refused[`${kind} network`] = (refused[`${kind} network`] ?? 0) + 1;
        }
      }
    }),
  );
  return { ok, refused, windows };
}

interface Figures extends LoadResult {
  perSecond: number;
  peakWal: number;
  idleWal: number;
  dbBytes: number;
}

const size = (f: string) => {
  try {
    return statSync(f).size;
  } catch {
    return 0;
  }
};

/** One run against the checkout at `root`: start its gateway, load it, watch the WAL. */
async function measure(root: string, seconds: number): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-wal-"));
  // The users and sessions are made by that checkout's own store code, so the schema is its own.
  const { openStore } = (await import(join(root, "src/core/store/db.ts"))) as typeof import("../src/core/store/db.ts");
  const { createSession, SESSION_COOKIE } = (await import(join(root, "src/accounts/sessions.ts"))) as typeof import("../src/accounts/sessions.ts");
  const db = openStore(join(dir, "svc-gateway.db"));
  const cookies = Array.from({ length: WRITERS }, (_, w) => {
    const now = Date.now();
    const id = Number(db.query("INSERT INTO users (created_at) VALUES (?)").run(now).lastInsertRowid);
    db.query("INSERT INTO callsigns (user_id, call, active, verified_at, created_at) VALUES (?, ?, 1, ?, ?)").run(id, `N${w}WAL`, now, now);
    return `${SESSION_COOKIE}=${createSession(db, id, now)}`;
  });
  db.close();
  const port = await freePort();
  const gw = Bun.spawn([process.execPath, "--no-env-file", join(root, "src/main.ts"), "serve", "--data", dir, "--port", String(port), "--host", "127.0.0.1"], {
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME ?? "/tmp",
      LOG_LEVEL: "error",
      KISS_PORTS: "off",
      INGEST_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: "1000000",
      RATE_LIMIT_WRITES_PER_MINUTE: "1000000",
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(url + "/health")).ok) break;
    } catch {}
    if (i > 500) throw new Error("gateway did not start");
    await Bun.sleep(20);
  }
  const wal = join(dir, "svc-gateway.db-wal");
  let peakWal = 0;
  const sampler = setInterval(() => (peakWal = Math.max(peakWal, size(wal))), 50);
  const child = Bun.spawn([process.execPath, import.meta.path, url, String(seconds), JSON.stringify(cookies)], { stdout: "pipe", stderr: "inherit" });
  const result = JSON.parse(await new Response(child.stdout).text()) as LoadResult;
  await child.exited;
  await Bun.sleep(10_000);
  clearInterval(sampler);
  const idleWal = size(wal);
  peakWal = Math.max(peakWal, idleWal);
  const dbBytes = size(join(dir, "svc-gateway.db"));
  gw.kill("SIGTERM");
  await gw.exited;
  rmSync(dir, { recursive: true, force: true });
  const total = KINDS.reduce((s, k) => s + result.ok[k], 0);
  return { ...result, perSecond: total / seconds, peakWal, idleWal, dbBytes };
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export async function run() {
  const seconds = Number(process.env.WAL_SECONDS ?? 60);
  const base = process.env.WAL_BASE;
  const here = await measure(join(import.meta.dir, ".."), seconds);
  const ref = base ? await measure(base, seconds) : null;
  const row = (figure: string, f: (x: Figures) => string, target = "") => ({
    figure,
    "this tree": f(here),
    ...(ref ? { [`reference (${base})`]: f(ref) } : {}),
    target,
  });
  console.log(`\n## wal (${WRITERS} writers flat out for ${seconds} s against svc-gateway serve)\n`);
  console.log(
    table([
      row("largest WAL seen", (x) => mb(x.peakWal), "< 64 MB"),
      row("WAL 10 s after the load stopped", (x) => mb(x.idleWal), "< 4 MB"),
      row(
        "acknowledged writes/s (all kinds)",
        (x) => x.perSecond.toFixed(0),
        ref ? `>= ${(ref.perSecond * 0.8).toFixed(0)} (0.8x reference)` : ">= 0.8x main (set WAL_BASE)",
      ),
      ...KINDS.map((k) => row(`  ${k} requests/s`, (x) => (x.ok[k] / seconds).toFixed(0))),
      row("writes/s in each 10 s", (x) => x.windows.map((n) => Math.round(n / 10)).join(" ")),
      row("refused (kind status: count)", (x) => JSON.stringify(x.refused)),
      row("database file at the end", (x) => mb(x.dbBytes)),
    ]),
  );
  if (ref) console.log(`\nthroughput: ${(here.perSecond / ref.perSecond).toFixed(2)}x the reference`);
}

if (import.meta.main) {
  const [url, seconds, cookies] = process.argv.slice(2);
  if (url) console.log(JSON.stringify(await load(url, JSON.parse(cookies!), Number(seconds))));
  else await run();
}
