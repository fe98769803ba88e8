/**
 * Sign-in against the real server: passkeys (a software authenticator that
 * sends what a browser sends), e-mail links and codes through a real SMTP
 * server, device-key claims, sign-out, and the one cookie.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { captureLog, startInProcess, type Running } from "../helpers/gateway.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { createCredential, getAssertion } from "../helpers/webauthn.ts";
import { deviceKey, signedBody, signedInUser } from "../helpers/accounts.ts";

let g: Running;
let smtp: SmtpSink;
let noMail: Running;
const noMailLog = captureLog("info");

/**
 * Sign-in routes allow 20 requests a minute per address; these tests come
 * from many (TRUST_PROXY, a fresh X-Forwarded-For per request) except where
 * the limit itself is tested.
 */
let nextIp = 1;
function fromManyAddresses(r: Running): Running {
  const fresh = (init?: RequestInit) => ({ ...init, headers: { "x-forwarded-for": `10.0.${nextIp >> 8}.${nextIp++ & 255}`, ...(init?.headers as object) } });
  return { ...r, get: (p, init) => r.get(p, fresh(init)), post: (p, b, init) => r.post(p, b, fresh(init)) };
}

beforeAll(async () => {
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  g = fromManyAddresses(await startInProcess({ SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org", INSTANCE: "test-gw", TRUST_PROXY: "true" }));
  noMail = await startInProcess({ LOG_LEVEL: "info" }, { log: noMailLog.log });
});
afterAll(async () => {
  await g.stop();
  await noMail.stop();
  await smtp.stop();
});

const json = (r: Response) => r.json() as Promise<any>;
const cookieOf = (r: Response) => (r.headers.get("set-cookie") ?? "").split(";")[0]!;
const count = (r: Running, table: string) => (r.gw.db.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;

async function registerPasskey(r: Running, cookie?: string) {
  const opts = await json(await r.post("/auth/passkey/register/options", {}, { headers: cookie ? { cookie } : {} }));
  const { passkey, credential } = createCredential(opts, r.url);
  const res = await r.post("/auth/passkey/register/verify", { credential, label: "laptop" }, { headers: cookie ? { cookie } : {} });
  return { res, passkey, opts };
}

describe("passkeys", () => {
  test("registering a passkey creates an account and signs it in with one HttpOnly SameSite cookie", async () => {
    const users = count(g, "users");
    const { res, opts } = await registerPasskey(g);
    expect(opts.rp.id).toBe("127.0.0.1");
    expect(opts.authenticatorSelection.residentKey).toBe("required");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.created).toBe(true);
    expect(body.account.passkeys).toHaveLength(1);
    expect(body.account.passkeys[0].label).toBe("laptop");
    const setCookie = res.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/^svc_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=2592000$/);
    expect(count(g, "users")).toBe(users + 1);
    const session = await json(await g.get("/auth/session", { headers: { cookie: cookieOf(res) } }));
    expect(session.account.id).toBe(body.account.id);
    expect(session.account.call).toBeNull();
  });

  test("signing in with the passkey: a new session; the signature counter is kept; a cloned authenticator is refused", async () => {
    const { res, passkey } = await registerPasskey(g);
    const id = (await json(res)).account.id;
    const opts = await json(await g.post("/auth/passkey/login/options", {}));
    expect(opts.allowCredentials).toEqual([]);
    const login = await g.post("/auth/passkey/login/verify", { credential: getAssertion(passkey, opts, g.url) });
    expect(login.status).toBe(200);
    expect((await json(login)).account.id).toBe(id);
    const cookie = cookieOf(login);
    expect((await g.get("/auth/session", { headers: { cookie } })).status).toBe(200);
    expect(cookie).not.toBe(cookieOf(res));
    // A clone replaying an old counter value.
    const again = await json(await g.post("/auth/passkey/login/options", {}));
    const clone = await g.post("/auth/passkey/login/verify", { credential: getAssertion(passkey, again, g.url, { counter: 1 }) });
    expect(clone.status).toBe(401);
    expect((await json(clone)).error).toBe("passkey_failed");
  });

  test("a challenge works once; a wrong origin, an unknown passkey or a bad signature are refused, and nothing is stored", async () => {
    const opts = await json(await g.post("/auth/passkey/register/options", {}));
    const users = count(g, "users");
    const passkeys = count(g, "passkeys");
    // Signed for another origin (a phishing page relaying the challenge).
    const phish = createCredential(opts, "http://evil.example");
    const r1 = await g.post("/auth/passkey/register/verify", { credential: phish.credential });
    expect(r1.status).toBe(401);
    expect((await json(r1)).error).toBe("passkey_failed");
    // The challenge was consumed by that attempt.
    const good = createCredential(opts, g.url);
    const r2 = await g.post("/auth/passkey/register/verify", { credential: good.credential });
    expect(r2.status).toBe(401);
    expect((await json(r2)).error).toBe("challenge_expired");
    expect([count(g, "users"), count(g, "passkeys")]).toEqual([users, passkeys]);
    // Login with a passkey this instance never saw.
    const reg = await json(await g.post("/auth/passkey/register/options", {}));
    const stranger = createCredential(reg, g.url).passkey;
    const lo = await json(await g.post("/auth/passkey/login/options", {}));
    const r3 = await g.post("/auth/passkey/login/verify", { credential: getAssertion(stranger, lo, g.url) });
    expect(r3.status).toBe(401);
    expect((await json(r3)).error).toBe("unknown_passkey");
    // A known credential id signed by another key.
    const { passkey } = await registerPasskey(g);
    const lo2 = await json(await g.post("/auth/passkey/login/options", {}));
    const forged = getAssertion({ ...stranger, credentialId: passkey.credentialId }, lo2, g.url);
    const r4 = await g.post("/auth/passkey/login/verify", { credential: forged });
    expect(r4.status).toBe(401);
    // Garbage.
    for (const body of [{}, { credential: { id: "x" } }, { credential: { id: "x", response: { clientDataJSON: "!!!" } } }]) {
      const r = await g.post("/auth/passkey/login/verify", body);
      expect([400, 401]).toContain(r.status);
      expect(typeof (await json(r)).error).toBe("string");
    }
  });

  test("a signed-in account adds a second passkey to itself; the last way to sign in cannot be removed", async () => {
    const first = await registerPasskey(g);
    const cookie = cookieOf(first.res);
    const id = (await json(first.res)).account.id;
    const second = await registerPasskey(g, cookie);
    const body = await json(second.res);
    expect(body.created).toBe(false);
    expect(body.account.id).toBe(id);
    expect(body.account.passkeys).toHaveLength(2);
    expect(second.res.headers.get("set-cookie")).toBeNull();
    const [a, b] = body.account.passkeys;
    const rm = await g.post("/auth/passkey/remove", { id: a.id }, { headers: { cookie } });
    expect((await json(rm)).passkeys.map((p: { id: string }) => p.id)).toEqual([b.id]);
    const last = await g.post("/auth/passkey/remove", { id: b.id }, { headers: { cookie } });
    expect(last.status).toBe(409);
    expect((await json(last)).error).toBe("last_sign_in");
  });

  test("with PUBLIC_URL the relying party is that site, whatever Host the request carried", async () => {
    const pub = await startInProcess({ PUBLIC_URL: "https://gw.example.org" });
    try {
      const opts = await json(await pub.post("/auth/passkey/register/options", {}));
      expect(opts.rp.id).toBe("gw.example.org");
      const wrong = createCredential(opts, pub.url);
      expect((await pub.post("/auth/passkey/register/verify", { credential: wrong.credential })).status).toBe(401);
      const opts2 = await json(await pub.post("/auth/passkey/register/options", {}));
      const right = createCredential(opts2, "https://gw.example.org");
      const res = await pub.post("/auth/passkey/register/verify", { credential: right.credential });
      expect(res.status).toBe(200);
      expect(res.headers.get("set-cookie")).toContain("; Secure");
    } finally {
      await pub.stop();
    }
  });
});

describe("e-mail sign-in", () => {
  test("the link from a real SMTP server signs in once and creates the account on first use", async () => {
    const start = await g.post("/auth/email/start", { email: "Op1@Example.org " });
    expect(start.status).toBe(202);
    expect(await json(start)).toEqual({ sent: true, via: "smtp", expiresInS: 900 });
    const mail = await smtp.next("op1@example.org");
    expect(mail.from).toBe("gw@example.org");
    expect(mail.subject).toContain("test-gw");
    const token = /\/signin\/email#([A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    expect(token).toBeDefined();
    expect(mail.text).toContain(g.url + "/signin/email#");
    const users = count(g, "users");
    const v = await g.post("/auth/email/verify", { token });
    expect(v.status).toBe(200);
    const body = await json(v);
    expect(body.created).toBe(true);
    expect(body.account.email).toBe("op1@example.org");
    expect(count(g, "users")).toBe(users + 1);
    const again = await g.post("/auth/email/verify", { token });
    expect(again.status).toBe(401);
    expect((await json(again)).error).toBe("link_expired");
    // The next sign-in reaches the same account.
    await g.post("/auth/email/start", { email: "op1@example.org" });
    const code = /code (\d{6})/.exec((await smtp.next("op1@example.org")).subject)![1];
    const byCode = await json(await g.post("/auth/email/verify", { email: "op1@example.org", code }));
    expect(byCode.created).toBe(false);
    expect(byCode.account.id).toBe(body.account.id);
  });

  test("codes: five wrong guesses burn it; an expired code does not work", async () => {
    await g.post("/auth/email/start", { email: "op2@example.org" });
    const code = /code (\d{6})/.exec((await smtp.next("op2@example.org")).subject)![1]!;
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < 5; i++) {
      const r = await g.post("/auth/email/verify", { email: "op2@example.org", code: wrong });
      expect(r.status).toBe(401);
      expect((await json(r)).error).toBe("bad_code");
    }
    expect((await g.post("/auth/email/verify", { email: "op2@example.org", code })).status).toBe(401);
    // Expiry, with the instance's clock moved forward.
    const clock = {
      t: Date.now(),
      now() {
        return this.t;
      },
    };
    const timed = await startInProcess({ SMTP_URL: smtp.url }, { clock });
    expect((await timed.post("/auth/email/verify", { email: "op3@example.org", code: "123456" })).status).toBe(401);
    try {
      await timed.post("/auth/email/start", { email: "op3@example.org" });
      const c = /code (\d{6})/.exec((await smtp.next("op3@example.org")).subject)![1];
      clock.t += 16 * 60_000;
      expect((await timed.post("/auth/email/verify", { email: "op3@example.org", code: c })).status).toBe(401);
    } finally {
      await timed.stop();
    }
  });

  test("the answer is the same for known and unknown addresses; bad addresses are a 400 and send nothing", async () => {
    await g.post("/auth/email/start", { email: "known@example.org" });
    const t = /#([A-Za-z0-9_-]{43})/.exec((await smtp.next("known@example.org")).text)![1];
    await g.post("/auth/email/verify", { token: t });
    const known = await json(await g.post("/auth/email/start", { email: "known@example.org" }));
    const unknown = await json(await g.post("/auth/email/start", { email: "nobody-yet@example.org" }));
    expect(known).toEqual(unknown);
    await smtp.next("known@example.org");
    await smtp.next("nobody-yet@example.org");
    const before = smtp.messages.length;
    for (const email of ["not an address", "", 42, "a@b", "x".repeat(250) + "@example.org"]) {
      const r = await g.post("/auth/email/start", { email });
      expect(r.status).toBe(400);
      // Not text at all fails the route's schema, which names the field.
      expect(await json(r)).toMatchObject(typeof email === "string" ? { error: "bad_email" } : { error: "invalid", field: "body.email" });
    }
    expect(smtp.messages.length).toBe(before);
  });

  test("a mail server that refuses the message: 502, and the unsent code does not work", async () => {
    smtp.refuse(true);
    try {
      const r = await g.post("/auth/email/start", { email: "refused@example.org" });
      expect(r.status).toBe(502);
      expect((await json(r)).error).toBe("mail_failed");
      expect(g.gw.db.query("SELECT COUNT(*) AS n FROM email_tokens WHERE email = 'refused@example.org'").get()).toEqual({ n: 0 });
    } finally {
      smtp.refuse(false);
    }
  });

  test("without SMTP_URL the operator finds the link in the log", async () => {
    const r = await noMail.post("/auth/email/start", { email: "op@localhost.example" });
    expect(await json(r)).toEqual({ sent: true, via: "log", expiresInS: 900 });
    const line = noMailLog.lines.find((l) => l.includes("op@localhost.example"))!;
    expect(line).toContain("SMTP_URL is not set");
    const token = new RegExp(`${noMail.url.replace(/[.]/g, "\\.")}/signin/email#([A-Za-z0-9_-]{43})`).exec(line)?.[1];
    expect(token).toBeDefined();
    expect((await noMail.post("/auth/email/verify", { token })).status).toBe(200);
  });
});

describe("sessions", () => {
  test("sign-out ends the session on the server and clears the cookie", async () => {
    const u = signedInUser(g.gw, "N0OUT");
    const r = await g.post("/auth/logout", {}, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(200);
    expect(r.headers.get("set-cookie")).toMatch(/^svc_session=; .*Max-Age=0/);
    expect((await g.get("/auth/session", { headers: { cookie: u.cookie } })).status).toBe(401);
    // Signing out twice, or without a session, is fine.
    expect((await g.post("/auth/logout", {})).status).toBe(200);
  });

  test("POST /auth/session renews the session for another 30 days", async () => {
    const u = signedInUser(g.gw, "N0REN");
    g.gw.db.query("UPDATE sessions SET expires_at = ? WHERE user_id = ?").run(Date.now() + 60_000, u.id);
    const r = await g.post("/auth/session", {}, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(200);
    expect(cookieOf(r)).toBe(u.cookie);
    expect(r.headers.get("set-cookie")).toContain("Max-Age=2592000");
    const { e } = g.gw.db.query("SELECT expires_at AS e FROM sessions WHERE user_id = ?").get(u.id) as { e: number };
    expect(e).toBeGreaterThan(Date.now() + 29 * 24 * 3_600_000);
  });

  test("an oversized body on an account route is a 413 and changes nothing", async () => {
    const u = signedInUser(g.gw, "N0BIG");
    const r = await g.post("/auth/profile", { about: "x".repeat(2 * 1024 * 1024) }, { headers: { cookie: u.cookie } });
    expect(r.status).toBe(413);
    expect((await json(r)).error).toBe("body_too_large");
    expect((await json(await g.get("/auth/profile", { headers: { cookie: u.cookie } }))).profile).toEqual({ public: false });
  });

  test("/auth/claim: a registered device key's signature yields a session for its account", async () => {
    const u = signedInUser(g.gw, "N0KEY", { verified: true });
    const kp = deviceKey(g.gw, "N0KEY", u.id);
    const body = signedBody(kp, "POST", "/auth/claim", { call: "N0KEY-7" });
    const r = await g.post("/auth/claim", body);
    expect(r.status).toBe(200);
    expect((await json(r)).account.id).toBe(u.id);
    const replay = await g.post("/auth/claim", body);
    expect(replay.status).toBe(409);
    const other = deviceKey(g.gw, "N0OTHR");
    const wrongCall = await g.post("/auth/claim", signedBody(other, "POST", "/auth/claim", { call: "N0KEY" }));
    expect(wrongCall.status).toBe(403);
    const unbound = await g.post("/auth/claim", signedBody(other, "POST", "/auth/claim", { call: "N0OTHR" }));
    expect(unbound.status).toBe(403);
    expect((await json(unbound)).error).toBe("no_account");
    const stale = await g.post("/auth/claim", signedBody(kp, "POST", "/auth/claim", { call: "N0KEY" }, Math.floor(Date.now() / 1000) - 600));
    expect(stale.status).toBe(401);
    expect((await g.post("/auth/claim", { call: "N0KEY" })).status).toBe(401);
  });

  test("sign-in routes are rate-limited per address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 22; i++) {
      const r = await g.post("/auth/passkey/login/options", {}, { headers: { "x-forwarded-for": "192.0.2.99" } });
      statuses.push(r.status);
    }
    expect(statuses.slice(0, 20).every((s) => s === 200)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // Another address is unaffected.
    expect((await g.post("/auth/passkey/login/options", {})).status).toBe(200);
  });

  test("a write sent with the cookie by another site's page is not signed in (CSRF)", async () => {
    const u = signedInUser(g.gw, "N0CSRF");
    const cross = await g.post("/auth/callsign", { call: "N0CSRF-1" }, { headers: { cookie: u.cookie, origin: "http://evil.example" } });
    expect(cross.status).toBe(401);
    const fetchSite = await g.post("/auth/callsign", { call: "N0CSRF-1" }, { headers: { cookie: u.cookie, "sec-fetch-site": "cross-site" } });
    expect(fetchSite.status).toBe(401);
    const same = await g.post("/auth/callsign", { call: "N0CSRF-1" }, { headers: { cookie: u.cookie, origin: g.url } });
    expect(same.status).toBe(200);
    // Reads are unaffected.
    expect((await g.get("/auth/session", { headers: { cookie: u.cookie, origin: "http://evil.example" } })).status).toBe(200);
  });
});

describe("undeclared fields", () => {
  const refusedByName = async (r: Response) =>
    expect({ status: r.status, body: await json(r) }).toMatchObject({
      status: 400,
      body: { error: "invalid", field: "body.colour", message: expect.stringMatching(/^body\.colour: unknown field "colour"; it takes /) },
    });

  test("the plain sign-in bodies name a field they do not take, and take the same body without it", async () => {
    await refusedByName(await g.post("/auth/passkey/register/options", { name: "stray", colour: "red" }));
    const first = await registerPasskey(g);
    const cookie = cookieOf(first.res);
    const second = await registerPasskey(g, cookie);
    const [a, b] = (await json(second.res)).account.passkeys;
    await refusedByName(await g.post("/auth/passkey/remove", { id: a.id, colour: "red" }, { headers: { cookie } }));
    expect((await json(await g.get("/auth/session", { headers: { cookie } }))).account.passkeys).toHaveLength(2);
    const rm = await g.post("/auth/passkey/remove", { id: a.id }, { headers: { cookie } });
    expect((await json(rm)).passkeys.map((p: { id: string }) => p.id)).toEqual([b.id]);

    const sent = smtp.messages.length;
    await refusedByName(await g.post("/auth/email/start", { email: "stray@example.org", colour: "red" }));
    expect(smtp.messages.length).toBe(sent);
    expect((await g.post("/auth/email/start", { email: "stray@example.org" })).status).toBe(202);
    const token = /#([A-Za-z0-9_-]{43})/.exec((await smtp.next("stray@example.org")).text)![1];
    await refusedByName(await g.post("/auth/email/verify", { token, colour: "red" }));
    // The refused body did not spend the link.
    expect((await g.post("/auth/email/verify", { token })).status).toBe(200);
  });
});
