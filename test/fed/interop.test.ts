/**
 * Interop with an independent implementation: Debian's python3-cbor2 and
 * python3-nacl (libsodium), in both directions, and libsodium's verdicts on
 * the edge-case signatures.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { feedFrame } from "../helpers/fed.ts";
import { signatureCases } from "../helpers/ed25519-cases.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire, findToWire } from "../../src/lib/fed/bodies.ts";
import { openFrame } from "../../src/lib/fed/record.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { mirroredCache, mirroredFindsOf } from "../../src/fed/mirror.ts";
import { verifyEd25519 } from "../../src/lib/fed/ed25519.ts";

const PYTHON = "/usr/bin/python3";
const SCRIPT = join(import.meta.dir, "interop.py");

async function py<T>(request: unknown): Promise<T> {
  const proc = Bun.spawn([PYTHON, SCRIPT], { stdin: new Blob([JSON.stringify(request)]), stdout: "pipe", stderr: "pipe" });
  const [out, errText, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`interop.py failed (${code}): ${errText}`);
  return JSON.parse(out) as T;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64url");
const kA = generateKeyPair();
let A: Running;
let B: Running;
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: kA.privateKey });
  B = await startInProcess({ INSTANCE: "gw2" });
});
afterAll(async () => {
  await A.stop();
  await B.stop();
});

describe("interop with cbor2 + libsodium", () => {
  test("our frames: libsodium verifies them, cbor2 reads them and re-encodes canonically to the same bytes", async () => {
    publishRecord(
      A.gw,
      "cache",
      1,
      cacheToWire({
        name: "Zürich Süd 🚲",
        type: "multi",
        size: "small",
        difficulty: 4.5,
        terrain: 5,
        lat: 47.3768866,
        lon: 8.541694,
        status: "active",
        description: "x".repeat(300),
        placedAt: 4_102_444_800_000,
      }),
    );
    publishRecord(A.gw, "find", 1, findToWire({ cache: "gw2:cache:9", kind: "dnf", loggedAt: 1_700_000_000_000, call: "N0FND-7", distanceM: 123456.78 }));
    publishTombstone(A.gw, "gw1:find:1");
    const frames = ["gw1:cache:1", "gw1:find:1", "gw1:peer:self"].map((g) => feedFrame(A.gw, g));
    const res = await py<Array<{ ok: boolean; canonical: boolean; payload: Record<string, any> }>>({ op: "verify", frames: frames.map(b64) });
    expect(res.map((r) => [r.ok, r.canonical])).toEqual([
      [true, true],
      [true, true],
      [true, true],
    ]);
    expect(res[0]!.payload).toMatchObject({ "1": 1, "2": "gw1:cache:1", "3": "gw1", "4": 1, "6": "gw1" });
    expect(res[0]!.payload["7"]).toMatchObject({ name: "Zürich Süd 🚲", latE7: 473768866, lonE7: 85416940, difficultyX10: 45, placedAt: 4_102_444_800 });
    expect(res[1]!.payload["1"]).toBe(5);
    expect(res[1]!.payload["7"]).toEqual({});
    // A tampered frame fails libsodium too.
    const bad = frames[0]!.slice();
    bad[Buffer.from(bad).indexOf("Zürich")]! ^= 1;
    expect((await py<Array<{ ok: boolean }>>({ op: "verify", frames: [b64(bad)] }))[0]!.ok).toBe(false);
  });

  test("their frames: we verify, decode and apply what cbor2 + libsodium sign", async () => {
    const kP = generateKeyPair();
    upsertPeer(B.gw, { instance: "pygw", trust: "trusted", keyPin: kP.publicKey });
    const cache = {
      "1": 1,
      "2": "pygw:cache:1",
      "3": "pygw",
      "4": 3,
      "5": 1_700_000_000,
      "6": "pygw",
      "7": {
        name: "Café ☕",
        type: "traditional",
        size: "micro",
        difficultyX10: 15,
        terrainX10: 20,
        latE7: -338688197,
        lonE7: 1512092955,
        status: "active",
        ownerCall: "VK2ABC",
      },
    };
    const find = {
      "1": 2,
      "2": "pygw:find:1",
      "3": "pygw",
      "4": 1,
      "5": 1_700_000_001,
      "6": "VK2FND",
      "7": { cache: "pygw:cache:1", kind: "find", loggedAt: 1_700_000_001, call: "VK2FND", distanceCm: 250, text: "TFTC" },
    };
    const frames = (await py<string[]>({ op: "sign", seed: kP.privateKey, payloads: [cache, find] })).map((f) => new Uint8Array(Buffer.from(f, "base64url")));
    for (const f of frames) expect((await openFrame(f)).ok).toBe(true);
    const r = await applyFrames(B.gw, frames, { via: "interop" });
    expect(r).toMatchObject({ applied: 2, rejected: 0 });
    expect(mirroredCache(B.gw, "pygw:cache:1")).toMatchObject({
      name: "Café ☕",
      lat: -33.8688197,
      lon: 151.2092955,
      difficulty: 1.5,
      terrain: 2,
      ownerCall: "VK2ABC",
    });
    expect(mirroredFindsOf(B.gw, "pygw:cache:1")).toEqual([
      expect.objectContaining({ call: "VK2FND", distanceM: 2.5, text: "TFTC", loggedAt: 1_700_000_001_000 }),
    ]);
  });

  test("their honestly signed but non-canonical payloads are refused, each with its code", async () => {
    const kP = generateKeyPair();
    const payload = { "1": 1, "2": "pygw:cache:2", "3": "pygw", "4": 3, "5": 1_700_000_000, "6": "pygw", "7": { name: "n" } };
    const variants = await py<Record<string, string>>({ op: "variants", seed: kP.privateKey, payload });
    expect(Object.keys(variants).sort()).toEqual(["float", "non_shortest", "tag", "unsorted_keys"]);
    for (const [name, f] of Object.entries(variants)) {
      const o = await openFrame(new Uint8Array(Buffer.from(f, "base64url")));
      expect({ name, code: o.ok ? "ok" : o.code }).toEqual({ name, code: name });
    }
  });

  test("libsodium and our rule give the same verdict on every edge-case signature", async () => {
    const cases = signatureCases();
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
    const sodium = await py<boolean[]>({ op: "edge", cases: cases.map((c) => ({ pk: hex(c.pk), msg: hex(c.msg), sig: hex(c.sig) })) });
    const ours = cases.map((c) => verifyEd25519(c.pk, c.msg, c.sig) === "ok");
    expect(cases.map((c, i) => `${c.name}: ${sodium[i]}`)).toEqual(cases.map((c, i) => `${c.name}: ${ours[i]}`));
    expect(ours.filter(Boolean).length).toBe(2); // the honest one and the k = 0 mod 8 mixed-order one
  });
});
