/**
 * The one apply pipeline. Every transport (HTTP pull, POST /federation/frames,
 * connected-mode circuits, BBS bulletins, beacons, hub submissions) hands its
 * frames here. Per frame, in this order (docs/protocol.md "Applying frames"):
 *
 *   0. strict decode of frame and payload (a record type this version does
 *      not know is skipped, not refused); our own records are skipped;
 *      an unknown or blocked origin is quarantined (counted, never applied)
 *   1. signature: signerKey is an active key of the origin, and the
 *      signature holds under the verification rule over the bytes received
 *   2. namespace: the gid is in the origin's namespace, its kind fits the
 *      type, and a peer serving a sync page serves only its own origin
 *   3. the body fits its layout; self-attestation: a record speaks only for
 *      its own origin (and a callsign signer only for itself)
 *   4. tombstone acceptance: a tombstone deletes a deletable kind and names
 *      nothing but the gid
 *
 * Then, in one transaction, tombstones first and account-moves next:
 * applied idempotently by (type, gid, v), where a higher v supersedes, an
 * equal or lower one is a duplicate, and a tombstoned gid (or an erased
 * account's record) is never mirrored again. A frame whose storage fails is
 * rolled back whole, counted and skipped (the batch runs again with each
 * frame on its own savepoint); it never blocks the others and nothing is
 * half-applied.
 */
import type { Core } from "../gateway.ts";
import { isCallsign } from "../callsign.ts";
import { checkBody } from "./bodies.ts";
import { fastestPath, verifyEd25519, type Ed25519Path, type VerifyVerdict } from "./ed25519.ts";
import { currentAccount, heldVersion, isTombstoned, mirrorStatements, writeRecord, writeTombstone, type Held } from "./mirror.ts";
import { decodePage } from "./page.ts";
import { countQuarantined, refreshEndpoints } from "./peers.ts";
import { registryBinding } from "./registry.ts";
import { writeGateOf } from "../store/write-gate.ts";
import { remoteMaintenanceNeed } from "../game/maintenance-remote.ts";
import {
  BEACON_LOCAL_ID,
  HAVE_LOCAL_ID,
  decodeFrame,
  decodePayload,
  KIND_OF_TYPE,
  keyBytes,
  parseGid,
  RecordError,
  signedBytes,
  TOMBSTONE_KINDS,
  type Frame,
  type Gid,
  type Payload,
  type RecordKind,
} from "./record.ts";

export interface ApplyOptions {
  /** how the frames came, recorded with each mirrored row: sync, frames, bbs, beacon, submit, ... */
  via: string;
  /** the peer that served them over a sync link: a frame of any other origin is refused */
  servedBy?: string;
  /** verification path (default: the fastest this runtime has) */
  path?: Ed25519Path;
  /** writes that must commit with the frames, or not at all (a sync cursor) */
  onCommit?: () => void;
}

export interface ApplyReport {
  received: number;
  applied: number;
  /** already held at this or a newer version */
  duplicate: number;
  /** a tombstoned gid, or a record of an erased account */
  suppressed: number;
  /** from an unknown or blocked origin */
  quarantined: number;
  /** this instance's own records, come back */
  own: number;
  /** of a record type this version does not know (a later one's): left alone, not an error */
  skipped: number;
  rejected: number;
  /** rejections by code */
  reasons: Record<string, number>;
  /** the first rejections, for operators debugging a link */
  failures: Array<{ index: number; gid?: string; code: string; message: string }>;
}

const MAX_FAILURES = 20;

interface Checked {
  index: number;
  bytes: Uint8Array;
  payload: Payload;
  kind: RecordKind;
  gid: Gid;
}

interface OriginInfo {
  trust: "trusted" | "unvetted" | "blocked";
  keys: Set<string>;
}

class Reject extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let defaultPath: Ed25519Path | null = null;

/** Applies a CBOR sync page; throws RecordError (code bad_page or a CBOR code) when the envelope itself is unreadable. */
export async function applyPage(gw: Core, pageBytes: Uint8Array, opts: ApplyOptions): Promise<ApplyReport> {
  return applyFrames(gw, decodePage(pageBytes).frames, opts);
}

export async function applyFrames(gw: Core, frames: Uint8Array[], opts: ApplyOptions): Promise<ApplyReport> {
  // pulls, relays and beacons write without a request: they wait out a RESTART checkpoint at the store's write gate too
  await writeGateOf(gw.db).wait();
  const run = pipeline(gw, frames, opts);
  let step = run.next();
  while (!step.done) step = run.next(await step.value);
  return step.value;
}

/**
 * The same pipeline, run to completion before it returns: for a caller that
 * is itself inside a transaction and must see the report before it commits
 * (a SVCFED bulletin applied while the BBS stores it, refused whole when a
 * frame is rejected). The frames' writes then join that transaction. Needs a
 * synchronous verification path (node:crypto, the default in Bun and Node).
 */
export function applyFramesSync(gw: Core, frames: Uint8Array[], opts: ApplyOptions): ApplyReport {
  const run = pipeline(gw, frames, opts);
  const step = run.next();
  if (step.done) return step.value;
  run.return(undefined as never);
  throw new Error(`applyFramesSync needs a synchronous Ed25519 path; ${(opts.path ?? defaultPath)?.name} is asynchronous`);
}

/** Yields only where a verification is asynchronous (never on node:crypto); the drivers above resume it. */
function* pipeline(gw: Core, frames: Uint8Array[], opts: ApplyOptions): Generator<Promise<VerifyVerdict>, ApplyReport, VerifyVerdict> {
  const report: ApplyReport = {
    received: frames.length,
    applied: 0,
    duplicate: 0,
    suppressed: 0,
    quarantined: 0,
    own: 0,
    skipped: 0,
    rejected: 0,
    reasons: {},
    failures: [],
  };
  const path = opts.path ?? (defaultPath ??= fastestPath());
  const s = mirrorStatements(gw.db);
  const origins = new Map<string, OriginInfo | null>();
  const quarantine = new Map<string, { reason: string; frames: number }>();
  const perOrigin = new Map<string, { applied: number; rejected: number }>();
  const self = gw.config.instance;
  const checked: Checked[] = [];
  // The raw bytes of each signer key met in the batch (one decode per key, not per frame).
  const keyBytesOf = new Map<string, Uint8Array>();

  const reject = (index: number, code: string, message: string, gid?: string, origin?: string) => {
    report.rejected++;
    report.reasons[code] = (report.reasons[code] ?? 0) + 1;
    if (report.failures.length < MAX_FAILURES) report.failures.push({ index, gid, code, message });
    if (origin) tally(perOrigin, origin).rejected++;
  };

  // Strict decode of every frame first, so the versions held for their gids
  // can be read in one read transaction (not a lock cycle per frame): a frame
  // held byte for byte is a duplicate delivery, not verified again.
  const decoded: Array<{ frame: Frame; payload: Payload } | RecordError> = new Array(frames.length);
  for (let index = 0; index < frames.length; index++) {
    try {
      const frame = decodeFrame(frames[index]!);
      decoded[index] = { frame, payload: decodePayload(frame.payload) };
    } catch (e) {
      if (e instanceof RecordError) decoded[index] = e;
      else throw e;
    }
  }
  const helds: Array<Held | null> = new Array(frames.length);
  gw.db.transaction(() => {
    for (let index = 0; index < frames.length; index++) {
      const d = decoded[index]!;
      if (!(d instanceof RecordError) && d.payload.origin !== self) helds[index] = heldVersion(s, d.payload.gid);
    }
  })();

  for (let index = 0; index < frames.length; index++) {
    const bytes = frames[index]!;
    const d = decoded[index]!;
    if (d instanceof RecordError) {
      if (d.code === "unknown_type") report.skipped++;
      else reject(index, d.code, d.message);
      continue;
    }
    const { frame, payload } = d;
    const origin = payload.origin;
    if (origin === self) {
      report.own++;
      continue;
    }
    let info = origins.get(origin);
    if (info === undefined) origins.set(origin, (info = originInfo(gw, origin)));
    if (!info || info.trust === "blocked") {
      report.quarantined++;
      const q = quarantine.get(origin) ?? { reason: info ? "blocked" : "unknown", frames: 0 };
      q.frames++;
      quarantine.set(origin, q);
      continue;
    }
    try {
      // 1. signature under one of the origin's active keys
      if (!info.keys.has(frame.signerKey)) throw new Reject("key_not_accepted", `${frame.signerKey} is not an active key of ${origin}`);
      const held = helds[index];
      if (held && held.frame && held.v === payload.v && sameBytes(held.frame, bytes)) {
        // The very frame already verified and applied: a duplicate delivery.
        report.duplicate++;
        continue;
      }
      let pk = keyBytesOf.get(frame.signerKey);
      if (!pk) keyBytesOf.set(frame.signerKey, (pk = keyBytes(frame.signerKey)));
      let verdict = verifyEd25519(pk, signedBytes(frame.payload), frame.sig, path);
      if (typeof verdict !== "string") verdict = yield verdict;
      if (verdict !== "ok") throw new Reject(verdict, `signature: ${verdict}`);
      // 2. namespace
      const gid = parseGid(payload.gid)!;
      const kind = KIND_OF_TYPE[payload.type]!;
      if (gid.origin !== origin) throw new Reject("namespace", `${payload.gid} is not in ${origin}'s namespace`);
      if (opts.servedBy !== undefined && opts.servedBy !== origin)
        throw new Reject("namespace", `${opts.servedBy} served a record of ${origin}; a peer serves only its own`);
      if (kind === "tombstone" ? !TOMBSTONE_KINDS.includes(gid.kind) : gid.kind !== kind)
        throw new Reject("namespace", `a ${kind} record cannot have a ${gid.kind} gid`);
      // 3. body layout and self-attestation
      const problem = checkBody(kind, payload.body, "receive");
      if (problem) throw new Reject("bad_body", problem);
      const attest = selfAttestation(payload, kind);
      if (attest) throw new Reject("not_self_attested", attest);
      // 4. tombstone acceptance
      if (kind === "tombstone" && Object.keys(payload.body).length > 0) throw new Reject("tombstone_not_accepted", "a tombstone names only its gid");
      checked.push({ index, bytes, payload, kind, gid });
    } catch (e) {
      if (e instanceof Reject) reject(index, e.code, e.message, payload.gid, origin);
      else throw e;
    }
  }

  // Tombstones first (a delete suppresses a re-mirror in the same batch), then moves.
  const rank = (c: Checked) => (c.kind === "tombstone" ? 0 : c.kind === "account-move" ? 1 : 2);
  checked.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
  const now = gw.clock.now();
  const applyOne = (c: Checked): Outcome => {
    const p = c.payload;
    // Read again inside the write transaction: earlier frames of the batch
    // (or another batch, while an async verification was awaited) may have
    // written the gid since stage 1 looked.
    const held = heldVersion(s, p.gid);
    if (c.kind === "tombstone") {
      if (held?.tombstoned && held.v >= p.v) return "duplicate";
      writeTombstone(s, p, c.bytes, c.gid.kind, now);
      return "applied";
    }
    if (held?.tombstoned) return "suppressed";
    if (held && held.v >= p.v) return "duplicate";
    const account = (p.body.ownerAccount ?? p.body.account) as string | undefined;
    if (account && isTombstoned(s, currentAccount(s, account))) return "suppressed";
    writeRecord(s, p, c.bytes, opts.via, now);
    // a trusted peer's report of a maintenance need on a cache hidden here raises its flag (src/game/maintenance-remote.ts)
    if (c.kind === "find") remoteMaintenanceNeed(gw, p);
    // a have-list says what the feeds hold, nothing about addresses
    if (c.kind === "peer" && c.gid.localId !== HAVE_LOCAL_ID)
      refreshEndpoints(gw, p.origin, p.body.endpoints as string[], { keepTail: c.gid.localId === BEACON_LOCAL_ID });
    return "applied";
  };
  const applyOneAlone = gw.db.transaction(applyOne);
  /**
   * Every frame of the batch, in one transaction. First without a savepoint
   * per frame (they cost more than the writes): should any frame's storage
   * fail, the whole transaction rolls back and runs again with each frame on
   * its own savepoint, so the failed frame is counted and the others apply.
   */
  const commit = gw.db.transaction((alone: boolean): Array<Outcome | Error> => {
    const outcomes: Array<Outcome | Error> = new Array(checked.length);
    for (let i = 0; i < checked.length; i++) {
      if (!alone) {
        try {
          outcomes[i] = applyOne(checked[i]!);
        } catch (e) {
          throw new FrameStoreFailed(String(e), { cause: e });
        }
        continue;
      }
      try {
        outcomes[i] = applyOneAlone(checked[i]!);
      } catch (e) {
        outcomes[i] = e as Error;
      }
    }
    // What the peers' counters add, from stage 1's rejections and this pass's outcomes.
    const tallies = new Map<string, { applied: number; rejected: number }>();
    for (const [origin, t] of perOrigin) tallies.set(origin, { ...t });
    for (let i = 0; i < checked.length; i++) {
      const o = outcomes[i]!;
      if (o === "applied") tally(tallies, checked[i]!.payload.origin).applied++;
      else if (o instanceof Error) tally(tallies, checked[i]!.payload.origin).rejected++;
    }
    if (quarantine.size) countQuarantined(gw, quarantine);
    const upd = gw.db.query(
      "UPDATE peers SET frames_applied = frames_applied + ?, frames_rejected = frames_rejected + ?, last_applied_at = CASE WHEN ? > 0 THEN ? ELSE last_applied_at END WHERE instance = ?",
    );
    for (const [origin, t] of tallies) upd.run(t.applied, t.rejected, t.applied, now, origin);
    opts.onCommit?.();
    return outcomes;
  });
  let outcomes: Array<Outcome | Error>;
  try {
    outcomes = commit(false);
  } catch (e) {
    if (!(e instanceof FrameStoreFailed)) throw e;
    outcomes = commit(true);
  }
  for (let i = 0; i < checked.length; i++) {
    const c = checked[i]!;
    const o = outcomes[i]!;
    if (o instanceof Error) {
      reject(c.index, "store_failed", o.message, c.payload.gid);
      gw.log.error("fed", `applying ${c.payload.gid} failed`, { error: String(o) });
    } else report[o]++;
  }
  return report;
}

type Outcome = "applied" | "duplicate" | "suppressed";

/** A frame's storage failed on the batch's fast pass (no savepoint per frame). */
class FrameStoreFailed extends Error {}

function tally(m: Map<string, { applied: number; rejected: number }>, origin: string) {
  let t = m.get(origin);
  if (!t) m.set(origin, (t = { applied: 0, rejected: 0 }));
  return t;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function originInfo(gw: Core, origin: string): OriginInfo | null {
  const peer = gw.db.query("SELECT id, trust FROM peers WHERE instance = ?").get(origin) as { id: number; trust: OriginInfo["trust"] } | null;
  if (!peer) return null;
  const keys = gw.db.query("SELECT public_key AS k FROM peer_keys WHERE peer_id = ? AND status = 'active'").all(peer.id) as Array<{ k: string }>;
  // With a registry binding, only the keys it binds are accepted (AUTH rule 5).
  const bound = registryBinding(gw, origin);
  return { trust: peer.trust, keys: new Set(keys.map((r) => r.k).filter((k) => !bound || bound.keys.includes(k))) };
}

/** What a record says about identities must be its own origin's (and a callsign signer's own). */
function selfAttestation(p: Payload, kind: RecordKind): string | null {
  const b = p.body;
  const inNamespace = (gid: unknown) => typeof gid === "string" && parseGid(gid)?.origin === p.origin;
  if (p.signer !== p.origin) {
    if (!isCallsign(p.signer)) return `signer ${p.signer} is another instance`;
    const subject =
      kind === "cache" || kind === "trackable"
        ? b.ownerCall
        : kind === "find" || kind === "key" || kind === "trackable-move"
          ? b.call
          : kind === "bulletin"
            ? b.from
            : undefined;
    if (subject !== p.signer) return `a callsign signer (${p.signer}) signs only records about itself`;
  }
  switch (kind) {
    case "cache":
    case "trackable":
      if (b.ownerAccount !== undefined && !inNamespace(b.ownerAccount)) return "ownerAccount is another instance's account";
      return null;
    case "find":
    case "key":
    case "trackable-move":
      if (b.account !== undefined && !inNamespace(b.account)) return "account is another instance's account";
      return null;
    case "account-move":
      if (!inNamespace(b.from)) return "an instance moves only its own accounts";
      if (inNamespace(b.to)) return "an account moves to another instance";
      return null;
    case "peer":
      return b.instance === p.origin ? null : "an instance describes only itself";
    default:
      return null;
  }
}
