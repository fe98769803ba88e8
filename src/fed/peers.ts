/**
 * Peers: other instances, the keys their records are accepted under, and how
 * far they are trusted. The apply pipeline reads these; onboarding, pull sync,
 * the registry and the sysop trust routes write them.
 *
 * Keys: a peer's records verify under its active keys only: the key pinned
 * when it was added, and keys reached from an active key through a signed
 * rotation record (keys.ts). A rotation with `revoke` retires the old key.
 */
import type { Core } from "../core/core.ts";
import { notFound, unprocessable } from "../lib/errors.ts";
import { formatEndpoint, parseEndpoints, type Endpoint } from "../lib/fed/endpoints.ts";
import { checkRotation, type RotationRecord } from "../lib/fed/keys.ts";
import { isB64urlKey, isInstanceId } from "../lib/fed/record.ts";

import type { QuarantineRow, TrustTier } from "./shapes.ts";

export type { QuarantineRow, TrustTier };
const TRUST_TIERS: readonly TrustTier[] = ["trusted", "unvetted", "blocked"];

export interface Peer {
  id: number;
  instance: string;
  url: string | null;
  /** re-validated by the typed endpoint validator on every load */
  endpoints: Endpoint[];
  trust: TrustTier;
  keyPin: string | null;
  verifiedVia: string | null;
  repConfirmed: number;
  repFailed: number;
  framesApplied: number;
  framesRejected: number;
  lastAppliedAt: number | null;
  /** config, registry, transitive:<instance>, 44net, submit, operator */
  foundVia: string | null;
  /** who set the current tier: config, discovery, operator, auto */
  trustSetBy: string | null;
  lastSyncAt: number | null;
  lastSyncOkAt: number | null;
  lastError: string | null;
  /** failed syncs in a row */
  syncFailures: number;
  createdAt: number;
  updatedAt: number;
}

export interface PeerKey {
  publicKey: string;
  status: "active" | "revoked";
  via: "pin" | "rotation" | "operator" | "registry";
  addedAt: number;
}

const COLUMNS = `id, instance, url, endpoints, trust, key_pin AS keyPin, verified_via AS verifiedVia, rep_confirmed AS repConfirmed,
  rep_failed AS repFailed, frames_applied AS framesApplied, frames_rejected AS framesRejected, last_applied_at AS lastAppliedAt,
  found_via AS foundVia, trust_set_by AS trustSetBy, last_sync_at AS lastSyncAt, last_sync_ok_at AS lastSyncOkAt, last_error AS lastError,
  sync_failures AS syncFailures, created_at AS createdAt, updated_at AS updatedAt`;

function load(row: (Omit<Peer, "endpoints"> & { endpoints: string }) | null): Peer | null {
  if (!row) return null;
  return { ...row, endpoints: readEndpoints(row.endpoints) };
}

export function getPeer(gw: Core, instance: string): Peer | null {
  return load(gw.db.query(`SELECT ${COLUMNS} FROM peers WHERE instance = ?`).get(instance) as never);
}

export function listPeers(gw: Core): Peer[] {
  return (gw.db.query(`SELECT ${COLUMNS} FROM peers ORDER BY instance`).all() as never[]).map((r) => load(r)!);
}

/**
 * Two endpoint lists as one: every address once (transport and address), the
 * entry from `first` where both list it, ordered by priority (stable).
 */
function mergeEndpoints(first: readonly Endpoint[], second: readonly Endpoint[]): Endpoint[] {
  const key = (e: Endpoint) => `${e.transport}:${e.address}`;
  const seen = new Set(first.map(key));
  return [...first, ...second.filter((e) => !seen.has(key(e)))].sort((a, b) => a.priority - b.priority);
}

function readEndpoints(json: string | null | undefined): Endpoint[] {
  let raw: unknown = [];
  try {
    raw = JSON.parse(json ?? "[]");
  } catch {}
  return parseEndpoints(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === "string") : []);
}

const endpointsJson = (list: readonly Endpoint[]) => JSON.stringify(list.map(formatEndpoint));

/** Endpoints learnt of a peer from others (onboarding, the operator, a registry, a registry view): never replaced by its own record. */
function learntEndpoints(gw: Core, instance: string): Endpoint[] {
  const r = gw.db.query("SELECT learnt_endpoints AS l FROM peers WHERE instance = ?").get(instance) as { l: string } | null;
  return readEndpoints(r?.l);
}

export interface PeerInput {
  instance: string;
  url?: string | null;
  /**
   * typed endpoint strings (`transport:address;priority`) or parsed ones,
   * learnt from someone other than the peer; malformed entries are dropped.
   * Merged into what is known (these win for an address both list), never a
   * replacement: an address once learnt is kept.
   */
  endpoints?: Array<string | Endpoint>;
  trust?: TrustTier;
  /** pins this key (base64url) and accepts records under it */
  keyPin?: string;
  verifiedVia?: string | null;
  /** how a new peer was found (kept from its first insert) */
  foundVia?: string;
  /** who sets `trust` (recorded with it) */
  trustSetBy?: string;
}

/**
 * Adds a peer or updates the fields given. A new peer without `trust` is
 * unvetted. Pinning a key makes it an active key of the peer.
 */
export function upsertPeer(gw: Core, p: PeerInput): Peer {
  if (!isInstanceId(p.instance)) throw unprocessable("invalid", `"${p.instance}" is not an instance id`);
  if (p.trust && !TRUST_TIERS.includes(p.trust)) throw unprocessable("invalid", `trust must be one of ${TRUST_TIERS.join(", ")}`);
  if (p.keyPin !== undefined && !isB64urlKey(p.keyPin)) throw unprocessable("invalid", "keyPin must be a base64url Ed25519 key");
  const now = gw.clock.now();
  const given = p.endpoints === undefined ? undefined : parseEndpoints(p.endpoints.map((e) => (typeof e === "string" ? e : formatEndpoint(e))));
  return gw.db.transaction(() => {
    const existing = getPeer(gw, p.instance);
    if (!existing) {
      const list = endpointsJson(given ?? []);
      gw.db
        .query(
          "INSERT INTO peers (instance, url, endpoints, learnt_endpoints, trust, key_pin, verified_via, found_via, trust_set_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          p.instance,
          p.url ?? null,
          list,
          list,
          p.trust ?? "unvetted",
          p.keyPin ?? null,
          p.verifiedVia ?? null,
          p.foundVia ?? null,
          p.trustSetBy ?? (p.trust ? null : "discovery"),
          now,
          now,
        );
    } else {
      const endpoints = given && endpointsJson(mergeEndpoints(given, existing.endpoints));
      const learnt = given && endpointsJson(mergeEndpoints(given, learntEndpoints(gw, p.instance)));
      gw.db
        .query(
          `UPDATE peers SET url = coalesce(?2, url), endpoints = coalesce(?3, endpoints), trust = coalesce(?4, trust),
             key_pin = coalesce(?5, key_pin), verified_via = coalesce(?6, verified_via), updated_at = ?7,
             trust_set_by = CASE WHEN ?4 IS NULL THEN trust_set_by ELSE ?8 END,
             learnt_endpoints = coalesce(?9, learnt_endpoints) WHERE instance = ?1`,
        )
        .run(p.instance, p.url ?? null, endpoints ?? null, p.trust ?? null, p.keyPin ?? null, p.verifiedVia ?? null, now, p.trustSetBy ?? null, learnt ?? null);
    }
    const peer = getPeer(gw, p.instance)!;
    if (p.keyPin) addPeerKey(gw, peer.id, p.keyPin, "pin");
    return getPeer(gw, p.instance)!;
  })();
}

/**
 * Sets a peer's trust tier (the sysop route and auto-promotion call this).
 * Blocking forgets what was mirrored from the peer and where its pull stood:
 * a blocked peer is never mirrored, and one unblocked later is pulled afresh.
 */
export function setTrust(gw: Core, instance: string, trust: TrustTier, by: "operator" | "auto" | "config" = "operator"): Peer {
  if (!TRUST_TIERS.includes(trust)) throw unprocessable("invalid", `trust must be one of ${TRUST_TIERS.join(", ")}`);
  gw.db.transaction(() => {
    const r = gw.db.query("UPDATE peers SET trust = ?, trust_set_by = ?, updated_at = ? WHERE instance = ?").run(trust, by, gw.clock.now(), instance);
    if (r.changes === 0) throw notFound(`peer ${instance}`);
    if (trust === "blocked") {
      gw.db.query("DELETE FROM mirror_records WHERE origin = ?").run(instance);
      gw.db.query("DELETE FROM peer_cursors WHERE peer_id = (SELECT id FROM peers WHERE instance = ?)").run(instance);
    }
  })();
  return getPeer(gw, instance)!;
}

/**
 * Self-attested endpoints from a verified peer descriptor: updates a known
 * peer only. They replace what the peer said of itself before; endpoints
 * learnt of it from others (learntEndpoints: onboarding, the operator, a
 * registry) are merged back in behind them, so a peer that lists no endpoints
 * of its own keeps the address it was onboarded by. With `keepTail` (a
 * beacon's record, trimmed to fit a datagram) the endpoints the peer listed
 * after the last one announced are kept: the trimming dropped them, not the peer.
 */
export function refreshEndpoints(gw: Core, instance: string, endpoints: string[], opts: { keepTail?: boolean } = {}): boolean {
  let list = parseEndpoints(endpoints);
  if (opts.keepTail) {
    const known = getPeer(gw, instance)?.endpoints ?? [];
    const last = list.length ? list[list.length - 1]!.priority : -1;
    list = [...list, ...known.filter((e) => e.priority > last && !list.some((x) => x.transport === e.transport && x.address === e.address))];
  }
  const json = endpointsJson(mergeEndpoints(list, learntEndpoints(gw, instance)));
  return gw.db.query("UPDATE peers SET endpoints = ?, updated_at = ? WHERE instance = ?").run(json, gw.clock.now(), instance).changes > 0;
}

export function peerKeys(gw: Core, instance: string): PeerKey[] {
  return gw.db
    .query(
      `SELECT public_key AS publicKey, status, via, added_at AS addedAt FROM peer_keys
       WHERE peer_id = (SELECT id FROM peers WHERE instance = ?) ORDER BY added_at, public_key`,
    )
    .all(instance) as PeerKey[];
}

export function addPeerKey(gw: Core, peerId: number, publicKey: string, via: PeerKey["via"]): void {
  gw.db
    .query("INSERT INTO peer_keys (peer_id, public_key, status, via, added_at) VALUES (?, ?, 'active', ?, ?) ON CONFLICT DO NOTHING")
    .run(peerId, publicKey, via, gw.clock.now());
}

/**
 * Accepts a peer's signed rotation record if it is signed by one of the
 * peer's active keys: the new key becomes active, and with `revoke` the old
 * one is revoked. Returns the problem, or null when accepted (or already known).
 */
export function acceptRotation(gw: Core, instance: string, doc: unknown): string | null {
  const checked = checkRotation(doc);
  if (!checked.ok) return checked.message;
  const r: RotationRecord = checked.rotation;
  if (r.instance !== instance) return `the rotation is for ${r.instance}, not ${instance}`;
  const peer = getPeer(gw, instance);
  if (!peer) return `${instance} is not a known peer`;
  const keys = peerKeys(gw, instance);
  const from = keys.find((k) => k.publicKey === r.from);
  if (!from) return "the rotation starts from a key this peer was never known by";
  if (from.status !== "active") {
    // Replaying the rotation that revoked it is fine; anything else from a revoked key is not.
    return keys.some((k) => k.publicKey === r.to) ? null : "the rotation is signed by a revoked key";
  }
  gw.db.transaction(() => {
    addPeerKey(gw, peer.id, r.to, "rotation");
    if (r.revoke) gw.db.query("UPDATE peer_keys SET status = 'revoked' WHERE peer_id = ? AND public_key = ?").run(peer.id, r.from);
  })();
  return null;
}

/** Counts frames refused because their origin is unknown or blocked. */
export function countQuarantined(gw: Core, counts: Map<string, { reason: string; frames: number }>): void {
  const now = gw.clock.now();
  const n = (gw.db.query("SELECT count(*) AS n FROM fed_quarantine").get() as { n: number }).n;
  const upd = gw.db.query("UPDATE fed_quarantine SET frames = frames + ?, reason = ?, last_at = ? WHERE origin = ?");
  const ins = gw.db.query("INSERT INTO fed_quarantine (origin, reason, frames, first_at, last_at) VALUES (?, ?, ?, ?, ?)");
  let room = MAX_QUARANTINE_ORIGINS - n;
  for (const [origin, c] of counts) {
    if (upd.run(c.frames, c.reason, now, origin).changes > 0) continue;
    // Unknown origins are free to invent: keep the table bounded.
    if (room-- > 0) ins.run(origin, c.reason, c.frames, now, now);
  }
}

const MAX_QUARANTINE_ORIGINS = 10_000;

export function quarantined(gw: Core): QuarantineRow[] {
  return gw.db
    .query("SELECT origin, reason, frames, first_at AS firstAt, last_at AS lastAt FROM fed_quarantine ORDER BY last_at DESC LIMIT 1000")
    .all() as QuarantineRow[];
}
