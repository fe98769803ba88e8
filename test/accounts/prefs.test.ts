/**
 * The account's saved things: preferences, watchlist, notification settings,
 * web push (against a push service on loopback that decrypts and checks what
 * it gets), saved map views and their share links.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { checkVapid, pushClient, startPushService } from "../helpers/push.ts";
import { watchersOf } from "../../src/accounts/prefs.ts";

let g: Running;
let strict: Running;
let push: ReturnType<typeof startPushService>;
beforeAll(async () => {
  push = startPushService();
  g = await startInProcess({ PUSH_ALLOW_PRIVATE_ENDPOINTS: "true", MAIL_FROM: "ops@example.org", INSTANCE: "prefs-gw" });
  strict = await startInProcess({});
});
afterAll(async () => {
  await g.stop();
  await strict.stop();
  push.stop();
});

const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser, r: Running = g) => ({
  get: (p: string) => r.get(p, { headers: { cookie: u.cookie } }),
  send: (method: string, p: string, body?: unknown) =>
    r.get(p, { method, headers: { cookie: u.cookie, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }),
});

describe("preferences and watchlist", () => {
  test("preferences: any JSON object up to 8 KiB, replaced whole", async () => {
    const c = as(signedInUser(g.gw, "N0PRF"));
    expect(await json(await c.get("/api/prefs"))).toEqual({ prefs: {} });
    await c.send("PUT", "/api/prefs", { units: "metric", layers: ["stations"] });
    await c.send("PUT", "/api/prefs", { units: "imperial" });
    expect(await json(await c.get("/api/prefs"))).toEqual({ prefs: { units: "imperial" } });
    expect((await c.send("PUT", "/api/prefs", { big: "x".repeat(9000) })).status).toBe(400);
    expect((await c.send("PUT", "/api/prefs", [1])).status).toBe(400);
    expect(await json(await c.get("/api/prefs"))).toEqual({ prefs: { units: "imperial" } });
  });

  test("watch and unwatch caches; the digests find the watchers", async () => {
    const a = signedInUser(g.gw, "N0WA");
    const b = signedInUser(g.gw, "N0WB");
    const hider = signedInUser(g.gw, "N0WH", { verified: true });
    const hide = async (name: string) =>
      (
        (await json(
          await as(hider).send("POST", "/api/caches", { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 52.5, lon: 13.4 }),
        )) as { id: number }
      ).id;
    const [c1, c2] = [await hide("Watched one"), await hide("Watched two")];
    expect(await json(await as(a).send("PUT", `/api/watch/${c1}`, { watch: true }))).toEqual({ cacheId: c1, watching: true });
    await as(a).send("PUT", `/api/watch/${c1}`, { watch: true });
    await as(b).send("PUT", `/api/watch/${c1}`, { watch: true });
    await as(a).send("PUT", `/api/watch/${c2}`, { watch: true });
    expect((await json(await as(a).get("/api/watch"))).watches.map((w: any) => w.cacheId)).toEqual([c1, c2]);
    expect(watchersOf(g.gw, c1).sort()).toEqual([a.id, b.id].sort());
    expect(await json(await as(b).send("PUT", `/api/watch/${c1}`, { watch: false }))).toEqual({ cacheId: c1, watching: false });
    expect(watchersOf(g.gw, c1)).toEqual([a.id]);
    for (const [path, body] of [
      ["/api/watch/abc", { watch: true }],
      ["/api/watch/0", { watch: true }],
      ["/api/watch/-3", { watch: true }],
      ["/api/watch/5", { watch: "yes" }],
      ["/api/watch/5", {}],
    ] as const) {
      expect({ path, body, status: (await as(a).send("PUT", path, body)).status }).toEqual({ path, body, status: 400 });
    }
    // A cache that does not exist is not watched.
    const missing = await as(a).send("PUT", "/api/watch/9999", { watch: true });
    expect([missing.status, (await json(missing)).error]).toEqual([404, "not_found"]);
    expect((await json(await as(a).get("/api/watch"))).watches).toHaveLength(2);
  });

  test("notification settings: defaults, partial updates, e-mail digests need an address", async () => {
    const u = signedInUser(g.gw, "N0NTF");
    const c = as(u);
    expect(await json(await c.get("/api/notify/prefs"))).toEqual({ email: false, push: false, digest: "daily" });
    expect(await json(await c.send("PUT", "/api/notify/prefs", { push: true, digest: "hourly" }))).toEqual({ email: false, push: true, digest: "hourly" });
    const noEmail = await c.send("PUT", "/api/notify/prefs", { email: true });
    expect(noEmail.status).toBe(409);
    expect((await json(noEmail)).error).toBe("no_email");
    g.gw.db.query("UPDATE users SET email = 'n0ntf@example.org' WHERE id = ?").run(u.id);
    expect((await json(await c.send("PUT", "/api/notify/prefs", { email: true }))).email).toBe(true);
    // A partial update leaves the digest alone (the schema gives it no default).
    expect(await json(await c.send("PUT", "/api/notify/prefs", { digest: "off" }))).toEqual({ email: true, push: true, digest: "off" });
    expect(await json(await c.send("PUT", "/api/notify/prefs", { push: true }))).toEqual({ email: true, push: true, digest: "off" });
    await c.send("PUT", "/api/notify/prefs", { digest: "hourly" });
    for (const body of [{ digest: "weekly" }, { push: 1 }, { sms: true }]) expect((await c.send("PUT", "/api/notify/prefs", body)).status).toBe(400);
    // A wrong value names its field.
    expect(await json(await c.send("PUT", "/api/notify/prefs", { digest: "weekly" }))).toMatchObject({ error: "invalid", field: "body.digest" });
    expect(await json(await c.get("/api/notify/prefs"))).toEqual({ email: true, push: true, digest: "hourly" });
  });
});

describe("web push", () => {
  test("one VAPID key per instance; a test notification arrives encrypted for the subscription and signed with that key", async () => {
    const u = signedInUser(g.gw, "N0PSH");
    const c = as(u);
    const { publicKey } = await json(await c.get("/api/push/key"));
    expect(Buffer.from(publicKey, "base64url").length).toBe(65);
    expect((await json(await as(signedInUser(g.gw, "N0PSX")).get("/api/push/key"))).publicKey).toBe(publicKey);
    const browser = pushClient();
    const sub = browser.subscription(`${push.url}/push/abc`);
    const put = await c.send("PUT", "/api/push/subscription", sub);
    expect(put.status).toBe(201);
    expect((await json(put)).subscriptions.map((s: any) => s.endpoint)).toEqual([sub.endpoint]);
    const before = push.received.length;
    const r = await json(await c.send("POST", "/api/push/test", {}));
    expect(r).toEqual({ sent: 1, failed: 0, removed: 0 });
    const got = push.received.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]!.path).toBe("/push/abc");
    expect(got[0]!.headers.get("content-encoding")).toBe("aes128gcm");
    const claims = checkVapid(got[0]!.headers.get("authorization")!, publicKey);
    expect(claims.aud).toBe(push.url);
    expect(claims.sub).toBe("mailto:ops@example.org");
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(JSON.parse(browser.decrypt(got[0]!.body))).toEqual({ title: "prefs-gw: test", body: "Push notifications work.", url: "/account" });
    expect((await json(await c.get("/api/push/subscriptions"))).subscriptions[0].lastOkAt).toBeGreaterThan(0);
  });

  test("a subscription the push service says is gone is dropped; unsubscribe; bad subscriptions are refused", async () => {
    const c = as(signedInUser(g.gw, "N0GON"));
    const live = pushClient().subscription(`${push.url}/push/live`);
    const gone = pushClient().subscription(`${push.url}/push/gone`);
    push.answer("/push/gone", 410);
    await c.send("PUT", "/api/push/subscription", live);
    await c.send("PUT", "/api/push/subscription", gone);
    expect(await json(await c.send("POST", "/api/push/test", {}))).toEqual({ sent: 1, failed: 0, removed: 1 });
    expect((await json(await c.get("/api/push/subscriptions"))).subscriptions.map((s: any) => s.endpoint)).toEqual([live.endpoint]);
    expect((await json(await c.send("DELETE", "/api/push/subscription", { endpoint: live.endpoint }))).subscriptions).toEqual([]);
    expect((await c.send("DELETE", "/api/push/subscription", { endpoint: live.endpoint })).status).toBe(404);
    const k = pushClient().subscription("https://push.example.org/x").keys;
    for (const body of [
      {},
      { endpoint: "not a url", keys: k },
      { endpoint: "https://push.example.org/x", keys: { p256dh: "short", auth: k.auth } },
      { endpoint: "https://push.example.org/x", keys: { p256dh: k.p256dh, auth: "AA" } },
    ]) {
      expect((await c.send("PUT", "/api/push/subscription", body)).status).toBe(400);
    }
  });

  test("without PUSH_ALLOW_PRIVATE_ENDPOINTS only public https push services are accepted (no requests into the LAN)", async () => {
    const c = as(signedInUser(strict.gw, "N0SSR"), strict);
    const keys = pushClient().subscription("x").keys;
    for (const endpoint of [
      `${push.url}/push/x`,
      "https://127.0.0.1/x",
      "https://192.168.1.10/x",
      "https://[::1]/x",
      "https://localhost/x",
      "https://router.local/x",
      "http://push.example.org/x",
    ]) {
      const r = await c.send("PUT", "/api/push/subscription", { endpoint, keys });
      expect({ endpoint, status: r.status }).toEqual({ endpoint, status: 400 });
    }
    expect((await c.send("PUT", "/api/push/subscription", { endpoint: "https://fcm.googleapis.com/fcm/send/abc", keys })).status).toBe(201);
  });
});

describe("saved map views", () => {
  test("save, list, rename, share by link, delete", async () => {
    const c = as(signedInUser(g.gw, "N0VIEW"));
    const r = await c.send("POST", "/api/views", { name: "Home QTH", lat: 42.61234567891, lon: -71.2, zoom: 12, layers: ["stations", "caches"] });
    expect(r.status).toBe(201);
    const v = await json(r);
    expect(v).toMatchObject({ name: "Home QTH", lat: 42.6123457, lon: -71.2, zoom: 12, layers: ["stations", "caches"] });
    expect(v.id).toMatch(/^[A-Za-z0-9_-]{12}$/);
    const renamed = await json(await c.send("PUT", `/api/views/${v.id}`, { name: "Shack", zoom: 14 }));
    expect(renamed).toMatchObject({ id: v.id, name: "Shack", zoom: 14, lat: 42.6123457 });
    expect((await json(await c.get("/api/views"))).views.map((x: any) => x.name)).toEqual(["Shack"]);
    // The share link works for anyone, signed in or not.
    const open = await g.get(`/v/${v.id}`, { redirect: "manual" });
    expect(open.status).toBe(302);
    expect(open.headers.get("location")).toBe("/map?lat=42.6123457&lon=-71.2&z=14&layers=stations%2Ccaches");
    // Someone else can neither change nor delete it.
    const other = as(signedInUser(g.gw, "N0OTV"));
    expect((await other.send("PUT", `/api/views/${v.id}`, { name: "mine" })).status).toBe(404);
    expect((await other.send("DELETE", `/api/views/${v.id}`, {})).status).toBe(404);
    expect((await c.send("DELETE", `/api/views/${v.id}`, {})).status).toBe(204);
    expect((await g.get(`/v/${v.id}`, { redirect: "manual" })).status).toBe(404);
  });

  test("bad views are a 400 and store nothing", async () => {
    const c = as(signedInUser(g.gw, "N0BVW"));
    for (const body of [
      {},
      { name: "x", lat: 91, lon: 0, zoom: 3 },
      { name: "x", lat: 0, lon: 0, zoom: 30 },
      { name: "", lat: 0, lon: 0, zoom: 3 },
      { name: "x", lat: "1", lon: 0, zoom: 3 },
      { name: "x", lat: 0, lon: 0, zoom: 3, layers: ["<script>"] },
      { name: "x", lat: 0, lon: 0, zoom: 3, owner: "me" },
    ]) {
      expect({ body, status: (await c.send("POST", "/api/views", body)).status }).toEqual({ body, status: 400 });
    }
    expect((await json(await c.get("/api/views"))).views).toEqual([]);
    expect((await g.get("/v/..%2F..", { redirect: "manual" })).status).toBe(404);
  });
});

describe("undeclared fields", () => {
  /** The body with a stray member is refused by name (400, field); the same body without it is taken. */
  async function strayThenOk(c: ReturnType<typeof as>, method: string, path: string, body: Record<string, unknown>, okStatus: number) {
    const bad = await c.send(method, path, { ...body, colour: "red" });
    expect({ path, status: bad.status, body: await json(bad) }).toMatchObject({
      path,
      status: 400,
      body: { error: "invalid", field: "body.colour", message: expect.stringMatching(/^body\.colour: unknown field "colour"; it takes /) },
    });
    const ok = await c.send(method, path, body);
    expect({ path, status: ok.status }).toEqual({ path, status: okStatus });
    return ok.status === 204 ? null : json(ok);
  }

  test("watch, notification settings, push and saved views name a field they do not take, and take the same body without it", async () => {
    const u = signedInUser(g.gw, "N0STP");
    const c = as(u);
    const hider = signedInUser(g.gw, "N0STH", { verified: true });
    const cache = (await json(
      await as(hider).send("POST", "/api/caches", {
        name: "Stray fields",
        type: "traditional",
        size: "small",
        difficulty: 2,
        terrain: 2,
        lat: 52.5,
        lon: 13.4,
      }),
    )) as { id: number };
    expect(await strayThenOk(c, "PUT", `/api/watch/${cache.id}`, { watch: true }, 200)).toEqual({ cacheId: cache.id, watching: true });

    const bad = await c.send("PUT", "/api/notify/prefs", { push: true, sms: true });
    expect(await json(bad)).toEqual({ error: "invalid", message: 'body.sms: unknown field "sms"; it takes email, push, digest', field: "body.sms" });
    expect(await json(await c.get("/api/notify/prefs"))).toEqual({ email: false, push: false, digest: "daily" });
    expect(await strayThenOk(c, "PUT", "/api/notify/prefs", { push: true }, 200)).toEqual({ email: false, push: true, digest: "daily" });

    // The browser's PushSubscription JSON is its own (expirationTime, ...): taken as it comes. Removing one names a stray field.
    const sub = pushClient().subscription(`${push.url}/push/stray`);
    expect((await c.send("PUT", "/api/push/subscription", { ...sub, expirationTime: null })).status).toBe(201);
    expect((await strayThenOk(c, "DELETE", "/api/push/subscription", { endpoint: sub.endpoint }, 200)).subscriptions).toEqual([]);

    const view = await strayThenOk(c, "POST", "/api/views", { name: "Stray", lat: 1, lon: 2, zoom: 3 }, 201);
    expect((await json(await c.get("/api/views"))).views).toHaveLength(1);
    expect((await strayThenOk(c, "PUT", `/api/views/${view.id}`, { zoom: 5 }, 200)).zoom).toBe(5);
    // Inside a view, filters are the web app's own names: any short name is taken.
    const filtered = await c.send("PUT", `/api/views/${view.id}`, { filters: { colour: "red", found: false } });
    expect((await json(filtered)).filters).toEqual({ colour: "red", found: false });
  });
});
