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
import type { Core } from "../core/core.ts";
import { isCallsign } from "../lib/callsign.ts";
import { checkBody } from "../lib/fed/bodies.ts";
import { fastestPath, verifyEd25519, type Ed25519Path, type VerifyVerdict } from "../lib/fed/ed25519.ts";
import { currentAccount, heldVersion, isTombstoned, mirrorStatements, writeRecord, writeTombstone, type Held } from "./mirror.ts";
import { decodePage } from "../lib/fed/page.ts";
import { countQuarantined, refreshEndpoints } from "./peers.ts";
import { registryBinding } from "./registry.ts";
import type { ApplyReport } from "./shapes.ts";
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
} from "../lib/fed/record.ts";

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

export type { ApplyReport };

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
  await gw.writeGate.wait();
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

/** What one run of the pipeline keeps while it goes through a batch. */
interface Run {
  gw: Core;
  opts: ApplyOptions;
  report: ApplyReport;
  path: Ed25519Path;
  s: ReturnType<typeof mirrorStatements>;
  self: string;
  /** each origin met in the batch: its trust and active keys, null when unknown */
  origins: Map<string, OriginInfo | null>;
  quarantine: Map<string, { reason: string; frames: number }>;
  /** stage 1's rejections by origin, for the peers' counters */
  perOrigin: Map<string, { applied: number; rejected: number }>;
  /** the raw bytes of each signer key met in the batch (one decode per key, not per frame) */
  keyBytesOf: Map<string, Uint8Array>;
}

type Decoded = { frame: Frame; payload: Payload } | RecordError;

/** Yields only where a verification is asynchronous (never on node:crypto); the drivers above resume it. */
function* pipeline(gw: Core, frames: Uint8Array[], opts: ApplyOptions): Generator<Promise<VerifyVerdict>, ApplyReport, VerifyVerdict> {
  const run: Run = {
    gw,
    opts,
    report: emptyReport(frames.length),
    path: opts.path ?? (defaultPath ??= fastestPath()),
    s: mirrorStatements(gw.db),
    self: gw.config.instance,
    origins: new Map(),
    quarantine: new Map(),
    perOrigin: new Map(),
    keyBytesOf: new Map(),
  };
  const decoded = decodeAll(frames);
  const helds = heldVersions(run, decoded);
  const checked: Checked[] = [];
  for (let index = 0; index < frames.length; index++) {
    const c = yield* checkFrame(run, index, frames[index]!, decoded[index]!, helds[index] ?? null);
    if (c) checked.push(c);
  }
  inApplyOrder(checked);
  const outcomes = storeBatch(run, checked);
  countOutcomes(run, checked, outcomes);
  return run.report;
}

function emptyReport(received: number): ApplyReport {
  return { received, applied: 0, duplicate: 0, suppressed: 0, quarantined: 0, own: 0, skipped: 0, rejected: 0, reasons: {}, failures: [] };
}

function reject(run: Run, index: number, code: string, message: string, gid?: string, origin?: string): void {
  const report = run.report;
  report.rejected++;
  report.reasons[code] = (report.reasons[code] ?? 0) + 1;
  if (report.failures.length < MAX_FAILURES) report.failures.push({ index, gid, code, message });
  if (origin) tally(run.perOrigin, origin).rejected++;
}

/** Stage 0, strict decode of every frame first (so the versions held can be read in one go). */
function decodeAll(frames: Uint8Array[]): Decoded[] {
  const decoded: Decoded[] = new Array(frames.length);
  for (let index = 0; index < frames.length; index++) {
    try {
      const frame = decodeFrame(frames[index]!);
      decoded[index] = { frame, payload: decodePayload(frame.payload) };
    } catch (e) {
      if (e instanceof RecordError) decoded[index] = e;
      else throw e;
    }
  }
  return decoded;
}

/**
 * The versions held for the batch's gids, read in one read transaction (not a
 * lock cycle per frame): a frame held byte for byte is a duplicate delivery,
 * not verified again.
 */
function heldVersions(run: Run, decoded: Decoded[]): Array<Held | null> {
  const helds: Array<Held | null> = new Array(decoded.length);
  run.gw.db.transaction(() => {
    for (let index = 0; index < decoded.length; index++) {
      const d = decoded[index]!;
      if (!(d instanceof RecordError) && d.payload.origin !== run.self) helds[index] = heldVersion(run.s, d.payload.gid);
    }
  })();
  return helds;
}

/**
 * Stages 0 to 4 for one frame: the checked frame, or null when it is skipped,
 * our own, quarantined, a duplicate or rejected (counted in the report).
 */
function* checkFrame(
  run: Run,
  index: number,
  bytes: Uint8Array,
  d: Decoded,
  held: Held | null,
): Generator<Promise<VerifyVerdict>, Checked | null, VerifyVerdict> {
  if (d instanceof RecordError) {
    if (d.code === "unknown_type") run.report.skipped++;
    else reject(run, index, d.code, d.message);
    return null;
  }
  const { frame, payload } = d;
  const origin = payload.origin;
  if (origin === run.self) {
    run.report.own++;
    return null;
  }
  const info = admittedOrigin(run, origin);
  if (!info) return null;
  try {
    // 1. signature under one of the origin's active keys
    if (!info.keys.has(frame.signerKey)) throw new Reject("key_not_accepted", `${frame.signerKey} is not an active key of ${origin}`);
    if (held && held.frame && held.v === payload.v && sameBytes(held.frame, bytes)) {
      // The very frame already verified and applied: a duplicate delivery.
      run.report.duplicate++;
      return null;
    }
    yield* checkSignature(run, frame);
    const { gid, kind } = checkNamespace(payload, run.opts.servedBy);
    checkContent(payload, kind);
    return { index, bytes, payload, kind, gid };
  } catch (e) {
    if (e instanceof Reject) reject(run, index, e.code, e.message, payload.gid, origin);
    else throw e;
    return null;
  }
}

/** The origin's trust and keys; null (and the frame counted as quarantined) for an unknown or blocked one. */
function admittedOrigin(run: Run, origin: string): OriginInfo | null {
  let info = run.origins.get(origin);
  if (info === undefined) run.origins.set(origin, (info = originInfo(run.gw, origin)));
  if (info && info.trust !== "blocked") return info;
  run.report.quarantined++;
  const q = run.quarantine.get(origin) ?? { reason: info ? "blocked" : "unknown", frames: 0 };
  q.frames++;
  run.quarantine.set(origin, q);
  return null;
}

/** Stage 1: the signature holds under the signer key (yields while an asynchronous path verifies). */
function* checkSignature(run: Run, frame: Frame): Generator<Promise<VerifyVerdict>, void, VerifyVerdict> {
  let pk = run.keyBytesOf.get(frame.signerKey);
  if (!pk) run.keyBytesOf.set(frame.signerKey, (pk = keyBytes(frame.signerKey)));
  let verdict = verifyEd25519(pk, signedBytes(frame.payload), frame.sig, run.path);
  if (typeof verdict !== "string") verdict = yield verdict;
  if (verdict !== "ok") throw new Reject(verdict, `signature: ${verdict}`);
}

/** Stage 2: the gid is in the origin's namespace and of the type's kind; a sync link serves only its peer's own records. */
function checkNamespace(payload: Payload, servedBy: string | undefined): { gid: Gid; kind: RecordKind } {
  const origin = payload.origin;
  const gid = parseGid(payload.gid)!;
  const kind = KIND_OF_TYPE[payload.type]!;
  if (gid.origin !== origin) throw new Reject("namespace", `${payload.gid} is not in ${origin}'s namespace`);
  if (servedBy !== undefined && servedBy !== origin) throw new Reject("namespace", `${servedBy} served a record of ${origin}; a peer serves only its own`);
  if (kind === "tombstone" ? !TOMBSTONE_KINDS.includes(gid.kind) : gid.kind !== kind)
    throw new Reject("namespace", `a ${kind} record cannot have a ${gid.kind} gid`);
  return { gid, kind };
}

/** Stages 3 and 4: the body fits its layout and speaks only for its origin; a tombstone names only its gid. */
function checkContent(payload: Payload, kind: RecordKind): void {
  const problem = checkBody(kind, payload.body, "receive");
  if (problem) throw new Reject("bad_body", problem);
  const attest = selfAttestation(payload, kind);
  if (attest) throw new Reject("not_self_attested", attest);
  if (kind === "tombstone" && Object.keys(payload.body).length > 0) throw new Reject("tombstone_not_accepted", "a tombstone names only its gid");
}

/** Tombstones first (a delete suppresses a re-mirror in the same batch), then moves, then the rest in arrival order. */
function inApplyOrder(checked: Checked[]): void {
  const rank = (c: Checked) => (c.kind === "tombstone" ? 0 : c.kind === "account-move" ? 1 : 2);
  checked.sort((a, b) => rank(a) - rank(b) || a.index - b.index);
}

/** Stores one checked frame, idempotently by (type, gid, v). Inside the batch's transaction. */
function storeFrame(run: Run, c: Checked, now: number): Outcome {
  const { gw, s } = run;
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
  writeRecord(s, p, c.bytes, run.opts.via, now);
  // a trusted peer's report of a maintenance need on a cache hidden here raises its flag (src/game/maintenance-remote.ts)
  if (c.kind === "find") remoteMaintenanceNeed(gw, p);
  // a have-list says what the feeds hold, nothing about addresses
  if (c.kind === "peer" && c.gid.localId !== HAVE_LOCAL_ID)
    refreshEndpoints(gw, p.origin, p.body.endpoints as string[], { keepTail: c.gid.localId === BEACON_LOCAL_ID });
  return "applied";
}

/**
 * Every frame of the batch, in one transaction. First without a savepoint
 * per frame (they cost more than the writes): should any frame's storage
 * fail, the whole transaction rolls back and runs again with each frame on
 * its own savepoint, so the failed frame is counted and the others apply.
 */
function storeBatch(run: Run, checked: Checked[]): Array<Outcome | Error> {
  const { gw } = run;
  const now = gw.clock.now();
  const storeAlone = gw.db.transaction((c: Checked) => storeFrame(run, c, now));
  const commit = gw.db.transaction((alone: boolean): Array<Outcome | Error> => {
    const outcomes: Array<Outcome | Error> = new Array(checked.length);
    for (let i = 0; i < checked.length; i++) {
      if (!alone) {
        try {
          outcomes[i] = storeFrame(run, checked[i]!, now);
        } catch (e) {
          throw new FrameStoreFailed(String(e), { cause: e });
        }
        continue;
      }
      try {
        outcomes[i] = storeAlone(checked[i]!);
      } catch (e) {
        outcomes[i] = e as Error;
      }
    }
    countForPeers(run, checked, outcomes, now);
    run.opts.onCommit?.();
    return outcomes;
  });
  try {
    return commit(false);
  } catch (e) {
    if (!(e instanceof FrameStoreFailed)) throw e;
    return commit(true);
  }
}

/** What the peers' counters add, from stage 1's rejections and the store's outcomes, and the quarantine's count. Inside the batch's transaction. */
function countForPeers(run: Run, checked: Checked[], outcomes: Array<Outcome | Error>, now: number): void {
  const { gw } = run;
  const tallies = new Map<string, { applied: number; rejected: number }>();
  for (const [origin, t] of run.perOrigin) tallies.set(origin, { ...t });
  for (let i = 0; i < checked.length; i++) {
    const o = outcomes[i]!;
    if (o === "applied") tally(tallies, checked[i]!.payload.origin).applied++;
    else if (o instanceof Error) tally(tallies, checked[i]!.payload.origin).rejected++;
  }
  if (run.quarantine.size) countQuarantined(gw, run.quarantine);
  const upd = gw.db.query(
    "UPDATE peers SET frames_applied = frames_applied + ?, frames_rejected = frames_rejected + ?, last_applied_at = CASE WHEN ? > 0 THEN ? ELSE last_applied_at END WHERE instance = ?",
  );
  for (const [origin, t] of tallies) upd.run(t.applied, t.rejected, t.applied, now, origin);
}

/** The store's outcomes into the report; a frame whose storage failed is a rejection (store_failed), logged. */
function countOutcomes(run: Run, checked: Checked[], outcomes: Array<Outcome | Error>): void {
  for (let i = 0; i < checked.length; i++) {
    const c = checked[i]!;
    const o = outcomes[i]!;
    if (o instanceof Error) {
      reject(run, c.index, "store_failed", o.message, c.payload.gid);
      run.gw.log.error("fed", `applying ${c.payload.gid} failed`, { error: String(o) });
    } else run.report[o]++;
  }
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
