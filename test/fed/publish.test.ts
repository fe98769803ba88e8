import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { accountGid, localGid, publishAccountMove, publishRecord, publishTombstone, readFeed, resignFeed } from "../../src/fed/feed.ts";
import { cacheToWire, findToWire, type CacheJson } from "../../src/lib/fed/bodies.ts";
import { decodeFrame, decodePayload, openFrame, RECORD_TYPES } from "../../src/lib/fed/record.ts";
import { AppError } from "../../src/lib/errors.ts";
import { pruneAll } from "../../src/jobs/prune.ts";

const key = generateKeyPair();
const cache: CacheJson = {
  name: "Old Mill",
  type: "traditional",
  size: "small",
  difficulty: 2,
  terrain: 3.5,
  lat: 51.5,
  lon: -0.1275,
  status: "active",
  ownerCall: "N0OWN",
};

let g: Running;
let unsigned: Running;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: key.privateKey, TOMBSTONE_TTL_DAYS: "10" });
  unsigned = await startInProcess({ INSTANCE: "gw0" });
});
afterAll(async () => {
  await g.stop();
  await unsigned.stop();
});

const rowOf = (r: Running, gid: string) =>
  r.gw.db.query("SELECT seq, type, v, at, payload, frame, signer_key AS signerKey FROM fed_feed WHERE gid = ?").get(gid) as {
    seq: number;
    type: number;
    v: number;
    at: number;
    payload: Uint8Array;
    frame: Uint8Array | null;
    signerKey: string | null;
  } | null;

const failure = (fn: () => unknown): AppError => {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return e as AppError;
  }
  throw new Error("did not throw");
};

describe("publishing", () => {
  test("each write bumps v, signs with FED_PRIVATE_KEY and moves the record to the end of the feed", async () => {
    const first = publishRecord(g.gw, "cache", 1, cacheToWire(cache));
    expect(first).toMatchObject({ type: 1, gid: "gw1:cache:1", v: 1, signed: true });
    const row1 = rowOf(g, "gw1:cache:1")!;
    const second = publishRecord(g.gw, "cache", 1, cacheToWire({ ...cache, name: "Old Mill (moved)" }));
    expect(second.v).toBe(2);
    const row2 = rowOf(g, "gw1:cache:1")!;
    expect(row2.seq).toBeGreaterThan(row1.seq);
    expect(g.gw.db.query("SELECT count(*) AS n FROM fed_feed WHERE gid = 'gw1:cache:1'").get()).toEqual({ n: 1 });
    const opened = await openFrame(row2.frame!);
    expect(opened.ok).toBe(true);
    if (!opened.ok) return;
    expect(opened.frame.signerKey).toBe(key.publicKey);
    expect(opened.payload).toMatchObject({ type: 1, gid: "gw1:cache:1", origin: "gw1", v: 2, signer: "gw1", at: Math.floor(g.gw.clock.now() / 1000) });
    expect(opened.payload.body.name).toBe("Old Mill (moved)");
    expect(opened.payload.body.latE7).toBe(515000000);
    expect(opened.payload.body.lonE7).toBe(-1275000);
    expect(Buffer.from(opened.frame.payload).equals(Buffer.from(row2.payload))).toBe(true);
  });

  test("an unsigned instance stores the payload without a frame", () => {
    const p = publishRecord(unsigned.gw, "cache", 5, cacheToWire(cache));
    expect(p).toMatchObject({ gid: "gw0:cache:5", v: 1, signed: false });
    const row = rowOf(unsigned, "gw0:cache:5")!;
    expect(row.frame).toBeNull();
    expect(decodePayload(row.payload).body.name).toBe("Old Mill");
  });

  test("a body outside its layout is refused and nothing is stored", () => {
    const before = g.gw.db.query("SELECT count(*) AS n FROM fed_feed").get();
    const e1 = failure(() => publishRecord(g.gw, "cache", 9, { ...cacheToWire(cache), ownerEmail: "o@example.org" } as never));
    expect(e1.status).toBe(422);
    expect(e1.message).toContain("ownerEmail");
    const e2 = failure(() => publishRecord(g.gw, "cache", 9, { ...cacheToWire(cache), difficultyX10: 60 }));
    expect(e2.message).toContain("difficultyX10");
    const e3 = failure(() => publishRecord(g.gw, "find", "x:y", findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 0 })));
    expect(e3.code).toBe("bad_gid");
    expect(g.gw.db.query("SELECT count(*) AS n FROM fed_feed").get()).toEqual(before);
  });

  test("a tombstone is the gid's last version, empty, idempotent, and the id cannot come back", () => {
    publishRecord(g.gw, "find", 7, findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: "N0FND" }));
    publishRecord(g.gw, "find", 7, findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 1_700_000_000_000, call: "N0FND", text: "TFTC" }));
    const t = publishTombstone(g.gw, "gw1:find:7");
    expect(t).toMatchObject({ type: 5, gid: "gw1:find:7", v: 3 });
    const row = rowOf(g, "gw1:find:7")!;
    expect(row.type).toBe(5);
    const p = decodePayload(row.payload);
    expect(p.body).toEqual(Object.create(null));
    expect(Buffer.from(row.payload).toString("latin1")).not.toContain("N0FND");
    expect(publishTombstone(g.gw, "gw1:find:7")).toMatchObject({ v: 3 });
    const again = failure(() => publishRecord(g.gw, "find", 7, findToWire({ cache: "gw1:cache:1", kind: "find", loggedAt: 0 })));
    expect(again.status).toBe(409);
    expect(again.code).toBe("tombstoned");
    expect(failure(() => publishTombstone(g.gw, "gw2:find:7")).code).toBe("bad_gid");
    expect(failure(() => publishTombstone(g.gw, "gw1:peer:self")).code).toBe("bad_gid");
  });

  test("erase: one tombstone naming the account's opaque id; move: an account-move record", () => {
    const acct = accountGid(g.gw, "Qx3mZ0-abcdefghijklmn");
    expect(acct).toBe("gw1:account:Qx3mZ0-abcdefghijklmn");
    expect(publishTombstone(g.gw, acct)).toMatchObject({ type: 5, v: 1 });
    const m = publishAccountMove(g.gw, "Mv0-abcdefghijklmnopq", "gw2:account:Zz9");
    expect(m).toMatchObject({ type: 6, gid: "gw1:account-move:Mv0-abcdefghijklmnopq", v: 1 });
    const body = decodePayload(rowOf(g, m.gid)!.payload).body;
    expect({ ...body }).toEqual({ from: "gw1:account:Mv0-abcdefghijklmnopq", to: "gw2:account:Zz9" });
    expect(failure(() => publishAccountMove(g.gw, "A1", "gw1:account:B2")).code).toBe("bad_gid");
    expect(failure(() => publishAccountMove(g.gw, "A1", "gw2:cache:B2")).code).toBe("bad_gid");
  });

  test("inside a caller's transaction: rolled back with it, and the event fires only after commit", async () => {
    const seen: string[] = [];
    const off = g.gw.events.on("fedPublished", (e) => seen.push(`${e.gid}@${e.v}`));
    expect(() =>
      g.gw.db.transaction(() => {
        publishRecord(g.gw, "cache", 20, cacheToWire(cache));
        throw new Error("the domain's own write failed");
      })(),
    ).toThrow("the domain's own write failed");
    expect(rowOf(g, "gw1:cache:20")).toBeNull();
    g.gw.db.transaction(() => {
      publishRecord(g.gw, "cache", 21, cacheToWire(cache));
    })();
    await Promise.resolve();
    off();
    expect(seen).toEqual(["gw1:cache:21@1"]);
  });

  test("the feed pages by cursor, per type, oldest first", () => {
    for (let i = 100; i < 105; i++) publishRecord(g.gw, "cache", i, cacheToWire({ ...cache, name: `c${i}` }));
    const all: string[] = [];
    let since = 0;
    for (;;) {
      const page = readFeed(g.gw, RECORD_TYPES.cache, since, 2);
      all.push(...page.rows.map((r) => r.gid));
      expect(page.rows.every((r) => r.type === 1)).toBe(true);
      since = page.next;
      if (!page.more) break;
    }
    expect(all.slice(-5)).toEqual(["gw1:cache:100", "gw1:cache:101", "gw1:cache:102", "gw1:cache:103", "gw1:cache:104"]);
    expect(new Set(all).size).toBe(all.length);
    expect(readFeed(g.gw, RECORD_TYPES.cache, since, 2)).toEqual({ rows: [], next: since, more: false });
  });

  test("published tombstones expire after TOMBSTONE_TTL_DAYS; records do not", async () => {
    const now = g.gw.clock.now();
    await pruneAll(g.gw.db, g.gw.config, now + 11 * 24 * 3_600_000);
    expect(rowOf(g, "gw1:find:7")).toBeNull();
    expect(rowOf(g, "gw1:cache:1")).not.toBeNull();
  });
});

describe("re-signing", () => {
  test("records published unsigned are signed when the instance starts with a key", async () => {
    const dataDir = unsigned.dataDir;
    publishRecord(unsigned.gw, "cache", 6, cacheToWire(cache));
    expect(rowOf(unsigned, "gw0:cache:6")!.frame).toBeNull();
    await unsigned.stop();
    const k = generateKeyPair();
    unsigned = await startInProcess({ INSTANCE: "gw0", FED_PRIVATE_KEY: k.privateKey }, { dataDir });
    for (const gid of ["gw0:cache:5", "gw0:cache:6"]) {
      const row = rowOf(unsigned, gid)!;
      expect(row.signerKey).toBe(k.publicKey);
      expect(decodeFrame(row.frame!).signerKey).toBe(k.publicKey);
      expect((await openFrame(row.frame!)).ok).toBe(true);
    }
    expect(resignFeed(unsigned.gw)).toBe(0);
    expect(localGid(unsigned.gw, "cache", 6)).toBe("gw0:cache:6");
  });
});
