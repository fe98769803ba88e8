/**
 * The SVCL1 line protocol between two real gateways, over circuits joined in
 * memory (the radio carriers are tested in test/radio-node and the Direwolf tests):
 * greeting and capability intersection, paged pulls with cursors, limit
 * clamping and halving to the line budget, deflateDict1, and E for every kind
 * of bad line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { circuitPair } from "../helpers/circuit.ts";
import { count } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord, publishTombstone, localGid } from "../../src/fed/feed.ts";
import { cacheToWire, type CacheJson } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { cursorOf, finishPull, pullPeer } from "../../src/fed/sync.ts";
import { RECORD_TYPES } from "../../src/lib/fed/record.ts";
import { decodeCaps, encodeCaps, intersectCaps, tierCaps, type LinkCaps } from "../../src/lib/fed/caps.ts";
import { decodeCbor, encodeCbor } from "../../src/lib/fed/cbor.ts";
import { decompressPage, DEFLATE_DICT1 } from "../../src/lib/fed/compress.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/paths.ts";
import { decodePage } from "../../src/lib/fed/page.ts";
import { answerRequest, pullSvcl1, serveSvcl1 } from "../../src/fed/transports/svcl1.ts";

const kA = generateKeyPair();
const kB = generateKeyPair();
let A: Running;
let B: Running;
let U: Running; // unsigned

const cache = (i: number): CacheJson => ({
  name: `Radio cache ${i}`,
  type: "traditional",
  size: "small",
  difficulty: 1.5,
  terrain: 2,
  lat: 48.1 + i / 1000,
  lon: 11.5,
  status: "active",
  ownerCall: "N0OWN",
  description: "A cache placed near the repeater site. ".repeat(3),
});
const caps = (over: Partial<LinkCaps> = {}): LinkCaps => ({ ...tierCaps("compact"), batch: 10, ...over });
const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: kA.privateKey });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, FED_LOOPBACK_PEERS: "on" });
  U = await startInProcess({ INSTANCE: "gw-u" });
  for (let i = 1; i <= 24; i++) publishRecord(A.gw, "cache", i, cacheToWire(cache(i)));
  publishTombstone(A.gw, localGid(A.gw, "cache", 24));
  upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: kA.publicKey, endpoints: ["ax25:N0GWA-5"] });
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop(), U.stop()]);
});

describe("SVCL1", () => {
  test("a pull: greeting, capabilities intersected, tombstones first, pages of the negotiated batch, cursors kept", async () => {
    const { a, b } = circuitPair("N0GWB", "N0GWA-5");
    const served = serveSvcl1(A.gw, a, { caps: caps({ batch: 10 }) });
    const report = await pullSvcl1(B.gw, b, { peer: "gw-a", caps: caps({ batch: 8 }), transport: "ax25" });
    const s = await served;
    expect(report.error).toBeNull();
    expect(report.ok).toBe(true);
    expect(report.link).toMatchObject({ tier: "compact", batch: 8, compression: "deflateDict1" });
    expect(s.link).toEqual(report.link); // both ends computed the same link
    expect(report.feeds.tombstone).toMatchObject({ pages: 1, applied: 1 });
    // 23 live caches (the 24th was deleted): 8 + 8 + 7
    expect(report.feeds.cache).toMatchObject({ pages: 3, received: 23, applied: 23 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND type = 1 AND via = 'ax25'")).toBe(23);
    expect(count(B.gw, "tombstones", "gid = 'gw-a:cache:24'")).toBe(1);
    // who said what: the server greeted first, the client answered H, then asked tombstones first
    expect(a.sent[0]).toMatch(/^SVCL1 H [A-Za-z0-9+/=]+\r$/);
    expect(b.sent[0]).toMatch(/^SVCL1 H /);
    const requests = b.sent.filter((l) => l.startsWith("SVCL1 R ")).map((l) => decodeCbor(Buffer.from(l.slice(8, -1), "base64"), { textMaps: "object" }));
    expect(requests[0]).toEqual({ type: "tombstone", since: 0, limit: 8 });
    expect(requests.filter((r) => (r as { type: string }).type === "cache").map((r) => (r as { limit: number }).limit)).toEqual([8, 8, 8]);
    expect(decodeCaps(Buffer.from(a.sent[0]!.slice(8, -1), "base64"))).toMatchObject({ tier: "compact", batch: 10 });
    // compressed pages cross the circuit: fewer bytes than the pages themselves
    expect(report.bytes).toBeLessThan(report.rawBytes);
    expect(a.state).toBe("disconnected");

    // a second pull starts from the cursors: nothing new comes
    const again = circuitPair();
    void serveSvcl1(A.gw, again.a, { caps: caps() });
    const second = await pullSvcl1(B.gw, again.b, { peer: "gw-a", caps: caps(), transport: "ax25" });
    expect(second).toMatchObject({ ok: true, received: 0 });
  });

  test("the server clamps limit to the batch and halves it until the P line fits the line budget; a record too long for the session is refused, never skipped", async () => {
    const link = intersectCaps(caps({ batch: 20, mtu: 1600 }), caps({ batch: 20, mtu: 1600, compress: ["none"] }));
    expect(link.compression).toBe("none");
    const a = answerRequest(A.gw, link, { type: "cache", since: 0, limit: 500 });
    expect(a.line.length).toBeLessThanOrEqual(1600);
    expect(a.limit).toBeLessThan(20); // 20 did not fit; halved until it did
    const page = decodePage(Buffer.from(a.line.slice(8), "base64"));
    expect(page.frames.length).toBe(a.frames);
    expect(page.more).toBe(true);
    // with deflateDict1 the same budget carries more records
    const dict = answerRequest(A.gw, intersectCaps(caps({ batch: 20, mtu: 1600 }), caps({ batch: 20, mtu: 1600 })), { type: "cache", since: 0, limit: 500 });
    expect(dict.frames).toBeGreaterThan(a.frames);
    expect(decodePage(decompressPage(Buffer.from(dict.line.slice(8), "base64"), "deflateDict1")).frames.length).toBe(dict.frames);

    // a bulletin whose single frame is longer than the budget
    const noise = Array.from({ length: 1500 }, (_, i) => String.fromCharCode(65 + ((i * 7919) % 26))).join("");
    const big = publishRecord(A.gw, "bulletin", "big", { from: "N0OWN", category: "ALL", subject: "long", text: noise, postedAt: 1_700_000_000 });
    const small = publishRecord(A.gw, "bulletin", "small", { from: "N0OWN", category: "ALL", subject: "short", text: "73", postedAt: 1_700_000_000 });
    const tight = intersectCaps(caps({ mtu: 900, compress: ["none"] }), caps({ mtu: 900 }));
    expect(() => answerRequest(A.gw, tight, { type: "bulletin", since: 0, limit: 10 })).toThrow(expect.objectContaining({ code: "too_large" }));
    // past it (a cursor a full link reached) the small one fits
    const bigSeq = (A.gw.db.query("SELECT seq FROM fed_feed WHERE gid = ?").get(big.gid) as { seq: number }).seq;
    const rest = decodePage(Buffer.from(answerRequest(A.gw, tight, { type: "bulletin", since: bigSeq, limit: 10 }).line.slice(8), "base64"));
    expect(rest.frames.length).toBe(1);
    expect(rest.more).toBe(false);
    expect(big.v + small.v).toBe(2);
  });

  test("a pull meeting a record too long for the link gets SVCL1 E, keeps its cursor and is not ok; the other feeds are pulled, and a full link brings the record later", async () => {
    // the feed holds the bulletin published above whose frame alone is longer than 900 bytes
    const peer = getPeer(B.gw, "gw-a")!;
    const before = cursorOf(B.gw, peer.id, RECORD_TYPES.bulletin);
    const fresh = publishRecord(A.gw, "cache", 100, cacheToWire(cache(100)));
    const { a, b } = circuitPair();
    const served = serveSvcl1(A.gw, a, { caps: caps({ mtu: 900 }) });
    // uncompressed: the bulletin's text is repetitive enough for deflate to shrink it under the budget
    const report = await pullSvcl1(B.gw, b, { peer: "gw-a", caps: caps({ mtu: 900, compress: ["none"] }), transport: "ax25" });
    const s = await served;
    expect(report.ok).toBe(false);
    expect(report.error).toMatchObject({ code: "server_error" });
    expect(report.error!.message).toContain("line budget is 900");
    expect(a.sent.some((l) => /^SVCL1 E bulletin record gw-a:bulletin:big v1 alone is a \d+-byte line/.test(l))).toBe(true);
    expect(s.errors.some((e) => e.startsWith("too_large"))).toBe(true);
    // nothing skipped: the bulletin cursor did not move and no bulletin arrived ...
    expect(cursorOf(B.gw, peer.id, RECORD_TYPES.bulletin)).toBe(before);
    expect(report.feeds.bulletin).toMatchObject({ pages: 0, received: 0 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND type = 4")).toBe(0);
    // ... while the feeds before it came over the same circuit (positive control)
    expect(report.feeds.cache).toMatchObject({ applied: 1 });
    expect(count(B.gw, "mirror_records", `gid = '${fresh.gid}'`)).toBe(1);
    // the sysop's health says the pull failed
    finishPull(B.gw, peer.id, { instance: "gw-a", ok: report.ok, applied: report.applied, error: report.error });
    expect(getPeer(B.gw, "gw-a")).toMatchObject({ syncFailures: 1, lastError: expect.stringContaining("server_error") });
    // an HTTP pull (the full tier) from the same shared cursor brings both bulletins
    upsertPeer(B.gw, { instance: "gw-a", url: A.url });
    const http = await pullPeer(B.gw, "gw-a");
    expect(http.ok).toBe(true);
    expect(http.feeds.bulletin).toMatchObject({ applied: 2 });
    expect(count(B.gw, "mirror_records", "origin = 'gw-a' AND type = 4")).toBe(2);
  });

  test("line problems: E for a bad request (the session goes on), E and hang-up for what cannot be read; an unsigned instance serves nothing", async () => {
    const run = async (lines: string[], opts: { mtu?: number } = {}) => {
      const { a, b } = circuitPair();
      const got: string[] = [];
      b.onData((d) => got.push(...new TextDecoder().decode(d).split("\r").filter(Boolean)));
      const served = serveSvcl1(A.gw, a, { caps: caps({ mtu: opts.mtu ?? 2048 }), waitMs: 200 });
      for (const l of lines) {
        await Bun.sleep(5);
        if (b.state === "connected") b.send(l + "\r");
      }
      const report = await served;
      return { got, report, closed: a.state === "disconnected" };
    };
    const H = `SVCL1 H ${b64(encodeCaps(caps()))}`;
    const R = (o: unknown) => `SVCL1 R ${b64(encodeCbor(o as never))}`;

    const noH = await run([R({ type: "cache", since: 0, limit: 5 })]);
    expect(noH.got.slice(1)).toEqual(["SVCL1 E send SVCL1 H <caps> first"]);
    expect(noH.closed).toBe(true);

    const session = await run([
      H,
      "SVCL1 R !!notbase64",
      R({ type: "spam", since: 0, limit: 5 }),
      R({ type: "cache", since: -1, limit: 5 }),
      "SVCL1 P AAAA",
      R({ type: "cache", since: 0, limit: 2 }),
    ]);
    expect(session.got.slice(1).map((l) => l.slice(0, 40))).toEqual([
      "SVCL1 E R carries base64",
      "SVCL1 E type must be one of cache, find,",
      "SVCL1 E since must be a cursor",
      "SVCL1 E the server expects R, not P",
      expect.stringMatching(/^SVCL1 P /),
    ]);
    expect(decodePage(decompressPage(Buffer.from(session.got.at(-1)!.slice(8), "base64"), "deflateDict1")).frames.length).toBe(2);

    const garbage = await run([H, "HELLO WORLD"]);
    expect(garbage.got.at(-1)).toBe("SVCL1 E not an SVCL1 line");
    expect(garbage.closed).toBe(true);
    const tooLong = await run([H, "SVCL1 R " + "A".repeat(3000)], { mtu: 1024 });
    expect(tooLong.got.at(-1)).toBe("SVCL1 E a line longer than the session's 1024 bytes");
    expect(tooLong.closed).toBe(true);
    const badCaps = await run([`SVCL1 H ${b64(encodeCbor({ tier: "warp" }))}`]);
    expect(badCaps.got.at(-1)).toBe("SVCL1 E tier must be one of beacon, compact, full");

    const { a, b } = circuitPair();
    const got: string[] = [];
    b.onData((d) => got.push(new TextDecoder().decode(d)));
    await serveSvcl1(U.gw, a, { caps: caps() });
    expect(got.join("")).toBe("SVCL1 E this instance has no signing key: it serves no sync feeds\r");
  });

  test("the deflateDict1 dictionary in docs/protocol.md is the one the code uses, byte for byte", () => {
    const doc = readFileSync(join(ROOT, "docs/protocol.md"), "utf8");
    const hex = /```deflateDict1\n([0-9a-f\n]+)```/.exec(doc)?.[1]?.replace(/\n/g, "");
    expect(hex).toBe(Buffer.from(DEFLATE_DICT1).toString("hex"));
  });

  test("the client skips a node's banner before the greeting, and reports a server's refusal", async () => {
    const { a, b } = circuitPair();
    a.send("*** Connected to GWNODE\r");
    void serveSvcl1(A.gw, a, { caps: caps() });
    const ok = await pullSvcl1(B.gw, b, { peer: "gw-a", caps: caps(), transport: "netrom" });
    expect(ok.ok).toBe(true);

    upsertPeer(B.gw, { instance: "gw-u", trust: "trusted", keyPin: generateKeyPair().publicKey });
    const u = circuitPair();
    void serveSvcl1(U.gw, u.a, { caps: caps() });
    const refused = await pullSvcl1(B.gw, u.b, { peer: "gw-u", caps: caps(), transport: "ax25" });
    expect(refused).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(refused.error!.message).toContain("no signing key");
  });
});
