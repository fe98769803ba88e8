/**
 * No one takes a callsign, an account or the sysop seat they do not own: the
 * attacks an outside test performed, done again through HTTP against real
 * gateways, each with the legitimate path beside it as its control.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { deviceKey, signedBody, signedInUser, type TestUser } from "../helpers/accounts.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { markCallsignVerified } from "../../src/accounts/users.ts";

const INGEST = "takeover-ingest-secret";
let g: Running; // the attacked gateway: N0SYS is its sysop
let smtp: SmtpSink;
beforeAll(async () => {
  smtp = await startSmtpSink({ user: "gw", pass: "mail-pass" });
  g = await startInProcess({ INGEST_SECRET: INGEST, ADMIN_CALLSIGNS: "N0SYS", FED_APRS_CALL: "N0GW-10", SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org" });
});
afterAll(async () => {
  await g.stop();
  await smtp.stop();
});

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser, r: Running = g) => ({
  get: (p: string) => r.get(p, { headers: { cookie: u.cookie } }),
  post: (p: string, body: unknown) => r.post(p, body, { headers: { cookie: u.cookie } }),
});
const box = (line: string, query = "") => g.post(`/ingest${query}`, `${line}\n`, { headers: { "content-type": "text/plain", "x-ingest-secret": INGEST } });
const msg = (src: string, path: string, text: string) => `${src}>APDR16,${path}::${"N0GW-10".padEnd(9)}:${text}`;
/** A hide body: a small traditional near 42.1N 71.1W. */
const smallCache = (name: string) => ({ name, lat: 42.1, lon: -71.1, type: "traditional", size: "small", difficulty: 1, terrain: 1, description: "x" });

/** A verified user with a device key, as the real owner of a call is. */
function owner(call: string, email?: string) {
  const u = signedInUser(g.gw, call);
  markCallsignVerified(g.gw, u.id, call, "test: verified by hand");
  if (email) g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(email, u.id);
  return { ...u, kp: deviceKey(g.gw, call, u.id) };
}

describe("callsign challenges answer only to what was heard on the air", () => {
  test("a device key's third-party packet carrying the sysop's VERIFY is refused whole; the sysop keeps the call", async () => {
    const sysop = owner("N0SYS");
    const bob = owner("N0BOB");
    // Bob also claims N0SYS on a second account and asks for a code.
    const mallory = signedInUser(g.gw, "N0MAL");
    expect((await as(mallory).post("/auth/callsigns", { add: "N0SYS" })).status).toBe(200);
    const ch = await json(await as(mallory).post("/verify/aprs/start", { call: "N0SYS" }));
    expect(ch).toMatchObject({ status: "pending", takeover: true, accepts: ["radio", "box"] });

    // The attack as reported: a third-party packet, signed with Bob's own device key.
    const line = `N0BOB>APRS,TCPIP*:}N0SYS>APRS,TCPIP,N0BOB*::VERIFY   :VERIFY ${ch.code}`;
    const r = await g.post("/ingest", signedBody(bob.kp, "POST", "/ingest", { packets: [line] }));
    expect(r.status).toBe(403);
    expect((await json(r)).error).toBe("not_your_station");
    // Bob's own packets still go in under his key (the control).
    const own = await g.post("/ingest", signedBody(bob.kp, "POST", "/ingest", { packets: ["N0BOB>APRS,TCPIP*:>on the air"] }));
    expect(own.status).toBe(200);

    // The same wrapper arriving through the operator's box (an IGate's third-party traffic) is stored, and answers nothing.
    expect((await box(line)).status).toBe(200);
    expect(g.gw.db.query("SELECT proof FROM aprs_messages WHERE src = 'N0SYS' ORDER BY id DESC LIMIT 1").get()).toEqual({ proof: "relayed" });
    expect((await as(mallory).post("/verify/aprs/confirm", { call: "N0SYS" })).status).toBe(409);
    // Nor does APRS-IS's word that some IGate heard it (qAR), nor a plain APRS-IS line.
    await box(msg("N0SYS", "WIDE1-1,qAR,N0IG-10", `VERIFY ${ch.code}`));
    await box(msg("N0SYS", "TCPIP*,qAC,T2TEST", `VERIFY ${ch.code}`));
    expect((await json(await as(mallory).get("/verify/aprs/status?call=N0SYS"))).status).toBe("pending");

    // The sysop is still the sysop, with their device key.
    expect(await json(await as(sysop).get("/auth/callsign"))).toEqual({ call: "N0SYS", verified: true });
    expect((await json(await g.get("/keys/N0SYS"))).keys.map((k: any) => k.key)).toEqual([sysop.kp.publicKey]);
    expect((await as(mallory).get("/api/admin/audit")).status).toBe(403);
    expect((await as(sysop).get("/api/admin/audit")).status).toBe(200);
  });

  test("a takeover heard on the air works, and is audited and told to the previous holder", async () => {
    const prev = owner("N0TKO", "prev@example.org");
    const sysop = signedInUser(g.gw, "N0SYS");
    markCallsignVerified(g.gw, sysop.id, "N0SYS", "test: verified by hand");
    const next = signedInUser(g.gw, "N0NEW");
    await as(next).post("/auth/callsigns", { add: "N0TKO-7" });
    const ch = await json(await as(next).post("/verify/aprs/start", { call: "N0TKO" }));
    expect(ch.takeover).toBe(true);
    // Heard by the operator's box on its own radio, from the call itself.
    expect((await box(msg("N0TKO-7", "WIDE1-1", `VERIFY ${ch.code}`), "?igate=N0GW-10")).status).toBe(200);
    expect(await json(await as(next).get("/verify/aprs/status?call=N0TKO"))).toMatchObject({ status: "verified", heardFrom: "N0TKO-7" });
    // The previous holder lost it and can see why; their device key went with it.
    const lost = await json(await as(prev).get("/auth/callsigns"));
    expect(lost.callsigns).toEqual([]);
    expect(lost.lost).toEqual([expect.objectContaining({ call: "N0TKO", detail: expect.stringContaining("N0TKO-7") })]);
    expect((await json(await g.get("/keys/N0TKO"))).keys).toEqual([]);
    const mail = await smtp.next("prev@example.org");
    expect(mail.subject).toContain("N0TKO was verified by another account");
    // The sysop sees it in the audit log.
    const audit = (await json(await as(sysop).get("/api/admin/audit"))).entries;
    expect(audit.find((e: any) => e.kind === "taken_over" && e.call === "N0TKO")).toMatchObject({ userId: next.id, subjectUserId: prev.id });
  });

  test("VERIFY_APRSIS lets APRS-IS answer a first verification, never a takeover", async () => {
    const r = await startInProcess({ INGEST_SECRET: INGEST, VERIFY_APRSIS: "true" });
    try {
      const post = (line: string) => r.post("/ingest", `${line}\n`, { headers: { "content-type": "text/plain", "x-ingest-secret": INGEST } });
      const first = signedInUser(r.gw, "N0ISV");
      const ch1 = await json(await as(first, r).post("/verify/aprs/start", { call: "N0ISV" }));
      expect(ch1).toMatchObject({ takeover: false, accepts: ["radio", "box", "internet"] });
      await post(msg("N0ISV", "TCPIP*,qAC,T2TEST", `VERIFY ${ch1.code}`));
      expect((await json(await as(first, r).get("/verify/aprs/status?call=N0ISV"))).status).toBe("verified");

      const other = signedInUser(r.gw, "N0OTH");
      await as(other, r).post("/auth/callsigns", { add: "N0ISV-5" });
      const ch2 = await json(await as(other, r).post("/verify/aprs/start", { call: "N0ISV" }));
      expect(ch2).toMatchObject({ takeover: true, accepts: ["radio", "box"] });
      await post(msg("N0ISV-5", "TCPIP*,qAC,T2TEST", `VERIFY ${ch2.code}`));
      const refused = await as(other, r).post("/verify/aprs/confirm", { call: "N0ISV" });
      expect(refused.status).toBe(409);
      expect((await json(refused)).message).toContain("APRS-IS does not count here");
      expect(await json(await as(first, r).get("/auth/callsign"))).toEqual({ call: "N0ISV", verified: true });
    } finally {
      await r.stop();
    }
  });
});

describe("an unverified claim never acts as a call another account verified", () => {
  test("the claim is kept for a takeover challenge, but never becomes active; caches and logs go out under the claimant's own call", async () => {
    const victim = owner("N0VIC");
    const a = signedInUser(g.gw, "N0ATK");
    // Making it the active call is refused.
    const take = await as(a).post("/auth/callsign", { call: "N0VIC-9" });
    expect(take.status).toBe(409);
    expect((await json(take)).error).toBe("verified_elsewhere");
    expect(await json(await as(a).get("/auth/callsign"))).toEqual({ call: "N0ATK", verified: false });
    // Holding it as a claim is allowed (to start a takeover), activating it is not.
    expect((await as(a).post("/auth/callsigns", { add: "N0VIC" })).status).toBe(200);
    expect((await g.post("/auth/callsign", { call: "N0VIC" }, { headers: { cookie: a.cookie } })).status).toBe(409);
    const hide = await as(a).post("/api/caches", smallCache("Not yours"));
    expect(hide.status).toBe(201);
    expect((await json(hide)).ownerCall).toBe("N0ATK");

    // An account whose only call is someone else's verified one acts as nobody.
    const b = signedInUser(g.gw, "N0ZZZ");
    await as(b).post("/auth/callsigns", { add: "N0VIC-3" });
    await as(b).post("/auth/callsigns", { remove: "N0ZZZ" });
    expect(await json(await as(b).get("/auth/callsign"))).toEqual({ call: null, verified: false });
    const refused = await as(b).post("/api/caches", smallCache("Not yours either"));
    expect(refused.status).toBe(403);
    expect((await json(await as(victim).get("/auth/callsign"))).call).toBe("N0VIC");
  });
});

describe("an imported account owns no e-mail address it has not confirmed", () => {
  test("a bundle naming the victim's address gives the importer nothing of the victim's sign-in", async () => {
    // The attacker runs their own instance, so their bundle says what they like.
    const evil = await startInProcess({ INSTANCE: "evil-gw", FED_PRIVATE_KEY: generateKeyPair().privateKey });
    try {
      const m = signedInUser(evil.gw, "N0EVL");
      evil.gw.db.query("UPDATE users SET email = 'victim@example.org' WHERE id = ?").run(m.id);
      const kp = deviceKey(evil.gw, "N0EVL", m.id);
      const bundle = await json(await evil.post("/api/account/N0EVL/bundle", signedBody(kp, "POST", "/api/account/N0EVL/bundle", {})));
      expect(bundle.email).toBe("victim@example.org");

      const imp = await g.post("/api/account/import", signedBody(kp, "POST", "/api/account/import", { bundle }));
      expect(imp.status).toBe(200);
      const res = await json(imp);
      expect(res.account.email).toBeNull();
      expect(res.emailToConfirm).toBe("victim@example.org");
      const importer = (imp.headers.get("set-cookie") ?? "").split(";")[0]!;

      // The victim signs in by e-mail: a new account of their own, not the importer's.
      expect((await g.post("/auth/email/start", { email: "victim@example.org" })).status).toBe(202);
      const code = /code (\d{6})/.exec((await smtp.next("victim@example.org")).subject)![1];
      const signin = await json(await g.post("/auth/email/verify", { email: "victim@example.org", code }));
      expect(signin.created).toBe(true);
      expect(signin.account.id).not.toBe(res.account.id);
      expect((await json(await g.get("/auth/session", { headers: { cookie: importer } }))).account.email).toBeNull();
    } finally {
      await evil.stop();
    }
  });
});
