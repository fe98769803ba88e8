/**
 * The SVCFED carrier end to end between two real gateways: A packs its
 * signed feed into one bulletin (POST /federation/bbs/enqueue), the bulletin
 * travels as BBS traffic to B (through the ingest box's inbound API, and
 * through a real FBB forwarding session over TCP), and B applies its frames
 * through the one apply pipeline while storing it: records appear on B's
 * public API, tombstones delete there. An unchanged snapshot posts nothing;
 * truncated, altered, forged or undecodable bodies and bodies with a frame
 * the pipeline refuses are refused whole (nothing applied, nothing stored);
 * what BBSes do to whitespace is tolerated.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { count, feedFrame, signed } from "../helpers/fed.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord, publishTombstone } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { decodeFrame, decodePayload, encodeFrame } from "../../src/lib/fed/record.ts";
import { decodePage, encodePage } from "../../src/lib/fed/page.ts";
import { decodeSvcfedBody, encodeSvcfedBody, fnv1a64Hex, svcfedBid } from "../../src/fed/transports/svcfed.ts";
import { fbbPort } from "../../src/bbs/forwarding.ts";

const INGEST = "ingest-secret-0123456789";
const ops = { "x-ingest-secret": INGEST };
const kA = generateKeyPair();
const kB = generateKeyPair();
const kX = generateKeyPair();
let A: Running;
let B: Running;

const cache = (i: number) =>
  cacheToWire({
    name: `Carrier cache ${i}`,
    type: "traditional",
    size: "small",
    difficulty: 2,
    terrain: 2,
    lat: 47.5 + i / 100,
    lon: 8.5,
    status: "active",
    ownerCall: "N0OWN",
    description: `Cache ${i}: a walk along the river, ` + "then up the hill past the old mill. ".repeat(12),
  });

async function json(r: Response) {
  const text = await r.text();
  return { status: r.status, body: (text ? JSON.parse(text) : null) as any };
}
const enqueue = async (g: Running, body: unknown, headers: Record<string, string> = ops) => json(await g.post("/federation/bbs/enqueue", body, { headers }));
const inbound = async (g: Running, messages: object[], partner?: string) =>
  json(await g.post("/api/bbs/forward/inbound", { partner, messages }, { headers: ops }));
const svcfedCount = (g: Running) => count(g.gw, "bbs_messages", "to_call = 'SVCFED'");
const mirrored = (g: Running, where = "1") => count(g.gw, "mirror_records", `origin = 'gw-a' AND ${where}`);
const onB = async (i: number) => (await B.get(`/api/caches/gw-a:cache:${i}`)).status;

/** A's bulletin as the box gets it from the pool: R: lines, a blank line, the body. */
async function pooled(partner: string) {
  const r = await json(await A.get(`/api/bbs/forward/pool?partner=${partner}&limit=100`, { headers: ops }));
  expect(r.status).toBe(200);
  return r.body.messages as Array<{ bid: string; type: string; from: string; to: string; at: string; subject: string; text: string }>;
}
const asInbound = (
  m: { bid: string; type: string; from: string; to: string; at: string; subject: string; text: string },
  over: Partial<{ bid: string; text: string }> = {},
) => ({
  bid: over.bid ?? m.bid,
  type: m.type,
  from: m.from,
  to: `${m.to}@${m.at}`,
  subject: m.subject,
  text: over.text ?? m.text,
});

beforeAll(async () => {
  A = await startInProcess({
    INSTANCE: "gw-a",
    FED_PRIVATE_KEY: kA.privateKey,
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPA",
    BBS_HA: "N0AAA.#TST.USA.NOAM",
    BBS_FBB_PORT: "0",
    BBS_MAX_MESSAGE_BYTES: "8192",
  });
  B = await startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: kB.privateKey, INGEST_SECRET: INGEST, BBS_HA: "N0BBB.#TST.USA.NOAM", BBS_FBB_PORT: "0" });
  upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: kA.publicKey });
  // A's box carries what the rules route to N0BOX: SVCFED bulletins.
  expect((await A.post("/api/bbs/partners", { call: "N0BOX", transport: "box", protocol: "fbb-ascii" }, { headers: ops })).status).toBe(201);
  expect((await A.post("/api/bbs/forward", { partner: "N0BOX", field: "to", pattern: "SVCFED", types: "B" }, { headers: ops })).status).toBe(201);
  for (let i = 1; i <= 12; i++) publishRecord(A.gw, "cache", i, cache(i));
});
afterAll(async () => {
  await Promise.all([A.stop(), B.stop()]);
});

describe("FNV-1a 64 and the BID", () => {
  test("known vectors, an independent BigInt reference on random bytes, and the 12-character BID", () => {
    const enc = new TextEncoder();
    expect(fnv1a64Hex(enc.encode(""))).toBe("cbf29ce484222325");
    expect(fnv1a64Hex(enc.encode("a"))).toBe("af63dc4c8601ec8c");
    expect(fnv1a64Hex(enc.encode("foobar"))).toBe("85944171f73967e8");
    const ref = (b: Uint8Array) => {
      let h = 0xcbf29ce484222325n;
      for (const x of b) h = ((h ^ BigInt(x)) * 0x100000001b3n) & 0xffffffffffffffffn;
      return h.toString(16).padStart(16, "0");
    };
    for (let n = 0; n < 200; n++) {
      const b = crypto.getRandomValues(new Uint8Array(n * 7));
      expect(fnv1a64Hex(b)).toBe(ref(b));
    }
    // top 62 bits in base 36, 12 characters (values computed with Python's int)
    expect(svcfedBid("cbf29ce484222325")).toBe("RWVMMHVS7QA1");
    expect(svcfedBid("af63dc4c8601ec8c")).toBe("O065V64PS6XV");
    expect(svcfedBid("85944171f73967e8")).toBe("IA5V0QGACWL6");
    expect(svcfedBid("0000000000000003")).toBe("000000000000");
    expect(svcfedBid("ffffffffffffffff")).toMatch(/^[0-9A-Z]{12}$/);
  });
});

describe("enqueue on A", () => {
  test("the gate (ingest secret or sysop), bad parameters (400) and an unsigned instance (404): nothing stored", async () => {
    expect((await enqueue(A, {}, {})).status).toBe(401);
    const user = signedInUser(A.gw, "N0USR", { verified: true });
    expect((await enqueue(A, {}, { cookie: user.cookie })).status).toBe(403);
    const bad: unknown[] = [
      { types: [] },
      { types: ["cache", "nope"] },
      { types: "cache" },
      { since: -1 },
      { since: "5" },
      { since: 1.5 },
      { limit: 0 },
      { limit: 10_001 },
      { limit: "10" },
      { type: ["cache"] },
      [1, 2],
    ];
    for (const body of bad) {
      const r = await enqueue(A, body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error: expect.stringMatching(/^(invalid|bad_body)$/) });
      expect(r.body.message.length).toBeGreaterThan(10);
    }
    expect((await json(await A.post("/federation/bbs/enqueue", "not json", { headers: ops }))).status).toBe(400);
    // A typo is named, not dropped; the same body without it ({}) packs everything (the next test).
    const typo = await enqueue(A, { type: ["cache"] });
    expect({ status: typo.status, body: typo.body }).toEqual({
      status: 400,
      body: { error: "invalid", message: 'body.type: unknown field "type"; it takes types, since, limit', field: "body.type" },
    });
    expect(svcfedCount(A)).toBe(0);
    const unsigned = await startInProcess({ INGEST_SECRET: INGEST, INSTANCE: "gw-u" });
    try {
      const r = await enqueue(unsigned, {});
      expect([r.status, r.body.error]).toEqual([404, "unsigned"]);
      expect(svcfedCount(unsigned)).toBe(0);
    } finally {
      await unsigned.stop();
    }
    // a human cannot post into the carrier's category
    const op = signedInUser(A.gw, "N0OPA", { verified: true });
    const human = await json(
      await A.post("/api/bbs/messages", { type: "B", to: "SVCFED@WW", subject: "hi", body: "hello" }, { headers: { cookie: op.cookie } }),
    );
    expect([human.status, human.body.error]).toEqual([400, "reserved_category"]);
  });

  let first: any;
  test("one bulletin in SVCFED, cut to fit BBS_MAX_MESSAGE_BYTES, 7-bit clean, its BID derived from the payload; hidden from the human listing", async () => {
    const r = await enqueue(A, {});
    expect(r.status).toBe(201);
    first = r.body;
    expect(first).toMatchObject({ posted: true, reason: null, more: true, partners: ["N0BOX"] });
    expect(first.frames).toBeGreaterThan(2);
    expect(first.frames).toBeLessThan(12);
    expect(first.bid).toMatch(/^[0-9A-Z]{12}$/);

    const human = await json(await A.get("/api/bbs/bulletins"));
    expect(human.body.messages).toEqual([]);
    const svc = await json(await A.get("/api/bbs/bulletins?category=SVCFED"));
    expect(svc.body.messages).toEqual([
      expect.objectContaining({ id: first.id, bid: first.bid, type: "B", to: "SVCFED", at: "WW", from: "N0AAA", origin: "local" }),
    ]);
    const m = (await json(await A.get(`/api/bbs/messages/${first.id}`))).body;
    expect(m.size).toBeLessThanOrEqual(8192);
    // cut where the next record would not have fitted (its frame, in base64, beside the R: line's slack)
    const nextFrame = feedFrame(A.gw, `gw-a:cache:${first.frames + 1}`);
    expect(m.size + Math.ceil((nextFrame.length * 4) / 3) + 12).toBeGreaterThan(8192);
    const lines: string[] = m.body.trimEnd().split("\n");
    expect(lines[0]).toMatch(new RegExp(`^SVCFED 1 gw-a ${first.frames} ${first.bytes} [0-9a-f]{16}$`));
    expect(lines[lines.length - 1]).toBe("SVCFED END");
    for (const l of lines.slice(1, -1)) expect(l).toMatch(/^[A-Za-z0-9_-]{1,76}$/);
    expect(lines.slice(1, -2).every((l) => l.length === 76)).toBe(true);
    expect(/^[\x0a\x20-\x7e]*$/.test(m.body)).toBe(true);
    // the BID is the content's: re-derived from the body
    const d = decodeSvcfedBody(m.body);
    expect(d.bid).toBe(first.bid);
    expect(d.frames).toHaveLength(first.frames);
    expect(d.frames.map((f) => decodePayload(decodeFrame(f).payload).gid)).toEqual(Array.from({ length: first.frames }, (_, i) => `gw-a:cache:${i + 1}`));
  });

  test("an unchanged snapshot never double-posts; since= carries the rest; a sysop may enqueue too", async () => {
    // a bare POST (no body) means the defaults too
    const again = await json(await A.get("/federation/bbs/enqueue", { method: "POST", headers: ops }));
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ posted: false, reason: "unchanged", bid: first.bid, id: first.id, frames: first.frames, next: first.next });
    expect(svcfedCount(A)).toBe(1);
    const op = signedInUser(A.gw, "N0OPA", { verified: true });
    const rest = await enqueue(A, { since: first.next }, { cookie: op.cookie });
    expect(rest.status).toBe(201);
    expect(rest.body).toMatchObject({ posted: true, more: false, frames: 12 - first.frames });
    expect((await enqueue(A, { since: rest.body.next })).body).toMatchObject({ posted: false, reason: "nothing_to_send", bid: null, frames: 0 });
    expect((await enqueue(A, { since: first.next, limit: 10_000 })).body).toMatchObject({ posted: false, reason: "unchanged", bid: rest.body.bid });
    // a snapshot of other types is another bulletin: there are no tombstones yet
    expect((await enqueue(A, { types: ["tombstone", "find"] })).body).toMatchObject({ posted: false, reason: "nothing_to_send" });
    expect(svcfedCount(A)).toBe(2);
  });

  test("a record too large for one bulletin is refused clearly (413), nothing stored", async () => {
    const small = await startInProcess({
      INSTANCE: "gw-s",
      FED_PRIVATE_KEY: generateKeyPair().privateKey,
      INGEST_SECRET: INGEST,
      BBS_MAX_MESSAGE_BYTES: "1024",
    });
    try {
      publishRecord(small.gw, "cache", 1, { ...cache(1), description: "x".repeat(2000) });
      const r = await enqueue(small, {});
      expect([r.status, r.body.error]).toEqual([413, "too_large"]);
      expect(r.body.message).toContain("BBS_MAX_MESSAGE_BYTES is 1024");
      expect(svcfedCount(small)).toBe(0);
    } finally {
      await small.stop();
    }
  });
});

describe("received on B", () => {
  test("carried through the box's inbound API: the records appear on B's public API", async () => {
    const pool = await pooled("N0BOX");
    expect(pool.map((m) => m.to)).toEqual(["SVCFED", "SVCFED"]);
    expect(await onB(1)).toBe(404);
    const r = await inbound(
      B,
      pool.map((m) => asInbound(m)),
    );
    expect(r.body.results.map((x: any) => x.result)).toEqual(["stored", "stored"]);
    const list = await json(await B.get("/api/caches?bbox=8,47,9,48"));
    expect(list.body.caches.map((c: any) => c.name).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `Carrier cache ${i + 1}`).sort());
    const one = await json(await B.get("/api/caches/gw-a:cache:7"));
    expect(one.body).toMatchObject({ name: "Carrier cache 7", lon: 8.5 });
    expect(mirrored(B, "via = 'bbs'")).toBe(12);
    // stored on B as machine traffic too: hidden from people, there for the category
    expect((await json(await B.get("/api/bbs/bulletins"))).body.messages).toEqual([]);
    expect((await json(await B.get("/api/bbs/bulletins?category=SVCFED"))).body.messages.map((m: any) => [m.bid, m.origin])).toEqual(
      pool.map((m) => [m.bid, "box"]).reverse(),
    );
    // the same bulletin again is a duplicate BID, nothing applied twice
    expect((await inbound(B, [asInbound(pool[0]!)])).body.results[0].result).toBe("duplicate");
  });

  test("truncated, altered, forged, undecodable and mixed bodies, and a bad signature: refused whole, nothing applied or stored; whitespace mangling still applies", async () => {
    const cursor = (A.gw.db.query("SELECT max(seq) AS s FROM fed_feed").get() as { s: number }).s;
    publishRecord(A.gw, "cache", 13, cache(13));
    publishRecord(A.gw, "cache", 14, cache(14));
    const posted = await enqueue(A, { since: cursor });
    expect(posted.body).toMatchObject({ posted: true, frames: 2 });
    const [m] = (await pooled("N0BOX")).filter((x) => x.bid === posted.body.bid);
    expect(m).toBeDefined();
    const text = m!.text;
    const lines = text.split("\n");
    const header = lines.findIndex((l) => l.startsWith("SVCFED 1 "));
    const endAt = lines.indexOf("SVCFED END");
    const beforeMessages = svcfedCount(B);
    const beforeMirror = mirrored(B);

    const flip = (l: string, at: number) => l.slice(0, at) + (l[at] === "A" ? "B" : "A") + l.slice(at + 1);
    const d = decodeSvcfedBody(text);
    const page = decodePage(d.payload);
    // frame 1 with a broken signature, re-packed so that the body and BID are consistent
    const f1 = decodeFrame(d.frames[1]!);
    const sig = f1.sig.slice();
    sig[5]! ^= 1;
    const badSig = encodeSvcfedBody(
      "gw-a",
      encodePage({ ...page, frames: [d.frames[0]!, encodeFrame({ ...f1, sig }), ...d.frames.slice(2)] }),
      d.frames.length,
    );
    // a frame of another origin slipped in
    const alien = signed(kX.privateKey, { type: 1, gid: "gw-x:cache:1", origin: "gw-x", v: 1, body: cache(99) as never });
    const mixed = encodeSvcfedBody("gw-a", encodePage({ ...page, frames: [...d.frames, alien] }), d.frames.length + 1);
    const routeLines = lines.slice(0, header).join("\n") + "\n";
    const cases: Array<[string, { bid?: string; text: string }, RegExp]> = [
      ["truncated after the data", { text: lines.slice(0, endAt).join("\n") }, /truncated/],
      ["truncated in the data", { text: lines.slice(0, endAt - 3).join("\n") }, /truncated/],
      ["one character changed", { text: [...lines.slice(0, header + 2), flip(lines[header + 2]!, 10), ...lines.slice(header + 3)].join("\n") }, /altered/],
      ["a line dropped and the count kept", { text: [...lines.slice(0, header + 2), ...lines.slice(header + 3)].join("\n") }, /truncated/],
      ["a forged BID", { bid: "FORGED000001", text }, /forged/],
      [
        "a character that is not base64url",
        { text: [...lines.slice(0, header + 2), "!" + lines[header + 2]!.slice(1), ...lines.slice(header + 3)].join("\n") },
        /not base64url/,
      ],
      ["no header", { text: routeLines + "hello\n" }, /no "SVCFED 1 \.\.\." header/],
      ["an unknown version", { text: text.replace("SVCFED 1 ", "SVCFED 2 ") }, /version 2 is not supported/],
      [
        "a frame with a bad signature",
        { bid: badSig.bid, text: routeLines + badSig.text },
        /refused whole, nothing applied: 1 of \d+ frames rejected; frame 1 \(gw-a:cache:\d+\): bad_signature/,
      ],
      ["a frame of another origin", { bid: mixed.bid, text: routeLines + mixed.text }, /frame \d+ is gw-x's, the bulletin carries gw-a's/],
    ];
    for (const [what, over, reason] of cases) {
      const r = await inbound(B, [asInbound(m!, over)], undefined);
      expect({ what, status: r.status, result: r.body.results[0].result }).toEqual({ what, status: 200, result: "refused" });
      expect({ what, reason: r.body.results[0].reason }).toEqual({ what, reason: expect.stringMatching(reason) });
    }
    expect(svcfedCount(B)).toBe(beforeMessages);
    expect(mirrored(B)).toBe(beforeMirror);
    expect(await onB(13)).toBe(404);

    // CRLF, trailing and leading blanks, blank lines, the data re-wrapped at 50 columns, text around it
    const data = lines.slice(header + 1, endAt).join("");
    const rewrapped = data.match(/.{1,50}/g)!.map((l, i) => (i % 3 === 0 ? `  ${l}  ` : `${l}\t`));
    const mangled = [
      routeLines.trimEnd(),
      "",
      "Forwarded by a friendly BBS",
      "",
      lines[header]!.replace(/ /g, "   ") + "  ",
      ...rewrapped,
      "",
      " SVCFED  END ",
      "73 de N0XYZ",
      "",
    ].join("\r\n");
    const ok = await inbound(B, [asInbound(m!, { text: mangled })]);
    expect(ok.body.results[0]).toMatchObject({ result: "stored", bid: m!.bid });
    expect(await onB(13)).toBe(200);
    expect(await onB(14)).toBe(200);
  });

  test("a bulletin of an origin B does not know is stored and carried on, its frames quarantined, never applied", async () => {
    const frames = [1, 2].map((i) => signed(kX.privateKey, { type: 1, gid: `gw-x:cache:${i}`, origin: "gw-x", v: 1, body: cache(i) as never }));
    const body = encodeSvcfedBody("gw-x", encodePage({ frames, next: 2, more: false }), 2);
    const r = await inbound(B, [{ bid: body.bid, type: "B", from: "N0XXX", to: "SVCFED@WW", subject: "SVCFED gw-x 2 records", text: body.text }]);
    expect(r.body.results[0]).toMatchObject({ result: "stored" });
    expect(count(B.gw, "mirror_records", "origin = 'gw-x'")).toBe(0);
    expect((B.gw.db.query("SELECT frames FROM fed_quarantine WHERE origin = 'gw-x'").get() as { frames: number }).frames).toBe(2);
  });

  test("through a real FBB forwarding session between the gateways over TCP; tombstones delete on B", async () => {
    const pa = await json(
      await A.post(
        "/api/bbs/partners",
        { call: "N0BBB", transport: "tcp", host: "127.0.0.1", port: fbbPort(B.gw), protocol: "fbb-b1", password: "secret-ab" },
        { headers: ops },
      ),
    );
    expect(pa.status).toBe(201);
    expect(
      (
        await B.post(
          "/api/bbs/partners",
          { call: "N0AAA", transport: "tcp", host: "127.0.0.1", port: fbbPort(A.gw), protocol: "fbb-b1", password: "secret-ab" },
          { headers: ops },
        )
      ).status,
    ).toBe(201);
    expect((await A.post("/api/bbs/forward", { partner: "N0BBB", field: "to", pattern: "SVCFED", types: "B" }, { headers: ops })).status).toBe(201);

    const cursor = (A.gw.db.query("SELECT max(seq) AS s FROM fed_feed").get() as { s: number }).s;
    publishTombstone(A.gw, "gw-a:cache:2");
    publishRecord(A.gw, "cache", 15, cache(15));
    const e = await enqueue(A, { since: cursor });
    expect(e.body).toMatchObject({ posted: true, frames: 2 });
    expect(e.body.partners.sort()).toEqual(["N0BBB", "N0BOX"]);
    const body = (await json(await A.get(`/api/bbs/messages/${e.body.id}`))).body.body as string;
    // tombstones first
    expect(decodeSvcfedBody(body).frames.map((f) => decodePayload(decodeFrame(f).payload).type)).toEqual([5, 1]);
    expect(await onB(2)).toBe(200);

    const run = await json(await A.post(`/api/bbs/partners/${pa.body.id}/forward`, {}, { headers: ops }));
    expect(run.body).toMatchObject({ ok: true, error: null, compression: "b1" });
    expect(run.body.sent).toContainEqual({ bid: e.body.bid, outcome: "sent" });
    expect(await onB(2)).toBe(404);
    expect(await onB(15)).toBe(200);
    const list = await json(await B.get("/api/caches?bbox=8,47,9,48"));
    expect(list.body.caches.map((c: any) => c.name)).not.toContain("Carrier cache 2");
    const got = B.gw.db.query("SELECT origin, received_from AS receivedFrom FROM bbs_messages WHERE bid = ?").get(e.body.bid);
    expect(got).toEqual({ origin: "fbb", receivedFrom: "N0AAA" });
  });
});
