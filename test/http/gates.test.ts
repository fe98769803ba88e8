import { readControl } from "../../src/core/store/control.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { deviceKey, signedBody, signedInUser, weatherKey } from "../helpers/accounts.ts";
import { gatesPlugin, routeGates, type GateName } from "../../src/http/gates.ts";
import { GATED_ROUTES } from "./gated-routes.ts";

const INGEST = "ingest-secret-0123456789";
const RELAY = "relay-secret-0123456789";
const FED = "fed-secret-0123456789abc";

let g: Running;
let locked: Running;
beforeAll(async () => {
  g = await startInProcess({
    INGEST_SECRET: INGEST,
    ADMIN_CALLSIGNS: "N0OPS",
    FED_RELAY_SECRET: RELAY,
    FED_SUBMIT_SECRET: FED,
    RATE_LIMIT_PER_MINUTE: "3",
    RATE_LIMIT_KEY_PER_MINUTE: "6",
  });
  locked = await startInProcess({});
});
afterAll(async () => {
  await g.stop();
  await locked.stop();
});

/** A probe app: one route per gate, behind the gateway's real gates plugin. */
function probe(r: Running) {
  const app = new Elysia({ name: "probe" }).use(gatesPlugin(r.gw)).onError(({ code, error }) => {
    // A gate refused in the parse step arrives wrapped in Elysia's ParseError (as in src/http/errors.ts).
    const e = ((code === "PARSE" && (error as { cause?: unknown }).cause) || error) as { status?: number; code?: string };
    return new Response(JSON.stringify({ error: e.code }), { status: e.status ?? 500 });
  });
  const gates: GateName[] = ["public", "rate-limited", "session", "actor", "verified", "ingest", "sysop", "relay", "fed-secret", "fed-secret-if-set"];
  for (const gate of gates) app.post(`/probe/${gate}`, () => ({ ok: true }), { gate });
  app.post("/probe/signed-body/:call", ({ caller }) => ({ ok: true, via: caller.assertion ? "key" : "session" }), { gate: "signed-body" });
  return (path: string, init: RequestInit = {}) =>
    app.handle(
      new Request("http://localhost" + path, {
        method: "POST",
        ...init,
        headers: { "content-type": "application/json", ...(init.headers as object) },
        body: (init.body as string) ?? "{}",
      }),
    );
}

describe("gates", () => {
  test("every route declares its gate; every non-public route is in the gate table", () => {
    const routes = routeGates(g.gw.app);
    const undeclared = routes.filter((r) => r.gate === null).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
    const gated = routes.filter((r) => r.gate !== "public" && r.gate !== "rate-limited");
    for (const r of gated) {
      const row = GATED_ROUTES.find((t) => t.method === r.method && t.route === r.path);
      expect({ route: `${r.method} ${r.path}`, inTable: !!row, gate: row?.gate }).toEqual({ route: `${r.method} ${r.path}`, inTable: true, gate: r.gate! });
    }
  });

  test("the gate table: each route refuses without its gate and admits with it", async () => {
    const admin = signedInUser(g.gw, "N0OPS", { verified: true });
    const wxKey = weatherKey(g.gw, admin.id, "N0OPS-13");
    for (const row of GATED_ROUTES) {
      const path = row.path;
      const body = row.body === undefined ? undefined : JSON.stringify(row.body);
      const bare = await g.get(path, { method: row.method, body, headers: { "content-type": "application/json" } });
      expect({ route: `${row.method} ${row.route}`, refused: [401, 403].includes(bare.status) }).toEqual({
        route: `${row.method} ${row.route}`,
        refused: true,
      });
      const creds: Record<string, string> = { "content-type": "application/json" };
      if (["session", "actor", "verified", "sysop", "signed-body"].includes(row.gate)) creds.cookie = admin.cookie;
      if (row.gate === "ingest" || row.gate === "ingest-or-device") creds["x-ingest-secret"] = INGEST;
      if (row.gate === "wx-key") creds["x-wx-key"] = wxKey;
      if (row.gate === "local-control") creds["x-control-token"] = readControl(g.dataDir)!.token;
      if (row.gate === "relay") creds["x-relay-secret"] = RELAY;
      if (row.gate === "fed-secret" || row.gate === "fed-secret-if-set") creds["x-fed-secret"] = FED;
      const ok = await g.get(path.replace(":call", admin.call), { method: row.method, body, headers: creds });
      expect({ route: `${row.method} ${row.route}`, admitted: ![401, 403, 429].includes(ok.status) }).toEqual({
        route: `${row.method} ${row.route}`,
        admitted: true,
      });
    }
  });

  test("a gated route refuses a caller without credentials before reading the body: 401, not 400, for a body that does not parse", async () => {
    const admin = signedInUser(g.gw, "N0OPS", { verified: true });
    const routes: Array<{ path: string; creds: Record<string, string> }> = [
      { path: "/api/bbs/messages/1/read", creds: { cookie: admin.cookie } },
      { path: "/api/caches", creds: { cookie: admin.cookie } },
      { path: "/api/bbs/partners", creds: { cookie: admin.cookie } },
      { path: "/outbox/ack", creds: { "x-ingest-secret": INGEST } },
      { path: "/federation/sync", creds: { "x-ingest-secret": INGEST } },
      { path: "/federation/relay/gw-none/answer", creds: { "x-relay-secret": RELAY } },
    ];
    for (const r of routes) {
      const bare = await g.get(r.path, { method: "POST", body: "{not json", headers: { "content-type": "application/json" } });
      // Positive control: with credentials the same body is read and refused as bad JSON.
      const admitted = await g.get(r.path, { method: "POST", body: "{not json", headers: { "content-type": "application/json", ...r.creds } });
      const [b, a] = [(await bare.json()) as { error: string }, (await admitted.json()) as { error: string }];
      expect({ path: r.path, bare: [bare.status, b.error], admitted: [admitted.status, a.error] }).toEqual({
        path: r.path,
        bare: [401, "unauthorized"],
        admitted: [400, "bad_json"],
      });
    }
  });

  test("an API key raises the corroboration (fed) bucket as it raises /api/v1; sign-in (auth) is not raised and its 429 does not offer a key", async () => {
    const { createHash } = await import("node:crypto");
    const key = "test-api-key-fed-bucket";
    g.gw.db.query("INSERT INTO api_keys (key_hash, created_at) VALUES (?, 0)").run(createHash("sha256").update(key).digest("base64url"));
    const notify = (headers: Record<string, string> = {}) => g.post("/federation/notify", { instance: "gw-none" }, { headers });
    const bare: number[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < 61; i++) {
      const r = await notify();
      bare.push(r.status);
      if (r.status === 429) refused = r;
    }
    expect(bare.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(((await refused!.json()) as { message: string }).message).toContain("API key");
    // The same IP with a key: not refused, and told the raised limit.
    const withKey: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 61; i++) {
      last = await notify({ "x-api-key": key });
      withKey.push(last.status);
    }
    expect(withKey.filter((s) => s === 429)).toEqual([]);
    expect(last!.headers.get("ratelimit-limit")).toBe("600");
    // The sign-in bucket: a key does not raise it, and the refusal does not say it would.
    const signIn = (headers: Record<string, string> = {}) => g.post("/auth/passkey/login/options", {}, { headers });
    const limits = new Set<string | null>();
    let authRefused: Response | null = null;
    for (let i = 0; i < 21; i++) {
      const r = await signIn({ "x-api-key": key });
      limits.add(r.headers.get("ratelimit-limit"));
      if (r.status === 429) authRefused = r;
    }
    expect([...limits]).toEqual(["20"]);
    expect(authRefused!.status).toBe(429);
    expect(((await authRefused!.json()) as { message: string }).message).not.toContain("API key");
    // Counted per IP whatever key is sent: the same IP without a key is refused too.
    expect((await signIn()).status).toBe(429);
  });

  test("session, actor and verified", async () => {
    const call = probe(g);
    const plain = signedInUser(g.gw, "N0ABC");
    const verified = signedInUser(g.gw, "N0VER", { verified: true });
    expect((await call("/probe/session")).status).toBe(401);
    expect((await call("/probe/session", { headers: { cookie: "svc_session=" + "A".repeat(43) } })).status).toBe(401);
    expect((await call("/probe/session", { headers: { cookie: plain.cookie } })).status).toBe(200);
    expect((await call("/probe/actor")).status).toBe(401);
    expect((await call("/probe/actor", { headers: { cookie: plain.cookie } })).status).toBe(200);
    expect((await call("/probe/actor", { headers: { "x-ingest-secret": INGEST } })).status).toBe(200);
    expect((await call("/probe/actor", { headers: { "x-ingest-secret": INGEST + "x" } })).status).toBe(401);
    const unverified = await call("/probe/verified", { headers: { cookie: plain.cookie } });
    expect(unverified.status).toBe(403);
    expect(((await unverified.json()) as { error: string }).error).toBe("callsign_not_verified");
    expect((await call("/probe/verified", { headers: { cookie: verified.cookie } })).status).toBe(200);
  });

  test("an expired or ended session is refused", async () => {
    const call = probe(g);
    const u = signedInUser(g.gw, "N0EXP");
    g.gw.db.query("UPDATE sessions SET expires_at = ? WHERE user_id = ?").run(g.gw.clock.now() - 1, u.id);
    expect((await call("/probe/session", { headers: { cookie: u.cookie } })).status).toBe(401);
  });

  test("ingest: the right secret only; locked when INGEST_SECRET is unset", async () => {
    const call = probe(g);
    expect((await call("/probe/ingest")).status).toBe(401);
    expect((await call("/probe/ingest", { headers: { "x-ingest-secret": "wrong" } })).status).toBe(401);
    expect((await call("/probe/ingest", { headers: { "x-ingest-secret": INGEST } })).status).toBe(200);
    const off = await probe(locked)("/probe/ingest", { headers: { "x-ingest-secret": INGEST } });
    expect(off.status).toBe(403);
    expect(((await off.json()) as { error: string }).error).toBe("locked");
  });

  test("sysop: a verified admin callsign or the ingest secret; never an unverified claim; locked without ADMIN_CALLSIGNS", async () => {
    const call = probe(g);
    const admin = signedInUser(g.gw, "N0OPS-9", { verified: true });
    const squatter = signedInUser(g.gw, "N0OPS");
    const other = signedInUser(g.gw, "N0ELSE", { verified: true });
    expect((await call("/probe/sysop")).status).toBe(401);
    expect((await call("/probe/sysop", { headers: { cookie: admin.cookie } })).status).toBe(200);
    expect((await call("/probe/sysop", { headers: { cookie: squatter.cookie } })).status).toBe(403);
    expect((await call("/probe/sysop", { headers: { cookie: other.cookie } })).status).toBe(403);
    expect((await call("/probe/sysop", { headers: { "x-ingest-secret": INGEST } })).status).toBe(200);
    const lockedCall = probe(locked);
    const lockedAdmin = signedInUser(locked.gw, "N0OPS", { verified: true });
    const r = await lockedCall("/probe/sysop", { headers: { cookie: lockedAdmin.cookie } });
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toBe("locked");
  });

  test("signed-body: a registered key's fresh signature once, or a session holding the callsign", async () => {
    const call = probe(g);
    const owner = signedInUser(g.gw, "N0SIG");
    const kp = deviceKey(g.gw, "N0SIG", owner.id);
    const path = "/probe/signed-body/N0SIG";
    const body = signedBody(kp, "POST", path, { confirm: true });
    const first = await call(path, { body: JSON.stringify(body) });
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ ok: true, via: "key" });
    // Replay of the same signed body.
    expect((await call(path, { body: JSON.stringify(body) })).status).toBe(409);
    // Stale.
    const stale = signedBody(kp, "POST", path, { confirm: true }, Math.floor(Date.now() / 1000) - 3600);
    expect((await call(path, { body: JSON.stringify(stale) })).status).toBe(401);
    // Tampered body.
    const tampered = { ...signedBody(kp, "POST", path, { confirm: true }), confirm: false };
    expect((await call(path, { body: JSON.stringify(tampered) })).status).toBe(401);
    // Signed for another path (cross-route replay).
    const other = signedBody(kp, "POST", "/probe/signed-body/N0XYZ", { confirm: true });
    expect((await call(path, { body: JSON.stringify(other) })).status).toBe(401);
    // A key registered to someone else's callsign.
    const foreign = deviceKey(g.gw, "N0OTHER");
    expect((await call(path, { body: JSON.stringify(signedBody(foreign, "POST", path, {})) })).status).toBe(403);
    // No signature at all.
    expect((await call(path, { body: "{}" })).status).toBe(401);
    // A session that holds the callsign needs no signature; one that does not is refused.
    expect(await (await call(path, { headers: { cookie: owner.cookie } })).json()).toEqual({ ok: true, via: "session" });
    const stranger = signedInUser(g.gw, "N0STR");
    expect((await call(path, { headers: { cookie: stranger.cookie } })).status).toBe(401);
  });

  test("relay and fed secrets", async () => {
    const call = probe(g);
    expect((await call("/probe/relay")).status).toBe(401);
    expect((await call("/probe/relay", { headers: { "x-relay-secret": RELAY } })).status).toBe(200);
    expect((await call("/probe/fed-secret", { headers: { "x-fed-secret": "nope" } })).status).toBe(401);
    expect((await call("/probe/fed-secret", { headers: { "x-fed-secret": FED } })).status).toBe(200);
    expect((await call("/probe/fed-secret-if-set")).status).toBe(401);
    expect((await call("/probe/fed-secret-if-set", { headers: { "x-fed-secret": FED } })).status).toBe(200);
    // Without FED_SUBMIT_SECRET: corroborate-style routes are public, submit-style locked.
    const lockedCall = probe(locked);
    expect((await lockedCall("/probe/fed-secret-if-set")).status).toBe(200);
    expect((await lockedCall("/probe/fed-secret", { headers: { "x-fed-secret": FED } })).status).toBe(403);
    expect((await lockedCall("/probe/relay", { headers: { "x-relay-secret": RELAY } })).status).toBe(403);
  });

  test("rate-limited: per IP, with standard headers and Retry-After; an API key raises the limit", async () => {
    const call = probe(g);
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 5; i++) {
      last = await call("/probe/rate-limited");
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.headers.get("ratelimit-limit")).toBe("3");
    expect(last!.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(last!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await last!.json()) as { error: string }).error).toBe("rate_limited");
    const key = "test-api-key-123";
    const { createHash } = await import("node:crypto");
    g.gw.db.query("INSERT INTO api_keys (key_hash, created_at) VALUES (?, 0)").run(createHash("sha256").update(key).digest("base64url"));
    const withKey: number[] = [];
    for (let i = 0; i < 7; i++) withKey.push((await call("/probe/rate-limited", { headers: { "x-api-key": key } })).status);
    expect(withKey).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });
});
