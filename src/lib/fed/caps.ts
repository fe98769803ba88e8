/**
 * Link capabilities (SPEC "Link capability tiers") and the ONE deterministic
 * intersection every sync link uses: HTTP pull sync (the descriptor's `link`
 * against the puller's own) and the SVCL1 circuit greeting (`SVCL1 H
 * <b64(encodeCaps(caps))>`). Both ends compute `intersectCaps(mine, theirs)`
 * and get the same answer whichever end is "mine" (it is commutative and
 * associative), then operator policy may clamp further (`clampCaps`).
 *
 * A capability set says what one end can take:
 *   tier      rate class: full (internet, 44net), compact (VHF 1200/9600),
 *             beacon (HF 300 baud, datagram)
 *   baud      the link's bit rate; 0 = not limited by a radio
 *   mtu       the largest unit in bytes: a page on HTTP, a line on a circuit
 *   batch     the most records in one page
 *   compress  page compressions it supports (`deflateDict1`, `none`)
 *   records   the record types it carries (1 cache ... 7 peer)
 *
 * The intersection takes the slower tier and the lower baud, the smaller mtu
 * and batch, the best compression both support (by the fixed ranking
 * COMPRESSIONS) and the common record set.
 *
 * @example
 *   const link = intersectCaps(tierCaps("full"), decodeCaps(theirBytes));
 *   link.batch        // records per page to ask for
 *   link.compression  // "deflateDict1" or "none"
 */
import { CborError, decodeCbor, encodeCbor, type CborValue } from "./cbor.ts";
import { RECORD_TYPES } from "./record.ts";

export type Tier = "full" | "compact" | "beacon";
/** Slowest first: the intersection takes the earlier of two tiers. */
export const TIERS: readonly Tier[] = ["beacon", "compact", "full"];
/** Page compressions, best first. `none` is always supported. */
export const COMPRESSIONS = ["deflateDict1", "none"] as const;
export type Compression = (typeof COMPRESSIONS)[number];

export interface LinkCaps {
  tier: Tier;
  /** bits per second; 0 = not limited */
  baud: number;
  /** bytes */
  mtu: number;
  /** records per page */
  batch: number;
  /** supported compressions, in COMPRESSIONS order */
  compress: Compression[];
  /** record types carried, ascending */
  records: number[];
}

/** An intersected link: the common capabilities and the one compression to use. */
export interface NegotiatedLink extends LinkCaps {
  compression: Compression;
}

const ALL_RECORDS = Object.values(RECORD_TYPES).sort((a, b) => a - b);
/** What the beacon tier carries: tombstones and peer announces (tiny records). */
const BEACON_RECORDS = [RECORD_TYPES.tombstone, RECORD_TYPES.peer];

/** Largest values a peer may claim (anything above is clamped on decode). */
const CAP_LIMITS = { baud: 10_000_000_000, mtu: 16 * 1024 * 1024, batch: 10_000 } as const;

/** The defaults of a tier: what an end of that class offers before policy. */
export function tierCaps(tier: Tier): LinkCaps {
  switch (tier) {
    case "full":
      return { tier, baud: 0, mtu: 16 * 1024 * 1024, batch: 2000, compress: ["deflateDict1", "none"], records: [...ALL_RECORDS] };
    case "compact":
      // mtu: an SVCL1 line must hold at least one signed frame (about 120 bytes of key and
      // signature plus the payload, a third more in base64); 2048 bytes is ~14 s at 1200 baud
      return { tier, baud: 1200, mtu: 2048, batch: 25, compress: ["deflateDict1", "none"], records: [...ALL_RECORDS] };
    case "beacon":
      return { tier, baud: 300, mtu: 256, batch: 1, compress: ["none"], records: [...BEACON_RECORDS] };
  }
}

const slower = (a: Tier, b: Tier): Tier => (TIERS.indexOf(a) <= TIERS.indexOf(b) ? a : b);
/** 0 means "not limited", so it loses to any limit. */
const lowerBaud = (a: number, b: number) => (a === 0 ? b : b === 0 ? a : Math.min(a, b));

/** The deterministic intersection of two capability sets (commutative, associative). */
export function intersectCaps(a: LinkCaps, b: LinkCaps): NegotiatedLink {
  const compress = COMPRESSIONS.filter((c) => c === "none" || (a.compress.includes(c) && b.compress.includes(c)));
  return {
    tier: slower(a.tier, b.tier),
    baud: lowerBaud(a.baud, b.baud),
    mtu: Math.min(a.mtu, b.mtu),
    batch: Math.min(a.batch, b.batch),
    compress,
    records: a.records.filter((t) => b.records.includes(t)),
    compression: compress[0]!,
  };
}

/** Operator policy: any field given narrows the link the same way a peer's caps would. */
export type CapsPolicy = Partial<Omit<LinkCaps, "tier">> & { tier?: Tier };

export function clampCaps(link: LinkCaps, policy: CapsPolicy): NegotiatedLink {
  const full = tierCaps("full");
  return intersectCaps(link, {
    tier: policy.tier ?? full.tier,
    baud: policy.baud ?? 0,
    mtu: policy.mtu ?? CAP_LIMITS.mtu,
    batch: policy.batch ?? CAP_LIMITS.batch,
    compress: policy.compress ?? [...COMPRESSIONS],
    records: policy.records ?? [...ALL_RECORDS],
  });
}

export class CapsError extends Error {
  override name = "CapsError";
  constructor(
    readonly code: "bad_caps",
    message: string,
  ) {
    super(message);
  }
}

/** Caps as deterministic CBOR (text keys), for SVCL1 greetings. */
export function encodeCaps(c: LinkCaps): Uint8Array {
  return encodeCbor({ tier: c.tier, baud: c.baud, mtu: c.mtu, batch: c.batch, compress: c.compress, records: c.records });
}

/** Decodes and checks CBOR caps; throws CapsError. */
export function decodeCaps(bytes: Uint8Array): LinkCaps {
  let v: CborValue;
  try {
    v = decodeCbor(bytes, { maxBytes: 4096, maxDepth: 3, textMaps: "object" });
  } catch (e) {
    if (e instanceof CborError) throw new CapsError("bad_caps", `capabilities: ${e.message}`);
    throw e;
  }
  return capsFromObject(v);
}

/**
 * Checks caps from CBOR or JSON (the descriptor's `link`). `tier` is
 * required; a missing field takes that tier's default; numbers are clamped to
 * CAP_LIMITS; unknown compressions, unknown record types and unknown fields
 * are ignored (a later version may add some). Throws CapsError.
 */
export function capsFromObject(v: unknown): LinkCaps {
  if (!v || typeof v !== "object" || Array.isArray(v) || v instanceof Uint8Array || v instanceof Map)
    throw new CapsError("bad_caps", "capabilities are a map with text keys");
  const o = v as Record<string, unknown>;
  if (typeof o.tier !== "string" || !(TIERS as readonly string[]).includes(o.tier)) throw new CapsError("bad_caps", `tier must be one of ${TIERS.join(", ")}`);
  const d = tierCaps(o.tier as Tier);
  const num = (name: "baud" | "mtu" | "batch", min: number): number => {
    const x = o[name];
    if (x === undefined) return d[name];
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < min) throw new CapsError("bad_caps", `${name} must be a whole number ≥ ${min}`);
    return Math.min(x, CAP_LIMITS[name]);
  };
  const list = (name: "compress" | "records"): unknown[] | undefined => {
    const x = o[name];
    if (x === undefined) return undefined;
    if (!Array.isArray(x) || x.length > 64) throw new CapsError("bad_caps", `${name} must be a list`);
    return x;
  };
  const compress = list("compress");
  const records = list("records");
  return {
    tier: d.tier,
    baud: num("baud", 0),
    mtu: num("mtu", 1),
    batch: num("batch", 1),
    compress: compress ? COMPRESSIONS.filter((c) => c === "none" || compress.includes(c)) : d.compress,
    records: records ? ALL_RECORDS.filter((t) => records.includes(t)) : d.records,
  };
}

/** Caps as JSON (the descriptor's `link`). */
export function capsJson(c: LinkCaps): Record<string, unknown> {
  return { tier: c.tier, baud: c.baud, mtu: c.mtu, batch: c.batch, compress: [...c.compress], records: [...c.records] };
}
