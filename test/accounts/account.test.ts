/**
 * The signed-in account over HTTP: callsigns (base calls and SSIDs, one
 * active), the opt-in profile, device keys. Bad input is a 4xx in the error
 * shape and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";
import { readControl } from "../../src/core/store/control.ts";
import { check } from "../../src/lib/schema.ts";
import { MAYBE_SIGNED_IN } from "../../src/accounts/shapes.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess({ ADMIN_CALLSIGNS: "N0ADM" });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (cookie: string) => ({
  get: (p: string) => g.get(p, { headers: { cookie } }),
  post: (p: string, body: unknown) => g.post(p, body, { headers: { cookie } }),
});
const snapshot = () => JSON.stringify(g.gw.db.query("SELECT user_id, call, active, verified_at FROM callsigns ORDER BY id").all());

describe("callsigns", () => {
  test("add base calls and SSIDs; one is active; remove one and another becomes active", async () => {
    const u = signedInUser(g.gw, "N0AAA");
    const c = as(u.cookie);
    let r = await json(await c.post("/auth/callsigns", { add: "n0aaa-9" }));
    expect(r.callsigns.map((x: any) => [x.call, x.active])).toEqual([
      ["N0AAA", true],
      ["N0AAA-9", false],
    ]);
    r = await json(await c.post("/auth/callsign", { call: "N0AAA-9" }));
    expect(r.callsigns.find((x: any) => x.active).call).toBe("N0AAA-9");
    expect(await json(await c.get("/auth/callsign"))).toEqual({ call: "N0AAA-9", verified: false });
    // /auth/callsign with a new call adds it and makes it active.
    r = await json(await c.post("/auth/callsign", { call: "VE3XYZ-0" }));
    expect(r.callsigns.find((x: any) => x.active).call).toBe("VE3XYZ");
    r = await json(await c.post("/auth/callsigns", { remove: "VE3XYZ" }));
    expect(r.callsigns.filter((x: any) => x.active)).toHaveLength(1);
    expect((await json(await c.get("/auth/callsigns"))).callsigns.map((x: any) => x.call)).toEqual(["N0AAA", "N0AAA-9"]);
  });

  test("an SSID added to a verified base call is verified too; sysop needs a verified admin call", async () => {
    const u = signedInUser(g.gw, "N0ADM");
    const c = as(u.cookie);
    expect((await json(await c.get("/auth/session"))).account.sysop).toBe(false);
    markCallsignVerified(g.gw, u.id, "N0ADM", "test: verified by hand");
    const r = await json(await c.post("/auth/callsign", { call: "N0ADM-5" }));
    expect(r.callsigns.every((x: any) => x.verified)).toBe(true);
    const s = (await json(await c.get("/auth/session"))).account;
    expect([s.call, s.verified, s.sysop]).toEqual(["N0ADM-5", true, true]);
  });

  test("GET /auth/account: null signed out, the account signed in (never 401), as declared", async () => {
    const out = await g.get("/auth/account");
    expect(out.status).toBe(200);
    expect(check(MAYBE_SIGNED_IN, await json(out), "signed out")).toEqual({ account: null });
    const u = signedInUser(g.gw, "N0ACC");
    const r = check(MAYBE_SIGNED_IN, await json(await as(u.cookie).get("/auth/account")), "signed in");
    expect([r.account?.call, r.account?.sysop]).toEqual(["N0ACC", false]);
  });

  test("verifying a base call takes it from other accounts' unverified claims", async () => {
    const squatter = signedInUser(g.gw, "N0OWN-1");
    const owner = signedInUser(g.gw, "N0OWN");
    markCallsignVerified(g.gw, owner.id, "N0OWN-3", "test: verified by hand");
    expect((await json(await as(squatter.cookie).get("/auth/callsigns"))).callsigns).toEqual([]);
    const mine = (await json(await as(owner.cookie).get("/auth/callsigns"))).callsigns;
    expect(mine.map((x: any) => [x.call, x.verified])).toEqual([["N0OWN", true]]);
  });

  test("bad callsigns and bodies: 400 with the error shape, nothing changed; at most 10 callsigns", async () => {
    const u = signedInUser(g.gw, "N0BAD");
    const c = as(u.cookie);
    const before = snapshot();
    for (const [path, body] of [
      ["/auth/callsigns", { add: "NOCALL" }],
      ["/auth/callsigns", { add: "N0CALL-16" }],
      ["/auth/callsigns", { add: "N0CALL-" }],
      ["/auth/callsigns", { add: "'; DROP TABLE users; --" }],
      ["/auth/callsigns", { add: 12 }],
      ["/auth/callsigns", { nothing: true }],
      ["/auth/callsigns", [1, 2]],
      ["/auth/callsign", { call: "" }],
      ["/auth/callsign", {}],
    ] as const) {
      const r = await c.post(path, body);
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 400 });
      const e = await json(r);
      expect(typeof e.error).toBe("string");
      expect(typeof e.message).toBe("string");
    }
    expect((await c.post("/auth/callsigns", { remove: "N0ZZZ" })).status).toBe(404);
    expect(snapshot()).toBe(before);
    for (let i = 1; i < 10; i++) expect((await c.post("/auth/callsigns", { add: `N0BAD-${i}` })).status).toBe(200);
    const full = await c.post("/auth/callsigns", { add: "N0BAD-15" });
    expect(full.status).toBe(409);
    expect((await json(full)).error).toBe("too_many_callsigns");
  });
});

describe("profile", () => {
  test("nothing is public until the verified holder opts in", async () => {
    const u = signedInUser(g.gw, "N0PRO");
    const c = as(u.cookie);
    expect(await json(await g.get("/api/profile/N0PRO"))).toEqual({ call: "N0PRO", profile: null });
    let r = await c.post("/auth/profile", { public: true, about: "QRV on 2 m", grid: "fn42AB", url: "https://example.org/n0pro" });
    expect((await json(r)).profile).toEqual({ public: true, about: "QRV on 2 m", grid: "FN42ab", url: "https://example.org/n0pro" });
    // Opted in, but the callsign is not verified: still nothing.
    expect((await json(await g.get("/api/profile/N0PRO"))).profile).toBeNull();
    markCallsignVerified(g.gw, u.id, "N0PRO", "test: verified by hand");
    expect(await json(await g.get("/api/profile/n0pro-7"))).toEqual({
      call: "N0PRO",
      profile: { about: "QRV on 2 m", grid: "FN42ab", url: "https://example.org/n0pro" },
    });
    r = await c.post("/auth/profile", { public: false });
    expect((await json(await g.get("/api/profile/N0PRO"))).profile).toBeNull();
    expect((await json(await c.get("/auth/profile"))).profile.about).toBe("QRV on 2 m");
  });

  test("bad profile fields are refused and change nothing; there is no name or address field", async () => {
    const u = signedInUser(g.gw, "N0PRB");
    const c = as(u.cookie);
    await c.post("/auth/profile", { about: "hello" });
    for (const body of [
      { name: "Jane" },
      { address: "1 Main St" },
      { about: "x".repeat(281) },
      { grid: "ZZ99" },
      { url: "http://insecure.example" },
      { url: "javascript:alert(1)" },
      { public: "yes" },
    ]) {
      const r = await c.post("/auth/profile", body);
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    expect((await json(await c.get("/auth/profile"))).profile).toEqual({ public: false, about: "hello" });
    expect((await g.get("/api/profile/not-a-call")).status).toBe(400);
  });
});

describe("device keys", () => {
  test("registering needs a verified callsign; keys are listed publicly without their labels; revoked keys disappear", async () => {
    const u = signedInUser(g.gw, "N0DEV");
    const c = as(u.cookie);
    const kp = generateKeyPair();
    const refused = await c.post("/keys/register", { call: "N0DEV", key: kp.publicKey, label: "ingest box" });
    expect(refused.status).toBe(403);
    expect((await json(refused)).error).toBe("callsign_not_verified");
    markCallsignVerified(g.gw, u.id, "N0DEV", "test: verified by hand");
    const ok = await c.post("/keys/register", { call: "N0DEV-9", key: kp.publicKey, label: "ingest box" });
    expect(ok.status).toBe(201);
    expect(await json(ok)).toMatchObject({ key: kp.publicKey, call: "N0DEV", label: "ingest box" });
    const listed = await json(await g.get("/keys/N0DEV-9"));
    expect(listed.call).toBe("N0DEV");
    expect(listed.keys.map((k: any) => Object.keys(k).sort())).toEqual([["createdAt", "key"]]);
    expect(listed.keys[0].key).toBe(kp.publicKey);
    const dup = await c.post("/keys/register", { call: "N0DEV", key: kp.publicKey });
    expect(dup.status).toBe(409);
    // Another account cannot register keys for this call.
    const other = signedInUser(g.gw, "N0DEX", { verified: true });
    expect((await as(other.cookie).post("/keys/register", { call: "N0DEV", key: generateKeyPair().publicKey })).status).toBe(403);
    expect((await json(await c.get("/auth/session"))).account.deviceKeys).toHaveLength(1);
    const rv = await c.post("/keys/revoke", { key: kp.publicKey });
    expect((await json(rv)).deviceKeys).toEqual([]);
    expect((await json(await g.get("/keys/N0DEV"))).keys).toEqual([]);
    expect((await c.post("/keys/register", { call: "N0DEV", key: kp.publicKey })).status).toBe(409);
    expect((await c.post("/keys/revoke", { key: kp.publicKey })).status).toBe(404);
  });

  test("bad keys are a 400 and store nothing", async () => {
    const u = signedInUser(g.gw, "N0DEB", { verified: true });
    const c = as(u.cookie);
    for (const key of ["short", "A".repeat(44), 7, null, "+".repeat(43)]) {
      expect((await c.post("/keys/register", { call: "N0DEB", key })).status).toBe(400);
    }
    expect((await c.post("/keys/register", { call: "N0DEB", key: generateKeyPair().publicKey, label: "x".repeat(65) })).status).toBe(400);
    expect((await c.post("/keys/register", { call: "bogus", key: generateKeyPair().publicKey })).status).toBe(400);
    expect(g.gw.db.query("SELECT COUNT(*) AS n FROM device_keys WHERE call = 'N0DEB'").get()).toEqual({ n: 0 });
    expect((await g.get("/keys/bogus!")).status).toBe(400);
  });
});

describe("undeclared fields", () => {
  /** The body with a stray member is refused by name (400, field) and changes nothing; the same body without it is taken. */
  async function strayThenOk(post: (p: string, body: unknown) => Promise<Response>, path: string, body: Record<string, unknown>, okStatus: number) {
    const before = snapshot();
    const bad = await post(path, { ...body, colour: "red" });
    expect({ path, status: bad.status, body: await json(bad) }).toMatchObject({
      path,
      status: 400,
      body: { error: "invalid", field: "body.colour", message: expect.stringMatching(/^body\.colour: unknown field "colour"; it takes /) },
    });
    expect(snapshot()).toBe(before);
    const ok = await post(path, body);
    expect({ path, status: ok.status }).toEqual({ path, status: okStatus });
    return json(ok);
  }

  test("callsigns, profile and device keys name a field they do not take, and take the same body without it", async () => {
    const u = signedInUser(g.gw, "N0STY");
    const c = as(u.cookie);
    await strayThenOk(c.post, "/auth/callsigns", { add: "N0STY-1" }, 200);
    await strayThenOk(c.post, "/auth/callsigns", { remove: "N0STY-1" }, 200);
    await strayThenOk(c.post, "/auth/callsign", { call: "N0STY-2" }, 200);
    const bad = await c.post("/auth/profile", { about: "x", colour: "red" });
    expect(await json(bad)).toEqual({
      error: "invalid",
      message: 'body.colour: unknown field "colour"; it takes public, about, grid, url',
      field: "body.colour",
    });
    expect((await json(await c.get("/auth/profile"))).profile).toEqual({ public: false });
    expect((await strayThenOk(c.post, "/auth/profile", { about: "stray-free" }, 200)).profile.about).toBe("stray-free");

    markCallsignVerified(g.gw, u.id, "N0STY", "test: verified by hand");
    const kp = generateKeyPair();
    await strayThenOk(c.post, "/keys/register", { call: "N0STY", key: kp.publicKey }, 201);
    expect((await strayThenOk(c.post, "/keys/revoke", { key: kp.publicKey }, 200)).deviceKeys).toEqual([]);

    // The operator's local command (x-control-token), closed before too.
    const other = signedInUser(g.gw, "N0STZ");
    const local = (p: string, body: unknown) => g.post(p, body, { headers: { "x-control-token": readControl(g.dataDir)!.token } });
    expect(await strayThenOk(local, "/api/local/callsign-verify", { account: other.id, call: "N0STZ" }, 200)).toEqual({
      account: other.id,
      call: "N0STZ",
      verified: true,
    });
  });
});
