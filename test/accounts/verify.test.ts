/**
 * Callsign verification through the APRS challenge, decided on messages
 * heard by the ingest pipeline (packets posted to /ingest as an ingest box
 * sends them); and the operator's CLI path.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-for-verify";
let g: Running;
beforeAll(async () => {
  g = await startInProcess({ FED_APRS_CALL: "N0GW-10", INSTANCE: "verify-gw", INGEST_SECRET: INGEST });
});
afterAll(() => g.stop());

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({
  get: (p: string) => g.get(p, { headers: { cookie: u.cookie } }),
  post: (p: string, body: unknown) => g.post(p, body, { headers: { cookie: u.cookie } }),
});

/**
 * An APRS message sent in by the ingest box. `via` "air" (the default): as its
 * radio heard it, direct from the handheld (IGate N0IG-10, the box's own call);
 * "internet": an APRS-IS line with TCPIP and a q construct; "igated": an
 * APRS-IS line that another IGate says it heard on RF (qAR), which is still
 * only APRS-IS's word.
 */
async function hear(src: string, text: string, opts: { via?: "air" | "internet" | "igated"; to?: string } = {}, r0: Running = g) {
  const path = { air: "WIDE1-1", internet: "TCPIP*,qAC,T2TEST", igated: "WIDE1-1,qAR,N0IG-10" }[opts.via ?? "air"];
  const info = `:${(opts.to ?? "N0GW-10").padEnd(9)}:${text}`;
  const query = (opts.via ?? "air") === "air" ? "?igate=N0IG-10" : "";
  const r = await r0.post(`/ingest${query}`, `${src}>APDR16,${path}:${info}\n`, { headers: { "content-type": "text/plain", "x-ingest-secret": INGEST } });
  expect(r.status).toBe(200);
  return (await r.json()) as { packets: { stored: number } };
}

describe("APRS challenge", () => {
  test("a code heard from any SSID of the call verifies it, recording how it was heard", async () => {
    const u = signedInUser(g.gw, "N0VER-9");
    const c = as(u);
    const start = await c.post("/verify/aprs/start", { call: "N0VER-9" });
    expect(start.status).toBe(201);
    const ch = await json(start);
    expect(ch).toMatchObject({ call: "N0VER", status: "pending", addressee: "N0GW-10" });
    expect(ch.code).toMatch(/^[A-HJ-NP-Z2-9]{6}$/);
    expect(ch.message).toBe(`VERIFY ${ch.code}`);
    expect(await json(await c.get("/verify/aprs/status?call=N0VER"))).toMatchObject({ status: "pending", code: ch.code });
    expect(await json(await c.get("/auth/callsign"))).toEqual({ call: "N0VER-9", verified: false });
    // Not this: another station, the wrong code, a code inside a longer word.
    await hear("N0OTHER", `VERIFY ${ch.code}`);
    await hear("N0VER-7", "VERIFY ZZZZZZ");
    await hear("N0VER-7", `VERIFY X${ch.code}`);
    expect((await json(await c.get("/verify/aprs/status?call=N0VER"))).status).toBe("pending");
    // This: from the handheld, lower case, with other text around it.
    expect((await hear("N0VER-7", `hi gw verify ${ch.code.toLowerCase()} 73`)).packets.stored).toBe(1);
    const st = await json(await c.get("/verify/aprs/status?call=N0VER-9"));
    expect(st).toMatchObject({ call: "N0VER", status: "verified", heardFrom: "N0VER-7", heardVia: "rf via N0IG-10" });
    expect(await json(await c.get("/auth/callsign"))).toEqual({ call: "N0VER-9", verified: true });
    expect((await c.post("/verify/aprs/start", { call: "N0VER" })).status).toBe(409);
    // Status without a callsign names the latest challenge.
    expect((await json(await c.get("/verify/aprs/status"))).call).toBe("N0VER");
  });

  test("two accounts claim one call: the one whose code is heard gets it, the other's claim goes", async () => {
    const a = signedInUser(g.gw, "N0TWO");
    const b = signedInUser(g.gw, "N0TWO-5");
    const ca = await json(await as(a).post("/verify/aprs/start", { call: "N0TWO" }));
    const cb = await json(await as(b).post("/verify/aprs/start", { call: "N0TWO-5" }));
    expect(ca.code).not.toBe(cb.code);
    await hear("N0TWO-5", `VERIFY ${cb.code}`, { to: "ANYONE" });
    expect(await json(await as(b).get("/verify/aprs/status?call=N0TWO"))).toMatchObject({
      status: "verified",
      heardFrom: "N0TWO-5",
      heardVia: "rf via N0IG-10",
    });
    expect((await json(await as(a).get("/auth/callsigns"))).callsigns).toEqual([]);
    // A's old code, heard now, does nothing.
    await hear("N0TWO", `VERIFY ${ca.code}`);
    expect((await json(await as(a).get("/auth/callsigns"))).callsigns).toEqual([]);
  });

  test("confirm finds a message in the stored APRS log; without one it says what to send", async () => {
    const u = signedInUser(g.gw, "N0CON");
    const c = as(u);
    const ch = await json(await c.post("/verify/aprs/start", { call: "N0CON" }));
    const nope = await c.post("/verify/aprs/confirm", { call: "N0CON" });
    expect(nope.status).toBe(409);
    const e = await json(nope);
    expect(e.error).toBe("not_heard");
    expect(e.message).toContain(`VERIFY ${ch.code}`);
    expect(e.message).toContain("N0GW-10");
    // In the message log, written without an event reaching this process (another process sharing the database).
    g.gw.db
      .query(
        "INSERT INTO aprs_messages (ts, src, addressee, kind, text, source, igate, proof) VALUES (?, 'N0CON-2', 'N0GW-10', 'message', ?, 'rf', 'N0IG-1', ?)",
      )
      .run(g.gw.clock.now(), `VERIFY ${ch.code}`, "box");
    const ok = await c.post("/verify/aprs/confirm", { call: "N0CON" });
    expect(ok.status).toBe(200);
    expect(await json(ok)).toMatchObject({ status: "verified", heardFrom: "N0CON-2", heardVia: "rf via N0IG-1" });
  });

  test("an expired code no longer verifies; a new start replaces it", async () => {
    const clock = {
      t: Date.now(),
      now() {
        return this.t;
      },
    };
    const timed = await startInProcess({ INGEST_SECRET: INGEST }, { clock });
    try {
      const u = signedInUser(timed.gw, "N0EXP");
      const post = (p: string, b: unknown) => timed.post(p, b, { headers: { cookie: u.cookie } });
      const ch = await json(await post("/verify/aprs/start", { call: "N0EXP" }));
      expect(ch.addressee).toBe("VERIFY");
      clock.t += 61 * 60_000;
      await hear("N0EXP", `VERIFY ${ch.code}`, { to: "VERIFY" }, timed);
      expect((await json(await timed.get("/verify/aprs/status?call=N0EXP", { headers: { cookie: u.cookie } }))).status).toBe("expired");
      expect((await post("/verify/aprs/confirm", { call: "N0EXP" })).status).toBe(409);
      const again = await json(await post("/verify/aprs/start", { call: "N0EXP" }));
      expect(again.status).toBe("pending");
      expect(timed.gw.db.query("SELECT COUNT(*) AS n FROM callsign_challenges").get()).toEqual({ n: 1 });
    } finally {
      await timed.stop();
    }
  });

  test("bad input: a callsign not held, malformed, or no body is a 4xx and starts nothing", async () => {
    const u = signedInUser(g.gw, "N0BDV");
    const c = as(u);
    const before = g.gw.db.query("SELECT COUNT(*) AS n FROM callsign_challenges").get();
    expect((await c.post("/verify/aprs/start", { call: "N0ELSE" })).status).toBe(404);
    expect((await c.post("/verify/aprs/start", { call: "not a call" })).status).toBe(400);
    expect((await c.post("/verify/aprs/start", [])).status).toBe(400);
    expect((await c.get("/verify/aprs/status?call=%27%3B")).status).toBe(400);
    expect((await c.post("/verify/aprs/confirm", { call: "N0BDV" })).status).toBe(409);
    expect(g.gw.db.query("SELECT COUNT(*) AS n FROM callsign_challenges").get()).toEqual(before);
    // Messages from non-callsign sources (objects, tactical names) are ignored quietly.
    await hear("TACTICAL", "VERIFY AAAAAA");
    await hear("N0BDV", "VERIFY AAAAAA");
    expect((await json(await c.get("/auth/callsign"))).verified).toBe(false);
  });
});

describe("undeclared fields", () => {
  test("start and confirm name a field they do not take, and take the same body without it", async () => {
    const c = as(signedInUser(g.gw, "N0STV"));
    const challenges = () => g.gw.db.query("SELECT COUNT(*) AS n FROM callsign_challenges").get();
    const before = challenges();
    for (const path of ["/verify/aprs/start", "/verify/aprs/confirm"]) {
      const r = await c.post(path, { call: "N0STV", colour: "red" });
      expect({ path, status: r.status, body: await json(r) }).toEqual({
        path,
        status: 400,
        body: { error: "invalid", message: 'body.colour: unknown field "colour"; it takes call', field: "body.colour" },
      });
    }
    expect(challenges()).toEqual(before);
    const start = await c.post("/verify/aprs/start", { call: "N0STV" });
    expect(start.status).toBe(201);
    const ch = await json(start);
    g.gw.db
      .query("INSERT INTO aprs_messages (ts, src, addressee, kind, text, source, igate, proof) VALUES (?, 'N0STV', 'N0GW-10', 'message', ?, 'rf', 'N0IG-1', ?)")
      .run(g.gw.clock.now(), `VERIFY ${ch.code}`, "box");
    const ok = await c.post("/verify/aprs/confirm", { call: "N0STV" });
    expect({ status: ok.status, verified: (await json(ok)).status }).toEqual({ status: 200, verified: "verified" });
  });
});

describe("operator CLI", () => {
  test("svc-gateway callsign verify, against the data directory of a running gateway", async () => {
    const running = await startInProcess({});
    try {
      const u = signedInUser(running.gw, "N0CLI-9");
      running.gw.db.query("UPDATE users SET email = 'op@example.org' WHERE id = ?").run(u.id);
      const env = { SVC_DATA: running.dataDir };
      const list = await runCli(["callsign", "list"], { env });
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`account ${u.id}  op@example.org  N0CLI-9 (unverified)*`);
      const ok = await runCli(["callsign", "verify", "n0cli", "--data", running.dataDir]);
      expect(ok.stderr).toBe("");
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain(`N0CLI is verified for account ${u.id} (op@example.org)`);
      // The running gateway sees it at once.
      expect(await (await running.get("/auth/callsign", { headers: { cookie: u.cookie } })).json()).toEqual({ call: "N0CLI-9", verified: true });
      const st = await (await running.get("/verify/aprs/status?call=N0CLI", { headers: { cookie: u.cookie } })).json();
      expect(st).toMatchObject({ status: "verified", heardVia: "operator" });

      // Several claimants: the operator must name one.
      const a = signedInUser(running.gw, "N0AMB");
      const b = signedInUser(running.gw, "N0AMB-1");
      const amb = await runCli(["callsign", "verify", "N0AMB", "--data", running.dataDir]);
      expect(amb.code).toBe(1);
      expect(amb.stderr).toContain(`account ${a.id}`);
      expect(amb.stderr).toContain(`account ${b.id}`);
      const named = await runCli(["callsign", "verify", "N0AMB", String(b.id), "--data", running.dataDir]);
      expect(named.code).toBe(0);
      expect(running.gw.db.query("SELECT user_id AS id FROM callsigns WHERE call LIKE 'N0AMB%'").all()).toEqual([{ id: b.id }]);

      const none = await runCli(["callsign", "verify", "N0NONE", "--data", running.dataDir]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain("no account claims N0NONE");
      expect((await runCli(["callsign", "verify", "BOGUS", "--data", running.dataDir])).code).toBe(2);
      expect((await runCli(["callsign", "frobnicate", "--data", running.dataDir])).code).toBe(2);
    } finally {
      await running.stop();
    }
  });
});
