/**
 * Moving an account between real instances (bundle on A, import on B, move
 * on A), and what a third instance that mirrors A sees: the account's key
 * records, the account-move re-pointing attribution, the erase tombstone
 * purging them. Frames travel through the real sync surface and apply
 * pipeline (GET /federation/sync/:type → POST /federation/frames).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedBody, signedInUser } from "../helpers/accounts.ts";
import { generateKeyPair, type KeyPair } from "../../src/lib/fed/keys.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { currentAccount, mirroredKeysOf, mirrorStatements } from "../../src/fed/mirror.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";
import { accountsData } from "../../src/accounts/account-data.ts";
import type { AppError } from "../../src/lib/errors.ts";

const INGEST = "move-test-ingest-secret";
const keyA = generateKeyPair();
const keyB = generateKeyPair();
const keyC = generateKeyPair();
let A: Running; // the instance the user leaves
let B: Running; // trusts A
let C: Running; // does not know A
let P: Running; // a peer mirroring A
beforeAll(async () => {
  [A, B, C, P] = await Promise.all([
    startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: keyA.privateKey }),
    startInProcess({ INSTANCE: "gw-b", FED_PRIVATE_KEY: keyB.privateKey, TRUST_PROXY: "true" }),
    startInProcess({ INSTANCE: "gw-c", FED_PRIVATE_KEY: keyC.privateKey }),
    startInProcess({ INSTANCE: "gw-p", INGEST_SECRET: INGEST }),
  ]);
  upsertPeer(B.gw, { instance: "gw-a", trust: "trusted", keyPin: keyA.publicKey });
  upsertPeer(P.gw, { instance: "gw-a", trust: "trusted", keyPin: keyA.publicKey });
});
afterAll(async () => {
  await Promise.all([A, B, C, P].map((r) => r.stop()));
});

const json = (r: Response) => r.json() as Promise<any>;

/** P pulls A's feeds (tombstones first) and applies them through its ingest-gated frames route. */
async function pull(types = ["tombstone", "key", "account-move"]) {
  for (const type of types) {
    const page = new Uint8Array(await (await A.get(`/federation/sync/${type}?since=0`)).arrayBuffer());
    const r = await P.get("/federation/frames", { method: "POST", headers: { "content-type": "application/cbor", "x-ingest-secret": INGEST }, body: page });
    expect(r.status).toBe(200);
  }
}

/** A user on A with a verified callsign, a device key, a profile, preferences and a saved view. */
async function userOnA(call: string): Promise<{ id: number; cookie: string; kp: KeyPair; gid: string }> {
  const u = signedInUser(A.gw, call);
  markCallsignVerified(A.gw, u.id, call, "test: verified by hand");
  const h = { headers: { cookie: u.cookie } };
  await A.post("/auth/callsigns", { add: `${call}-9` }, h);
  const kp = generateKeyPair();
  expect((await A.post("/keys/register", { call, key: kp.publicKey, label: "phone" }, h)).status).toBe(201);
  await A.post("/auth/profile", { public: true, grid: "FN42" }, h);
  await A.get("/api/prefs", { method: "PUT", headers: { cookie: u.cookie, "content-type": "application/json" }, body: JSON.stringify({ units: "metric" }) });
  await A.post("/api/views", { name: "Home", lat: 42.5, lon: -71.1, zoom: 11 }, h);
  A.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(`${call.toLowerCase()}@example.org`, u.id);
  const publicId = (A.gw.db.query("SELECT public_id AS p FROM users WHERE id = ?").get(u.id) as { p: string }).p;
  return { id: u.id, cookie: u.cookie, kp, gid: `gw-a:account:${publicId}` };
}

async function bundleOf(call: string, kp: KeyPair) {
  const path = `/api/account/${call}/bundle`;
  const r = await A.post(path, signedBody(kp, "POST", path, {}));
  expect(r.status).toBe(200);
  return json(r);
}

const importTo = (to: Running, bundle: unknown, kp: KeyPair) => to.post("/api/account/import", signedBody(kp, "POST", "/api/account/import", { bundle }));

describe("moving an account", () => {
  test("bundle on A, import on B (which trusts A), move on A: attribution re-pointed everywhere", async () => {
    const u = await userOnA("N0MOV");
    await pull();
    expect(mirroredKeysOf(P.gw, "N0MOV")).toEqual([expect.objectContaining({ publicKey: u.kp.publicKey, account: u.gid, revokedAt: null })]);

    const bundle = await bundleOf("N0MOV", u.kp);
    expect(bundle).toMatchObject({ type: "account-bundle", origin: "gw-a", account: u.gid, signerKey: keyA.publicKey, email: "n0mov@example.org" });
    expect(bundle.calls).toEqual([
      { call: "N0MOV", verified: true },
      { call: "N0MOV-9", verified: true },
    ]);
    expect(bundle.data.accounts).toMatchObject({ profile: { public: true, grid: "FN42" }, prefs: { units: "metric" }, views: [{ name: "Home", lat: 42.5 }] });

    // Import on B, signed by the device key the bundle lists: a new account, signed in.
    const imp = await importTo(B, bundle, u.kp);
    expect(imp.status).toBe(200);
    const res = await json(imp);
    expect(res).toMatchObject({ created: true, trusted: true, pendingKeys: [], from: u.gid });
    expect(res.account.callsigns.map((c: any) => [c.call, c.verified])).toEqual([
      ["N0MOV", true],
      ["N0MOV-9", true],
    ]);
    // The address is only a claim until it answers a sign-in code on B.
    expect(res.account.email).toBeNull();
    expect(res.emailToConfirm).toBe("n0mov@example.org");
    expect(res.account.profile).toEqual({ public: true, grid: "FN42" });
    const cookieB = (imp.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await json(await B.get("/api/views", { headers: { cookie: cookieB } }))).views.map((v: any) => v.name)).toEqual(["Home"]);
    expect((await json(await B.get("/keys/N0MOV"))).keys.map((k: any) => k.key)).toEqual([u.kp.publicKey]);
    // The key now signs in on B too (/auth/claim).
    const claim = await B.post("/auth/claim", signedBody(u.kp, "POST", "/auth/claim", { call: "N0MOV" }));
    expect((await json(claim)).account.id).toBe(res.account.id);
    const acceptance = res.acceptance;
    expect(acceptance).toMatchObject({ type: "account-move-accept", origin: "gw-b", from: u.gid, signerKey: keyB.publicKey });
    expect(acceptance.to).toMatch(/^gw-b:account:[A-Za-z0-9_-]+$/);
    expect((await importTo(B, bundle, u.kp)).status).toBe(409); // once

    // Move on A.
    const path = "/api/account/N0MOV/move";
    const mv = await A.post(path, signedBody(u.kp, "POST", path, { acceptance }));
    expect(mv.status).toBe(200);
    expect(await json(mv)).toEqual({ moved: true, to: acceptance.to, record: `gw-a:account-move:${u.gid.split(":")[2]}` });
    expect((await json(await A.get("/keys/N0MOV"))).keys).toEqual([]);
    expect((await A.get("/auth/session", { headers: { cookie: u.cookie } })).status).toBe(401);
    expect(A.gw.db.query("SELECT email, moved_to AS movedTo FROM users WHERE id = ?").get(u.id)).toEqual({ email: null, movedTo: acceptance.to });
    expect(A.gw.db.query("SELECT COUNT(*) AS n FROM callsigns WHERE user_id = ?").get(u.id)).toEqual({ n: 0 });
    // The device key cannot act on A any more.
    expect((await A.post(path, signedBody(u.kp, "POST", path, { acceptance }))).status).toBe(403);

    // P mirrors A: the move re-points the old account to B's, and the key shows as revoked.
    await pull();
    expect(currentAccount(mirrorStatements(P.gw.db), u.gid)).toBe(acceptance.to);
    expect(mirroredKeysOf(P.gw, "N0MOV")[0]!.revokedAt).not.toBeNull();
  });

  test("an instance that does not trust the origin imports the callsigns unverified and holds the keys back", async () => {
    const u = await userOnA("N0UNT");
    const bundle = await bundleOf("N0UNT", u.kp);
    const r = await json(await importTo(C, bundle, u.kp));
    expect(r.trusted).toBe(false);
    expect(r.account.callsigns.map((c: any) => [c.call, c.verified])).toEqual([
      ["N0UNT", false],
      ["N0UNT-9", false],
    ]);
    expect(r.pendingKeys).toEqual([{ call: "N0UNT", key: u.kp.publicKey }]);
    expect((await json(await C.get("/keys/N0UNT"))).keys).toEqual([]);
    expect(r.acceptance.from).toBe(u.gid);
  });

  test("a forged, altered, foreign or stale bundle is refused and nothing is created", async () => {
    const u = await userOnA("N0FRG");
    const bundle = await bundleOf("N0FRG", u.kp);
    const users = () => (B.gw.db.query("SELECT COUNT(*) AS n FROM users").get() as { n: number }).n;
    const before = users();
    // Altered after signing: claims another callsign.
    const altered = { ...bundle, calls: [{ call: "N0VIC", verified: true }] };
    const r1 = await importTo(B, altered, u.kp);
    expect(r1.status).toBe(400);
    expect((await json(r1)).error).toBe("bad_signature");
    // Signed by someone pretending to be gw-a: a valid signature, but not by a key B knows for gw-a.
    const mallory = generateKeyPair();
    const forged = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: mallory.privateKey });
    try {
      const m = signedInUser(forged.gw, "N0VIC", { verified: true });
      const mk = generateKeyPair();
      await forged.post("/keys/register", { call: "N0VIC", key: mk.publicKey }, { headers: { cookie: m.cookie } });
      const fb = await json(await forged.post("/api/account/N0VIC/bundle", signedBody(mk, "POST", "/api/account/N0VIC/bundle", {})));
      const r2 = await json(await importTo(B, fb, mk));
      expect(r2.trusted).toBe(false);
      expect(r2.account.callsigns).toEqual([expect.objectContaining({ call: "N0VIC", verified: false })]);
      expect(r2.pendingKeys).toHaveLength(1);
    } finally {
      await forged.stop();
    }
    expect(users()).toBe(before + 1);
    // A bundle of this very instance (its account made first).
    const own = signedInUser(B.gw, "N0OWN", { verified: true });
    const ownKey = generateKeyPair();
    await B.post("/keys/register", { call: "N0OWN", key: ownKey.publicKey }, { headers: { cookie: own.cookie } });
    const ob = await json(await B.post("/api/account/N0OWN/bundle", signedBody(ownKey, "POST", "/api/account/N0OWN/bundle", {})));
    const settled = users();
    expect((await importTo(B, ob, ownKey)).status).toBe(409);
    // Signed by a key the bundle does not list.
    expect((await importTo(B, bundle, generateKeyPair())).status).toBe(403);
    // Not signed at all, no session.
    expect((await B.post("/api/account/import", { bundle })).status).toBe(401);
    // Garbage.
    for (const b of [null, "x", { type: "account-bundle" }, { ...bundle, extra: 1 }]) expect((await importTo(B, b, u.kp)).status).toBe(400);
    expect(users()).toBe(settled);
    // Stale: a week and a day later.
    const clock = {
      t: Date.now() + 8 * 24 * 3_600_000,
      now() {
        return this.t;
      },
    };
    const late = await startInProcess({ INSTANCE: "gw-late" }, { clock });
    try {
      const body = signedBody(u.kp, "POST", "/api/account/import", { bundle }, Math.floor(clock.t / 1000));
      const r = await late.post("/api/account/import", body);
      expect(r.status).toBe(409);
      expect((await json(r)).error).toBe("expired");
    } finally {
      await late.stop();
    }
  });

  test("a move needs an acceptance for this account, signed by the new instance", async () => {
    const u = await userOnA("N0ACC");
    const other = await userOnA("N0OTA");
    const r = await json(await importTo(B, await bundleOf("N0OTA", other.kp), other.kp));
    const path = "/api/account/N0ACC/move";
    const send = (acceptance: unknown) => A.post(path, signedBody(u.kp, "POST", path, { acceptance }));
    const wrong = await send(r.acceptance); // for N0OTA's account
    expect(wrong.status).toBe(409);
    expect((await json(wrong)).error).toBe("wrong_account");
    expect((await send({ ...r.acceptance, from: u.gid })).status).toBe(400); // signature no longer matches
    expect((await send({})).status).toBe(400);
    expect(A.gw.db.query("SELECT moved_to AS m FROM users WHERE id = ?").get(u.id)).toEqual({ m: null });
    expect((await json(await A.get("/keys/N0ACC"))).keys).toHaveLength(1);
  });

  test("a session on the new instance can import into its own account; the session on A can bundle by 'me'", async () => {
    const u = await userOnA("N0SES");
    const b = await json(await A.post("/api/account/me/bundle", {}, { headers: { cookie: u.cookie } }));
    expect(b.account).toBe(u.gid);
    const there = signedInUser(B.gw, "N0SES-5");
    const r = await B.post("/api/account/import", { bundle: b }, { headers: { cookie: there.cookie } });
    expect(r.status).toBe(200);
    const res = await json(r);
    expect(res.created).toBe(false);
    expect(res.account.id).toBe(there.id);
    expect(res.account.callsigns.map((c: any) => c.call)).toEqual(["N0SES", "N0SES-5", "N0SES-9"]);
    expect(r.headers.get("set-cookie")).toBeNull();
  });

  test("an unsigned instance cannot vouch for a move", async () => {
    const u = signedInUser(P.gw, "N0UNS");
    const r = await P.post("/api/account/me/bundle", {}, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(409);
    expect((await json(r)).error).toBe("unsigned_instance");
  });
});

describe("a bundle's account data", () => {
  test("its notification settings and views are checked with the routes' schemas: a stray field is named, nothing is stored", async () => {
    const u = signedInUser(C.gw, "N0BND");
    const ref = { userId: u.id, publicId: "bnd", gid: "gw-c:account:bnd", calls: ["N0BND"], verifiedCalls: [] };
    const refusal = (data: unknown) => {
      try {
        accountsData.import!(C.gw, ref, data);
        return null;
      } catch (e) {
        const a = e as AppError;
        return { status: a.status, code: a.code, field: a.details?.field, message: a.message };
      }
    };
    expect(refusal({ notify: { push: true, sms: true } })).toEqual({
      status: 400,
      code: "invalid",
      field: "bundle.data.accounts.notify.sms",
      message: 'bundle.data.accounts.notify.sms: unknown field "sms"; it takes email, push, digest',
    });
    expect(refusal({ views: [{ name: "Home", lat: 1, lon: 2, zoom: 3, colour: "red" }] })).toMatchObject({
      status: 400,
      field: "bundle.data.accounts.views.0.colour",
    });
    expect(refusal({ views: [{ name: "Home", lat: "1", lon: 2, zoom: 3 }] })).toMatchObject({ status: 400, field: "bundle.data.accounts.views.0.lat" });
    const h = { headers: { cookie: u.cookie } };
    expect(await json(await C.get("/api/notify/prefs", h))).toEqual({ email: false, push: false, digest: "daily" });
    expect((await json(await C.get("/api/views", h))).views).toEqual([]);
    // Positive control: the same data without the stray fields is taken.
    expect(refusal({ notify: { push: true }, views: [{ name: "Home", lat: 1, lon: 2, zoom: 3 }] })).toBeNull();
    expect((await json(await C.get("/api/notify/prefs", h))).push).toBe(true);
    expect((await json(await C.get("/api/views", h))).views.map((v: any) => v.name)).toEqual(["Home"]);
  });
});

describe("erase, seen from a mirroring peer", () => {
  test("the account's tombstone purges its mirrored key records; nothing on the wire names the callsign", async () => {
    const u = await userOnA("N0GONE");
    await pull();
    expect(mirroredKeysOf(P.gw, "N0GONE")).toHaveLength(1);
    const path = "/api/account/N0GONE/delete";
    expect((await A.post(path, signedBody(u.kp, "POST", path, { confirm: true }))).status).toBe(200);
    await pull();
    expect(mirroredKeysOf(P.gw, "N0GONE")).toEqual([]);
    const tombs = new Uint8Array(await (await A.get("/federation/sync/tombstone?since=0")).arrayBuffer());
    expect(Buffer.from(tombs).toString("latin1")).not.toContain("N0GONE");
    expect(Buffer.from(tombs).toString("latin1")).toContain(u.gid);
  });
});
