/**
 * Signed federation records (SPEC "Signed record envelope"): the payload, the
 * frame around it, signing and verifying. Pure: no store, no clock.
 *
 *   payload = CBOR map {1 type, 2 gid, 3 origin, 4 v, 5 at, 6 signer, 7 body}
 *   frame   = CBOR map {1 payload bytes, 2 signerKey (base64url), 3 sig}
 *   signed bytes = "svc-fed/1\n" || payload bytes
 *
 * A receiver verifies the payload bytes exactly as received (never a
 * re-encoding), under the verification rule in ed25519.ts.
 *
 * @example
 *   const bytes = encodePayload({ type: 1, gid: "gw1:cache:7", origin: "gw1", v: 1, at: 1700000000, signer: "gw1", body: {...} });
 *   const frame = signFrame(bytes, signer);           // frame bytes
 *   const opened = openFrame(frame);                  // { ok: true, frame, payload } or { ok: false, code }
 */
import { CborError, cborToJson, decodeCbor, decodeKeyed, encodeCbor, type CborValue } from "./cbor.ts";
import { verifyEd25519, type Ed25519Path, type VerifyVerdict } from "./ed25519.ts";
import { isCallsign, normalizeCall } from "../callsign.ts";

export const FED_DOMAIN = "svc-fed/1";
const SIGNING_PREFIX = new TextEncoder().encode(FED_DOMAIN + "\n");

/**
 * Types 8 and 9 (trackables, their moves) came after the first seven: a peer
 * that does not know them never asks for their feeds (they are not in its
 * descriptor's feeds nor its link's records) and refuses a pushed frame of
 * either by itself (`bad_payload`), applying the rest of the batch. From this
 * version on, a frame of a type above 9 decodes to `unknown_type`, which the
 * apply pipeline counts as skipped, not as an error.
 */
export const RECORD_TYPES = { cache: 1, find: 2, key: 3, bulletin: 4, tombstone: 5, "account-move": 6, peer: 7, trackable: 8, "trackable-move": 9 } as const;
export type RecordKind = keyof typeof RECORD_TYPES;
export type RecordType = (typeof RECORD_TYPES)[RecordKind];
export const KIND_OF_TYPE: Readonly<Record<number, RecordKind>> = Object.fromEntries(Object.entries(RECORD_TYPES).map(([k, t]) => [t, k as RecordKind]));

/**
 * The kind part of a gid. Each record type has its own kind, except a
 * tombstone, whose gid is the gid it deletes; `account` names a user account
 * (the target of an erase tombstone or an account-move, never a record).
 */
export type GidKind = Exclude<RecordKind, "tombstone"> | "account";
export const GID_KINDS: readonly GidKind[] = ["cache", "find", "key", "bulletin", "account-move", "peer", "account", "trackable", "trackable-move"];
/** What a tombstone may delete. */
export const TOMBSTONE_KINDS: readonly GidKind[] = ["cache", "find", "key", "bulletin", "account"];

/** The feeds served by the sync surface, by URL name. */
export const SYNC_KINDS = ["cache", "find", "key", "tombstone", "account-move", "bulletin", "trackable", "trackable-move"] as const;
export type SyncKind = (typeof SYNC_KINDS)[number];

const INSTANCE_ID = /^[a-z0-9](?:[a-z0-9.-]{0,61}[a-z0-9])?$/;
/** The instance id's pattern, for request schemas. */
export const INSTANCE_ID_PATTERN = INSTANCE_ID.source;
const LOCAL_ID = /^[A-Za-z0-9._~-]{1,64}$/;
const B64URL_KEY = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** The base64url key's pattern, for request schemas. */
export const B64URL_KEY_PATTERN = B64URL_KEY.source;

/** An instance id: lower-case letters, digits, dots and dashes, up to 63. */
export function isInstanceId(s: string): boolean {
  return INSTANCE_ID.test(s);
}

/** A local id inside a gid: 1-64 of `A-Z a-z 0-9 . _ ~ -` (no colon). Never a callsign or other personal data. */
export function isLocalId(s: string): boolean {
  return LOCAL_ID.test(s);
}

/** A canonical base64url (no padding) 32-byte key. */
export function isB64urlKey(s: string): boolean {
  return B64URL_KEY.test(s);
}

export interface Gid {
  origin: string;
  kind: GidKind;
  localId: string;
}

/** Parses `origin:kind:localid`; null when it is not one. */
export function parseGid(gid: string): Gid | null {
  if (gid.length > 200) return null;
  const a = gid.indexOf(":");
  const b = gid.indexOf(":", a + 1);
  if (a < 1 || b < 0) return null;
  const origin = gid.slice(0, a);
  const kind = gid.slice(a + 1, b) as GidKind;
  const localId = gid.slice(b + 1);
  if (!isInstanceId(origin) || !GID_KINDS.includes(kind) || !isLocalId(localId)) return null;
  return { origin, kind, localId };
}

export function makeGid(origin: string, kind: GidKind, localId: string | number): string {
  const gid = `${origin}:${kind}:${localId}`;
  if (!parseGid(gid)) throw new RecordError("bad_gid", `"${gid}" is not a valid gid (origin:kind:localid)`);
  return gid;
}

export type Body = Record<string, CborValue>;

export interface Payload {
  type: RecordType;
  gid: string;
  origin: string;
  /** per-gid version, 1 and up */
  v: number;
  /** signing time, unix seconds */
  at: number;
  /** the origin's instance id, or a callsign */
  signer: string;
  body: Body;
}

export interface Frame {
  /** the payload bytes exactly as signed */
  payload: Uint8Array;
  /** base64url of the raw Ed25519 public key */
  signerKey: string;
  sig: Uint8Array;
}

/** Error codes: the CBOR ones (cbor.ts), and these. */
export type RecordErrorCode = "bad_frame" | "bad_payload" | "bad_gid" | "bad_signer" | "unknown_type" | VerifyVerdict | CborError["code"];

export class RecordError extends Error {
  override name = "RecordError";
  constructor(
    readonly code: RecordErrorCode | string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_FRAME_BYTES = 64 * 1024;
const LIMITS = { maxBytes: MAX_FRAME_BYTES, maxDepth: 8, textMaps: "object" } as const;

function decodeStrict(bytes: Uint8Array, what: string): CborValue {
  try {
    return decodeCbor(bytes, LIMITS);
  } catch (e) {
    if (e instanceof CborError) throw new RecordError(e.code, `${what}: ${e.message}`);
    throw e;
  }
}

/**
 * The values of keys 1..n of a map that must have exactly n keys (a frame, a
 * payload): index k-1 holds key k's value (undefined when the key is not
 * there). Throws RecordError.
 */
function decodeKeyedStrict(bytes: Uint8Array, n: number, what: string, shapeCode: "bad_frame" | "bad_payload"): Array<CborValue | undefined> {
  let kv: Array<CborValue | undefined> | null;
  try {
    // Nearly always the keys are exactly 1..n in order: read their values without building a Map.
    kv = decodeKeyed(bytes, n, LIMITS);
  } catch (e) {
    if (e instanceof CborError) throw new RecordError(e.code, `${what}: ${e.message}`);
    throw e;
  }
  if (kv) return kv;
  // Anything else takes the general decoder, for its value or its precise error.
  const m = decodeStrict(bytes, what);
  if (!(m instanceof Map) || m.size !== n) throw new RecordError(shapeCode, `a ${what} is a map of exactly the keys 1-${n}`);
  kv = new Array(n);
  for (let k = 1; k <= n; k++) kv[k - 1] = m.get(k);
  return kv;
}

function isSigner(s: string): boolean {
  return isInstanceId(s) || (isCallsign(s) && s === normalizeCall(s));
}

/** A payload as its CBOR map of integer keys 1-7 (type, gid, origin, v, at, signer, body), before encoding. */
export function payloadMap(p: Payload): Map<number, CborValue> {
  return new Map<number, CborValue>([
    [1, p.type],
    [2, p.gid],
    [3, p.origin],
    [4, p.v],
    [5, p.at],
    [6, p.signer],
    [7, p.body as never],
  ]);
}

/** Encodes a payload, checking its shape; throws RecordError. */
export function encodePayload(p: Payload): Uint8Array {
  if (!KIND_OF_TYPE[p.type]) throw new RecordError("bad_payload", `type ${p.type} is not a known record type (1-9)`);
  if (!parseGid(p.gid)) throw new RecordError("bad_gid", `"${p.gid}" is not a valid gid`);
  if (!isInstanceId(p.origin)) throw new RecordError("bad_payload", `origin "${p.origin}" is not an instance id`);
  if (!Number.isSafeInteger(p.v) || p.v < 1) throw new RecordError("bad_payload", "v must be a positive integer");
  if (!Number.isSafeInteger(p.at) || p.at < 0) throw new RecordError("bad_payload", "at must be unix seconds");
  if (!isSigner(p.signer)) throw new RecordError("bad_signer", `signer "${p.signer}" is neither an instance id nor a callsign`);
  try {
    return encodeCbor(payloadMap(p), { maxDepth: LIMITS.maxDepth });
  } catch (e) {
    if (e instanceof CborError) throw new RecordError(e.code, `body: ${e.message}`);
    throw e;
  }
}

/** Strictly decodes and shape-checks payload bytes; throws RecordError. */
export function decodePayload(bytes: Uint8Array): Payload {
  const [type, gid, origin, v, at, signer, body] = decodeKeyedStrict(bytes, 7, "payload", "bad_payload");
  // a well-formed type a later version added: not an error, the apply pipeline skips it
  if (typeof type === "number" && Number.isSafeInteger(type) && type > 9 && type < 2 ** 32)
    throw new RecordError("unknown_type", `record type ${type} is not one this version knows (1-9)`);
  if (typeof type !== "number" || !KIND_OF_TYPE[type]) throw new RecordError("bad_payload", "payload key 1 (type) must be a known record type (1-9)");
  if (typeof gid !== "string") throw new RecordError("bad_gid", "payload key 2 (gid) must be text");
  if (!parseGid(gid)) throw new RecordError("bad_gid", `"${gid}" is not a valid gid (origin:kind:localid)`);
  if (typeof origin !== "string" || !isInstanceId(origin)) throw new RecordError("bad_payload", "payload key 3 (origin) must be an instance id");
  if (typeof v !== "number" || v < 1) throw new RecordError("bad_payload", "payload key 4 (v) must be a positive integer");
  if (typeof at !== "number" || at < 0) throw new RecordError("bad_payload", "payload key 5 (at) must be unix seconds");
  if (typeof signer !== "string" || !isSigner(signer)) throw new RecordError("bad_signer", "payload key 6 (signer) must be an instance id or a callsign");
  // Text-keyed maps decode to plain objects; an empty map stays a Map.
  let obj: Body;
  if (body instanceof Map) {
    if (body.size > 0) throw new RecordError("bad_payload", "body keys must be text");
    obj = {};
  } else if (body !== null && typeof body === "object" && !Array.isArray(body) && !(body instanceof Uint8Array)) obj = body;
  else throw new RecordError("bad_payload", "payload key 7 (body) must be a map");
  return { type: type as RecordType, gid, origin, v, at, signer, body: obj };
}

export function encodeFrame(f: Frame): Uint8Array {
  return encodeCbor(
    new Map<number, CborValue>([
      [1, f.payload],
      [2, f.signerKey],
      [3, f.sig],
    ]),
  );
}

/** Strictly decodes frame bytes (not the payload inside); throws RecordError. */
export function decodeFrame(bytes: Uint8Array): Frame {
  if (bytes.length > MAX_FRAME_BYTES) throw new RecordError("too_large", `a frame is at most ${MAX_FRAME_BYTES} bytes`);
  const [payload, signerKey, sig] = decodeKeyedStrict(bytes, 3, "frame", "bad_frame");
  if (!(payload instanceof Uint8Array)) throw new RecordError("bad_frame", "frame key 1 (payload) must be a byte string");
  if (typeof signerKey !== "string" || !isB64urlKey(signerKey)) throw new RecordError("bad_frame", "frame key 2 (signerKey) must be a base64url 32-byte key");
  if (!(sig instanceof Uint8Array) || sig.length !== 64) throw new RecordError("bad_frame", "frame key 3 (sig) must be 64 bytes");
  return { payload, signerKey, sig };
}

/** "svc-fed/1\n" followed by the payload bytes. */
export function signedBytes(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(SIGNING_PREFIX.length + payload.length);
  out.set(SIGNING_PREFIX, 0);
  out.set(payload, SIGNING_PREFIX.length);
  return out;
}

/** What signs frames: an instance's key (keys.ts `instanceSigner`). */
export interface Signer {
  /** base64url public key */
  readonly publicKey: string;
  sign(message: Uint8Array): Uint8Array;
}

/** Signs payload bytes into frame bytes. */
export function signFrame(payload: Uint8Array, signer: Signer): Uint8Array {
  return encodeFrame({ payload, signerKey: signer.publicKey, sig: signer.sign(signedBytes(payload)) });
}

/** The rule's verdict on a frame under its own signerKey (sync on node:crypto). */
export function verifyFrame(frame: Frame, path?: Ed25519Path): VerifyVerdict | Promise<VerifyVerdict> {
  return verifyEd25519(keyBytes(frame.signerKey), signedBytes(frame.payload), frame.sig, path);
}

export function keyBytes(b64url: string): Uint8Array {
  return Buffer.from(b64url, "base64url");
}

export type Opened = { ok: true; frame: Frame; payload: Payload } | { ok: false; code: string; message: string; frame?: Frame; payload?: Payload };

/**
 * Decodes a frame, checks its signature against the frame's own signerKey and
 * decodes the payload: what `svc-gateway frame verify` does. Whether that key
 * belongs to the origin is the apply pipeline's question, not this one's.
 */
export async function openFrame(bytes: Uint8Array, path?: Ed25519Path): Promise<Opened> {
  let frame: Frame;
  let payload: Payload;
  try {
    frame = decodeFrame(bytes);
  } catch (e) {
    if (e instanceof RecordError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
  try {
    payload = decodePayload(frame.payload);
  } catch (e) {
    if (e instanceof RecordError) return { ok: false, code: e.code, message: e.message, frame };
    throw e;
  }
  const verdict = await verifyFrame(frame, path);
  if (verdict !== "ok") return { ok: false, code: verdict, message: `signature check failed: ${verdict}`, frame, payload };
  return { ok: true, frame, payload };
}

/** A payload as JSON for people (cborToJson for the body; times as on the wire, seconds). */
export function payloadJson(p: Payload): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p.body)) body[k] = cborToJson(v);
  return { type: p.type, kind: KIND_OF_TYPE[p.type], gid: p.gid, origin: p.origin, v: p.v, at: p.at, signer: p.signer, body };
}

/** The local id of an instance's presence record trimmed for SVCB1 beacons (`<instance>:peer:beacon`). */
export const BEACON_LOCAL_ID = "beacon";
/** The local id of an instance's have-list, its beacon-tier summary of what its feeds hold (`<instance>:peer:have`). */
export const HAVE_LOCAL_ID = "have";
