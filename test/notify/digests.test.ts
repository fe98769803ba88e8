/**
 * Watch-alert digests on the cron task, against a real SMTP server (the sink)
 * and a push service on loopback that decrypts what it gets: new logs on
 * watched caches, by others, since the watch began; batched per account,
 * hourly or daily; a refusal is retried, nothing is ever sent twice, across
 * a restart too, and a digest a crash cut off mid-send is not sent again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { checkVapid, pushClient, startPushService, type PushClient } from "../helpers/push.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { handClock } from "../helpers/clock.ts";

const HOUR = 3_600_000;
const clock = handClock();
const dataDir = tmpDir();
const env = () => ({
  SMTP_URL: smtp.url,
  PUSH_ALLOW_PRIVATE_ENDPOINTS: "true",
  INSTANCE: "digest-gw",
  PUBLIC_URL: "https://gw.example.org",
  MAIL_FROM: "gw@example.org",
});
let smtp: SmtpSink;
let push: ReturnType<typeof startPushService>;
let g: Running;
let owner: TestUser, hourly: TestUser, daily: TestUser, finder: TestUser, other: TestUser;
let browser: PushClient;
let cacheA: number, cacheB: number;

const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const send = (u: TestUser, method: string, path: string, body: unknown) =>
  g.get(path, { method, headers: { cookie: u.cookie, "content-type": "application/json" }, body: JSON.stringify(body) });
const run = () => g.gw.scheduler.runNow("watch-digests") as Promise<{ made: number; sent: number; failed: number; retry: number; unknown: number }>;
async function log(u: TestUser, cache: number, body: Record<string, unknown>) {
  const r = await g.post(`/api/caches/${cache}/logs`, body, as(u));
  expect(r.status).toBe(201);
  clock.advance(1000);
}
const mailsTo = (addr: string) => smtp.messages.filter((m) => m.to.includes(addr));

beforeAll(async () => {
  smtp = await startSmtpSink();
  push = startPushService();
  g = await startInProcess(env(), { dataDir, clock });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  hourly = signedInUser(g.gw, "N0HRL", { verified: true });
  daily = signedInUser(g.gw, "N0DLY", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  for (const [u, addr] of [
    [hourly, "hourly@example.org"],
    [daily, "daily@example.org"],
  ] as const)
    g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run(addr, u.id);
  const hide = async (name: string, lat: number) =>
    (await (await g.post("/api/caches", { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: -71.5 }, as(owner))).json())
      .id as number;
  cacheA = await hide("Alpha Box", 42.5);
  cacheB = await hide("Bravo Box", 42.6);
});
afterAll(async () => {
  await g.stop();
  await smtp.stop();
  push.stop();
});

describe("watch-alert digests", () => {
  test("one digest per account and channel: the new logs by others on watched caches since the watch began", async () => {
    await log(finder, cacheB, { kind: "note", text: "before anyone watched" });
    expect((await send(hourly, "PUT", "/api/notify/prefs", { email: true, push: true, digest: "hourly" })).status).toBe(200);
    expect((await send(daily, "PUT", "/api/notify/prefs", { email: true, digest: "daily" })).status).toBe(200);
    browser = pushClient();
    expect((await send(hourly, "PUT", "/api/push/subscription", browser.subscription(`${push.url}/push/hourly`))).status).toBe(201);
    for (const [u, c] of [
      [hourly, cacheA],
      [hourly, cacheB],
      [daily, cacheA],
    ] as const)
      expect((await g.post(`/api/caches/${c}/watch`, {}, as(u))).status).toBe(200);
    clock.advance(1000);
    await log(finder, cacheA, { kind: "find", text: "TFTC, lovely walk" });
    await log(finder, cacheB, { kind: "dnf", text: "muggles everywhere" });
    await log(hourly, cacheA, { kind: "note", text: "my own note" });

    expect(await run()).toEqual({ made: 3, sent: 3, failed: 0, retry: 0, unknown: 0 });
    const [h] = mailsTo("hourly@example.org");
    expect(h!.subject).toBe("2 new logs on caches you watch");
    expect(h!.from).toBe("gw@example.org");
    expect(h!.text).toContain(`Alpha Box  https://gw.example.org/cache/${cacheA}`);
    expect(h!.text).toContain("N0FND found it");
    expect(h!.text).toContain("TFTC, lovely walk");
    expect(h!.text).toContain(`Bravo Box  https://gw.example.org/cache/${cacheB}`);
    expect(h!.text).toContain("N0FND did not find it");
    expect(h!.text).not.toContain("my own note");
    expect(h!.text).not.toContain("before anyone watched");
    expect(h!.text).toContain("hourly digest");
    expect(h!.text).toContain("https://gw.example.org/account");
    const [d] = mailsTo("daily@example.org");
    expect(d!.subject).toBe("2 new logs on caches you watch");
    expect(d!.text).toContain("N0HRL wrote a note");
    expect(d!.text).not.toContain("Bravo Box");

    expect(push.received.length).toBe(1);
    const p = push.received[0]!;
    expect(p.path).toBe("/push/hourly");
    const { publicKey } = await (await g.get("/api/push/key", as(hourly))).json();
    expect(checkVapid(p.headers.get("authorization")!, publicKey).aud).toBe(push.url);
    expect(JSON.parse(browser.decrypt(p.body))).toEqual({
      title: "2 new logs on caches you watch",
      body: "N0FND found it: Alpha Box\nN0FND did not find it: Bravo Box",
      url: "/account",
    });
  });

  test("nothing is sent twice: not on the next run, not after a restart; the next digest waits for its hour or day", async () => {
    expect(await run()).toEqual({ made: 0, sent: 0, failed: 0, retry: 0, unknown: 0 });
    clock.advance(10 * 60_000);
    await log(other, cacheA, { kind: "find", text: "second finder" });
    expect((await run()).made).toBe(0); // the hourly account had its digest 10 minutes ago
    await g.stop();
    g = await startInProcess(env(), { dataDir, clock });
    expect((await run()).made).toBe(0);
    clock.advance(HOUR);
    expect(await run()).toEqual({ made: 2, sent: 2, failed: 0, retry: 0, unknown: 0 });
    expect(mailsTo("hourly@example.org").length).toBe(2);
    expect(mailsTo("hourly@example.org")[1]!.subject).toBe("1 new log on caches you watch");
    expect(mailsTo("hourly@example.org")[1]!.text).toContain("N0OTH found it");
    expect(JSON.parse(browser.decrypt(push.received[1]!.body))).toEqual({
      title: "1 new log on caches you watch",
      body: "N0OTH found it: Alpha Box",
      url: `/cache/${cacheA}`,
    });
    expect(mailsTo("daily@example.org").length).toBe(1);
    clock.advance(24 * HOUR);
    expect(await run()).toMatchObject({ made: 1, sent: 1 });
    expect(mailsTo("daily@example.org").length).toBe(2);
    expect(mailsTo("daily@example.org")[1]!.text).toContain("N0OTH found it");
    clock.advance(24 * HOUR);
    expect((await run()).made).toBe(0);
    expect(push.received.length).toBe(2);
  });

  test("a refused digest is retried on the next run and then sent once; one cut off mid-send is never sent again", async () => {
    smtp.refuse(true);
    await log(other, cacheB, { kind: "note", text: "refused at first" });
    clock.advance(HOUR);
    expect(await run()).toMatchObject({ made: 2, sent: 1, retry: 1 }); // the push went; the mail server said no
    expect(mailsTo("hourly@example.org").length).toBe(2);
    smtp.refuse(false);
    expect(await run()).toMatchObject({ made: 0, sent: 1, retry: 0 });
    expect(mailsTo("hourly@example.org").length).toBe(3);
    expect(mailsTo("hourly@example.org")[2]!.text).toContain("refused at first");
    expect((await run()).sent).toBe(0);

    // The gateway died while a digest was going out: it may have gone, so it never goes again.
    await log(other, cacheA, { kind: "note", text: "cut off" });
    clock.advance(HOUR);
    const made = (await import("../../src/notify/digests.ts")).makeDigests(g.gw);
    expect(made).toBe(3); // the hourly account's e-mail and push, and the daily account's day is up too
    g.gw.db.query("UPDATE watch_digests SET state = 'sending' WHERE state = 'pending'").run();
    await g.stop();
    g = await startInProcess(env(), { dataDir, clock });
    expect(await run()).toEqual({ made: 0, sent: 0, failed: 0, retry: 0, unknown: 3 });
    expect(mailsTo("hourly@example.org").some((m) => m.text.includes("cut off"))).toBe(false);
    const states = g.gw.db.query("SELECT state, count(*) AS n FROM watch_digests GROUP BY state ORDER BY state").all();
    expect(states).toEqual([
      { state: "sent", n: 8 },
      { state: "unknown", n: 3 },
    ]);
  });

  test("digest off, or no channel: nothing is made; the account's export lists its digests", async () => {
    expect((await send(hourly, "PUT", "/api/notify/prefs", { digest: "off" })).status).toBe(200);
    expect((await send(daily, "PUT", "/api/notify/prefs", { email: false })).status).toBe(200);
    await log(other, cacheA, { kind: "note", text: "nobody hears this" });
    clock.advance(48 * HOUR);
    expect((await run()).made).toBe(0);
    const exp = await (await g.post("/api/account/me/export", {}, as(hourly))).json();
    const digests = exp.data.accounts.watchDigests as Array<{ channel: string; status: string; logIds: number[] }>;
    expect(digests.length).toBe(8);
    expect(digests[0]).toMatchObject({ channel: "email", status: "sent", logIds: [expect.any(Number), expect.any(Number)] });
  });
  test("each log kind has its own words: a maintenance or event log is not called a note", async () => {
    const watcher = signedInUser(g.gw, "N0KND", { verified: true });
    g.gw.db.query("UPDATE users SET email = ? WHERE id = ?").run("kinds@example.org", watcher.id);
    expect((await send(watcher, "PUT", "/api/notify/prefs", { email: true, digest: "hourly" })).status).toBe(200);
    const date = new Date(clock.now() + 10 * 24 * HOUR).toISOString().slice(0, 10);
    const r = await g.post(
      "/api/caches",
      {
        name: "Charlie Meet",
        type: "event",
        size: "other",
        difficulty: 1,
        terrain: 1,
        lat: 42.7,
        lon: -71.5,
        event: { date, start: "18:00", end: "20:00", timeZone: "America/New_York" },
      },
      as(owner),
    );
    expect(r.status).toBe(201);
    const meet = (await r.json()).id as number;
    for (const c of [cacheB, meet]) expect((await g.post(`/api/caches/${c}/watch`, {}, as(watcher))).status).toBe(200);
    clock.advance(1000);
    await log(finder, cacheB, { kind: "needs-maintenance", text: "lid cracked" });
    await log(owner, cacheB, { kind: "owner-maintenance", text: "new box" });
    await log(finder, meet, { kind: "will-attend", text: "coming" });
    clock.advance(2 * HOUR);
    expect(await run()).toMatchObject({ made: 1, sent: 1 });
    const [m] = mailsTo("kinds@example.org");
    expect(m!.subject).toBe("3 new logs on caches you watch");
    expect(m!.text).toContain("N0FND reported that it needs maintenance");
    expect(m!.text).toContain("N0OWN did maintenance on it");
    expect(m!.text).toContain("N0FND will attend");
    expect(m!.text).not.toContain("wrote a note");
  });
});
