/**
 * Deterministic CBOR for signed records (RFC 8949 section 4.2.1, "core
 * deterministic encoding"), and a strict decoder that accepts only bytes that
 * are exactly what the encoder would write. Both sides of a signature must
 * agree on the bytes, so there is one encoding of each value and nothing else
 * decodes.
 *
 * Values: integers (a `number` when it is a safe integer, else a `bigint`,
 * down to -2^64 and up to 2^64-1), byte strings (`Uint8Array`), text
 * (`string`, well-formed Unicode), arrays, maps, `true`, `false`, `null`.
 * Map keys are integers or text only. Maps decode to `Map`; the encoder also
 * takes plain objects (text keys, `undefined` members left out).
 *
 * Refused, each with a typed `CborError` code: floats, tags, `undefined` and
 * other simple values, indefinite lengths, reserved additional-information
 * values, non-shortest integer or length heads, unsorted or duplicate map
 * keys, keys that are neither integers nor text, invalid UTF-8, trailing
 * bytes, truncation, nesting deeper than `maxDepth`, and inputs or strings
 * larger than `maxBytes`.
 *
 * Decoded byte strings are views into the input (no copy): keep the input
 * alive and unchanged while you use them.
 *
 * @example
 *   const bytes = encodeCbor(new Map([[1, "a"], [2, new Uint8Array([1])]]));
 *   decodeCbor(bytes) // Map { 1 => "a", 2 => Uint8Array [1] }
 */

export type CborKey = number | bigint | string;
export type CborValue = number | bigint | string | Uint8Array | boolean | null | CborValue[] | CborMap | CborObject;
export type CborMap = Map<CborKey, CborValue>;
/** A text-keyed map, when decoded with `textMaps: "object"`. */
export interface CborObject {
  [key: string]: CborValue;
}

/** What the encoder takes: decoded values plus plain objects (text keys). */
export type CborInput =
  | number
  | bigint
  | string
  | Uint8Array
  | boolean
  | null
  | readonly CborInput[]
  | ReadonlyMap<CborKey, CborInput>
  | { readonly [key: string]: CborInput | undefined };

export type CborErrorCode =
  | "truncated"
  | "trailing_bytes"
  | "non_shortest"
  | "indefinite_length"
  | "reserved"
  | "float"
  | "tag"
  | "simple_value"
  | "unsorted_keys"
  | "duplicate_key"
  | "bad_key_type"
  | "invalid_utf8"
  | "too_deep"
  | "too_large"
  | "not_encodable";

export class CborError extends Error {
  override name = "CborError";
  constructor(
    readonly code: CborErrorCode,
    message: string,
    /** byte offset of the problem (decoder), -1 for the encoder */
    readonly offset = -1,
  ) {
    super(message);
  }
}

export interface DecodeOptions extends CborLimits {
  /**
   * "object": a map whose keys are text decodes to a plain object instead of
   * a Map (canonical order puts integer keys first, so a map whose first key
   * is text has only text keys). Record bodies are read this way.
   */
  textMaps?: "map" | "object";
}

export interface CborLimits {
  /** deepest nesting of arrays and maps (default 16) */
  maxDepth?: number;
  /** largest input, string or container length accepted (default 16 MiB) */
  maxBytes?: number;
}

const DEFAULT_MAX_DEPTH = 16;
const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

const TWO_32 = 0x1_0000_0000;
const MAX_U64 = (1n << 64n) - 1n;
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();
// ASCII text is its own Latin-1: read it with Buffer's latin1Slice (no view, no
// UTF-8 validation to run), or the UTF-8 decoder where a runtime lacks it.
const latin1Slice: (this: Uint8Array, start: number, end: number) => string =
  (globalThis.Buffer?.prototype as unknown as { latin1Slice?: (this: Uint8Array, start: number, end: number) => string } | undefined)?.latin1Slice ??
  function (this: Uint8Array, start: number, end: number) {
    return utf8Decoder.decode(this.subarray(start, end));
  };

// ---------------------------------------------------------------- decoding

const SHORT_TEXT = 48;
const TEXT_CACHE_SIZE = 1024;
const textCache: Array<string | undefined> = new Array(TEXT_CACHE_SIZE);

/** Decodes exactly-canonical CBOR; throws CborError for anything else. */
export function decodeCbor(bytes: Uint8Array, limits: DecodeOptions = {}): CborValue {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  if (bytes.length > maxBytes) throw new CborError("too_large", `input of ${bytes.length} bytes is over the ${maxBytes}-byte limit`, 0);
  if (bytes.length === 0) throw new CborError("truncated", "empty input", 0);
  const d = new Decoder(bytes, limits.maxDepth ?? DEFAULT_MAX_DEPTH, maxBytes, limits.textMaps === "object");
  const value = d.item(0);
  if (d.pos !== bytes.length) throw new CborError("trailing_bytes", `${bytes.length - d.pos} bytes after the value`, d.pos);
  return value;
}

/**
 * The values of a map whose keys are exactly the integers 1..n (n < 24), in
 * that order: what decodeCbor would return as a Map, as an array (index k-1
 * holds key k), without building the Map. Null when the bytes are anything
 * else (other keys, a different count, trailing bytes, ...): decode them with
 * decodeCbor then, for the value or the precise error. A value that is not
 * exactly canonical throws the CborError decodeCbor would.
 */
export function decodeKeyed(bytes: Uint8Array, n: number, limits: DecodeOptions = {}): CborValue[] | null {
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = limits.maxDepth ?? DEFAULT_MAX_DEPTH;
  // A map head of n entries, room for them, and depth for their values.
  if (bytes.length > maxBytes || bytes.length < 1 + 2 * n || bytes[0] !== (0xa0 | n) || n >= 24 || maxDepth < 1) return null;
  const d = new Decoder(bytes, maxDepth, maxBytes, limits.textMaps === "object");
  d.pos = 1;
  const out: CborValue[] = new Array(n);
  for (let k = 1; k <= n; k++) {
    if (d.pos >= bytes.length || bytes[d.pos] !== k) return null;
    d.pos++;
    out[k - 1] = d.item(1);
  }
  return d.pos === bytes.length ? out : null;
}

/** decodeCbor without throwing: `{ ok, value }` or `{ ok: false, error }`. */
export function tryDecodeCbor(bytes: Uint8Array, limits?: DecodeOptions): { ok: true; value: CborValue } | { ok: false; error: CborError } {
  try {
    return { ok: true, value: decodeCbor(bytes, limits) };
  } catch (e) {
    if (e instanceof CborError) return { ok: false, error: e };
    throw e;
  }
}

class Decoder {
  pos = 0;
  big = 0n;
  constructor(
    readonly b: Uint8Array,
    readonly maxDepth: number,
    readonly maxBytes: number,
    readonly objects: boolean,
  ) {}

  fail(code: CborErrorCode, message: string, at = this.pos): never {
    throw new CborError(code, message, at);
  }

  /**
   * The head's argument, shortest form enforced. Up to 2^53-1 it is the
   * number returned; above, -1 is returned and the value is in `big`.
   */
  arg(ai: number, start: number): number {
    const b = this.b;
    if (ai < 24) return ai;
    const p = this.pos;
    let v: number;
    switch (ai) {
      case 24:
        if (p + 1 > b.length) this.truncated(1);
        v = b[p]!;
        this.pos = p + 1;
        if (v < 24) this.fail("non_shortest", `${v} written in 2 bytes`, start);
        return v;
      case 25:
        if (p + 2 > b.length) this.truncated(2);
        v = (b[p]! << 8) | b[p + 1]!;
        this.pos = p + 2;
        if (v < 0x100) this.fail("non_shortest", `${v} written in 3 bytes`, start);
        return v;
      case 26:
        if (p + 4 > b.length) this.truncated(4);
        v = b[p]! * 0x100_0000 + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
        this.pos = p + 4;
        if (v < 0x1_0000) this.fail("non_shortest", `${v} written in 5 bytes`, start);
        return v;
      case 27: {
        if (p + 8 > b.length) this.truncated(8);
        const hi = b[p]! * 0x100_0000 + ((b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!);
        const lo = b[p + 4]! * 0x100_0000 + ((b[p + 5]! << 16) | (b[p + 6]! << 8) | b[p + 7]!);
        this.pos = p + 8;
        if (hi === 0) this.fail("non_shortest", `${lo} written in 9 bytes`, start);
        if (hi < 0x20_0000) return hi * TWO_32 + lo;
        this.big = (BigInt(hi) << 32n) | BigInt(lo);
        return -1;
      }
      case 31:
        return this.fail("indefinite_length", "indefinite lengths are not allowed", start);
      default:
        return this.fail("reserved", `reserved additional information ${ai}`, start);
    }
  }

  truncated(n: number): never {
    return this.fail("truncated", `needs ${n} more bytes, ${this.b.length - this.pos} left`);
  }

  /** A string length or item count: bounded by the limit and by the bytes left (each item takes at least `unit`). */
  count(ai: number, start: number, unit: number): number {
    const n = ai < 24 ? ai : this.arg(ai, start);
    if (n < 0 || n > this.maxBytes || n * unit > this.b.length - this.pos) this.badCount(n, start);
    return n;
  }

  badCount(n: number, start: number): never {
    if (n < 0 || n > this.maxBytes) this.fail("too_large", `length ${n < 0 ? this.big : n} is over the limit`, start);
    return this.fail("truncated", `length ${n} runs past the end`, start);
  }

  item(depth: number): CborValue {
    const start = this.pos;
    if (start >= this.b.length) this.fail("truncated", "expected a value");
    const ib = this.b[this.pos++]!;
    const major = ib >> 5;
    const ai = ib & 0x1f;
    switch (major) {
      case 0: {
        const n = this.arg(ai, start);
        return n < 0 ? this.big : n;
      }
      case 1: {
        const n = this.arg(ai, start);
        if (n >= 0 && n < Number.MAX_SAFE_INTEGER) return -1 - n;
        return -1n - (n < 0 ? this.big : BigInt(n));
      }
      case 2: {
        const len = this.count(ai, start, 1);
        const out = this.b.subarray(this.pos, this.pos + len);
        this.pos += len;
        return out;
      }
      case 3:
        return this.text(ai, start);
      case 4: {
        if (depth >= this.maxDepth) this.fail("too_deep", `nesting deeper than ${this.maxDepth}`, start);
        const len = this.count(ai, start, 1);
        const out: CborValue[] = new Array(len);
        for (let i = 0; i < len; i++) out[i] = this.item(depth + 1);
        return out;
      }
      case 5:
        return this.map(ai, start, depth);
      case 6:
        return this.fail("tag", "tags are not allowed", start);
      default:
        switch (ai) {
          case 20:
            return false;
          case 21:
            return true;
          case 22:
            return null;
          case 25:
          case 26:
          case 27:
            return this.fail("float", "floating-point numbers are not allowed", start);
          case 28:
          case 29:
          case 30:
            return this.fail("reserved", `reserved additional information ${ai}`, start);
          case 31:
            return this.fail("indefinite_length", "a break outside an indefinite-length item", start);
          default:
            return this.fail("simple_value", `simple value ${ai === 24 ? this.b[this.pos] : ai} is not allowed (only false, true, null)`, start);
        }
    }
  }

  text(ai: number, start: number): string {
    const len = this.count(ai, start, 1);
    const b = this.b;
    const p = this.pos;
    const end = p + len;
    this.pos = end;
    if (len > SHORT_TEXT) {
      for (let i = p; i < end; i++) if (b[i]! >= 0x80) return this.utf8(p, len, start);
      return latin1Slice.call(b, p, end);
    }
    // Short ASCII text (every map key, many values) repeats from record to
    // record: hand back the same string object, already hashed for use as a key.
    let h = len;
    let high = 0;
    for (let i = p; i < end; i++) {
      const c = b[i]!;
      high |= c;
      h = Math.imul(h ^ c, 0x01000193);
    }
    if (high >= 0x80) return this.utf8(p, len, start);
    const slot = (h >>> 0) & (TEXT_CACHE_SIZE - 1);
    const cached = textCache[slot];
    if (cached !== undefined && cached.length === len) {
      let i = 0;
      while (i < len && cached.charCodeAt(i) === b[p + i]) i++;
      if (i === len) return cached;
    }
    const s: string = latin1Slice.call(b, p, end);
    textCache[slot] = s;
    return s;
  }

  utf8(p: number, len: number, start: number): string {
    try {
      return utf8Decoder.decode(this.b.subarray(p, p + len));
    } catch {
      return this.fail("invalid_utf8", "text is not valid UTF-8", start);
    }
  }

  /** A map; with `objects`, a text-keyed one as a plain object (canonical order puts integer keys first). */
  map(ai: number, start: number, depth: number): CborMap | CborObject {
    if (depth >= this.maxDepth) this.fail("too_deep", `nesting deeper than ${this.maxDepth}`, start);
    const len = this.count(ai, start, 2);
    const b = this.b;
    const asObject = this.objects && len > 0 && b[this.pos]! >> 5 === 3;
    const map: CborMap | null = asObject ? null : new Map();
    const obj: CborObject | null = asObject ? {} : null;
    let prevStart = -1;
    let prevEnd = -1;
    for (let i = 0; i < len; i++) {
      const keyStart = this.pos;
      if (keyStart >= b.length) this.fail("truncated", "expected a map key");
      const kmajor = b[keyStart]! >> 5;
      if (kmajor !== 0 && kmajor !== 1 && kmajor !== 3) this.fail("bad_key_type", "map keys must be integers or text", keyStart);
      const key = this.item(depth + 1) as CborKey;
      const keyEnd = this.pos;
      if (prevStart >= 0) {
        const c = compareRanges(b, prevStart, prevEnd, keyStart, keyEnd);
        if (c === 0) this.fail("duplicate_key", `duplicate map key ${String(key)}`, keyStart);
        if (c > 0) this.fail("unsorted_keys", `map key ${String(key)} is out of order`, keyStart);
      }
      prevStart = keyStart;
      prevEnd = keyEnd;
      const value = this.item(depth + 1);
      if (map) map.set(key, value);
      // An own data property even for "__proto__" (assignment would set the prototype).
      else if (key === "__proto__") Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
      else obj![key as string] = value;
    }
    return map ?? obj!;
  }
}

function compareRanges(b: Uint8Array, aStart: number, aEnd: number, cStart: number, cEnd: number): number {
  const aLen = aEnd - aStart;
  const cLen = cEnd - cStart;
  const n = Math.min(aLen, cLen);
  for (let i = 0; i < n; i++) {
    const d = b[aStart + i]! - b[cStart + i]!;
    if (d !== 0) return d;
  }
  return aLen - cLen;
}

function compareBytes(a: Uint8Array, c: Uint8Array): number {
  const n = Math.min(a.length, c.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]! - c[i]!;
    if (d !== 0) return d;
  }
  return a.length - c.length;
}

// ---------------------------------------------------------------- encoding

/** Encodes deterministically; throws CborError("not_encodable"/"too_deep") for what CBOR here cannot carry. */
export function encodeCbor(value: CborInput, limits: Pick<CborLimits, "maxDepth"> = {}): Uint8Array {
  const e = new Encoder(limits.maxDepth ?? DEFAULT_MAX_DEPTH);
  e.value(value, 0);
  return e.buf.slice(0, e.pos);
}

// Encoded text keys repeat (body field names): keep their encodings.
const keyCache = new Map<string, Uint8Array>();
const KEY_CACHE_MAX = 4096;

class Encoder {
  buf = new Uint8Array(256);
  view = new DataView(this.buf.buffer);
  pos = 0;
  constructor(readonly maxDepth: number) {}

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  head(major: number, n: number): void {
    this.ensure(9);
    const m = major << 5;
    const b = this.buf;
    if (n < 24) b[this.pos++] = m | n;
    else if (n < 0x100) {
      b[this.pos++] = m | 24;
      b[this.pos++] = n;
    } else if (n < 0x1_0000) {
      b[this.pos++] = m | 25;
      this.view.setUint16(this.pos, n);
      this.pos += 2;
    } else if (n < TWO_32) {
      b[this.pos++] = m | 26;
      this.view.setUint32(this.pos, n);
      this.pos += 4;
    } else {
      b[this.pos++] = m | 27;
      this.view.setUint32(this.pos, Math.floor(n / TWO_32));
      this.view.setUint32(this.pos + 4, n >>> 0);
      this.pos += 8;
    }
  }

  bigHead(major: number, n: bigint): void {
    if (n <= BigInt(Number.MAX_SAFE_INTEGER)) return this.head(major, Number(n));
    this.ensure(9);
    this.buf[this.pos++] = (major << 5) | 27;
    this.view.setBigUint64(this.pos, n);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  text(s: string): void {
    if (!s.isWellFormed()) throw new CborError("not_encodable", "text with a lone surrogate is not valid Unicode");
    if (s.length <= 64 && isAscii(s)) {
      this.head(3, s.length);
      this.ensure(s.length);
      for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
      return;
    }
    const encoded = utf8Encoder.encode(s);
    this.head(3, encoded.length);
    this.bytes(encoded);
  }

  value(v: CborInput, depth: number): void {
    switch (typeof v) {
      case "number":
        if (!Number.isSafeInteger(v)) throw new CborError("not_encodable", `${v} is not a safe integer (floats are not allowed)`);
        if (v >= 0) this.head(0, v);
        else this.head(1, -1 - v);
        return;
      case "bigint":
        if (v >= 0n) {
          if (v > MAX_U64) throw new CborError("not_encodable", `${v} is larger than 2^64-1`);
          this.bigHead(0, v);
        } else {
          if (v < -MAX_U64 - 1n) throw new CborError("not_encodable", `${v} is smaller than -2^64`);
          this.bigHead(1, -1n - v);
        }
        return;
      case "string":
        this.text(v);
        return;
      case "boolean":
        this.ensure(1);
        this.buf[this.pos++] = v ? 0xf5 : 0xf4;
        return;
      case "object":
        break;
      default:
        throw new CborError("not_encodable", `a ${typeof v} cannot be encoded`);
    }
    if (v === null) {
      this.ensure(1);
      this.buf[this.pos++] = 0xf6;
      return;
    }
    if (v instanceof Uint8Array) {
      this.head(2, v.length);
      this.bytes(v);
      return;
    }
    if (depth >= this.maxDepth) throw new CborError("too_deep", `nesting deeper than ${this.maxDepth}`);
    if (Array.isArray(v)) {
      this.head(4, v.length);
      for (const x of v as readonly CborInput[]) this.value(x, depth + 1);
      return;
    }
    if (v instanceof Map) {
      const entries: Array<[Uint8Array, CborInput]> = [];
      for (const [k, x] of v as ReadonlyMap<CborKey, CborInput>) entries.push([encodeKey(k), x]);
      this.entries(entries, depth);
      return;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw new CborError("not_encodable", `a ${proto?.constructor?.name ?? "object"} cannot be encoded`);
    const entries: Array<[Uint8Array, CborInput]> = [];
    for (const k in v as Record<string, CborInput | undefined>) {
      if (!Object.hasOwn(v, k)) continue;
      const x = (v as Record<string, CborInput | undefined>)[k];
      if (x === undefined) continue;
      entries.push([encodeKey(k), x]);
    }
    this.entries(entries, depth);
  }

  entries(entries: Array<[Uint8Array, CborInput]>, depth: number): void {
    if (entries.length > 1) {
      entries.sort((a, b) => compareBytes(a[0], b[0]));
      for (let i = 1; i < entries.length; i++) {
        if (compareBytes(entries[i - 1]![0], entries[i]![0]) === 0) throw new CborError("not_encodable", "two map keys encode to the same bytes");
      }
    }
    this.head(5, entries.length);
    for (const [k, x] of entries) {
      this.bytes(k);
      this.value(x, depth + 1);
    }
  }
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

function encodeKey(k: CborKey): Uint8Array {
  if (typeof k === "string") {
    let cached = keyCache.get(k);
    if (!cached) {
      const e = new Encoder(1);
      e.text(k);
      cached = e.buf.slice(0, e.pos);
      if (k.length <= 64 && keyCache.size < KEY_CACHE_MAX) keyCache.set(k, cached);
    }
    return cached;
  }
  if (typeof k !== "number" && typeof k !== "bigint") throw new CborError("not_encodable", "map keys must be integers or text");
  const e = new Encoder(1);
  e.value(k, 0);
  return e.buf.slice(0, e.pos);
}

// ---------------------------------------------------------------- helpers

/**
 * A decoded value as JSON-safe data for people and logs: byte strings become
 * `{ "$bytes": base64url }`, big integers decimal strings, maps objects
 * (integer keys as their decimal text).
 */
export function cborToJson(v: CborValue): unknown {
  if (v instanceof Uint8Array) return { $bytes: Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64url") };
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map(cborToJson);
  if (v instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v) out[String(k)] = cborToJson(x);
    return out;
  }
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = cborToJson(v[k]!);
    return out;
  }
  return v;
}
