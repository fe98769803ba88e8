/**
 * SVCB1 presence beacons (SPEC "Federation", beacon tier): one signed frame
 * in one unconnected AX.25 UI datagram, `SVCB1` followed by the frame
 * verbatim. No batch envelope, no BID.
 *
 * Sending: this instance's peer record as the separate record
 * `<instance>:peer:beacon` (type 7), its typed endpoints trimmed from the
 * lowest priority (the largest priority value) up until the datagram fits
 * BEACON_MAX_BYTES; it is signed and versioned like every record, republished
 * only when what it says changes.
 *
 * Receiving (POST /federation/beacon, and UI frames heard on the radio): the
 * frame goes through the one apply pipeline. A verified peer announce from a
 * known origin refreshes that peer's endpoints (a beacon record refreshes
 * only the most preferred ones it carries: endpoints the peer had listed
 * after the last one announced are kept, since trimming dropped them, not the
 * peer); an unknown origin is quarantined and no peer is inserted;
 * tombstones apply idempotently by gid. Anything else is not beacon tier.
 *
 * Have-lists: the separate record `<instance>:peer:have` (type 7, no
 * endpoints) whose `have` lists, for each sync feed that holds records, the
 * feed's highest cursor. A listener compares them with the cursors it holds
 * for that peer: a feed whose have-list cursor is past its own has something
 * to pull, and a peer with a sync URL is pulled at once (as a gossip ping
 * would). A have-list never changes a peer's endpoints.
 */
import type { Core } from "../core/core.ts";
import { AppError, badRequest, unprocessable } from "../lib/errors.ts";
import { applyFrames } from "./apply.ts";
import { encodeCbor } from "../lib/fed/cbor.ts";
import { peerBody } from "./descriptor.ts";
import { instanceSigner, localGid, publishRecord } from "./feed.ts";
import {
  BEACON_LOCAL_ID,
  decodeFrame,
  decodePayload,
  encodePayload,
  HAVE_LOCAL_ID,
  parseGid,
  RECORD_TYPES,
  RecordError,
  signFrame,
  SYNC_KINDS,
  type SyncKind,
} from "../lib/fed/record.ts";
import type { PeerBody } from "../lib/fed/bodies.ts";
import { peerSyncUrl } from "./dial.ts";
import { getPeer } from "./peers.ts";
import { cursorOf, isPulling, pullPeer } from "./sync.ts";
import type { BeaconReport } from "./shapes.ts";

const BEACON_MAGIC = "SVCB1";
const MAGIC = new TextEncoder().encode(BEACON_MAGIC);
/**
 * The largest datagram: the information field of one AX.25 UI frame, 256
 * bytes (N1, the AX.25 default every TNC and digipeater takes).
 */
export const BEACON_MAX_BYTES = 256;

export interface Beacon {
  datagram: Uint8Array;
  /** the endpoints it carries, most preferred first */
  endpoints: string[];
  /** the endpoints trimmed away to fit */
  dropped: string[];
}

function datagram(frame: Uint8Array): Uint8Array {
  const out = new Uint8Array(MAGIC.length + frame.length);
  out.set(MAGIC);
  out.set(frame, MAGIC.length);
  return out;
}

/**
 * This instance's beacon: publishes (or reuses) the trimmed peer record and
 * returns the datagram. Throws 404 on an unsigned instance, 422 when not even
 * a record without endpoints fits.
 */
export function ownBeacon(gw: Core): Beacon {
  const signer = instanceSigner(gw);
  if (!signer) throw new AppError(404, "unsigned", "this instance has no signing key (FED_PRIVATE_KEY), so it has no signed presence to beacon");
  // the beacon tier carries addressing: no capability list (sync-cbor is the descriptor's business)
  const { caps: _caps, ...all } = peerBody(gw);
  const gid = localGid(gw, "peer", BEACON_LOCAL_ID);
  const held = gw.db.query("SELECT v, payload, frame FROM fed_feed WHERE gid = ?").get(gid) as {
    v: number;
    payload: Uint8Array;
    frame: Uint8Array | null;
  } | null;
  const at = Math.floor(gw.clock.now() / 1000);
  // the most endpoints whose signed datagram fits, measured with the version it would get
  for (let n = all.endpoints.length; n >= 0; n--) {
    const body = { ...all, endpoints: all.endpoints.slice(0, n) };
    const same = held?.frame && Buffer.from(encodeCbor(decodePayload(held.payload).body)).equals(Buffer.from(encodeCbor(body as never)));
    const frame = same
      ? held!.frame!
      : signFrame(
          encodePayload({
            type: RECORD_TYPES.peer,
            gid,
            origin: gw.config.instance,
            v: (held?.v ?? 0) + 1,
            at,
            signer: gw.config.instance,
            body: body as never,
          }),
          signer,
        );
    if (MAGIC.length + frame.length > BEACON_MAX_BYTES) continue;
    if (!same) publishRecord(gw, "peer", BEACON_LOCAL_ID, body);
    const stored = (gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array }).frame;
    // published at the same second with the same version: the bytes measured are the bytes stored
    if (MAGIC.length + stored.length > BEACON_MAX_BYTES) continue;
    return { datagram: datagram(stored), endpoints: body.endpoints, dropped: all.endpoints.slice(n) };
  }
  throw unprocessable(
    "too_large",
    `even without endpoints the presence record of ${gw.config.instance} does not fit ${BEACON_MAX_BYTES} bytes (a shorter INSTANCE would)`,
  );
}

/** Signs `body` as a new version of `gid` unless the one held says the same; the datagram of what is held then. */
function beaconRecord(gw: Core, localId: string, body: PeerBody): Uint8Array {
  const gid = localGid(gw, "peer", localId);
  const held = gw.db.query("SELECT payload, frame FROM fed_feed WHERE gid = ?").get(gid) as { payload: Uint8Array; frame: Uint8Array | null } | null;
  const same = held?.frame && Buffer.from(encodeCbor(decodePayload(held.payload).body)).equals(Buffer.from(encodeCbor(body as never)));
  if (!same) publishRecord(gw, "peer", localId, body);
  return datagram((gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(gid) as { frame: Uint8Array }).frame);
}

/** Which feeds a have-list keeps when it must shrink to fit: the first ones. */
const HAVE_KEEP_ORDER: readonly SyncKind[] = ["cache", "find", "tombstone", "bulletin", "key", "account-move"];

export interface HaveList {
  datagram: Uint8Array;
  /** each sync feed that holds records, and its highest cursor */
  have: Partial<Record<SyncKind, number>>;
  /** feeds left out so the datagram fits */
  dropped: SyncKind[];
}

/**
 * This instance's have-list datagram: for each sync feed holding signed
 * records, its highest cursor (the `next` a puller ends at), republished only
 * when one moved. Feeds are left out, the least needed first
 * (HAVE_KEEP_ORDER), until it fits a datagram. Throws 404 on an unsigned
 * instance, 422 when not even one feed fits.
 */
export function ownHaveList(gw: Core): HaveList {
  const signer = instanceSigner(gw);
  if (!signer) throw new AppError(404, "unsigned", "this instance has no signing key (FED_PRIVATE_KEY), so it has no signed have-list");
  const types = SYNC_KINDS.map((k) => RECORD_TYPES[k]);
  const rows = gw.db
    .query(`SELECT type, max(seq) AS top FROM fed_feed WHERE frame IS NOT NULL AND type IN (${types.join(",")}) GROUP BY type ORDER BY type`)
    .all() as Array<{ type: number; top: number }>;
  const all = HAVE_KEEP_ORDER.filter((k) => rows.some((r) => r.type === RECORD_TYPES[k]));
  const gid = localGid(gw, "peer", HAVE_LOCAL_ID);
  const held = gw.db.query("SELECT v FROM fed_feed WHERE gid = ?").get(gid) as { v: number } | null;
  const at = Math.floor(gw.clock.now() / 1000);
  for (let n = all.length; n >= 0; n--) {
    const kept = new Set(all.slice(0, n).map((k) => RECORD_TYPES[k] as number));
    const body: PeerBody = { instance: gw.config.instance, endpoints: [], have: rows.filter((r) => kept.has(r.type)).flatMap((r) => [r.type, r.top]) };
    // measured with the version it would get (a held one that says the same is as long or shorter)
    const frame = signFrame(
      encodePayload({ type: RECORD_TYPES.peer, gid, origin: gw.config.instance, v: (held?.v ?? 0) + 1, at, signer: gw.config.instance, body: body as never }),
      signer,
    );
    if (MAGIC.length + frame.length > BEACON_MAX_BYTES) continue;
    const dg = beaconRecord(gw, HAVE_LOCAL_ID, body);
    if (dg.length > BEACON_MAX_BYTES) continue;
    return { datagram: dg, have: haveOf(body.have!), dropped: all.slice(n) };
  }
  throw unprocessable("too_large", `even empty, the have-list of ${gw.config.instance} does not fit ${BEACON_MAX_BYTES} bytes (a shorter INSTANCE would)`);
}

function haveOf(pairs: readonly number[]): Partial<Record<SyncKind, number>> {
  const out: Partial<Record<SyncKind, number>> = {};
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const kind = SYNC_KINDS.find((k) => RECORD_TYPES[k] === pairs[i]);
    if (kind) out[kind] = pairs[i + 1]!;
  }
  return out;
}

/** Whether bytes (a UI frame's info) are an SVCB1 datagram. */
export function isBeacon(info: Uint8Array): boolean {
  return info.length > MAGIC.length && MAGIC.every((b, i) => info[i] === b);
}

/** Applies a heard datagram; throws 400 (not SVCB1, unreadable) or 422 (not beacon tier). */
export async function applyBeacon(gw: Core, bytes: Uint8Array, via = "beacon"): Promise<BeaconReport> {
  if (!isBeacon(bytes)) throw badRequest("bad_beacon", `a beacon datagram starts with ${BEACON_MAGIC}`);
  const frame = bytes.subarray(MAGIC.length);
  let type: number;
  let origin: string;
  let gid: string;
  try {
    const p = decodePayload(decodeFrame(frame).payload);
    type = p.type;
    origin = p.origin;
    gid = p.gid;
  } catch (e) {
    if (e instanceof RecordError) throw badRequest("bad_beacon", `the frame cannot be read: ${e.message}`);
    throw e;
  }
  if (type !== RECORD_TYPES.peer && type !== RECORD_TYPES.tombstone)
    throw unprocessable("not_beacon_tier", "a beacon carries a peer announce or a tombstone, nothing else");
  if (bytes.length > BEACON_MAX_BYTES) throw badRequest("bad_beacon", `a beacon datagram is at most ${BEACON_MAX_BYTES} bytes (one UI frame)`);
  const report = await applyFrames(gw, [frame.slice()], { via });
  const outcome = (["applied", "duplicate", "suppressed", "quarantined", "own"] as const).find((k) => report[k] > 0) ?? "rejected";
  const isHave = type === RECORD_TYPES.peer && parseGid(gid)?.localId === HAVE_LOCAL_ID;
  const out: BeaconReport = { type: type === RECORD_TYPES.tombstone ? "tombstone" : isHave ? "have" : "peer", origin, gid, outcome, report };
  const peer = getPeer(gw, origin);
  // verified (applied now or before) and from a peer we mirror
  if (isHave && (outcome === "applied" || outcome === "duplicate") && peer && peer.trust !== "blocked") {
    const have = haveOf((decodePayload(decodeFrame(frame).payload).body as { have?: number[] }).have ?? []);
    out.have = have;
    out.behind = SYNC_KINDS.filter((k) => have[k] !== undefined && have[k]! > cursorOf(gw, peer.id, RECORD_TYPES[k]));
    out.pull = null;
    if (out.behind.length) {
      if (!peerSyncUrl(gw, peer)) out.pull = "no_sync_endpoint";
      else {
        out.pull = isPulling(gw, origin) ? "coalesced" : "started";
        void pullPeer(gw, origin);
      }
    }
  }
  return out;
}
