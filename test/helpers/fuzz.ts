/**
 * Mutation fuzzing of our decoders, in process, shared by `bun run bench fuzz`
 * (a million inputs) and test/security/fuzz.test.ts (a fixed-seed slice).
 *
 * Each target has valid seeds made with our own encoders, a decoder call and
 * its boundary: the one error type it may throw (or, for the APRS decoder, the
 * one error result it may return). Inputs are seeds put through 1-4 stacked
 * mutations from a seeded PRNG: bit flips, interesting bytes, truncation,
 * splices of two seeds, chunk deletion/duplication/insertion, CBOR head
 * (length field) rewrites, digit rewrites (text length fields) and nesting
 * bombs. Whatever else a decoder throws is an escape, recorded with its input.
 */
import { CborError, decodeCbor, encodeCbor, type CborInput } from "../../src/lib/fed/cbor.ts";
import { decodeFrame, decodePayload, encodeFrame, encodePayload, RecordError, signFrame, type Payload } from "../../src/lib/fed/record.ts";
import { decodePage, encodePage } from "../../src/lib/fed/page.ts";
import { signerFromSeed } from "../../src/lib/fed/keys.ts";
import { decode as decodeAprs } from "../../src/lib/aprs/decode.ts";
import { encodeAck, encodeMessage, encodeObject, encodePosition, encodeStatus, encodeWeather } from "../../src/lib/aprs/encode.ts";
import { parseCatalog } from "../../src/game/import.ts";
import { parseBody } from "../../src/http/body.ts";
import { AppError } from "../../src/lib/errors.ts";
import { concatBytes } from "../../src/lib/net/bytes.ts";
import { catalogGpx, catalogLoc } from "./catalog.ts";

// ---------------------------------------------------------------- PRNG

/** A small seeded PRNG (mulberry32): the same seed, the same inputs. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
  };
}
export type Rng = ReturnType<typeof prng>;

// ---------------------------------------------------------------- mutations

const INTERESTING = [
  0x00, 0x01, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1f, 0x20, 0x3c, 0x3e, 0x40, 0x5b, 0x5d, 0x60, 0x7b, 0x7d, 0x7f, 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xd8, 0xf4,
  0xf9, 0xfb, 0xff, 0x22, 0x26, 0x3a, 0x2c,
];

const concat = (...parts: Uint8Array[]): Uint8Array => concatBytes(parts);

const enc = new TextEncoder();

/** Nesting bombs in each input language: deep arrays/maps (CBOR), brackets (JSON), elements (XML). */
function bomb(r: Rng, kind: "cbor" | "text", b: Uint8Array): Uint8Array {
  const depth = r.pick([20, 100, 1000, 10_000, 100_000]);
  if (kind === "cbor") {
    const head = new Uint8Array(depth).fill(r.pick([0x81, 0xa1, 0x9f, 0xbf, 0xc1]));
    return concat(head, b);
  }
  const open = r.pick(["[", '{"a":', "<a>", "<wpt>", "<!--", "<![CDATA["]);
  return concat(enc.encode(open.repeat(depth)), b);
}

/** One mutation of `b`; `other` is another seed for splices. */
export function mutateOnce(r: Rng, b: Uint8Array, other: Uint8Array, kind: "cbor" | "text"): Uint8Array {
  const n = b.length;
  const pos = () => r.int(Math.max(1, n));
  switch (r.int(11)) {
    case 0: {
      // bit flips
      const out = b.slice();
      for (let k = 1 + r.int(8); k > 0 && n; k--) {
        const i = pos();
        out[i] = out[i]! ^ (1 << r.int(8));
      }
      return out;
    }
    case 1: {
      // interesting bytes
      const out = b.slice();
      for (let k = 1 + r.int(4); k > 0 && n; k--) out[pos()] = r.pick(INTERESTING);
      return out;
    }
    case 2:
      // truncation
      return b.subarray(0, pos());
    case 3:
      // splice: a prefix of this, a suffix of another
      return concat(b.subarray(0, pos()), other.subarray(r.int(Math.max(1, other.length))));
    case 4: {
      // delete a chunk
      const i = pos();
      return concat(b.subarray(0, i), b.subarray(Math.min(n, i + 1 + r.int(16))));
    }
    case 5: {
      // duplicate a chunk (repeated items, keys, tags)
      const i = pos();
      const j = Math.min(n, i + 1 + r.int(32));
      const chunk = b.subarray(i, j);
      const reps = r.pick([1, 2, 8, 256]);
      return concat(b.subarray(0, j), ...Array.from({ length: reps }, () => chunk), b.subarray(j));
    }
    case 6: {
      // insert random bytes
      const i = pos();
      const ins = new Uint8Array(1 + r.int(8)).map(() => r.int(256));
      return concat(b.subarray(0, i), ins, b.subarray(i));
    }
    case 7: {
      if (kind === "cbor") {
        // length field: a head's argument rewritten (short form, 1-8 byte forms, huge values)
        const out = b.slice();
        const i = pos();
        if (!n) return out;
        const major = out[i]! & 0xe0;
        const ai = r.pick([0, 1, 23, 24, 25, 26, 27, 28, 31]);
        out[i] = major | ai;
        if (ai >= 24 && ai <= 27) {
          const len = 1 << (ai - 24);
          const arg = new Uint8Array(len).map(() => r.pick([0x00, 0x01, 0x7f, 0x80, 0xff]));
          return concat(out.subarray(0, i + 1), arg, out.subarray(i + 1));
        }
        return out;
      }
      // text: a run of digits (a length, a coordinate, a count) rewritten
      const s = new TextDecoder("latin1").decode(b);
      const runs = [...s.matchAll(/\d+/g)];
      if (!runs.length) return b;
      const m = r.pick(runs);
      const rep = r.pick(["0", "-1", "99999999999999999999", "1e400", "NaN", "4294967296", "9".repeat(400), String(r.int(1 << 30))]);
      return enc.encode(s.slice(0, m.index) + rep + s.slice(m.index! + m[0].length));
    }
    case 8:
      return bomb(r, kind, b.subarray(0, pos()));
    case 9: {
      // a byte swapped for a structural one of the format
      const out = b.slice();
      if (n)
        out[pos()] =
          kind === "cbor"
            ? r.pick([0x80, 0xa0, 0x40, 0x60, 0xf5, 0xf6, 0x1b, 0x3b, 0x5b, 0x7b, 0x9b, 0xbb])
            : r.pick([...enc.encode("<>/\"'&;:!=[]{},\\\n\r\0")]);
      return out;
    }
    default: {
      // a chunk moved to the end (reordering keys, elements)
      const i = pos();
      const j = Math.min(n, i + 1 + r.int(24));
      return concat(b.subarray(0, i), b.subarray(j), b.subarray(i, j));
    }
  }
}

/** 1-4 stacked mutations of a seed. */
export function mutate(r: Rng, seeds: readonly Uint8Array[], kind: "cbor" | "text"): Uint8Array {
  let b = r.pick(seeds);
  for (let k = 1 + r.int(4); k > 0; k--) b = mutateOnce(r, b, r.pick(seeds), kind);
  // Keep inputs to a sane size (a bomb or duplication may grow them): the decoders' own caps are tested elsewhere.
  return b.length > 512 * 1024 ? b.subarray(0, 512 * 1024) : b;
}

// ---------------------------------------------------------------- seeds

const SEED = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"; // a fixed Ed25519 seed: the same frames every run

function payloads(): Payload[] {
  const base = { origin: "gw-fuzz", v: 1, at: 1_700_000_000, signer: "gw-fuzz" };
  return [
    {
      ...base,
      type: 1,
      gid: "gw-fuzz:cache:1",
      body: {
        name: "Old Mill",
        type: "traditional",
        size: "small",
        difficulty: 25,
        terrain: 15,
        lat: 48123456,
        lon: 11500000,
        status: "active",
        hint: "under the stone",
      } as never,
    },
    {
      ...base,
      type: 2,
      gid: "gw-fuzz:find:7",
      signer: "N0CALL",
      body: { cache: "gw-fuzz:cache:1", call: "N0CALL", at: 1_700_000_100, text: "TFTC ünïcödé 🎉", rf: true } as never,
    },
    { ...base, type: 3, gid: "gw-fuzz:key:2", body: { key: "A".repeat(43), call: "N0CALL", status: "active" } as never },
    { ...base, type: 4, gid: "gw-fuzz:bulletin:3", body: { to: "ALL", text: "net tonight", tags: ["a", "b"], n: -5, big: 2n ** 60n } as never },
    { ...base, type: 5, gid: "gw-fuzz:cache:9", body: { deleted: true } as never },
    {
      ...base,
      type: 7,
      gid: "gw-fuzz:peer:1",
      body: { endpoints: ["https:https://gw.example.org;10"], nested: { a: [1, [2, [3, { b: new Uint8Array([1, 2, 3]) }]]] } } as never,
    },
  ];
}

export function frameSeeds(): Uint8Array[] {
  const signer = signerFromSeed(SEED);
  const frames = payloads().map((p) => signFrame(encodePayload(p), signer));
  return [...frames, encodeFrame({ payload: encodePayload(payloads()[0]!), signerKey: signer.publicKey, sig: new Uint8Array(64) })];
}

export function cborSeeds(): Uint8Array[] {
  const values: CborInput[] = [
    0,
    23,
    24,
    255,
    256,
    65535,
    65536,
    2 ** 32,
    Number.MAX_SAFE_INTEGER,
    2n ** 64n - 1n,
    -1,
    -24,
    -25,
    -(2n ** 64n),
    "",
    "a",
    "x".repeat(60),
    "ünïcödé 🎉",
    new Uint8Array([0, 1, 2, 255]),
    true,
    false,
    null,
    [],
    [1, [2, [3, [4]]]],
    new Map<number, CborInput>([
      [1, "a"],
      [2, [1, 2]],
      [3, new Map([[1, 2]])],
    ]),
    { a: 1, b: "two", c: [true, null], d: { e: new Uint8Array(3) } },
  ];
  return [...values.map((v) => encodeCbor(v)), ...frameSeeds().slice(0, 2)];
}

export function pageSeeds(): Uint8Array[] {
  const frames = frameSeeds();
  return [
    encodePage({ frames, next: 42, more: true, type: 1, instance: "gw-fuzz" }),
    encodePage({ frames: frames.slice(0, 1), next: 0, more: false }),
    encodePage({ frames: [], next: 2 ** 40, more: false, type: 5 }),
  ];
}

export function aprsSeeds(): string[] {
  const h = { src: "N0CALL-9", path: ["WIDE1-1", "WIDE2-1"] };
  return [
    encodePosition({ ...h, lat: 49.0583, lon: -72.029, comment: "Test", course: 88, speedKmh: 66, altitudeM: 376, messaging: true }),
    encodePosition({ ...h, lat: -33.86, lon: 151.2, symbol: "/>" }),
    encodeWeather({
      ...h,
      lat: 42.6,
      lon: -71.3,
      wx: { windDirDeg: 220, windSpeedKmh: 8, windGustKmh: 16, tempC: 21.5, humidityPct: 55, pressureHpa: 1013.2, rain1hMm: 0.5 },
    }),
    encodeWeather({ ...h, at: 1_700_000_000_000, wx: { tempC: -5, rain24hMm: 10 } }),
    encodeObject({ ...h, name: "GC42", lat: 48.1, lon: 11.5, comment: "cache", at: 1_700_000_000_000 }),
    encodeMessage({ ...h, addressee: "W1AW", text: "hello there", msgId: "12" }),
    encodeAck({ ...h, addressee: "W1AW", msgId: "12" }),
    encodeStatus({ ...h, text: "QRV 145.500" }),
    // What the encoder does not make but the decoder reads: Mic-E, compressed, telemetry, third-party, NMEA, items.
    'N0CALL-9>T2SP0W,WIDE1-1:`c4Vl#z>/]"4-}=',
    "N0CALL>APRS:=/5L!!<*e7>7P[",
    "N0CALL>APRS:T#005,199,000,255,073,123,01101001",
    "N0BOB>APRS,TCPIP*:}N0SYS>APRS,TCPIP,N0BOB*::N0OTHER  :hi{1",
    "N0CALL>GPSLK:$GPRMC,063909,A,3349.4302,N,11700.3721,W,43.022,89.3,291099,13.6,E*52",
    "N0CALL>APRS:)ITEM!4903.50N/07201.75W-",
    "N0CALL>APRS:@092345z4903.50N/07201.75W_090/000g000t066r000p000P000h00b10218",
  ];
}

export function gpxSeeds(): string[] {
  return [
    catalogGpx(3, { prefix: "GCF", pad: 20 }),
    `<?xml version="1.0" encoding="utf-8"?>
<gpx xmlns="http://www.topografix.com/GPX/1/1" version="1.1" creator="Opencaching">
  <wpt lat="50.0500" lon="8.5000"><time>2019-04-01T00:00:00Z</time><name>OC1A2B3</name><type>Geocache|Unknown Cache</type>
    <extensions><groundspeak:cache xmlns:groundspeak="http://www.groundspeak.com/cache/1/0/1" available="True" archived="False">
      <groundspeak:name>Puzzle &amp; park</groundspeak:name><groundspeak:placed_by>Somebody</groundspeak:placed_by>
      <groundspeak:long_description html="True">&lt;p&gt;Solve &lt;b&gt;this&lt;/b&gt;&lt;/p&gt;<![CDATA[ and </wpt> here ]]></groundspeak:long_description>
      <groundspeak:encoded_hints>bench</groundspeak:encoded_hints></groundspeak:cache></extensions></wpt>
  <!-- a comment with </gpx> in it -->
  <wpt lat="50.06" lon="8.51"><name>PARKING</name><sym>Parking Area</sym></wpt>
</gpx>`,
  ];
}

export function locSeeds(): string[] {
  return [catalogLoc(3)];
}

export function jsonSeeds(): string[] {
  return [
    JSON.stringify({ endpoint: "https://push.example.org/x", keys: { p256dh: "B".repeat(87), auth: "A".repeat(22) } }),
    JSON.stringify({ name: "Home QTH", lat: 42.61234567891, lon: -71.2, zoom: 12, layers: ["stations", "caches"], filters: { type: ["traditional"] } }),
    JSON.stringify([1, -2.5e-3, "ünï\u0000code\ud83c\udf89", null, true, { a: { b: { c: [] } } }]),
    JSON.stringify({ text: 'a"b\\c\n', n: 1e21, deep: [[[[[[{}]]]]]] }),
  ];
}

// ---------------------------------------------------------------- targets

export interface Target {
  name: string;
  kind: "cbor" | "text";
  seeds: Uint8Array[];
  /** decodes one input; resolves "ok" or "refused" (its typed error), throws anything else */
  run(input: Uint8Array): "ok" | "refused" | Promise<"ok" | "refused">;
}

const latin1 = new TextDecoder("latin1");
const utf8 = new TextDecoder();

function typed<T>(fn: () => T, boundary: (e: unknown) => boolean): "ok" | "refused" {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (boundary(e)) return "refused";
    throw e;
  }
}

const isCbor = (e: unknown) => e instanceof CborError;
const isRecord = (e: unknown) => e instanceof RecordError;
/** The importer and the body parser answer bad input with a 4xx AppError. */
const isClientError = (e: unknown) => e instanceof AppError && e.status >= 400 && e.status < 500;

export function targets(): Target[] {
  return [
    {
      name: "cbor",
      kind: "cbor",
      seeds: cborSeeds(),
      run: (b) => typed(() => decodeCbor(b, { maxDepth: 16, textMaps: b.length & 1 ? "object" : "map" }), isCbor),
    },
    { name: "frame", kind: "cbor", seeds: frameSeeds(), run: (b) => typed(() => decodePayload(decodeFrame(b).payload), isRecord) },
    {
      name: "page",
      kind: "cbor",
      seeds: pageSeeds(),
      run: (b) =>
        typed(() => {
          for (const f of decodePage(b).frames) {
            try {
              decodePayload(decodeFrame(f).payload);
            } catch (e) {
              if (!isRecord(e)) throw e;
            }
          }
        }, isRecord),
    },
    {
      name: "aprs",
      kind: "text",
      seeds: aprsSeeds().map((s) => enc.encode(s)),
      run: (b) => {
        // decode() never throws by contract; an exception inside it that is not its typed failure is an escape too.
        const r = decodeAprs(latin1.decode(b));
        if (r.ok) return "ok";
        if (r.error.message.startsWith("the packet could not be decoded (")) throw new Error(`unexpected exception inside decode: ${r.error.message}`);
        return "refused";
      },
    },
    {
      name: "gpx",
      kind: "text",
      seeds: [...gpxSeeds(), ...locSeeds()].map((s) => enc.encode(s)),
      run: async (b) => {
        const text = utf8.decode(b);
        try {
          await parseCatalog(text, text.includes("<loc") ? "loc" : "gpx");
          return "ok";
        } catch (e) {
          if (isClientError(e)) return "refused";
          throw e;
        }
      },
    },
    {
      name: "json",
      kind: "text",
      seeds: jsonSeeds().map((s) => enc.encode(s)),
      run: async (b) => {
        try {
          await parseBody(
            new Request("http://gw.test/api/x", { method: "POST", headers: { "content-type": "application/json" }, body: b as Uint8Array<ArrayBuffer> }),
            1024 * 1024,
          );
          return "ok";
        } catch (e) {
          if (isClientError(e)) return "refused";
          throw e;
        }
      },
    },
  ];
}

export interface Escape {
  target: string;
  /** the input, base64 (for a regression test) */
  input: string;
  error: string;
}

export interface FuzzReport {
  target: string;
  inputs: number;
  ok: number;
  refused: number;
  /** how many inputs threw past the boundary */
  escaped: number;
  /** the first of them */
  escapes: Escape[];
  ms: number;
}

/** Runs `n` mutated inputs from PRNG seed `seed` at a target. */
export async function fuzzTarget(t: Target, n: number, seed: number, keep = 20): Promise<FuzzReport> {
  const r = prng(seed);
  const out: FuzzReport = { target: t.name, inputs: 0, ok: 0, refused: 0, escaped: 0, escapes: [], ms: 0 };
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const input = mutate(r, t.seeds, t.kind);
    out.inputs++;
    try {
      const v = await t.run(input);
      out[v]++;
    } catch (e) {
      out.escaped++;
      if (out.escapes.length < keep)
        out.escapes.push({
          target: t.name,
          input: Buffer.from(input).toString("base64"),
          error: `${(e as Error)?.name}: ${String((e as Error)?.message ?? e).slice(0, 200)}`,
        });
    }
  }
  out.ms = performance.now() - t0;
  return out;
}
