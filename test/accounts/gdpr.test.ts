/**
 * GDPR export and erase over HTTP, signed by a device key or by the session:
 * the export is complete and only the account's; the erase removes the
 * personal rows, takes the key records out of the federation feed and
 * publishes one signed, PII-free tombstone of the account.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedBody, signedInUser, type TestUser } from "../helpers/accounts.ts";
import { createCredential } from "../helpers/webauthn.ts";
import { generateKeyPair, type KeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload, verifyFrame } from "../../src/lib/fed/record.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";
import { ingestBeacon } from "../helpers/aprs.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/paths.ts";

const FED = generateKeyPair();
const INGEST = "ingest-secret-0123456789";
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gdpr-gw", FED_PRIVATE_KEY: FED.privateKey, INGEST_SECRET: INGEST, BBS_HA: "N0GW.#TST.USA.NOAM" });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const count = (table: string, where = "1", ...p: Array<string | number>) =>
  (g.gw.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...p) as { n: number }).n;

/** A full account: e-mail, verified callsign with an SSID, a passkey, a device key, a profile, a pending challenge. */
async function fullAccount(call: string): Promise<{ u: TestUser; kp: KeyPair; email: string }> {
  const u = signedInUser(g.gw, call);
  const h = { headers: { cookie: u.cookie } };
  const email = `${call.toLowerCase()}@example.org`;
  g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(email, u.id);
  markCallsignVerified(g.gw, u.id, call, "test: verified by hand");
  await g.post("/auth/callsigns", { add: `${call}-9` }, h);
  await g.post("/auth/callsigns", { add: "N0UNVR" }, h);
  await g.post("/verify/aprs/start", { call: "N0UNVR" }, h);
  const opts = await json(await g.post("/auth/passkey/register/options", {}, h));
  await g.post("/auth/passkey/register/verify", { credential: createCredential(opts, g.url).credential, label: "phone" }, h);
  const kp = generateKeyPair();
  expect((await g.post("/keys/register", { call, key: kp.publicKey, label: "box" }, h)).status).toBe(201);
  await g.post("/auth/profile", { public: true, about: "73" }, h);
  await g.post("/auth/email/start", { email });
  return { u, kp, email };
}

const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });

/** A signed-in account with a verified callsign and an e-mail, made without the rate-limited sign-in routes. */
function callAccount(call: string): TestUser {
  const u = signedInUser(g.gw, call);
  g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(`${call.toLowerCase()}@example.org`, u.id);
  markCallsignVerified(g.gw, u.id, call, "test: verified by hand");
  return u;
}

/**
 * BBS mail and box commands of `u` (holding `call`, verified) with `other`:
 * mail both ways, a bulletin, a message forwarded in from a partner (which
 * teaches the White Pages the call's home BBS), a read-only and a transmit
 * box command.
 */
async function bbsAndBox(u: TestUser, call: string, other: TestUser, otherCall: string) {
  const ok = async (r: Promise<Response>) => {
    const res = await r;
    expect(res.status).toBeLessThan(300);
    return json(res);
  };
  await ok(g.post("/api/bbs/messages", { to: otherCall, subject: `From ${call}`, body: `Hello ${otherCall}, 73 de ${call}` }, as(u)));
  await ok(g.post("/api/bbs/messages", { to: call, subject: `To ${call}`, body: `Hi ${call}, meet at the repeater` }, as(other)));
  await ok(g.post("/api/bbs/messages", { type: "B", to: "ALL@WW", subject: `Net by ${call}`, body: `QNI ${call} tonight` }, as(u)));
  const inbound = await ok(
    g.post(
      "/api/bbs/forward/inbound",
      {
        messages: [
          {
            bid: `7_${call}`,
            type: "P",
            from: call,
            to: otherCall,
            subject: "Via the network",
            text: `R:261125/0200Z @:${call}.#NCA.CA.USA.NOAM\nQTH is the old mill`,
          },
        ],
      },
      { headers: { "x-ingest-secret": INGEST } },
    ),
  );
  expect(inbound.results[0]).toMatchObject({ result: "stored" });
  await ok(g.post("/api/box/main/command", { kind: "ping" }, as(u)));
  await ok(g.post("/api/box/main/command", { kind: "ui", args: { line: `${call}>APRS:>on the air` } }, as(u)));
}

describe("export", () => {
  test("a device key's signed request gets a complete copy of the account, and nothing of anyone else's", async () => {
    const { u, kp, email } = await fullAccount("N0EXP");
    await fullAccount("N0OTH");
    const path = "/api/account/N0EXP-9/export";
    const r = await g.post(path, signedBody(kp, "POST", path, {}));
    expect(r.status).toBe(200);
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="account-N0EXP-9.json"');
    const x = await json(r);
    expect(x.format).toBe("svc-account-export/1");
    expect(x.instance).toBe("gdpr-gw");
    const publicId = (g.gw.db.query("SELECT public_id AS p FROM users WHERE id = ?").get(u.id) as { p: string }).p;
    expect(x.account).toEqual({ gid: `gdpr-gw:account:${publicId}`, calls: ["N0EXP", "N0EXP-9", "N0UNVR"], verifiedCalls: ["N0EXP"] });
    const a = x.data.accounts;
    expect(a.account).toMatchObject({ publicId, email, profile: { public: true, about: "73" } });
    expect(a.callsigns.map((c: any) => [c.call, c.active, c.verifiedAt !== null])).toEqual([
      ["N0EXP", true, true],
      ["N0EXP-9", false, true],
      ["N0UNVR", false, false],
    ]);
    expect(a.passkeys).toHaveLength(1);
    expect(a.passkeys[0]).toMatchObject({ label: "phone", counter: 0 });
    expect(typeof a.passkeys[0].publicKey).toBe("string");
    expect(a.deviceKeys).toEqual([expect.objectContaining({ key: kp.publicKey, call: "N0EXP", label: "box", revokedAt: null })]);
    expect(a.sessions.length).toBeGreaterThanOrEqual(1);
    expect(a.callsignChallenges).toEqual([expect.objectContaining({ call: "N0UNVR", heardAt: null })]);
    expect(a.emailSignIns).toEqual([expect.objectContaining({ email })]);
    // Nothing of the other account, and no secrets (session and token hashes).
    const text = JSON.stringify(x);
    expect(text).not.toContain("N0OTH");
    expect(text).not.toContain("n0oth@");
    expect(text).not.toMatch(/id_hash|token_hash|code_hash/);
  });

  test("the export holds the player's own notes and corrected coordinates of caches", async () => {
    const u = signedInUser(g.gw, "N0NTE", { verified: true });
    const c = await json(
      await g.post("/api/caches", { name: "Puzzle", type: "mystery", size: "small", difficulty: 3, terrain: 2, lat: 48.1, lon: 11.5 }, as(u)),
    );
    const saved = await g.get(`/api/caches/${c.id}/personal`, {
      method: "PUT",
      headers: { cookie: u.cookie, "content-type": "application/json" },
      body: JSON.stringify({ note: "solved it", corrected: { lat: 48.11, lon: 11.51 } }),
    });
    expect(saved.status).toBe(200);
    const x = await json(await g.post("/api/account/N0NTE/export", {}, { headers: { cookie: u.cookie } }));
    expect(x.data.game.personalNotes).toEqual([{ cache: c.gid, note: "solved it", corrected: { lat: 48.11, lon: 11.51 }, updatedAt: expect.any(Number) }]);
  });

  test("a session holding the callsign exports without a signature; signed-body refusals change nothing", async () => {
    const { u, kp } = await fullAccount("N0SES");
    const path = "/api/account/N0SES/export";
    const bySession = await g.post(path, {}, { headers: { cookie: u.cookie } });
    expect(bySession.status).toBe(200);
    expect((await json(bySession)).data.accounts.deviceKeys).toHaveLength(1);
    const body = signedBody(kp, "POST", path, {});
    expect((await g.post(path, body)).status).toBe(200);
    expect((await g.post(path, body)).status).toBe(409); // replayed
    expect((await g.post(path, signedBody(kp, "POST", path, {}, Math.floor(Date.now() / 1000) - 900))).status).toBe(401); // stale
    expect((await g.post(path, signedBody(generateKeyPair(), "POST", path, {}))).status).toBe(403); // unknown key
    expect((await g.post("/api/account/N0EXP/export", signedBody(kp, "POST", "/api/account/N0EXP/export", {}))).status).toBe(403); // another call
    expect((await g.post(path, signedBody(kp, "POST", "/api/account/N0SES/delete", {}))).status).toBe(401); // signed for another route
    expect((await g.post(path, {})).status).toBe(401);
    const stranger = signedInUser(g.gw, "N0STR");
    expect((await g.post(path, {}, { headers: { cookie: stranger.cookie } })).status).toBe(401);
  });
});

describe("export of BBS mail and box commands", () => {
  test("the export holds the account's BBS mail both ways, its bulletins, its White Pages entry and its box commands, and nothing of others'", async () => {
    const u = callAccount("N0MLX");
    const pal = callAccount("N0PAL");
    await bbsAndBox(u, "N0MLX", pal, "N0PAL");
    // mail and commands that are not N0MLX's
    expect((await g.post("/api/bbs/messages", { to: "N0THR", subject: "Between others", body: "not for N0MLX's export" }, as(pal))).status).toBe(201);
    expect((await g.post("/api/box/main/command", { kind: "status" }, as(pal))).status).toBeLessThan(300);

    const x = await json(await g.post("/api/account/N0MLX/export", {}, as(u)));
    const bbs = x.data.bbs;
    expect(bbs.messages.map((m: any) => [m.type, m.from, m.to, m.subject]).sort()).toEqual(
      [
        ["B", "N0MLX", "ALL", "Net by N0MLX"],
        ["P", "N0MLX", "N0PAL", "From N0MLX"],
        ["P", "N0MLX", "N0PAL", "Via the network"],
        ["P", "N0PAL", "N0MLX", "To N0MLX"],
      ].sort(),
    );
    // full rows, not summaries
    expect(bbs.messages.find((m: any) => m.subject === "To N0MLX")).toMatchObject({
      body: "Hi N0MLX, meet at the repeater",
      bid: expect.any(String),
      origin: "local",
      createdAt: expect.any(Number),
    });
    const via = bbs.messages.find((m: any) => m.subject === "Via the network");
    expect(via).toMatchObject({ origin: "box", body: "QTH is the old mill" });
    expect(via.route).toContain("R:261125/0200Z @:N0MLX.#NCA.CA.USA.NOAM");
    expect(bbs.whitePages).toEqual([expect.objectContaining({ call: "N0MLX", homeBbs: "N0MLX.#NCA.CA.USA.NOAM" })]);
    expect(x.data.box.commands.map((c: any) => [c.kind, c.call, c.via, c.state])).toEqual([
      ["ping", null, "session", "queued"],
      ["ui", "N0MLX", "session", "queued"],
    ]);
    expect(x.data.box.commands[1].args).toEqual({ line: "N0MLX>APRS:>on the air" });
    const text = JSON.stringify(x);
    expect(text).not.toContain("Between others");
    expect(text).not.toContain('"status"');
    // and the other account's export has its side of the mail (positive control)
    const y = await json(await g.post("/api/account/N0PAL/export", {}, as(pal)));
    expect(y.data.bbs.messages.map((m: any) => m.subject).sort()).toEqual(["Between others", "From N0MLX", "To N0MLX", "Via the network"]);
    expect(y.data.box.commands.map((c: any) => c.kind)).toEqual(["status"]);
  });
});

describe("the export's declared answer", () => {
  // Each domain declares its section (AccountData's exportSchema and bundleSchema), and the test server turns an
  // answer that does not match into a 500: an account with a row of every kind shows the declarations hold.
  test("an account with every kind of row exports and bundles as declared", async () => {
    const u = callAccount("N0ALL");
    const pal = callAccount("N0PLA");
    const ok = async (r: Promise<Response>) => {
      const res = await r;
      const body = await json(res);
      expect(res.status < 300 ? "ok" : { status: res.status, body }).toBe("ok");
      return body;
    };
    const put = (path: string, body: unknown, who: TestUser) =>
      g.get(path, { method: "PUT", headers: { cookie: who.cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
    const ingest = { headers: { "x-ingest-secret": INGEST } };
    // the game: a cache with contact fields and a waypoint; a corroborated find, rating, favorite, audio file,
    // stage unlock, report and list on a friend's cache; a trackable dropped there; a public supporter row
    const mine = await ok(
      g.post(
        "/api/caches",
        { name: "All kinds", type: "multi", size: "small", difficulty: 2, terrain: 2, lat: 48.4, lon: 11.8, contact: { email: "n0all@example.org" } },
        as(u),
      ),
    );
    await ok(g.post(`/api/caches/${mine.id}/waypoints`, { kind: "parking", name: "Car park", lat: 48.401, lon: 11.801 }, as(u)));
    const other = await ok(
      g.post("/api/caches", { name: "Pal's audio", type: "audio", size: "small", difficulty: 2, terrain: 2, lat: 48.5, lon: 11.9 }, as(pal)),
    );
    expect((await ingestBeacon(g, INGEST, "N0ALL-7", "DB0IG-10", 48.5, 11.9, Date.now() - 60_000)).status).toBeLessThan(300);
    await ok(g.post(`/api/caches/${other.id}/logs`, { kind: "find", text: "TFTC" }, as(u)));
    await ok(g.post(`/api/caches/${other.id}/rate`, { stars: 4 }, as(u)));
    await ok(g.post(`/api/caches/${other.id}/favorite`, {}, as(u)));
    const wav = new Uint8Array(44);
    wav.set(new TextEncoder().encode("RIFF\x24\x00\x00\x00WAVEfmt "), 0);
    await ok(g.get(`/api/caches/${other.id}/media`, { method: "POST", body: wav as BodyInit, headers: { cookie: u.cookie, "content-type": "audio/wav" } }));
    await ok(g.post(`/api/caches/${other.id}/stages`, { stages: [{ title: "Gate", question: "Year?", content: "Behind the gate", answer: "1901" }] }, as(pal)));
    await ok(g.post(`/api/caches/${other.id}/stages/1/unlock`, { answer: "1901" }, as(u)));
    await ok(g.post(`/api/caches/${other.id}/report`, { reason: "The lid is cracked" }, as(u)));
    const list = await ok(g.post("/api/lists", { name: "Audio caches" }, as(u)));
    await ok(g.post(`/api/lists/${list.id}/caches`, { cache: other.id }, as(u)));
    const bug = await ok(g.post("/api/trackables", { name: "All-kinds bug" }, as(u)));
    await ok(g.post(`/api/trackables/${bug.ref}/moves`, { kind: "drop", cacheId: other.id, text: "Dropped" }, as(u)));
    await ok(g.post("/api/support/confirm", { call: "N0ALL", level: "club" }, ingest));
    await ok(g.post("/api/support/prefs", { public: true, name: "Al" }, as(u)));
    // stations: a weather station with its key, a line transmitted
    const { station } = await ok(g.post("/api/my/stations", { call: "N0ALL-13", label: "roof", lat: 48.4, lon: 11.8 }, as(u)));
    await ok(g.post(`/api/my/stations/${station.id}/wx-key`, {}, as(u)));
    await ok(g.post("/api/tx/aprs", { addressee: "W1AW", text: "hello" }, as(u)));
    // the BBS: a message to the account that it killed; the box: a command leased and answered
    const mail = await ok(g.post("/api/bbs/messages", { to: "N0ALL", subject: "Kill me", body: "read and gone" }, as(pal)));
    await ok(g.get(`/api/bbs/messages/${mail.id}`, { method: "DELETE", headers: { cookie: u.cookie, "content-type": "application/json" }, body: "{}" }));
    const { command } = await ok(g.post("/api/box/shed/command", { kind: "ping" }, as(u)));
    await ok(g.get("/api/box/shed/commands", ingest));
    await ok(g.post("/api/box/shed/commands/ack", { acks: [{ id: command.id, ok: true, result: { uptime: 5 } }] }, ingest));
    // messages: a watch list
    await ok(put("/api/alerts/watch", { calls: ["N0PLA", "W1AW-5"] }, u));

    const x = await ok(g.post("/api/account/N0ALL/export", {}, as(u)));
    const game = x.data.game;
    expect(game.caches).toEqual([
      expect.objectContaining({ name: "All kinds", contact: { email: "n0all@example.org" }, waypoints: [expect.objectContaining({ kind: "parking" })] }),
    ]);
    expect(game.logs).toEqual([expect.objectContaining({ kind: "find", tier: "a", corroboratingPosition: expect.objectContaining({ call: "N0ALL-7" }) })]);
    for (const k of ["ratings", "favorites", "media", "stageUnlocks", "trackables", "trackableMoves", "lists", "reports"]) expect(game[k]).toHaveLength(1);
    expect(game.lists[0].caches).toEqual([other.gid]);
    expect(game.supporter).toMatchObject({ level: "club", name: "Al" });
    expect(x.data.stations.ownStations).toEqual([expect.objectContaining({ call: "N0ALL-13", wxKeyCreatedAt: expect.any(Number) })]);
    expect(x.data.stations.transmitted).toEqual([expect.objectContaining({ addressee: "W1AW" })]);
    expect(x.data.bbs.killed).toEqual([expect.objectContaining({ id: mail.id, killedAt: expect.any(Number) })]);
    expect(x.data.bbs.messages).toEqual([expect.objectContaining({ id: mail.id, killedBy: "N0ALL" })]);
    expect(x.data.box.commands).toEqual([expect.objectContaining({ state: "acknowledged", ok: true, result: { uptime: 5 } })]);
    expect(x.data.messages.watches.map((w: any) => w.call)).toEqual(["N0PLA", "W1AW-5"]);
    const bundle = await ok(g.post("/api/account/N0ALL/bundle", {}, as(u)));
    expect(bundle.data.messages).toEqual({ watches: ["N0PLA", "W1AW-5"] });
  });
});

/**
 * Every table of the database: those schema.sql creates (less those it drops
 * again) and the shadow tables SQLite keeps for its virtual ones. Checked
 * against sqlite_master, so a table added to schema.sql is walked too.
 */
function schemaTables(): string[] {
  const schema = readFileSync(join(ROOT, "schema.sql"), "utf8");
  // in schema.sql's order: a table is created, dropped, or renamed (a rebuild: the new table takes the old one's name)
  const tables = new Map<string, boolean>();
  for (const m of schema.matchAll(
    /^(?:CREATE (VIRTUAL )?TABLE (?:IF NOT EXISTS )?(\w+)|DROP TABLE (?:IF EXISTS )?(\w+)|ALTER TABLE (\w+) RENAME TO (\w+))/gm,
  )) {
    if (m[2]) tables.set(m[2], !!m[1]);
    else if (m[3]) tables.delete(m[3]);
    else if (m[4] && m[5]) tables.set(m[5], tables.get(m[4]) ?? false), tables.delete(m[4]);
  }
  const created = [...tables].map(([name, isVirtual]) => [null, isVirtual ? "VIRTUAL " : undefined, name] as const);
  const virtual = created.filter((m) => m[1]).map((m) => m[2]!);
  const inDb = (g.gw.db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as Array<{ name: string }>)
    .map((r) => r.name)
    .sort();
  const names = created.map((m) => m[2]!);
  expect(inDb.filter((t) => !names.includes(t) && !virtual.some((v) => t.startsWith(`${v}_`)))).toEqual([]);
  expect(names.filter((t) => !inDb.includes(t))).toEqual([]);
  return inDb;
}

/** Where, in every column of every row of every table (text, and blobs read as bytes), any of `needles` occurs (case-insensitive). */
function findEverywhere(needles: string[]): Record<string, string[]> {
  const lower = needles.map((n) => n.toLowerCase());
  const hits: Record<string, string[]> = {};
  for (const table of schemaTables()) {
    for (const row of g.gw.db.query(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>) {
      for (const [col, v] of Object.entries(row)) {
        const text = typeof v === "string" ? v : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : null;
        if (text === null) continue;
        const t = text.toLowerCase();
        if (lower.some((n) => t.includes(n))) (hits[table] ??= []).includes(col) || hits[table]!.push(col);
      }
    }
  }
  return hits;
}

describe("erase", () => {
  test("without confirm: a 400 and nothing changes", async () => {
    const { u } = await fullAccount("N0CNF");
    for (const body of [{}, { confirm: "yes" }, { confirm: false }]) {
      const r = await g.post("/api/account/N0CNF/delete", body, { headers: { cookie: u.cookie } });
      expect(r.status).toBe(400);
      expect((await json(r)).error).toBe("confirm_required");
    }
    expect(count("users", "id = ?", u.id)).toBe(1);
    expect(count("fed_feed", "type = 5")).toBe(0);
  });

  test("a device key erases the account: personal rows gone, key records tombstoned, one signed PII-free account tombstone", async () => {
    const { u, kp, email } = await fullAccount("N0ERA");
    const publicId = (g.gw.db.query("SELECT public_id AS p FROM users WHERE id = ?").get(u.id) as { p: string }).p;
    const keyId = kp.publicKey;
    // The key was published when registered, carrying the callsign.
    const keyRow = g.gw.db.query("SELECT type, payload FROM fed_feed WHERE gid = ?").get(`gdpr-gw:key:${keyId}`) as { type: number; payload: Uint8Array };
    expect(keyRow.type).toBe(3);
    expect(decodePayload(keyRow.payload).body).toMatchObject({ call: "N0ERA", key: kp.publicKey, account: `gdpr-gw:account:${publicId}` });
    const others = count("users");

    const path = "/api/account/N0ERA/delete";
    const r = await g.post(path, signedBody(kp, "POST", path, { confirm: true }));
    expect(r.status).toBe(200);
    const res = await json(r);
    expect(res).toMatchObject({ erased: true, tombstone: `gdpr-gw:account:${publicId}` });
    expect(res.summary.accounts).toMatchObject({ callsigns: 3, passkeys: 1, deviceKeys: 1 });

    expect(count("users")).toBe(others - 1);
    for (const [table, where, p] of [
      ["users", "id = ?", u.id],
      ["callsigns", "user_id = ?", u.id],
      ["sessions", "user_id = ?", u.id],
      ["passkeys", "user_id = ?", u.id],
      ["device_keys", "user_id = ?", u.id],
      ["callsign_challenges", "user_id = ?", u.id],
      ["email_tokens", "email = ?", email],
    ] as const) {
      expect({ table, n: count(table, where, p) }).toEqual({ table, n: 0 });
    }
    expect((await g.get("/auth/session", { headers: { cookie: u.cookie } })).status).toBe(401);
    expect((await json(await g.get("/keys/N0ERA"))).keys).toEqual([]);
    expect((await json(await g.get("/api/profile/N0ERA"))).profile).toBeNull();

    // The feed: the key record is now its tombstone; the account's tombstone is signed and names no callsign.
    const tombs = g.gw.db
      .query("SELECT gid, payload, frame FROM fed_feed WHERE type = 5 AND gid IN (?, ?) ORDER BY seq")
      .all(`gdpr-gw:key:${keyId}`, `gdpr-gw:account:${publicId}`) as Array<{
      gid: string;
      payload: Uint8Array;
      frame: Uint8Array;
    }>;
    expect(tombs.map((t) => t.gid)).toEqual([`gdpr-gw:key:${keyId}`, `gdpr-gw:account:${publicId}`]);
    for (const t of tombs) {
      const p = decodePayload(t.payload);
      expect(p.body).toEqual({});
      expect(p.signer).toBe("gdpr-gw");
      const frame = decodeFrame(t.frame);
      expect(frame.signerKey).toBe(FED.publicKey);
      expect(await verifyFrame(frame)).toBe("ok");
      const bytes = Buffer.from(t.frame).toString("latin1");
      for (const pii of ["N0ERA", email, "n0era"]) expect(bytes).not.toContain(pii);
    }
    // Nothing in the whole feed mentions the callsign any more.
    const feed = g.gw.db.query("SELECT payload FROM fed_feed").all() as Array<{ payload: Uint8Array }>;
    expect(feed.some((f) => Buffer.from(f.payload).toString("latin1").includes("N0ERA"))).toBe(false);
    // The key is dead: it cannot sign anything again.
    const again = "/api/account/N0ERA/export";
    expect((await g.post(again, signedBody(kp, "POST", again, {}))).status).toBe(403);
  });

  test("erase by session clears the cookie; the callsign is free for a new account", async () => {
    const { u } = await fullAccount("N0BYE");
    const r = await g.post("/api/account/N0BYE/delete", { confirm: true }, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(200);
    expect(r.headers.get("set-cookie")).toMatch(/^svc_session=; .*Max-Age=0/);
    const next = signedInUser(g.gw, "N0BYE");
    expect((await json(await g.get("/auth/callsigns", { headers: { cookie: next.cookie } }))).callsigns).toHaveLength(1);
  });

  test("after an erase, no column of any table of schema.sql holds the callsign or the e-mail; before it, the same walk finds them in many", async () => {
    const { u, email } = await fullAccount("N0WLK");
    const pal = callAccount("N0FRD");
    await bbsAndBox(u, "N0WLK", pal, "N0FRD");
    // the game: a cache it hides, a find and a rating on someone else's, a watch
    const own = await json(
      await g.post(
        "/api/caches",
        { name: "N0WLK's box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.2, lon: 11.6, description: "Hidden by N0WLK" },
        as(u),
      ),
    );
    const other = await json(
      await g.post("/api/caches", { name: "Friend's box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.3, lon: 11.7 }, as(pal)),
    );
    expect((await g.post("/api/logs", { cache: other.id, kind: "find", text: "TFTC, N0WLK" }, as(u))).status).toBe(201);
    expect(
      (
        await g.get(`/api/watch/${other.id}`, {
          method: "PUT",
          headers: { cookie: u.cookie, "content-type": "application/json" },
          body: JSON.stringify({ watch: true }),
        })
      ).status,
    ).toBeLessThan(300);
    expect(own.id).toBeGreaterThan(0);
    // its own note on the friend's cache
    expect(
      (
        await g.get(`/api/caches/${other.id}/personal`, {
          method: "PUT",
          headers: { cookie: u.cookie, "content-type": "application/json" },
          body: JSON.stringify({ note: "N0WLK was here first" }),
        })
      ).status,
    ).toBe(200);

    const needles = ["N0WLK", email];
    const before = findEverywhere(needles);
    for (const t of ["users", "callsigns", "device_keys", "fed_feed", "bbs_messages", "bbs_wp", "box_commands", "caches", "logs", "personal_notes"])
      expect(Object.keys(before)).toContain(t);

    const r = await g.post("/api/account/N0WLK/delete", { confirm: true }, as(u));
    expect(r.status).toBe(200);
    expect((await json(r)).summary).toMatchObject({ bbs: { messages: 4, bulletinsTombstoned: 1, whitePages: 1 }, box: { commands: 2 } });
    expect(findEverywhere(needles)).toEqual({});
    // the friend's side of what is not N0WLK's is still there (positive control)
    expect(findEverywhere(["N0FRD"])).toMatchObject({ callsigns: ["call"], caches: expect.any(Array) });
    // a BID of erased mail stays known: a partner cannot forward it in again
    const again = await json(
      await g.post(
        "/api/bbs/forward/inbound",
        { messages: [{ bid: "7_N0WLK", type: "P", from: "N0WLK", to: "N0FRD", subject: "Via the network", text: "again" }] },
        { headers: { "x-ingest-secret": INGEST } },
      ),
    );
    expect(again.results[0]).toMatchObject({ result: "duplicate" });
    expect(findEverywhere(needles)).toEqual({});
  });
});
