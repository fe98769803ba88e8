/**
 * Five gateways on loopback, each a real `svc-gateway serve` subprocess with
 * its own key, data directory and trust settings. Every federation request to
 * a gateway passes a fault-injecting proxy (seeded, so a failure can be
 * replayed with CONVERGENCE_SEED): sync pages are dropped, cut short, have
 * their frames duplicated and reordered, and have old frames of the same
 * origin replayed into them; gossip pings are dropped. Frames also arrive by a
 * second path (POST /federation/frames), duplicated and out of order.
 *
 *   g1-g4  trust each other (FED_PEERS), except that g4's operator blocks g3
 *   g5     an origin nobody knows: its frames, delivered anyway, are quarantined
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnGateway, type Spawned } from "../helpers/gateway.ts";
import { createGateway } from "../../src/hosts/gateway.ts";
import { configFor } from "../../src/core/config.ts";
import { createLogger } from "../../src/lib/log.ts";
import { signedInUser, deviceKey, signedBody } from "../helpers/accounts.ts";
import { generateKeyPair, type KeyPair } from "../../src/lib/fed/keys.ts";
import { decodePage, encodePage } from "../../src/lib/fed/page.ts";
import { tmpDir } from "../helpers/tmp.ts";

const INGEST = "ingest-secret-0123456789";
const H = { "x-ingest-secret": INGEST, "content-type": "application/json" };
const SEED = Number(process.env.CONVERGENCE_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** mulberry32: a small seeded PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(SEED);

interface Node {
  name: string;
  key: KeyPair;
  dataDir: string;
  env: Record<string, string>;
  proc: Spawned | null;
  /** where the proxy forwards to (the gateway's own URL) */
  target: string;
  proxy: ReturnType<typeof Bun.serve>;
  /** the URL peers use: the proxy */
  url: string;
  /** sync pages served to each puller, by its instance */
  served: Map<string, number>;
  /** frames seen passing the proxy, to replay later */
  seen: Uint8Array[];
  /** called when a page was served to a puller (the kill switch) */
  onPage?: (puller: string, n: number) => void;
  faults: boolean;
  /** gossip pings to this gateway are dropped */
  deaf?: boolean;
}

const nodes: Node[] = [];
const byName = (n: string) => nodes.find((x) => x.name === n)!;
const stats = { dropped: 0, cut: 0, duplicated: 0, reordered: 0, replayed: 0, pings: 0, pingsDropped: 0 };

function shuffle<T>(a: T[]): T[] {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

/** The fault-injecting proxy in front of one gateway. */
function proxyFor(node: Node) {
  return Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(req) {
      const u = new URL(req.url);
      const puller = /\(([^)]+)\)/.exec(req.headers.get("user-agent") ?? "")?.[1] ?? "?";
      if (u.pathname === "/federation/notify") {
        stats.pings++;
        if (node.deaf || (node.faults && rand() < 0.3)) {
          stats.pingsDropped++;
          return new Response("dropped", { status: 503 });
        }
      }
      const isPage = u.pathname.startsWith("/federation/sync/");
      if (isPage) {
        u.searchParams.delete("compress"); // plain CBOR, so the proxy can rewrite it
        if (node.faults && rand() < 0.12) {
          stats.dropped++;
          return new Response("dropped", { status: 503 });
        }
      }
      const upstream = await fetch(node.target + u.pathname + u.search, {
        method: req.method,
        headers: req.headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer(),
      }).catch(() => null);
      if (!upstream) return new Response("upstream down", { status: 502 });
      if (!isPage || upstream.status !== 200) return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
      let bytes: Uint8Array = new Uint8Array(await upstream.arrayBuffer());
      const n = (node.served.get(puller) ?? 0) + 1;
      node.served.set(puller, n);
      if (node.faults) {
        const page = decodePage(bytes);
        let frames = [...page.frames];
        node.seen.push(...frames.slice(0, 50));
        if (node.seen.length > 2000) node.seen.splice(0, node.seen.length - 2000);
        if (rand() < 0.3 && frames.length) {
          stats.duplicated++;
          frames = frames.flatMap((f) => (rand() < 0.5 ? [f, f] : [f]));
        }
        if (rand() < 0.3 && frames.length > 1) {
          stats.reordered++;
          frames = shuffle(frames);
        }
        if (rand() < 0.3 && node.seen.length) {
          stats.replayed++;
          for (let i = 0; i < 3; i++) frames.push(node.seen[Math.floor(rand() * node.seen.length)]!);
        }
        bytes = encodePage({ ...page, frames });
        if (rand() < 0.05) {
          stats.cut++;
          bytes = bytes.subarray(0, Math.floor(bytes.length / 2));
        }
      }
      node.onPage?.(puller, n);
      return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": "application/cbor" } });
    },
  });
}

async function start(node: Node): Promise<void> {
  node.proc = await spawnGateway({ env: node.env, dataDir: node.dataDir, timeoutMs: 30_000 });
  node.target = node.proc.url;
}

const api = (node: Node, path: string, init: RequestInit = {}) =>
  fetch(node.target + path, {
    ...init,
    headers: { ...(init.body === undefined ? { "x-ingest-secret": INGEST } : H), ...(init.headers as Record<string, string>) },
  });
const post = (node: Node, path: string, body: unknown) => api(node, path, { method: "POST", body: JSON.stringify(body) });
const json = async (r: Response) => {
  const t = await r.text();
  try {
    return JSON.parse(t);
  } catch {
    throw new Error(`not JSON (${r.status}): ${t.slice(0, 200)}`);
  }
};

/** One pull round on every running gateway (all at once, like the cron firing everywhere). */
async function round(names = ["g1", "g2", "g3", "g4", "g5"]): Promise<void> {
  await Promise.all(
    names
      .map((n) => byName(n))
      .filter((n) => n.proc)
      .map((n) => post(n, "/federation/sync", {}).then((r) => r.text())),
  );
}

const FEEDS = ["caches", "finds", "keys", "bulletins", "account-moves"] as const;

/** What an origin publishes now (gid -> v), minus what its erased accounts' records are (peers suppress those). */
async function published(node: Node, erasedAccounts: Set<string>): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const feed of FEEDS) {
    let since = 0;
    for (;;) {
      const p = await json(await fetch(`${node.target}/federation/${feed}?since=${since}&limit=1000`));
      for (const it of p.items) {
        if (erasedAccounts.has(it.ownerAccount) || erasedAccounts.has(it.account)) continue;
        out.set(it.gid, it.v);
      }
      if (!p.more) break;
      since = p.next;
    }
  }
  return out;
}

/** What `viewer` mirrors from `origin` (gid -> v), peer records left out. */
async function mirrored(viewer: Node, origin: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  let after = "";
  for (;;) {
    const r = await api(viewer, `/federation/peers/${origin}/records?limit=5000${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    if (r.status === 404) return out;
    const p = await json(r);
    for (const it of p.items) if (it.kind !== "peer") out.set(it.gid, it.v);
    if (!p.next) break;
    after = p.next;
  }
  return out;
}

const asObject = (m: Map<string, number>) => Object.fromEntries([...m].sort(([a], [b]) => a.localeCompare(b)));

/** Viewer-origin pairs that are not expected to converge (the viewer blocked the origin). */
const blocked = new Set<string>();

/** Pull rounds until every viewer mirrors exactly what each origin it trusts publishes. */
async function converge(viewers: string[], origins: string[], erased: Set<string>, maxRounds = 25): Promise<number> {
  for (let r = 1; r <= maxRounds; r++) {
    await round(viewers);
    let done = true;
    for (const o of origins) {
      const want = await published(byName(o), erased);
      for (const v of viewers) {
        if (v === o || blocked.has(`${v}>${o}`)) continue;
        const have = await mirrored(byName(v), o);
        if (JSON.stringify(asObject(have)) !== JSON.stringify(asObject(want))) done = false;
      }
    }
    if (done) return r;
  }
  return -1;
}

const hide = async (node: Node, name: string, ownerCall = "N0OWN") => {
  const r = await post(node, "/api/caches", {
    name,
    type: "traditional",
    size: "small",
    difficulty: 2,
    terrain: 2,
    lat: 45 + rand(),
    lon: 7 + rand(),
    ownerCall,
  });
  expect(r.status).toBe(201);
  return (await json(r)) as { id: number; gid: string };
};

let eraser: KeyPair;
const erased = new Set<string>();

beforeAll(async () => {
  for (const name of ["g1", "g2", "g3", "g4", "g5"]) {
    const node: Node = {
      name,
      key: generateKeyPair(),
      dataDir: tmpDir(),
      env: {},
      proc: null,
      target: "",
      proxy: null as never,
      url: "",
      served: new Map(),
      seen: [],
      faults: true,
    };
    node.proxy = proxyFor(node);
    node.url = `http://127.0.0.1:${node.proxy.port}`;
    nodes.push(node);
  }
  for (const node of nodes) {
    const others = ["g1", "g2", "g3", "g4"].filter((n) => n !== node.name).map((n) => byName(n).url);
    node.env = {
      INSTANCE: node.name,
      FED_PRIVATE_KEY: node.key.privateKey,
      FED_PEERS: node.name === "g5" ? byName("g1").url : others.join(","),
      FED_LOOPBACK_PEERS: "on",
      FED_SYNC_BATCH: "20",
      INGEST_SECRET: INGEST,
      ADMIN_CALLSIGNS: "N0OPS",
      LOG_LEVEL: "error",
    };
  }
  // g2 has an account that will be erased: a verified callsign with a device key.
  const g2 = byName("g2");
  const gw = createGateway({ config: configFor(g2.dataDir, { ...g2.env, PORT: "0", KISS_PORTS: "off" }), log: createLogger("error") });
  const u = signedInUser(gw, "N0ERA", { verified: true });
  eraser = deviceKey(gw, "N0ERA", u.id);
  await gw.stop();
  await Promise.all(nodes.map(start));
}, 120_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.proc?.kill("SIGKILL")));
  for (const n of nodes) n.proxy.stop(true);
  if (process.env.CONVERGENCE_VERBOSE) console.log("convergence seed", SEED, stats);
});

describe(`five gateways converge (seed ${SEED})`, () => {
  test("creates, updates, deletes and an erase, over lossy, duplicating, reordering links: trusted views end identical; blocked and quarantined never appear", async () => {
    await round(); // bootstrap FED_PEERS: everyone pins everyone
    const block = await post(byName("g4"), "/federation/peers/trust", { instance: "g3", trust: "blocked" });
    expect(block.status).toBe(200);
    blocked.add("g4>g3");

    // writes everywhere
    const made: Record<string, Array<{ id: number; gid: string }>> = {};
    for (const n of ["g1", "g2", "g3", "g4", "g5"]) {
      made[n] = [];
      for (let i = 0; i < 12; i++) made[n]!.push(await hide(byName(n), `${n} cache ${i}`));
    }
    await round();
    for (const n of ["g1", "g2", "g3", "g4"]) {
      const node = byName(n);
      for (const c of made[n]!.slice(0, 4))
        expect((await api(node, `/api/caches/${c.id}`, { method: "PATCH", body: JSON.stringify({ name: `${n} renamed ${c.id}` }) })).status).toBe(200);
      // finds on its own caches by RF callsigns, then one deleted (a tombstone)
      const logs = [];
      for (const [i, c] of made[n]!.slice(4, 8).entries()) {
        const r = await post(node, `/api/caches/${c.id}/logs`, { kind: "find", call: `N${i}FND` });
        expect(r.status).toBe(201);
        logs.push(await json(r));
      }
      expect((await api(node, `/api/logs/${logs[0].id}`, { method: "DELETE" })).status).toBe(200);
    }
    // the account on g2 hides a cache and logs a find, then is erased
    const g2 = byName("g2");
    const own = await hide(g2, "N0ERA's cache", "N0ERA");
    expect((await post(g2, `/api/caches/${made.g1![0]!.id}/logs`, { kind: "find", call: "N0ERA" })).status).toBe(201);
    await round();
    const erase = await fetch(`${g2.target}/api/account/N0ERA/delete`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(signedBody(eraser, "POST", "/api/account/N0ERA/delete", { confirm: true })),
    });
    expect(erase.status).toBe(200);
    const tomb = (await json(erase)).tombstone as string;
    erased.add(tomb);

    // multi-path delivery: g5's and g1's frames straight into g2, duplicated and shuffled
    const g5page = decodePage(new Uint8Array(await (await fetch(`${byName("g5").target}/federation/sync/cache?limit=50`)).arrayBuffer()));
    expect(g5page.frames.length).toBe(12);
    const frames = [...g5page.frames, ...byName("g1").seen.slice(0, 200)];
    const page = encodePage({ frames: shuffle([...frames, ...frames]), next: 0, more: false });
    const direct = await api(g2, "/federation/frames", { method: "POST", body: page as BodyInit, headers: { "content-type": "application/cbor" } });
    expect(direct.status).toBe(200);

    const rounds = await converge(["g1", "g2", "g3", "g4"], ["g1", "g2", "g3", "g4"], erased);
    expect(rounds).toBeGreaterThan(0);

    // the erased account's cache stays, archived and anonymous; nothing anywhere names the account or its callsign
    for (const v of ["g1", "g3", "g4"]) {
      const c = await json(await fetch(`${byName(v).target}/api/caches/${own.gid}`));
      expect({ status: c.status, ownerCall: c.ownerCall ?? null }).toEqual({ status: "archived", ownerCall: null });
    }
    for (const v of ["g1", "g2", "g3", "g4"]) {
      const logbook = await json(await fetch(`${byName(v).target}/api/caches/${made.g1![0]!.gid}/logs`));
      expect(logbook.logs.filter((l: any) => l.call === "N0ERA")).toEqual([]);
    }
    // blocked and quarantined origins never appear
    for (const v of ["g1", "g2", "g3", "g4"]) expect((await mirrored(byName(v), "g5")).size).toBe(0);
    expect((await mirrored(byName("g4"), "g3")).size).toBe(0);
    const g3frames = byName("g3").seen.slice(0, 100);
    expect(g3frames.length).toBeGreaterThan(0);
    const pushed = await json(
      await api(byName("g4"), "/federation/frames", {
        method: "POST",
        body: encodePage({ frames: g3frames, next: 0, more: false }) as BodyInit,
        headers: { "content-type": "application/cbor" },
      }),
    );
    expect(pushed).toMatchObject({ applied: 0, quarantined: g3frames.length });
    expect((await mirrored(byName("g4"), "g3")).size).toBe(0);
    const g4caches = await json(await fetch(`${byName("g4").target}/api/caches?bbox=6,44,9,47&unvetted=1&limit=2000`));
    expect(g4caches.caches.filter((c: any) => c.origin === "g3" || c.origin === "g5")).toEqual([]);
    expect((await json(await api(byName("g4"), "/federation/peers"))).quarantined.find((q: any) => q.origin === "g3")).toMatchObject({ reason: "blocked" });
    const caches = await json(await fetch(`${byName("g2").target}/api/caches?bbox=6,44,9,47&unvetted=1&limit=2000`));
    expect(caches.caches.filter((c: any) => c.origin === "g5")).toEqual([]);
    const peers = await json(await api(byName("g2"), "/federation/peers"));
    expect(peers.quarantined.find((q: any) => q.origin === "g5")).toMatchObject({ reason: "unknown" });
    // the proxies really did mangle things
    expect(stats.dropped + stats.cut).toBeGreaterThan(0);
    expect(stats.duplicated + stats.reordered + stats.replayed).toBeGreaterThan(0);
  }, 300_000);

  test("old frames of deleted records, delivered again, stay gone", async () => {
    const g1 = byName("g1");
    const before = await mirrored(g1, "g2");
    const replay = encodePage({ frames: [...byName("g2").seen, ...byName("g2").seen].slice(0, 400), next: 0, more: false });
    const r = await json(await api(g1, "/federation/frames", { method: "POST", body: replay as BodyInit, headers: { "content-type": "application/cbor" } }));
    expect(r.applied).toBe(0);
    expect(asObject(await mirrored(g1, "g2"))).toEqual(asObject(before));
  }, 60_000);

  test("a gateway killed (SIGKILL) in the middle of a pull catches up after a restart, nothing lost, nothing twice", async () => {
    const g1 = byName("g1");
    const g3 = byName("g3");
    g3.deaf = true; // no gossip: g3 pulls only when told, so the pull below has all 200 to fetch
    for (let i = 0; i < 200; i++) await hide(g1, `bulk ${i}`);
    g1.faults = false;
    const servedBefore = g1.served.get("g3") ?? 0;
    let killed: Promise<number> | null = null;
    g1.onPage = (puller, n) => {
      if (puller === "g3" && n === servedBefore + 7 && !killed) killed = g3.proc!.kill("SIGKILL");
    };
    await post(g3, "/federation/sync", {}).catch(() => null);
    expect(killed).not.toBeNull();
    await killed;
    g3.proc = null;
    g1.onPage = undefined;
    const partial = (() => {
      // the cursor it committed before dying: read straight from its database file
      const { Database } = require("bun:sqlite");
      const db = new Database(`${g3.dataDir}/svc-gateway.db`, { readonly: true });
      const row = db.query("SELECT count(*) AS n FROM mirror_records WHERE origin = 'g1' AND type <> 7").get() as { n: number };
      db.close();
      return row.n;
    })();
    await start(g3);
    g3.deaf = false;
    g1.faults = true;
    const rounds = await converge(["g3"], ["g1"], erased);
    expect(rounds).toBeGreaterThan(0);
    const want = await published(g1, erased);
    const have = await mirrored(g3, "g1");
    expect(have.size).toBe(want.size);
    expect(partial).toBeGreaterThan(want.size - 200); // it had committed some pages of the 200...
    expect(partial).toBeLessThan(want.size); // ...but not all
    expect(asObject(have)).toEqual(asObject(want));
  }, 300_000);

  test("a peer that changes its key without a signed rotation is refused everywhere; what it signed before stays", async () => {
    const g4 = byName("g4");
    const before = await published(g4, erased);
    await g4.proc!.kill("SIGTERM");
    g4.key = generateKeyPair();
    g4.env = { ...g4.env, FED_PRIVATE_KEY: g4.key.privateKey };
    await start(g4);
    const late = await hide(g4, "signed with a key nobody pinned");
    await round(["g1", "g2", "g3"]);
    await round(["g1", "g2", "g3"]);
    for (const v of ["g1", "g2", "g3"]) {
      const viewer = byName(v);
      const have = await mirrored(viewer, "g4");
      expect(have.has(late.gid)).toBe(false);
      expect(asObject(have)).toEqual(asObject(before));
      const peer = (await json(await api(viewer, "/federation/peers"))).peers.find((p: any) => p.instance === "g4");
      expect(peer.health.lastError).toContain("key_changed");
    }
  }, 120_000);
});
