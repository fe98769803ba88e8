/**
 * SVCFED: signed federation records carried as BBS bulletins (store and
 * forward over FBB), docs/protocol.md "SVCFED bulletins".
 *
 * Sending (`POST /federation/bbs/enqueue`): the local feed's signed frames
 * (oldest first from a cursor, cut to `limit` and to what one bulletin of
 * BBS_MAX_MESSAGE_BYTES holds) go into a sync page, tombstones first; the
 * page is the payload, written as base64url lines under a header and stored
 * as a bulletin `SVCFED@WW` through the BBS's storeMessage, so the forwarding
 * rules, pool and partner scheduler carry it like any bulletin. Its BID is
 * derived from the 64-bit FNV-1a of the payload: the same snapshot makes the
 * same BID, and a BID this BBS knows is never posted twice.
 *
 * Receiving: registered per gateway with setSvcfedReceiver(), so every
 * SVCFED bulletin arriving from elsewhere (an FBB partner, the box's inbound
 * API) is decoded while the BBS stores it; its BID is re-derived and its
 * frames go through the one apply pipeline in the storing transaction. A
 * truncated, altered or undecodable body, a BID that is not the content's,
 * a frame of another origin than the header's or one the pipeline rejects:
 * the bulletin is refused whole (nothing applied, nothing stored, its BID
 * not taken).
 *
 *   const body = encodeSvcfedBody("gw1", pageBytes, frameCount); // { text, bid, fnv }
 *   const d = decodeSvcfedBody(text);                             // throws SvcfedError
 */
import { t } from "elysia";
import type { Static } from "@sinclair/typebox";
import type { Core } from "../../core/core.ts";
import { AppError, unprocessable } from "../../lib/errors.ts";
import { closed, wholeNumber } from "../../lib/schema.ts";
import { SVCFED_CATEGORY } from "../../bbs/address.ts";
import { bbsIdentity } from "../../bbs/identity.ts";
import { bidKnown, outcomeError, storeMessage } from "../../bbs/messages.ts";
import { setSvcfedReceiver, type SvcfedBulletin } from "../../bbs/svcfed.ts";
import { routeLine } from "../../bbs/text.ts";
import { applyFramesSync, type ApplyReport } from "../apply.ts";
import type { EnqueueResult } from "../shapes.ts";
import { DEFAULT_PAGE_LIMIT, instanceSigner, MAX_PAGE_LIMIT } from "../feed.ts";
import { decodePage, encodePage } from "../../lib/fed/page.ts";
import { decodeFrame, decodePayload, isInstanceId, KIND_OF_TYPE, RECORD_TYPES, RecordError, SYNC_KINDS, type SyncKind } from "../../lib/fed/record.ts";

const SVCFED_MAGIC = "SVCFED";
const SVCFED_VERSION = 1;
/** Columns of a base64url line (MIME's 76: under every BBS's line limit). */
const SVCFED_COLUMNS = 76;
/** The distribution area SVCFED bulletins are addressed to. */
const SVCFED_AT = "WW";
const END_LINE = `${SVCFED_MAGIC} END`;

// ---- FNV-1a 64 and the BID ----

/**
 * 64-bit FNV-1a, as 16 lower-case hex digits: `fnv1a64Hex(bytes("a"))` is
 * "af63dc4c8601ec8c". Four 16-bit limbs: exact, and no BigInt per byte.
 */
export function fnv1a64Hex(bytes: Uint8Array): string {
  // offset basis cbf29ce484222325, least significant limb first
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < bytes.length; i++) {
    h0 ^= bytes[i]!;
    // times the prime 0x100000001b3 = 2^40 + 0x1b3, mod 2^64
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  }
  const hex = (n: number) => n.toString(16).padStart(4, "0");
  return hex(h3) + hex(h2) + hex(h1) + hex(h0);
}

/**
 * The BID of an SVCFED bulletin from its payload's FNV-1a 64 (hex): the top
 * 62 bits in base 36 (0-9 A-Z), zero-padded to 12 characters, FBB's BID
 * limit (36^12 > 2^62): `svcfedBid("cbf29ce484222325")` (the empty payload) is "RWVMMHVS7QA1".
 */
export function svcfedBid(fnvHex: string): string {
  return (BigInt("0x" + fnvHex) >> 2n).toString(36).toUpperCase().padStart(12, "0");
}

// ---- the body ----

class SvcfedError extends Error {
  override name = "SvcfedError";
  constructor(
    /** not_svcfed | unsupported_version | truncated | altered | undecodable */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface EncodedBody {
  text: string;
  bid: string;
  fnv: string;
}

/**
 * The bulletin body for a payload (a sync page of `frames` frames, all of `origin`):
 *
 *   SVCFED 1 <origin> <frames> <payload bytes> <fnv1a64 hex>
 *   <base64url of the payload, no padding, 76 columns a line>
 *   SVCFED END
 */
export function encodeSvcfedBody(origin: string, payload: Uint8Array, frames: number): EncodedBody {
  const fnv = fnv1a64Hex(payload);
  const b64 = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString("base64url");
  const lines = [`${SVCFED_MAGIC} ${SVCFED_VERSION} ${origin} ${frames} ${payload.length} ${fnv}`];
  for (let i = 0; i < b64.length; i += SVCFED_COLUMNS) lines.push(b64.slice(i, i + SVCFED_COLUMNS));
  lines.push(END_LINE);
  return { text: lines.join("\n") + "\n", bid: svcfedBid(fnv), fnv };
}

export interface DecodedBody {
  origin: string;
  /** the frames of the page, as carried */
  frames: Uint8Array[];
  payload: Uint8Array;
  fnv: string;
  /** the BID re-derived from the payload */
  bid: string;
}

const HEADER = /^SVCFED[ \t]+(\S+)[ \t]+(\S+)[ \t]+(\d{1,6})[ \t]+(\d{1,9})[ \t]+([0-9A-Fa-f]{16})$/;
const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** The largest payload a body may announce: a sync page's limit. */
const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;

/**
 * Reads a body, tolerating what BBSes do to text: CR, CRLF or LF line ends,
 * blanks at either end of a line, blank lines, lines re-wrapped at any width,
 * text before the header line and after the END line. It does not survive a
 * change of letter case. Throws SvcfedError.
 */
export function decodeSvcfedBody(text: string): DecodedBody {
  const lines = text.split(/\r\n|\r|\n/).map((l) => l.trim());
  const isEnd = (l: string) => l.replace(/[ \t]+/g, " ") === END_LINE;
  // the header: the first line that is one, else the first that tries to be
  let start = lines.findIndex((l) => HEADER.test(l));
  if (start < 0) start = lines.findIndex((l) => /^SVCFED[ \t]/.test(l) && !isEnd(l));
  if (start < 0) throw new SvcfedError("not_svcfed", `the body has no "${SVCFED_MAGIC} ${SVCFED_VERSION} ..." header line`);
  const version = lines[start]!.split(/[ \t]+/)[1]!;
  if (version !== String(SVCFED_VERSION))
    throw new SvcfedError("unsupported_version", `SVCFED version ${version.slice(0, 20)} is not supported (this instance reads ${SVCFED_VERSION})`);
  const h = HEADER.exec(lines[start]!);
  if (!h)
    throw new SvcfedError(
      "undecodable",
      `the header line "${lines[start]!.slice(0, 100)}" is not "${SVCFED_MAGIC} ${SVCFED_VERSION} <origin> <frames> <bytes> <fnv1a64>"`,
    );
  const [, , origin, framesRaw, bytesRaw, fnvRaw] = h as unknown as [string, string, string, string, string, string];
  if (!isInstanceId(origin)) throw new SvcfedError("undecodable", `"${origin.slice(0, 80)}" in the header is not an instance id`);
  const frameCount = Number(framesRaw);
  const size = Number(bytesRaw);
  if (size > MAX_PAYLOAD_BYTES) throw new SvcfedError("undecodable", `the header announces ${size} bytes; a payload is at most ${MAX_PAYLOAD_BYTES}`);
  const end = lines.findIndex((l, i) => i > start && isEnd(l));
  if (end < 0) throw new SvcfedError("truncated", `truncated: no "${END_LINE}" line after the data`);
  const data = lines
    .slice(start + 1, end)
    .join("")
    .replace(/\s+/g, "");
  if (!BASE64URL.test(data)) {
    const bad = /[^A-Za-z0-9_-]/.exec(data)!;
    throw new SvcfedError("undecodable", `character ${JSON.stringify(bad[0])} at position ${bad.index} of the data is not base64url`);
  }
  const want = Math.ceil((size * 4) / 3);
  if (data.length < want) throw new SvcfedError("truncated", `truncated: ${Math.floor((data.length * 3) / 4)} of the ${size} bytes the header announces`);
  if (data.length > want) throw new SvcfedError("altered", `the data holds more than the ${size} bytes the header announces`);
  const payload = new Uint8Array(Buffer.from(data, "base64url"));
  const fnv = fnv1a64Hex(payload);
  if (fnv !== fnvRaw.toLowerCase())
    throw new SvcfedError("altered", `the payload's FNV-1a 64 is ${fnv}, the header says ${fnvRaw.toLowerCase()}: the body was altered`);
  let frames: Uint8Array[];
  try {
    frames = decodePage(payload).frames;
  } catch (e) {
    if (e instanceof RecordError) throw new SvcfedError("undecodable", `the payload is not a sync page: ${e.message}`);
    throw e;
  }
  if (frames.length !== frameCount) throw new SvcfedError("altered", `the page holds ${frames.length} frames, the header says ${frameCount}`);
  return { origin, frames, payload, fnv, bid: svcfedBid(fnv) };
}

// ---- sending ----

export interface EnqueueParams {
  types: SyncKind[];
  since: number;
  limit: number;
}

/** A whole number in a JSON body, as a JSON number only (t.Integer would also take the string "5"). */

/** The JSON body of POST /federation/bbs/enqueue (an empty body packs everything from the start). */
export const ENQUEUE_BODY = closed(
  {
    types: t.Optional(
      t.Array(t.Union(SYNC_KINDS.map((k) => t.Literal(k))), {
        minItems: 1,
        description: `record kinds to pack (default all: ${SYNC_KINDS.join(", ")})`,
      }),
    ),
    since: t.Optional(wholeNumber({ minimum: 0, description: "the cursor: 0, or the `next` of a previous answer (default 0)" })),
    limit: t.Optional(wholeNumber({ minimum: 1, maximum: MAX_PAGE_LIMIT, description: `records, 1-${MAX_PAGE_LIMIT} (default ${DEFAULT_PAGE_LIMIT})` })),
  },
  { description: "an empty body packs everything from the start" },
);

/** The body of POST /federation/bbs/enqueue with its defaults. */
export function enqueueParams(b: Static<typeof ENQUEUE_BODY>): EnqueueParams {
  const types = b.types === undefined ? [...SYNC_KINDS] : SYNC_KINDS.filter((k) => b.types!.includes(k));
  return { types, since: b.since ?? 0, limit: b.limit ?? DEFAULT_PAGE_LIMIT };
}

/** Tombstones first, then the pull order (keys before what they sign for, moves before what they re-point). */
const CARRY_ORDER: readonly SyncKind[] = ["tombstone", "key", "account-move", "cache", "find", "bulletin", "trackable", "trackable-move"];

interface Row {
  seq: number;
  type: number;
  frame: Uint8Array;
}

function carryRank(type: number): number {
  return CARRY_ORDER.indexOf(KIND_OF_TYPE[type] as SyncKind);
}

/** The sync page of the first n rows (oldest first by cursor), tombstones first inside. */
function pageOf(rows: Row[], n: number): Uint8Array {
  const chosen = rows.slice(0, n).sort((a, b) => carryRank(a.type) - carryRank(b.type) || a.seq - b.seq);
  // `more` stays false and no instance is named: the payload is exactly these frames, so the same
  // snapshot makes the same bytes (and BID) however much the feed grew after it.
  return encodePage({ frames: chosen.map((r) => r.frame), next: rows[n - 1]!.seq, more: false });
}

/**
 * Packs local feed records into one SVCFED bulletin and stores it as a local
 * bulletin (see the module comment). Throws 404 on an unsigned instance, 413
 * when not even the first record fits BBS_MAX_MESSAGE_BYTES.
 */
export function enqueueSvcfed(gw: Core, params: EnqueueParams): EnqueueResult {
  if (!instanceSigner(gw)) throw new AppError(404, "unsigned", "this instance has no signing key (FED_PRIVATE_KEY), so it has no signed records to carry");
  const origin = gw.config.instance;
  const typeIds = params.types.map((k) => RECORD_TYPES[k]);
  const rows = gw.db
    .query(`SELECT seq, type, frame FROM fed_feed WHERE type IN (${typeIds.map(() => "?").join(",")}) AND seq > ? AND frame IS NOT NULL ORDER BY seq LIMIT ?`)
    .all(...typeIds, params.since, params.limit + 1) as Row[];
  const available = Math.min(rows.length, params.limit);
  const none: EnqueueResult = {
    posted: false,
    reason: "nothing_to_send",
    bid: null,
    id: null,
    frames: 0,
    bytes: 0,
    size: 0,
    next: params.since,
    more: false,
    partners: [],
  };
  if (available === 0) return none;

  // The body must fit with the R: line this BBS puts on top (the longest it can be).
  const me = bbsIdentity(gw.config);
  const max = gw.config.bbsMaxMessageBytes;
  const reserve = me ? routeLine(gw.clock.now(), me.ha, 999_999_999_999, gw.config.instance, "X".repeat(12)).length + 2 : 0;
  const budget = max - reserve;
  const build = (n: number) => {
    const payload = pageOf(rows, n);
    const body = encodeSvcfedBody(origin, payload, n);
    return { n, payload, body, size: body.text.length };
  };
  // The largest n that fits (size grows with n): binary search, up to the most whose
  // frames alone (4/3 in base64) could fit.
  let best = build(1);
  if (best.size > budget) {
    throw new AppError(413, "too_large", `one record alone makes a bulletin of ${best.size + reserve} bytes; BBS_MAX_MESSAGE_BYTES is ${max}`);
  }
  let lo = 1;
  let hi = 0;
  for (let sum = 0; hi < available && ((sum + rows[hi]!.frame.length) * 4) / 3 <= budget; hi++) sum += rows[hi]!.frame.length;
  hi = Math.max(hi, 1);
  if (hi > 1) {
    // mostly all of them fit (a delta, or a small feed): one build
    const all = build(hi);
    if (all.size <= budget) [best, lo] = [all, hi];
  }
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    const b = build(mid);
    if (b.size <= budget) {
      lo = mid;
      best = b;
    } else hi = mid - 1;
  }

  const { bid, text } = best.body;
  const result = {
    bid,
    frames: best.n,
    bytes: best.payload.length,
    size: best.size,
    next: rows[best.n - 1]!.seq,
    more: rows.length > best.n,
  };
  if (bidKnown(gw, bid)) {
    const held = gw.db.query("SELECT id FROM bbs_messages WHERE bid = ? AND killed_at IS NULL").get(bid) as { id: number } | null;
    return { posted: false, reason: "unchanged", id: held?.id ?? null, partners: [], ...result };
  }
  const stored = storeMessage(gw, {
    type: "B",
    bid,
    from: me?.call ?? SVCFED_MAGIC,
    to: SVCFED_CATEGORY,
    at: SVCFED_AT,
    subject: `${SVCFED_MAGIC} ${origin} ${best.n} records`.slice(0, 80),
    body: text,
    route: [],
    origin: "local",
    receivedFrom: null,
  });
  if (!stored.ok) {
    if (stored.code === "duplicate") return { posted: false, reason: "unchanged", id: null, partners: [], ...result };
    throw outcomeError(stored);
  }
  gw.log.info("fed", `SVCFED bulletin ${bid}: ${best.n} records, ${best.payload.length} bytes, up to cursor ${result.next}`);
  return { posted: true, reason: null, id: stored.id, partners: stored.decision.partners.map((p) => p.partner), ...result };
}

// ---- receiving ----

/** What a received SVCFED bulletin did (logged; the BBS answers stored or refused). */
function receiveSvcfedBulletin(gw: Core, b: SvcfedBulletin): ApplyReport {
  let d: DecodedBody;
  try {
    d = decodeSvcfedBody(b.body);
  } catch (e) {
    if (e instanceof SvcfedError) throw unprocessable(`svcfed_${e.code}`, `SVCFED bulletin ${b.bid} refused: ${e.message}`);
    throw e;
  }
  if (d.bid !== b.bid) {
    throw unprocessable("svcfed_bid_mismatch", `SVCFED bulletin ${b.bid} refused: its content makes BID ${d.bid} (forged, or altered on the way)`);
  }
  // One origin per bulletin, the header's: a frame of any other is refused (it would otherwise be
  // quarantined or applied apart from the rest).
  for (let i = 0; i < d.frames.length; i++) {
    let origin: string;
    try {
      origin = decodePayload(decodeFrame(d.frames[i]!).payload).origin;
    } catch {
      continue; // the pipeline refuses it, with its reason
    }
    if (origin !== d.origin)
      throw unprocessable("svcfed_mixed_origins", `SVCFED bulletin ${b.bid} refused: frame ${i} is ${origin}'s, the bulletin carries ${d.origin}'s`);
  }
  const report = applyFramesSync(gw, d.frames, { via: "bbs" });
  if (report.rejected > 0) {
    const f = report.failures[0];
    const first = f ? `; frame ${f.index}${f.gid ? ` (${f.gid})` : ""}: ${f.code}` : "";
    throw unprocessable(
      "svcfed_rejected",
      `SVCFED bulletin ${b.bid} refused whole, nothing applied: ${report.rejected} of ${report.received} frames rejected${first}`,
      {
        reasons: report.reasons,
      },
    );
  }
  gw.log.info(
    "fed",
    `SVCFED bulletin ${b.bid} from ${d.origin}${b.receivedFrom ? ` via ${b.receivedFrom}` : ""}: ${report.applied} applied, ${report.duplicate} duplicate, ${report.suppressed} suppressed, ${report.quarantined} quarantined`,
  );
  return report;
}

/** Registers this gateway's SVCFED receiver with the BBS (at start, once per gateway). */
export function startSvcfed(gw: Core): void {
  setSvcfedReceiver(gw, (_core, b) => void receiveSvcfedBulletin(gw, b));
  gw.onStop(() => setSvcfedReceiver(gw, null));
}
