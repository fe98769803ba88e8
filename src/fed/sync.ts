/**
 * Pull sync: for each peer, fetch its descriptor, check its keys against the
 * pin (exactly the pinned key, or keys reached from it by signed rotations;
 * a key change without a rotation is refused), check the registry binding,
 * negotiate the link (caps.ts) and the feeds it serves, then pull tombstones
 * first and every other feed from the stored per-peer cursor, each page
 * through the one apply pipeline with its cursor committed in the same
 * transaction as its frames. A pull killed half way resumes at the last page
 * applied; a page applied twice changes nothing (apply is idempotent by gid).
 *
 * Pulls of one peer never overlap: a pull asked for while one runs (a gossip
 * ping, the cron) makes the running one go round once more (coalesced).
 */
import type { Core } from "../core/core.ts";
import { applyFrames, type ApplyReport } from "./apply.ts";
import type { BootstrapProblem, FeedReport, PeerSyncReport, SyncAllReport } from "./shapes.ts";
import { capsFromObject, CapsError, intersectCaps, tierCaps } from "../lib/fed/caps.ts";
import { decompressPage, DEFLATE_DICT1_TYPE } from "../lib/fed/compress.ts";
import { httpLinkCaps } from "./descriptor.ts";
import { DialError, fedFetch, fedJson, NEXT_URL_CODES, peerSyncUrl, peerSyncUrls } from "./dial.ts";
import { formatEndpoint, parseEndpoints, type Endpoint } from "../lib/fed/endpoints.ts";
import { decodePage, MAX_PAGE_BYTES } from "../lib/fed/page.ts";
import { acceptRotation, getPeer, listPeers, peerKeys, upsertPeer, type Peer } from "./peers.ts";
import { newPullState, noteBootstrap, notePull, pullState, type PullState } from "./pull-port.ts";
import { decodeFrame, isB64urlKey, isInstanceId, RECORD_TYPES, RecordError, SYNC_KINDS, type SyncKind } from "../lib/fed/record.ts";
import { askRelay, fetchRelayResult } from "./relay.ts";
import { refreshRegistryIfDue, registryMismatch } from "./registry.ts";

export type { FeedReport };

/** Tombstones first (a delete suppresses a re-mirror), keys before what they sign for, moves before what they re-point. */
export const PULL_ORDER: readonly SyncKind[] = ["tombstone", "key", "account-move", "cache", "find", "bulletin", "trackable", "trackable-move"];

export class SyncError extends Error {
  override name = "SyncError";
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a peer's descriptor says, as far as sync needs it (checked shape). */
export interface PeerDescriptor {
  instance: string;
  signed: boolean;
  keys: Array<{ key: string; status: "active" | "revoked" }>;
  rotations: unknown[];
  endpoints: Endpoint[];
  url: string | null;
  capabilities: string[];
  feeds: string[];
  /** per feed, the cursor of its newest frame (absent from older peers) */
  heads: Partial<Record<string, number>>;
  record: Uint8Array | null;
  link: unknown;
}

/** Fetches and shape-checks a descriptor at a base URL; throws SyncError or DialError. */
export async function fetchDescriptor(gw: Core, base: string): Promise<PeerDescriptor> {
  const { body } = await fedJson<Record<string, unknown>>(gw, `${base}/.well-known/svc`, { timeoutMs: 10_000, maxBytes: 1024 * 1024, revalidate: true });
  return checkDescriptor(body);
}

function checkDescriptor(d: unknown): PeerDescriptor {
  const bad = (m: string) => new SyncError("bad_descriptor", `descriptor: ${m}`);
  if (!d || typeof d !== "object" || Array.isArray(d)) throw bad("not a JSON object");
  const o = d as Record<string, unknown>;
  if (typeof o.instance !== "string" || !isInstanceId(o.instance)) throw bad("instance must be an instance id");
  const list = (name: string) => {
    const v = o[name] ?? [];
    if (!Array.isArray(v) || v.length > 1000) throw bad(`${name} must be a list`);
    return v as unknown[];
  };
  const keys = list("keys").map((k) => {
    const x = k as { key?: unknown; status?: unknown };
    if (!x || typeof x.key !== "string" || !isB64urlKey(x.key) || (x.status !== "active" && x.status !== "revoked")) throw bad("keys must be {key, status}");
    return { key: x.key, status: x.status as "active" | "revoked" };
  });
  const endpoints = parseEndpoints(
    list("endpoints")
      .map((e) => (typeof e === "string" ? e : e && typeof e === "object" ? formatEndpoint(e as Endpoint) : ""))
      .filter((e) => typeof e === "string"),
  );
  let record: Uint8Array | null = null;
  if (typeof o.record === "string") record = new Uint8Array(Buffer.from(o.record, "base64url"));
  return {
    instance: o.instance,
    signed: o.signed === true,
    keys,
    rotations: list("rotations"),
    endpoints,
    url: typeof o.url === "string" ? o.url : null,
    capabilities: list("capabilities").filter((c): c is string => typeof c === "string"),
    feeds: list("feeds").filter((c): c is string => typeof c === "string"),
    heads: headsOf(o.heads),
    record,
    link: o.link,
  };
}

/** A descriptor's `heads`: whole numbers by feed name; anything else is ignored (every feed is then asked). */
function headsOf(v: unknown): Partial<Record<string, number>> {
  if (!v || typeof v !== "object" || Array.isArray(v)) return {};
  const out: Partial<Record<string, number>> = {};
  for (const kind of SYNC_KINDS) {
    const h = (v as Record<string, unknown>)[kind];
    if (typeof h === "number" && Number.isSafeInteger(h) && h >= 0) out[kind] = h;
  }
  return out;
}

/** The key that signed a descriptor's own peer record: what a new peer is pinned to. */
function descriptorSigningKey(d: PeerDescriptor): string | null {
  if (!d.record) return null;
  try {
    const k = decodeFrame(d.record).signerKey;
    return d.keys.some((x) => x.key === k && x.status === "active") ? k : null;
  } catch {
    return null;
  }
}

/**
 * Follows the descriptor's signed rotations from the keys already accepted,
 * then requires every active key it publishes to be accepted: the pin, or
 * reached from it. Null when it holds, else the refusal.
 */
function checkPeerKeys(gw: Core, instance: string, d: PeerDescriptor): string | null {
  // Rotations are listed oldest first; a chain is followed in one pass, but go
  // round until nothing changes in case they come out of order.
  for (let round = 0; round < 4; round++) {
    const before = peerKeys(gw, instance).length;
    for (const r of d.rotations) acceptRotation(gw, instance, r);
    if (peerKeys(gw, instance).length === before) break;
  }
  const accepted = new Set(
    peerKeys(gw, instance)
      .filter((k) => k.status === "active")
      .map((k) => k.publicKey),
  );
  const active = d.keys.filter((k) => k.status === "active").map((k) => k.key);
  if (active.length === 0) return "the descriptor publishes no active key";
  const unknown = active.find((k) => !accepted.has(k));
  if (unknown) return `${instance} now publishes key ${unknown}, which is neither its pinned key nor reached from it by a signed rotation: refused`;
  return null;
}

/** Where the pull of a peer's feed stands (shared by every transport: the peer's feed cursors are its own). */
export function cursorOf(gw: Core, peerId: number, type: number): number {
  const r = gw.db.query("SELECT cursor FROM peer_cursors WHERE peer_id = ? AND type = ?").get(peerId, type) as { cursor: number } | null;
  return r?.cursor ?? 0;
}

export function setCursor(gw: Core, peerId: number, type: number, cursor: number): void {
  gw.db
    .query(
      "INSERT INTO peer_cursors (peer_id, type, cursor, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (peer_id, type) DO UPDATE SET cursor = excluded.cursor, updated_at = excluded.updated_at",
    )
    .run(peerId, type, cursor, gw.clock.now());
}

/** Per-peer cursors, by feed name (for the sysop peer list). */
export function peerCursors(gw: Core, peerId: number): Partial<Record<SyncKind, number>> {
  const rows = gw.db.query("SELECT type, cursor FROM peer_cursors WHERE peer_id = ?").all(peerId) as Array<{ type: number; cursor: number }>;
  const out: Partial<Record<SyncKind, number>> = {};
  for (const r of rows) {
    const kind = SYNC_KINDS.find((k) => RECORD_TYPES[k] === r.type);
    if (kind) out[kind] = r.cursor;
  }
  return out;
}

/** Adds one applied page to a feed's report (HTTP and SVCL1 pulls alike). */
export function addReport(f: FeedReport, r: ApplyReport, bytes: number): void {
  f.pages++;
  f.received += r.received;
  f.applied += r.applied;
  f.duplicate += r.duplicate;
  f.suppressed += r.suppressed;
  f.quarantined += r.quarantined;
  f.rejected += r.rejected;
  f.bytes += bytes;
}

/** A pull's report before anything happened. */
const emptyReport = (instance: string, url: string | null): PeerSyncReport => ({
  instance,
  ok: false,
  error: null,
  url,
  unreachable: [],
  link: null,
  feeds: {},
  applied: 0,
  received: 0,
  bytes: 0,
  ms: 0,
});

/** One pull of one peer, start to end. Never throws: problems come back in the report and the peer's health. */
async function pullOnce(gw: Core, instance: string): Promise<PeerSyncReport> {
  const started = performance.now();
  const report = emptyReport(instance, null);
  const peer = getPeer(gw, instance);
  try {
    if (!peer) throw new SyncError("unknown_peer", `${instance} is not a peer`);
    if (peer.trust === "blocked") throw new SyncError("blocked", `${instance} is blocked: never mirrored`);
    const bases = peerSyncUrls(gw, peer);
    if (!bases.length) throw new SyncError("no_sync_endpoint", `${instance} has no endpoint that resolves to a URL this instance may use`);
    const { base, d } = await reachPeer(gw, bases, report);
    report.url = base;
    if (d.instance !== instance) throw new SyncError("instance_mismatch", `${base} now describes ${d.instance}, not ${instance}`);
    if (!d.signed || !d.capabilities.includes("sync-cbor")) throw new SyncError("unsigned", `${instance} is not a signed instance: it cannot be mirrored`);
    const keyProblem = checkPeerKeys(gw, instance, d);
    if (keyProblem) throw new SyncError("key_changed", keyProblem);
    const regProblem = registryMismatch(
      gw,
      instance,
      d.keys.filter((k) => k.status === "active").map((k) => k.key),
    );
    if (regProblem) throw new SyncError("registry_mismatch", regProblem);
    // Its own peer record refreshes its self-attested endpoints (addressing only).
    if (d.record) await applyFrames(gw, [d.record], { via: "sync", servedBy: instance });
    let theirs;
    try {
      theirs = d.link === undefined || d.link === null ? tierCaps("full") : capsFromObject(d.link);
    } catch (e) {
      if (e instanceof CapsError) throw new SyncError("bad_caps", e.message);
      throw e;
    }
    const link = intersectCaps(httpLinkCaps(gw), theirs);
    report.link = link;
    const feeds = PULL_ORDER.filter((k) => d.feeds.includes(k) && link.records.includes(RECORD_TYPES[k]));
    gw.db.query("UPDATE peers SET link = ?, feeds = ? WHERE id = ?").run(JSON.stringify(link), JSON.stringify(feeds), peer.id);
    for (const kind of feeds) {
      const type = RECORD_TYPES[kind];
      let cursor = cursorOf(gw, peer.id, type);
      // the descriptor says this feed has nothing after our cursor: not asked (most feeds of most pulls)
      const head = d.heads[kind];
      if (head !== undefined && cursor >= head) continue;
      const f: FeedReport = (report.feeds[kind] = { pages: 0, received: 0, applied: 0, duplicate: 0, suppressed: 0, quarantined: 0, rejected: 0, bytes: 0 });
      const fetchPage = async (since: number) => {
        const q = `since=${since}&limit=${link.batch}${link.compression === "none" ? "" : `&compress=${link.compression}`}`;
        const r = await fedFetch(gw, `${base}/federation/sync/${kind}?${q}`, { timeoutMs: 120_000, maxBytes: MAX_PAGE_BYTES + 4096 });
        if (r.status !== 200) throw new SyncError(`http_${r.status}`, `${base}/federation/sync/${kind} answered ${r.status}`);
        const compressed = r.headers.get("content-type")?.split(";")[0]?.trim() === DEFLATE_DICT1_TYPE;
        return { page: decodePage(decompressPage(r.bytes, compressed ? "deflateDict1" : "none")), wire: r.bytes.length };
      };
      let pending = fetchPage(cursor);
      for (;;) {
        const { page, wire } = await pending;
        if (page.more && page.next <= cursor) throw new SyncError("bad_page", `${instance}'s ${kind} cursor does not advance past ${cursor}`);
        const next = Math.max(cursor, page.next);
        // Ask for the next page while this one is verified and applied: the
        // peer builds it while we work (a failure surfaces when it is awaited).
        if (page.more) {
          pending = fetchPage(next);
          pending.catch(() => {});
        }
        const applied = await applyFrames(gw, page.frames, { via: "sync", servedBy: instance, onCommit: () => setCursor(gw, peer.id, type, next) });
        addReport(f, applied, wire);
        cursor = next;
        if (!page.more) break;
      }
      report.applied += f.applied;
      report.received += f.received;
      report.bytes += f.bytes;
    }
    report.ok = true;
    if (peer.trust === "trusted") await discoverFrom(gw, peer, base);
  } catch (e) {
    report.error = pullError(gw, instance, e);
  }
  report.ms = Math.round(performance.now() - started);
  finishPull(gw, peer?.id ?? null, report);
  return report;
}

/**
 * The peer's descriptor from the first of its URLs that answers. URLs that do
 * not are listed in the report (and, when none answers, in the error).
 */
async function reachPeer(gw: Core, bases: string[], report: PeerSyncReport): Promise<{ base: string; d: PeerDescriptor }> {
  for (const [i, base] of bases.entries()) {
    try {
      return { base, d: await fetchDescriptor(gw, base) };
    } catch (e) {
      if (!(e instanceof DialError) || !NEXT_URL_CODES.has(e.code) || i === bases.length - 1) {
        if (report.unreachable.length && e instanceof DialError)
          throw new DialError(e.code, `${e.message} (also tried: ${report.unreachable.map((u) => `${u.url} ${u.code}`).join(", ")})`);
        throw e;
      }
      report.unreachable.push({ url: base, code: e.code, message: e.message });
      gw.log.debug("fed", `pulling ${report.instance}: ${base} did not answer (${e.code}), trying ${bases[i + 1]}`);
    }
  }
  throw new SyncError("no_sync_endpoint", `${report.instance} has no URL to try`);
}

/** A pull's problem as {code, message}; anything unexpected is also logged. */
function pullError(gw: Core, instance: string, e: unknown): { code: string; message: string } {
  const code = e instanceof SyncError || e instanceof DialError || e instanceof RecordError ? e.code : "failed";
  if (code === "failed") gw.log.error("fed", `pulling ${instance} failed`, { error: String(e) });
  return { code, message: (e as Error)?.message ?? String(e) };
}

/** Records how a pull went in the peer's health, and tells listeners (every transport: HTTP, relay, radio). */
export function finishPull(gw: Core, peerId: number | null, report: Pick<PeerSyncReport, "instance" | "ok" | "applied" | "error">): void {
  const now = gw.clock.now();
  if (peerId !== null) {
    const before = (gw.db.query("SELECT last_error AS e FROM peers WHERE id = ?").get(peerId) as { e: string | null } | null)?.e ?? null;
    notePull(gw, report.instance, before, report.ok ? null : `${report.error!.code}: ${report.error!.message}`);
  }
  if (peerId !== null && report.ok)
    gw.db.query("UPDATE peers SET last_sync_at = ?1, last_sync_ok_at = ?1, last_error = NULL, sync_failures = 0 WHERE id = ?2").run(now, peerId);
  else if (peerId !== null)
    gw.db
      .query("UPDATE peers SET last_sync_at = ?1, last_error = ?2, sync_failures = sync_failures + 1 WHERE id = ?3")
      .run(now, `${report.error!.code}: ${report.error!.message}`, peerId);
  gw.events.emit("fedSynced", { instance: report.instance, ok: report.ok, applied: report.applied, error: report.error?.code ?? null });
}

/** At most this many peers learnt from one peer's registry view per pull. */
const MAX_DISCOVERED_PER_PULL = 50;

/**
 * Transitive discovery: the instances a trusted peer itself trusts, from its
 * registry view, join as unvetted peers pinned to the keys it lists. A peer
 * learnt this way earlier gets the endpoints of later views merged into its
 * own (addressing only: its trust and keys are left alone), when the view
 * lists a key the peer is known by here.
 */
async function discoverFrom(gw: Core, peer: Peer, base: string): Promise<void> {
  let items: unknown[];
  try {
    const { body } = await fedJson<{ items?: unknown[] }>(gw, `${base}/federation/registry?limit=200`, {
      timeoutMs: 10_000,
      maxBytes: 2 * 1024 * 1024,
      revalidate: true,
    });
    items = Array.isArray(body.items) ? body.items : [];
  } catch {
    return; // advisory: a peer without a readable registry view is still synced
  }
  let added = 0;
  let refreshed = 0;
  for (const it of items) {
    if (added >= MAX_DISCOVERED_PER_PULL || refreshed >= MAX_DISCOVERED_PER_PULL) break;
    const x = it as { instance?: unknown; self?: unknown; trust?: unknown; keys?: unknown; endpoints?: unknown };
    if (!x || x.self === true || x.trust !== "trusted" || typeof x.instance !== "string" || !isInstanceId(x.instance)) continue;
    if (x.instance === gw.config.instance) continue;
    const keys = Array.isArray(x.keys) ? x.keys.filter((k): k is string => typeof k === "string" && isB64urlKey(k)) : [];
    if (!keys.length) continue;
    const endpoints = Array.isArray(x.endpoints)
      ? x.endpoints.map((e) => (typeof e === "string" ? e : e && typeof e === "object" ? formatEndpoint(e as Endpoint) : "")).filter((e) => e)
      : [];
    const known = getPeer(gw, x.instance);
    if (known) {
      // a view that knows the peer by another key says nothing about this one's addresses
      if (known.trust === "blocked" || !known.foundVia?.startsWith("transitive:") || !endpoints.length) continue;
      if (!peerKeys(gw, x.instance).some((k) => k.status === "active" && keys.includes(k.publicKey))) continue;
      const before = JSON.stringify(known.endpoints);
      if (JSON.stringify(upsertPeer(gw, { instance: x.instance, endpoints }).endpoints) !== before) refreshed++;
      continue;
    }
    // No address, no peer: it could never be pulled, and a later view that has one could not
    // fill it in once the instance rotated its key (views list only active keys). Learnt then.
    if (!endpoints.length) continue;
    upsertPeer(gw, { instance: x.instance, endpoints, trust: "unvetted", keyPin: keys[0], foundVia: `transitive:${peer.instance}`, trustSetBy: "discovery" });
    added++;
  }
  if (added) gw.log.info("fed", `learnt ${added} unvetted peer(s) from ${peer.instance}`);
  if (refreshed) gw.log.info("fed", `refreshed the endpoints of ${refreshed} peer(s) from ${peer.instance}'s registry view`);
}

// ---------------------------------------------------------------- serialising and coalescing

interface Running {
  again: boolean;
  done: Promise<PeerSyncReport>;
}
/** A gateway's pulls: running, coalesced, the descriptor fetches of FED_PEERS, relay queries waited on. */
export interface Pulls {
  running: Map<string, Running>;
  bootstraps: Map<string, Promise<PeerDescriptor>>;
  /** relay queries this instance is waiting on, by peer and record type (re-asked after a restart) */
  awaiting: Map<string, number>;
  /** set once the gateway stops: no new peer is started */
  stopped: boolean;
  state: PullState;
}

declare module "../core/services.ts" {
  interface Services {
    /** the federation's pulls of its peers */
    pulls: Pulls;
  }
}

/** A new gateway's pulls (src/hosts/services.ts). */
export const newPulls = (): Pulls => ({ running: new Map(), bootstraps: new Map(), awaiting: new Map(), stopped: false, state: newPullState() });

const runningOf = (gw: Core): Map<string, Running> => gw.services.pulls.running;

/**
 * Pulls a peer now. If a pull of it is already running, this one is
 * coalesced into it: the running pull goes round once more, and both callers
 * get its last report.
 */
export function pullPeer(gw: Core, instance: string): Promise<PeerSyncReport> {
  const m = runningOf(gw);
  const cur = m.get(instance);
  if (cur) {
    cur.again = true;
    return cur.done;
  }
  const entry: Running = { again: false, done: undefined as unknown as Promise<PeerSyncReport> };
  entry.done = (async () => {
    let report: PeerSyncReport;
    do {
      entry.again = false;
      report = await pullOnce(gw, instance);
    } while (entry.again && !gw.services.pulls.stopped);
    return report;
  })().finally(() => m.delete(instance));
  m.set(instance, entry);
  return entry.done;
}

/** Whether a pull of the peer is running (a gossip ping then coalesces). */
export function isPulling(gw: Core, instance: string): boolean {
  return runningOf(gw).has(instance);
}

/** Lets running pulls finish their page before the database closes. */
export async function stopPulls(gw: Core): Promise<void> {
  gw.services.pulls.stopped = true;
  await Promise.allSettled([...runningOf(gw).values()].map((r) => r.done));
}

// ---------------------------------------------------------------- all peers

/**
 * FED_PEERS: each URL not yet known is asked for its descriptor; a new
 * instance joins trusted (pinned to the key that signed its descriptor
 * record); one already found by discovery becomes trusted. A blocked peer stays
 * blocked, and a tier the operator set is left alone.
 */
export async function bootstrapConfiguredPeers(gw: Core): Promise<BootstrapProblem[]> {
  const problems: BootstrapProblem[] = [];
  const state = pullState(gw, gw.services.pulls.state, () => runningOf(gw).size + bootstrapsOf(gw).size);
  const known = new Set(
    listPeers(gw)
      .map((p) => p.url)
      .filter((u): u is string => !!u),
  );
  // A spoke's hub is a peer it trusts too (it also verifies the hub's relay queries by its key).
  const configured = [...gw.config.fedPeers, ...(gw.config.fedHubUrl && !gw.config.fedPeers.includes(gw.config.fedHubUrl) ? [gw.config.fedHubUrl] : [])];
  for (const url of configured) {
    if (known.has(url)) {
      noteBootstrap(gw, state, url, null);
      continue;
    }
    // one descriptor fetch of a URL at a time: pulls that overlap (the job, POST /federation/sync) share it
    const bootstraps = bootstrapsOf(gw);
    let fetching = bootstraps.get(url);
    if (!fetching) {
      fetching = fetchDescriptor(gw, url).finally(() => bootstraps.delete(url));
      bootstraps.set(url, fetching);
    }
    try {
      const d = await fetching;
      if (d.instance === gw.config.instance) throw new SyncError("self", `${url} is this instance`);
      const existing = getPeer(gw, d.instance);
      if (!existing) {
        const pin = descriptorSigningKey(d);
        if (!pin) throw new SyncError("unsigned", `${url} (${d.instance}) publishes no signed descriptor record to pin a key from`);
        upsertPeer(gw, { instance: d.instance, url, trust: "trusted", keyPin: pin, foundVia: "config", trustSetBy: "config" });
      } else {
        const promote = existing.trust === "unvetted" && (existing.trustSetBy === "discovery" || existing.trustSetBy === null);
        upsertPeer(gw, { instance: d.instance, url, ...(promote ? { trust: "trusted" as const, trustSetBy: "config" } : {}) });
      }
      noteBootstrap(gw, state, url, null);
    } catch (e) {
      const problem = { url, code: (e as { code?: string }).code ?? "failed", message: (e as Error).message };
      problems.push(problem);
      noteBootstrap(gw, state, url, problem);
    }
  }
  state.lastRunAt = gw.clock.now();
  return problems;
}

const bootstrapsOf = (gw: Core): Map<string, Promise<PeerDescriptor>> => gw.services.pulls.bootstraps;

/** The scheduled pull and POST /federation/sync: every peer that is not blocked, a few at a time. */
export async function syncAll(gw: Core, concurrency = 4): Promise<SyncAllReport> {
  const registry = await refreshRegistryIfDue(gw);
  const bootstrap = await bootstrapConfiguredPeers(gw);
  // Peers reachable only by forward transports (packet, BBS) are not pulled
  // over HTTP; with a relay hub (FED_HUB_URL + FED_RELAY_SECRET) they are
  // pulled through its relay.
  const viaRelay = !!(gw.config.fedHubUrl && gw.config.fedRelaySecret);
  const peers = listPeers(gw).filter((p) => p.trust !== "blocked" && (viaRelay || peerSyncUrl(gw, p) !== null));
  const out: PeerSyncReport[] = [];
  let i = 0;
  const worker = async () => {
    while (i < peers.length && !gw.services.pulls.stopped) {
      const p = peers[i++]!;
      out.push(peerSyncUrl(gw, p) !== null ? await pullPeer(gw, p.instance) : await pullViaRelay(gw, p));
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, peers.length) }, worker));
  out.sort((a, b) => a.instance.localeCompare(b.instance));
  return { peers: out, bootstrap, registry };
}

// ---------------------------------------------------------------- through a relay hub

/**
 * Pulls a peer that has no sync URL through the relay at FED_HUB_URL: one
 * page per feed per run. An answered query's page goes through the apply
 * pipeline (its cursor committed with it) and the next page is asked for; an
 * unanswered one is waited on.
 */
async function pullViaRelay(gw: Core, peer: Peer): Promise<PeerSyncReport> {
  const started = performance.now();
  const hub = gw.config.fedHubUrl!;
  const report = emptyReport(peer.instance, `${hub} (relay)`);
  const m = gw.services.pulls.awaiting;
  try {
    for (const kind of PULL_ORDER) {
      const type = RECORD_TYPES[kind];
      const key = `${peer.instance}:${type}`;
      const f: FeedReport = (report.feeds[kind] = { pages: 0, received: 0, applied: 0, duplicate: 0, suppressed: 0, quarantined: 0, rejected: 0, bytes: 0 });
      const pending = m.get(key);
      let ask = pending === undefined;
      if (pending !== undefined) {
        const r = await fetchRelayResult(gw, hub, peer.instance, pending);
        if (r) {
          m.delete(key);
          const page = decodePage(r.page);
          const cursor = cursorOf(gw, peer.id, type);
          const next = Math.max(cursor, r.next);
          const applied = await applyFrames(gw, page.frames, { via: "relay", servedBy: peer.instance, onCommit: () => setCursor(gw, peer.id, type, next) });
          addReport(f, applied, r.page.length);
          report.applied += f.applied;
          report.received += f.received;
          report.bytes += f.bytes;
          ask = r.more;
        }
      }
      if (ask)
        m.set(
          key,
          await askRelay(gw, hub, peer.instance, {
            type: kind,
            since: cursorOf(gw, peer.id, type),
            limit: Math.min(gw.config.fedSyncBatch, tierCaps("compact").batch),
          }),
        );
    }
    report.ok = true;
  } catch (e) {
    report.error = pullError(gw, peer.instance, e);
  }
  report.ms = Math.round(performance.now() - started);
  finishPull(gw, peer.id, report);
  return report;
}
