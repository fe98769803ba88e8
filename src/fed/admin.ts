/**
 * The sysop's view of the network: every peer with its trust, health,
 * reputation, endpoints, keys and what its last sync negotiated; setting a
 * peer's tier; and what is mirrored from a peer.
 */
import type { Core } from "../core/core.ts";
import { peerSyncUrl } from "./dial.ts";
import { getPeer, listPeers, peerKeys, quarantined, setTrust, type Peer, type TrustTier } from "./peers.ts";
import type { HealthStatus, MirroredRecord, MirroredRecords, PeerList, PeerView } from "./shapes.ts";
import { registryBinding } from "./registry.ts";
import { peerCursors } from "./sync.ts";
import { KIND_OF_TYPE } from "../lib/fed/record.ts";
import { notFound } from "../lib/errors.ts";

export type { PeerView };

function healthStatus(gw: Core, p: Peer): HealthStatus {
  if (p.trust === "blocked") return "blocked";
  if (!peerSyncUrl(gw, p)) return "no_sync_endpoint";
  if (p.lastSyncAt === null) return "never";
  return p.lastError ? "failing" : "ok";
}

function view(gw: Core, p: Peer): PeerView {
  const extra = gw.db.query("SELECT link, feeds FROM peers WHERE id = ?").get(p.id) as { link: string | null; feeds: string | null };
  const keys = peerKeys(gw, p.instance).map((k) => ({ key: k.publicKey, status: k.status, via: k.via }));
  const b = registryBinding(gw, p.instance);
  const mirrored = (gw.db.query("SELECT count(*) AS n FROM mirror_records WHERE origin = ?").get(p.instance) as { n: number }).n;
  return {
    instance: p.instance,
    trust: p.trust,
    trustSetBy: p.trustSetBy,
    foundVia: p.foundVia,
    verifiedVia: p.verifiedVia,
    url: p.url,
    syncUrl: peerSyncUrl(gw, p),
    endpoints: p.endpoints,
    keyPin: p.keyPin,
    keys,
    repConfirmed: p.repConfirmed,
    repFailed: p.repFailed,
    health: {
      status: healthStatus(gw, p),
      lastSyncAt: p.lastSyncAt,
      lastOkAt: p.lastSyncOkAt,
      lastError: p.lastError,
      failures: p.syncFailures,
      framesApplied: p.framesApplied,
      framesRejected: p.framesRejected,
      lastAppliedAt: p.lastAppliedAt,
    },
    link: extra.link ? JSON.parse(extra.link) : null,
    feeds: extra.feeds ? (JSON.parse(extra.feeds) as string[]) : [],
    cursors: peerCursors(gw, p.id),
    mirrored,
    registry: b && { keys: b.keys, operators: b.operators, matches: keys.filter((k) => k.status === "active").every((k) => b.keys.includes(k.key)) },
  };
}

/** GET /federation/peers */
export function peerList(gw: Core): PeerList {
  return { instance: gw.config.instance, peers: listPeers(gw).map((p) => view(gw, p)), quarantined: quarantined(gw) };
}

export function peerView(gw: Core, instance: string): PeerView {
  const p = getPeer(gw, instance);
  if (!p) throw notFound(`peer ${instance}`);
  return view(gw, p);
}

/** POST /federation/peers/trust: {instance, trust} (their form checked at the route) */
export function setPeerTrust(gw: Core, b: { instance: string; trust: TrustTier }): PeerView {
  setTrust(gw, b.instance, b.trust, "operator");
  return peerView(gw, b.instance);
}

/** GET /federation/peers/:instance/records: what is mirrored from a peer, by gid, paged. */
export function mirroredRecords(gw: Core, instance: string, q: { after?: string; limit?: number }): MirroredRecords {
  if (!getPeer(gw, instance)) throw notFound(`peer ${instance}`);
  const limit = q.limit ?? 500;
  const rows = gw.db
    .query("SELECT gid, type, v, at, via, received_at AS receivedAt FROM mirror_records WHERE origin = ? AND gid > ? ORDER BY gid LIMIT ?")
    .all(instance, q.after ?? "", limit + 1) as Array<Omit<MirroredRecord, "kind">>;
  const more = rows.length > limit;
  if (more) rows.pop();
  return { instance, items: rows.map((r) => ({ ...r, kind: KIND_OF_TYPE[r.type] ?? String(r.type) })), next: more ? rows[rows.length - 1]!.gid : null };
}
