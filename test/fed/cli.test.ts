import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startInProcess, type Running } from "../helpers/gateway.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { feedFrame, signed } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { encodePage } from "../../src/lib/fed/page.ts";
import { acceptRotation, upsertPeer } from "../../src/fed/peers.ts";
import { applyFrames } from "../../src/fed/apply.ts";
import { decodeFrame } from "../../src/lib/fed/record.ts";

const k1 = generateKeyPair();
const body = cacheToWire({ name: "CLI cache", type: "traditional", size: "micro", difficulty: 1, terrain: 1, lat: 10.5, lon: -20.25, status: "active" });

let A: Running;
let good: Uint8Array;
beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: k1.privateKey });
  publishRecord(A.gw, "cache", 1, body);
  good = feedFrame(A.gw, "gw1:cache:1");
});
afterAll(() => A.stop());

describe("svc-gateway frame", () => {
  test("verify: a good frame prints its payload as JSON and exits 0", async () => {
    const r = await runCli(["frame", "verify"], { stdin: good });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json).toMatchObject({ type: 1, kind: "cache", gid: "gw1:cache:1", origin: "gw1", v: 1, signer: "gw1", signerKey: k1.publicKey });
    expect(json.body).toMatchObject({ name: "CLI cache", latE7: 105000000, lonE7: -202500000 });
  });

  test("verify: a bad frame prints the error code and exits 1", async () => {
    const tampered = good.slice();
    tampered[Buffer.from(good).indexOf("CLI cache")]! ^= 0x20;
    const cases: Array<[Uint8Array, string]> = [
      [tampered, "bad_signature"],
      [new Uint8Array([...good, 0]), "trailing_bytes"],
      [new Uint8Array(0), "truncated"],
      [signed(generateKeyPair().privateKey, { type: 5, v: 1, gid: "gw1:cache:1", origin: "gw1", body: {} }).subarray(0, 20), "truncated"],
      [new Uint8Array([0xfb, 0x40, 0x45, 0, 0, 0, 0, 0, 0]), "float"],
    ];
    for (const [bytes, code] of cases) {
      const r = await runCli(["frame", "verify"], { stdin: bytes });
      expect({ code: r.code, out: r.stdout.split(":")[0] }).toEqual({ code: 1, out: code });
    }
  });

  test("decode: one verdict per frame of a page", async () => {
    const tampered = good.slice();
    tampered[Buffer.from(good).indexOf("CLI cache")]! ^= 0x20;
    const page = encodePage({ frames: [good, tampered, new Uint8Array([1])], next: 9, more: true, type: 1, instance: "gw1" });
    const r = await runCli(["frame", "decode"], { stdin: page });
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("page: 3 frames, next 9, more true, type 1, from gw1 (claimed)");
    expect(lines[1]).toStartWith("#0 ok cache gw1:cache:1 v1");
    expect(lines[2]).toStartWith("#1 bad_signature gw1:cache:1");
    expect(lines[3]).toStartWith("#2 bad_frame");
    expect(lines[4]).toBe("1 good, 2 bad");
    const ok = await runCli(["frame", "decode"], { stdin: encodePage({ frames: [good], next: 1, more: false }) });
    expect(ok.code).toBe(0);
    const notPage = await runCli(["frame", "decode"], { stdin: good });
    expect(notPage.code).toBe(1);
    expect(notPage.stdout).toStartWith("bad_page");
    expect((await runCli(["frame", "inspect"])).code).toBe(2);
  });
});

describe("svc-gateway key rotate", () => {
  async function rotateScenario(revoke: boolean) {
    const dir = tmpDir();
    const first = generateKeyPair();
    writeFileSync(join(dir, "svc-gateway.env"), `INSTANCE=gw5\nFED_PRIVATE_KEY=${first.privateKey}\n`);
    let g = await startInProcess({}, { dataDir: dir });
    publishRecord(g.gw, "cache", 1, body);
    const before = feedFrame(g.gw, "gw5:cache:1");
    await g.stop();
    // A peer that pinned the first key.
    const peer = await startInProcess({ INSTANCE: "gw6" });
    upsertPeer(peer.gw, { instance: "gw5", trust: "trusted", keyPin: first.publicKey });
    expect((await applyFrames(peer.gw, [before], { via: "test" })).applied).toBe(1);

    const r = await runCli(revoke ? ["key", "rotate", "revoke", "--data", dir] : ["key", "rotate", "--data", dir]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const env = readFileSync(join(dir, "svc-gateway.env"), "utf8");
    const next = /^FED_PRIVATE_KEY=(\S+)$/m.exec(env)![1]!;
    expect(next).not.toBe(first.privateKey);
    expect(env).toContain("INSTANCE=gw5");

    g = await startInProcess({}, { dataDir: dir });
    const d = (await (await g.get("/.well-known/svc")).json()) as { keys: Array<{ key: string; status: string; since: number }>; rotations: unknown[] };
    const newKey = d.keys[1]!.key;
    expect(d.keys).toEqual([
      { key: first.publicKey, status: revoke ? "revoked" : "active", since: expect.any(Number) },
      { key: newKey, status: "active", since: expect.any(Number) },
    ]);
    expect(d.rotations).toHaveLength(1);
    // The feed was re-signed with the new key on start.
    const after = feedFrame(g.gw, "gw5:cache:1");
    expect(decodeFrame(after).signerKey).toBe(newKey);
    const shown = await runCli(["key", "show", "--data", dir]);
    expect(shown.stdout).toContain(`${newKey}  active`);
    expect(shown.stdout).toContain("(signing)");
    await g.stop();

    // The peer follows the signed rotation from the descriptor, then accepts the re-signed frame.
    publishRecord(peer.gw, "cache", 99, body); // unrelated local write: mirrors stay apart
    expect((await applyFrames(peer.gw, [after], { via: "test" })).failures.map((f) => f.code)).toEqual(["key_not_accepted"]);
    expect(acceptRotation(peer.gw, "gw5", d.rotations[0])).toBeNull();
    const again = await applyFrames(peer.gw, [after], { via: "test" });
    expect(again.failures).toEqual([]);
    const old = signed(first.privateKey, { type: 1, v: 7, gid: "gw5:cache:2", origin: "gw5", body: body as never });
    const oldVerdict = await applyFrames(peer.gw, [old], { via: "test" });
    expect(oldVerdict.applied).toBe(revoke ? 0 : 1);
    await peer.stop();
  }

  test("hands over to a new key; both stay accepted", () => rotateScenario(false));
  test("with revoke, the old key is no longer accepted", () => rotateScenario(true));

  test("refuses without a key to rotate from", async () => {
    const dir = tmpDir();
    const r = await runCli(["key", "rotate", "--data", dir], { env: { INSTANCE: "gw5" } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no FED_PRIVATE_KEY");
    expect((await runCli(["key", "spin", "--data", dir])).code).toBe(2);
  });
});
