import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { sign } from "node:crypto";
import { encodeCbor, decodeCbor, type CborValue } from "../../src/lib/fed/cbor.ts";
import {
  decodeFrame,
  decodePayload,
  encodeFrame,
  encodePayload,
  openFrame,
  parseGid,
  signedBytes,
  signFrame,
  verifyFrame,
  type Payload,
} from "../../src/lib/fed/record.ts";
import { generateKeyPair, privateKeyObject, signerFromSeed } from "../../src/lib/fed/keys.ts";
import {
  cacheFromWire,
  cacheToWire,
  checkBody,
  findFromWire,
  findToWire,
  fromCm,
  fromE7,
  fromX10,
  toCm,
  toE7,
  toX10,
  type CacheJson,
} from "../../src/lib/fed/bodies.ts";
import { nodePath, noblePath, webCryptoPath } from "../../src/lib/fed/ed25519.ts";

const signer = signerFromSeed(generateKeyPair().privateKey);
const cache: CacheJson = {
  name: "Old Mill",
  type: "traditional",
  size: "small",
  difficulty: 2.5,
  terrain: 1.5,
  lat: 37.1234567,
  lon: -122.7654321,
  status: "active",
  hint: "under the wheel",
  description: "A walk by the river.",
  ownerCall: "N0CALL",
  ownerAccount: "gw1:account:7",
  placedAt: 1_700_000_000_000,
};
const payload = (over: Partial<Payload> = {}): Payload => ({
  type: 1,
  gid: "gw1:cache:42",
  origin: "gw1",
  v: 1,
  at: 1_700_000_000,
  signer: "gw1",
  body: cacheToWire(cache) as never,
  ...over,
});

describe("payload and frame", () => {
  test("sign, then open: the payload comes back as signed", async () => {
    const bytes = encodePayload(payload());
    const frame = signFrame(bytes, signer);
    const opened = await openFrame(frame);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.frame.signerKey).toBe(signer.publicKey);
    expect(opened.payload.gid).toBe("gw1:cache:42");
    expect(opened.payload.body.latE7).toBe(371234567);
    expect(opened.payload.body.lonE7).toBe(-1227654321);
    expect(Buffer.from(opened.frame.payload).equals(Buffer.from(bytes))).toBe(true);
    // Integer keys 1..7 in order; the frame's keys 1..3.
    const m = decodeCbor(bytes) as Map<number, CborValue>;
    expect([...m.keys()]).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect([...(decodeCbor(frame) as Map<number, CborValue>).keys()]).toEqual([1, 2, 3]);
  });

  test("the signature covers svc-fed/1 LF + payload, and nothing else verifies", async () => {
    const bytes = encodePayload(payload());
    const good = decodeFrame(signFrame(bytes, signer));
    expect(Buffer.from(signedBytes(bytes).subarray(0, 10)).toString()).toBe("svc-fed/1\n");
    // A signature over the bare payload (another protocol's signing base) does not verify.
    const bare = new Uint8Array(sign(null, bytes, privateKeyObject(generateKeyPair().privateKey)));
    expect(verifyFrame({ ...good, sig: bare })).toBe("bad_signature");
    const kp = generateKeyPair();
    const bareOwn = new Uint8Array(sign(null, bytes, privateKeyObject(kp.privateKey)));
    expect(verifyFrame({ payload: bytes, signerKey: kp.publicKey, sig: bareOwn })).toBe("bad_signature");
    // Any payload byte changed: refused.
    for (const i of [0, 5, bytes.length - 1]) {
      const t = bytes.slice();
      t[i]! ^= 1;
      expect(verifyFrame({ ...good, payload: t })).toBe("bad_signature");
    }
    // Someone else's key.
    expect(verifyFrame({ ...good, signerKey: generateKeyPair().publicKey })).toBe("bad_signature");
    // All paths agree.
    expect(await verifyFrame(good, webCryptoPath)).toBe("ok");
    expect(await verifyFrame(good, noblePath)).toBe("ok");
    expect(verifyFrame(good, nodePath)).toBe("ok");
  });

  test("verification uses the payload bytes as received, never a re-encoding", async () => {
    // Non-canonical payload bytes (keys out of order), honestly signed: the signature
    // holds over those bytes, and the strict decoder still refuses the payload.
    const canonical = encodePayload(payload());
    const unsorted = new Uint8Array([0xa7, ...canonical.subarray(canonical.indexOf(0x02, 1)), ...[0x01, 0x01]]);
    const frame = signFrame(unsorted, signer);
    expect(verifyFrame(decodeFrame(frame))).toBe("ok");
    const opened = await openFrame(frame);
    expect(opened.ok).toBe(false);
    if (!opened.ok) expect(opened.code).toBe("unsorted_keys");
  });

  test("frames and payloads of the wrong shape are refused with a code", async () => {
    const bytes = encodePayload(payload());
    const sig = signer.sign(signedBytes(bytes));
    const frameOf = (m: Map<number, CborValue>) => encodeCbor(m);
    const cases: Array<[Uint8Array, string]> = [
      [
        frameOf(
          new Map<number, CborValue>([
            [1, bytes],
            [2, signer.publicKey],
          ]),
        ),
        "bad_frame",
      ],
      [
        frameOf(
          new Map<number, CborValue>([
            [1, bytes],
            [2, signer.publicKey],
            [3, sig],
            [4, 0],
          ]),
        ),
        "bad_frame",
      ],
      [
        frameOf(
          new Map<number, CborValue>([
            [1, "text"],
            [2, signer.publicKey],
            [3, sig],
          ]),
        ),
        "bad_frame",
      ],
      [
        frameOf(
          new Map<number, CborValue>([
            [1, bytes],
            [2, signer.publicKey + "A"],
            [3, sig],
          ]),
        ),
        "bad_frame",
      ],
      [
        frameOf(
          new Map<number, CborValue>([
            [1, bytes],
            [2, signer.publicKey.slice(0, 42) + "B"],
            [3, sig],
          ]),
        ),
        "bad_frame",
      ], // non-canonical base64url
      [
        frameOf(
          new Map<number, CborValue>([
            [1, bytes],
            [2, signer.publicKey],
            [3, sig.subarray(0, 63)],
          ]),
        ),
        "bad_frame",
      ],
      [new Uint8Array([0xa3, 0x01]), "truncated"],
      [new Uint8Array([0xf9, 0x3c, 0x00]), "float"],
    ];
    for (const [b, code] of cases) {
      const o = await openFrame(b);
      expect({ code: o.ok ? "ok" : o.code }).toEqual({ code });
    }
    const payloadCases: Array<[Map<number, CborValue>, string]> = [];
    const base = decodeCbor(bytes) as Map<number, CborValue>;
    const w = (k: number, v: CborValue | undefined) => {
      const m = new Map(base);
      if (v === undefined) m.delete(k);
      else m.set(k, v);
      return m;
    };
    payloadCases.push(
      [w(1, 10), "unknown_type"],
      [w(1, 0), "bad_payload"],
      [w(1, 2 ** 32), "bad_payload"],
      [w(1, undefined), "bad_payload"],
      [w(2, "gw1:cache"), "bad_gid"],
      [w(2, "gw1:widget:1"), "bad_gid"],
    );
    payloadCases.push([w(2, "gw1:cache:a:b"), "bad_gid"], [w(3, "GW1"), "bad_payload"], [w(4, 0), "bad_payload"], [w(5, -1), "bad_payload"]);
    payloadCases.push([w(6, "N0CALL-99"), "bad_signer"], [w(7, new Map([[1, 2]])), "bad_payload"], [w(7, "x"), "bad_payload"], [w(8, 0), "bad_payload"]);
    for (const [m, code] of payloadCases) {
      expect(() => decodePayload(encodeCbor(m))).toThrow();
      try {
        decodePayload(encodeCbor(m));
      } catch (e) {
        expect({ m: [...m.entries()].map(String).join(), code: (e as { code: string }).code }).toEqual({ m: [...m.entries()].map(String).join(), code });
      }
    }
  });

  test("frames are maps in the documented layout, so other encoders can build them", () => {
    const bytes = encodePayload(payload());
    const frame = encodeFrame({ payload: bytes, signerKey: signer.publicKey, sig: new Uint8Array(64) });
    expect(Buffer.from(frame.subarray(0, 2)).toString("hex")).toBe("a301");
  });

  test("gids are origin:kind:localid", () => {
    expect(parseGid("gw1.example:cache:42")).toEqual({ origin: "gw1.example", kind: "cache", localId: "42" });
    expect(parseGid("gw1:account:u-7")).toEqual({ origin: "gw1", kind: "account", localId: "u-7" });
    for (const bad of ["", "gw1", "gw1:cache:", ":cache:1", "gw1:tombstone:1", "GW1:cache:1", "gw1:cache:a b", "gw1:cache:" + "x".repeat(65)]) {
      expect(parseGid(bad)).toBeNull();
    }
  });
});

describe("bodies", () => {
  test("a cache maps to the wire and back exactly; contact fields never travel; unlisted withholds the description", () => {
    const withContact = { ...cache, ownerEmail: "owner@example.org", ownerPhone: "+1 555 0100" } as CacheJson;
    const body = cacheToWire(withContact);
    expect(JSON.stringify(body)).not.toContain("example.org");
    expect(checkBody("cache", body as never, "publish")).toBeNull();
    // a cache without attributes leaves the field out, and reads back with none
    expect(body.attributes).toBeUndefined();
    expect(cacheFromWire(body)).toEqual({ ...cache, unlisted: false, attributes: [] });
    // attributes travel as signed ids (+id yes, -id no)
    const withAttrs = cacheToWire({ ...cache, attributes: [1, -32] });
    expect(withAttrs.attributes).toEqual([1, -32]);
    expect(checkBody("cache", withAttrs as never, "publish")).toBeNull();
    expect(cacheFromWire(withAttrs).attributes).toEqual([1, -32]);
    expect(checkBody("cache", { ...body, attributes: [0] } as never, "receive")).toContain("attributes");
    const unlisted = cacheToWire({ ...cache, unlisted: true });
    expect(unlisted.description).toBeUndefined();
    expect(unlisted.unlisted).toBe(true);
    expect(checkBody("cache", { ...unlisted, description: "secret" } as never, "publish")).toBe("an unlisted cache withholds its description");
    expect(checkBody("cache", { ...unlisted, description: "secret" } as never, "receive")).toBe("an unlisted cache withholds its description");
    // A field the layout does not name cannot be published, but is ignored on receipt.
    expect(checkBody("cache", { ...body, ownerEmail: "x@y" } as never, "publish")).toBe("ownerEmail is not a field of a cache record");
    expect(checkBody("cache", { ...body, futureField: 1 } as never, "receive")).toBeNull();
    expect(checkBody("cache", { ...body, latE7: 900_000_001 } as never, "receive")).toContain("latE7");
    expect(checkBody("cache", { ...body, ownerCall: "n0call" } as never, "receive")).toContain("ownerCall");
    expect(checkBody("tombstone", { call: "N0CALL" } as never, "publish")).toBe("call is not a field of a tombstone record");
  });

  test("a find's distance maps metres to centimetres and back", () => {
    const f = {
      cache: "gw2:cache:9",
      kind: "find" as const,
      loggedAt: 1_700_000_123_000,
      call: "N0FND",
      account: "gw1:account:3",
      text: "TFTC",
      tier: "a",
      state: null,
      distanceM: 12.34,
    };
    const body = findToWire(f);
    expect(body.distanceCm).toBe(1234);
    expect(body.loggedAt).toBe(1_700_000_123);
    expect(checkBody("find", body as never, "publish")).toBeNull();
    expect(findFromWire(body)).toEqual(f);
  });

  test("a log kind beyond find, dnf and note travels as a note naming it; a kind this version does not know stays a note", () => {
    const f = { cache: "gw2:cache:9", kind: "needs-maintenance" as const, loggedAt: 1_700_000_123_000, text: "soaked" };
    const body = findToWire(f);
    expect(body).toMatchObject({ kind: "note", logKind: "needs-maintenance" });
    expect(checkBody("find", body as never, "publish")).toBeNull();
    expect(findFromWire(body).kind).toBe("needs-maintenance");
    expect(findToWire({ ...f, kind: "find" }).logKind).toBeUndefined();
    const later = { ...body, logKind: "publish-listing" };
    expect(checkBody("find", later as never, "receive")).toBeNull();
    expect(findFromWire(later).kind).toBe("note");
    // the wire's kind itself stays one of the three: a peer of an older version checks it
    expect(checkBody("find", { ...body, kind: "needs-maintenance" } as never, "receive")).toMatch(/kind must be one of find, dnf, note/);
  });

  test("scaled fields are exact both ways at their resolution", () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_800_000_000, max: 1_800_000_000 }), (n) => {
        expect(toE7(fromE7(n))).toBe(n);
        // The decimal text with 7 places parses to the same double fromE7 gives.
        const s = (n < 0 ? "-" : "") + (Math.abs(n) / 1e7).toFixed(7);
        expect(fromE7(toE7(Number(s)))).toBe(Number(s));
      }),
      { numRuns: 20000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 10, max: 50 }), (n) => {
        expect(toX10(fromX10(n))).toBe(n);
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 40 }), (n) => {
        expect(toCm(fromCm(n))).toBe(n);
        expect(fromCm(toCm(Number((n / 100).toFixed(2))))).toBe(Number((n / 100).toFixed(2)));
      }),
      { numRuns: 20000 },
    );
    expect(toE7(-0.00000001)).toBe(0);
    expect(Object.is(toE7(-0.00000001), -0)).toBe(false);
    expect(() => toE7(NaN)).toThrow(RangeError);
  });
});
