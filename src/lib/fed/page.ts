/**
 * Sync pages: an unsigned CBOR envelope around signed frames (docs/protocol.md
 * "Sync page"). Each frame is carried as a byte string holding its exact
 * bytes, so a receiver verifies every frame on its own and one bad frame
 * never spoils the others. The envelope's claimed instance is informative
 * only: ingest ignores it.
 *
 *   page = {1: [frame bytes, ...], 2: next cursor, 3: more, 4?: type, 5?: instance}
 */
import { CborError, decodeCbor, encodeCbor, type CborValue } from "./cbor.ts";
import { KIND_OF_TYPE, RecordError } from "./record.ts";

export interface Page {
  frames: Uint8Array[];
  /** cursor to ask for next (since=) */
  next: number;
  /** whether the feed has more after this page */
  more: boolean;
  /** record type of every frame, when the page is one feed's */
  type?: number;
  /** the instance that served the page (informative; ignored on ingest) */
  instance?: string;
}

export const MAX_PAGE_BYTES = 16 * 1024 * 1024;
/** The media type of a sync page. */
export const CBOR_TYPE = "application/cbor";
const MAX_PAGE_FRAMES = 20_000;

export function encodePage(p: Page): Uint8Array {
  const m = new Map<number, CborValue>([
    [1, p.frames],
    [2, p.next],
    [3, p.more],
  ]);
  if (p.type !== undefined) m.set(4, p.type);
  if (p.instance !== undefined) m.set(5, p.instance);
  return encodeCbor(m);
}

/** Decodes a page envelope (not the frames in it); throws RecordError. Unknown envelope keys above 5 are ignored. */
export function decodePage(bytes: Uint8Array): Page {
  let m: CborValue;
  try {
    m = decodeCbor(bytes, { maxBytes: MAX_PAGE_BYTES, maxDepth: 4 });
  } catch (e) {
    if (e instanceof CborError) throw new RecordError(e.code, `page: ${e.message}`);
    throw e;
  }
  if (!(m instanceof Map)) throw new RecordError("bad_page", "a page is a CBOR map");
  const frames = m.get(1);
  const next = m.get(2) ?? 0;
  const more = m.get(3) ?? false;
  const type = m.get(4);
  const instance = m.get(5);
  if (!Array.isArray(frames) || !frames.every((f) => f instanceof Uint8Array))
    throw new RecordError("bad_page", "page key 1 must be a list of frames (byte strings)");
  if (frames.length > MAX_PAGE_FRAMES) throw new RecordError("bad_page", `a page carries at most ${MAX_PAGE_FRAMES} frames`);
  if (typeof next !== "number" || next < 0) throw new RecordError("bad_page", "page key 2 (next) must be a cursor");
  if (typeof more !== "boolean") throw new RecordError("bad_page", "page key 3 (more) must be true or false");
  if (type !== undefined && (typeof type !== "number" || !KIND_OF_TYPE[type]))
    throw new RecordError("bad_page", "page key 4 (type) must be a known record type");
  if (instance !== undefined && typeof instance !== "string") throw new RecordError("bad_page", "page key 5 (instance) must be text");
  return { frames: frames as Uint8Array[], next, more, type: type as number | undefined, instance: instance as string | undefined };
}
