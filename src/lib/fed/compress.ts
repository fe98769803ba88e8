/**
 * Page compression negotiated by the link capabilities (caps.ts): `none`, or
 * `deflateDict1`, raw DEFLATE (RFC 1951) with the fixed preset dictionary
 * below, which holds the CBOR bytes that recur in every sync page (body
 * field names, common values, gid parts). The dictionary is part of the wire
 * format: it never changes; a different one would be `deflateDict2`.
 *
 * Decompression is bounded: output beyond `maxBytes` is refused, so a small
 * hostile input cannot inflate into memory without limit.
 *
 * @example
 *   const wire = compressPage(pageBytes, link.compression);
 *   const page = decompressPage(wire, link.compression);  // throws RecordError("bad_compression")
 */
import { deflate } from "../builtins.ts";
import { concatBytes } from "../net/bytes.ts";
import { encodeCbor } from "./cbor.ts";
import { MAX_PAGE_BYTES } from "./page.ts";
import { RecordError } from "./record.ts";
import type { Compression } from "./caps.ts";

/** The media type of a sync page compressed with deflateDict1 (GET /federation/sync/:type?compress=deflateDict1). */
export const DEFLATE_DICT1_TYPE = "application/vnd.svc.page+deflatedict1";

// Least frequent first: DEFLATE reaches the end of the dictionary with the shortest distances.
const DICT1_WORDS = [
  "svc-fed/1",
  "https://",
  ".ampr.org",
  "ampr:",
  "ax25:",
  "netrom:",
  "bbs:",
  "sync-cbor",
  "endpoints",
  "caps",
  "instance",
  "SVCFED",
  "ALL",
  "category",
  "area",
  "subject",
  "bid",
  "postedAt",
  "from",
  "to",
  "revokedAt",
  "createdAt",
  "key",
  ":key:",
  ":bulletin:",
  ":account-move:",
  ":peer:",
  "letterbox",
  "virtual",
  "event",
  "audio",
  "living",
  "earth",
  "webcam",
  "other",
  "large",
  "none",
  "archived",
  "disabled",
  "withdrawn",
  "dnf",
  "note",
  "distanceCm",
  "state",
  "tier",
  "text",
  "account",
  "call",
  "loggedAt",
  "kind",
  "cache",
  "find",
  ":find:",
  "multi",
  "mystery",
  "micro",
  "regular",
  "small",
  "traditional",
  "active",
  "placedAt",
  "ownerAccount",
  "ownerCall",
  "unlisted",
  "description",
  "hint",
  "status",
  "lonE7",
  "latE7",
  "terrainX10",
  "difficultyX10",
  "size",
  "type",
  "name",
  ":account:",
  ":cache:",
];

/** The deflateDict1 preset dictionary: each word as a CBOR text item, concatenated. */
export const DEFLATE_DICT1: Uint8Array = concatBytes(DICT1_WORDS.map((w) => encodeCbor(w)));

export function compressPage(bytes: Uint8Array, c: Compression): Uint8Array {
  if (c === "none") return bytes;
  return deflate().deflateSync(bytes, { level: 6, dictionary: DEFLATE_DICT1 });
}

/** Inflates a page; throws RecordError("bad_compression") on corrupt input or output over maxBytes. */
export function decompressPage(bytes: Uint8Array, c: Compression, maxBytes = MAX_PAGE_BYTES): Uint8Array {
  if (c === "none") return bytes;
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const inf = new (deflate().Inflate)({ dictionary: DEFLATE_DICT1 });
  inf.ondata = (chunk, final) => {
    total += chunk.length;
    if (total > maxBytes) throw new RecordError("bad_compression", `the page inflates beyond ${maxBytes} bytes`);
    chunks.push(chunk);
    if (final) done = true;
  };
  try {
    inf.push(bytes, true);
  } catch (e) {
    if (e instanceof RecordError) throw e;
    throw new RecordError("bad_compression", `the page does not inflate: ${(e as Error).message}`);
  }
  if (!done) throw new RecordError("bad_compression", "the compressed page is truncated");
  const out = new Uint8Array(total);
  let o = 0;
  for (const ch of chunks) {
    out.set(ch, o);
    o += ch.length;
  }
  return out;
}
