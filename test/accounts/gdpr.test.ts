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
import { generateKeyPair, type KeyPair } from "../../src/fed/keys.ts";
import { decodeFrame, decodePayload, verifyFrame } from "../../src/fed/record.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";

const FED = generateKeyPair();
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ INSTANCE: "gdpr-gw", FED_PRIVATE_KEY: FED.privateKey });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const count = (table: string, where = "1", ...p: Array<string | number>) => (g.gw.db.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...p) as { n: number }).n;

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
    const tombs = g.gw.db.query("SELECT gid, payload, frame FROM fed_feed WHERE type = 5 AND gid IN (?, ?) ORDER BY seq").all(`gdpr-gw:key:${keyId}`, `gdpr-gw:account:${publicId}`) as Array<{
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
});
