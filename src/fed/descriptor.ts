/**
 * This instance as others see it: its key history, the instance descriptor
 * served at /.well-known/svc, and its own signed peer-descriptor record
 * (type 7). `initFederation` runs when a gateway is created: it records the
 * current signing key, re-signs the feed if the key changed, and republishes
 * the peer descriptor when endpoints or keys changed.
 */
import type { Core } from "../core/core.ts";
import { buildInfo } from "../lib/version.ts";
import { formatEndpoint, parseEndpoints, type Endpoint } from "../lib/fed/endpoints.ts";
import { instanceSigner, localGid, publishRecord, resignFeed } from "./feed.ts";
import { whenClockSane } from "../system/clock-sanity.ts";
import type { RotationRecord } from "../lib/fed/keys.ts";
import { decodePayload, FED_DOMAIN, RECORD_TYPES, SYNC_KINDS, type SyncKind } from "../lib/fed/record.ts";
import type { PeerBody } from "../lib/fed/bodies.ts";
import { encodeCbor } from "../lib/fed/cbor.ts";
import { capsJson, clampCaps, tierCaps, type LinkCaps, type NegotiatedLink } from "../lib/fed/caps.ts";
import type { Descriptor, OwnKey } from "./shapes.ts";

/** What this instance offers (and asks for) on an HTTP sync link: the full tier under its own policy. */
export function httpLinkCaps(gw: Core): NegotiatedLink {
  return clampCaps(tierCaps("full"), { batch: gw.config.fedSyncBatch });
}

const PEER_RECORD_LOCAL_ID = "self";

/** Records the current signing key in the key history (a key seen for the first time, without a rotation, starts a new chain). */
function ensureOwnKey(gw: Core): void {
  const signer = instanceSigner(gw);
  if (!signer) return;
  gw.db
    .query("INSERT INTO fed_own_keys (public_key, status, since, rotation) VALUES (?, 'active', ?, NULL) ON CONFLICT DO NOTHING")
    .run(signer.publicKey, Math.floor(gw.clock.now() / 1000));
}

export function ownKeys(gw: Pick<Core, "db">): { keys: OwnKey[]; rotations: RotationRecord[] } {
  const rows = gw.db.query("SELECT public_key AS key, status, since, rotation FROM fed_own_keys ORDER BY since, rowid").all() as Array<
    OwnKey & { rotation: string | null }
  >;
  return {
    keys: rows.map(({ key, status, since }) => ({ key, status, since })),
    rotations: rows.filter((r) => r.rotation).map((r) => JSON.parse(r.rotation!) as RotationRecord),
  };
}

function ownEndpoints(gw: Core): Endpoint[] {
  return parseEndpoints(gw.config.fedEndpoints);
}

/** The body of this instance's type-7 record. */
export function peerBody(gw: Core, endpoints: Endpoint[] = ownEndpoints(gw)): PeerBody {
  return { instance: gw.config.instance, endpoints: endpoints.map(formatEndpoint), caps: instanceSigner(gw) ? ["sync-cbor"] : [] };
}

/** Publishes the type-7 record if what it says changed. */
function refreshPeerRecord(gw: Core): void {
  if (!instanceSigner(gw)) return;
  const body = peerBody(gw);
  const row = gw.db.query("SELECT payload FROM fed_feed WHERE gid = ?").get(localGid(gw, "peer", PEER_RECORD_LOCAL_ID)) as { payload: Uint8Array } | null;
  if (row && Buffer.from(encodeCbor(decodePayload(row.payload).body)).equals(Buffer.from(encodeCbor(body as never)))) return;
  publishRecord(gw, "peer", PEER_RECORD_LOCAL_ID, body);
}

/** Runs once per gateway: key history, re-signing after a key change, the peer record. */
export function initFederation(gw: Core): { resigned: number } {
  // nothing is signed (or dated) until the clock is sane: then this runs again (system/clock-sanity.ts)
  if (whenClockSane(gw, () => initFederation(gw))) return { resigned: 0 };
  ensureOwnKey(gw);
  const resigned = resignFeed(gw);
  if (resigned > 0) gw.log.info("fed", `signed ${resigned} feed records with the current key`);
  refreshPeerRecord(gw);
  return { resigned };
}

/** The newest seq of each sync feed (feeds without frames are left out: 0). */
function feedHeads(gw: Core): Partial<Record<SyncKind, number>> {
  const rows = gw.db.query("SELECT type, MAX(seq) AS head FROM fed_feed GROUP BY type").all() as Array<{ type: number; head: number }>;
  const out: Partial<Record<SyncKind, number>> = {};
  for (const kind of SYNC_KINDS) out[kind] = rows.find((r) => r.type === RECORD_TYPES[kind])?.head ?? 0;
  return out;
}

export function descriptor(gw: Core): Descriptor {
  const signed = !!instanceSigner(gw);
  const { keys, rotations } = ownKeys(gw);
  const row = signed
    ? (gw.db.query("SELECT frame FROM fed_feed WHERE gid = ? AND type = ?").get(localGid(gw, "peer", PEER_RECORD_LOCAL_ID), RECORD_TYPES.peer) as {
        frame: Uint8Array | null;
      } | null)
    : null;
  return {
    instance: gw.config.instance,
    protocol: FED_DOMAIN,
    software: { name: "svc-gateway", version: buildInfo().version },
    signed,
    keys,
    rotations,
    endpoints: ownEndpoints(gw),
    url: gw.config.publicUrl,
    // "trackables": it serves and applies record types 8 and 9 (older peers do not list it)
    capabilities: signed ? ["sync-cbor", "trackables"] : [],
    feeds: signed ? [...SYNC_KINDS] : [],
    heads: signed ? feedHeads(gw) : {},
    operator: gw.config.fedOperator,
    aprsCall: gw.config.fedAprsCall,
    record: row?.frame ? Buffer.from(row.frame).toString("base64url") : null,
    // capsJson writes exactly a LinkCaps' members (typed loosely in the library)
    link: signed ? (capsJson(httpLinkCaps(gw)) as unknown as LinkCaps) : null,
  };
}
