/**
 * A gateway whose clock is not set (a Raspberry Pi has no real-time clock):
 * it notices a clock behind what it stored, or far from its peers' answers,
 * stops signing and transmitting until it is set, says why once in the log and
 * on the Setup page, and refuses a find with 503 (the client keeps it and sends
 * it again). Time jumps (NTP steps of an hour) neither stall nor burst the
 * rate limits, the sessions and the cron. Fake clocks in process; the real
 * process under libfaketime (Debian `faketime`) where it is installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { captureLog, spawnGateway, startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { count } from "../helpers/fed.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { fakeTnc, tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { CHROMIUM, contextFor, launchBrowser } from "../helpers/chromium.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { decodeFrame, decodePayload } from "../../src/lib/fed/record.ts";
import { syncAll } from "../../src/fed/sync.ts";
import { Scheduler } from "../../src/jobs/scheduler.ts";
import { createLogger } from "../../src/lib/log.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PAUSED = /: signing and transmitting paused until it is set \(NTP\)$/;
const json = (r: Response) => r.json() as Promise<any>;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });

/** A gateway's clock the test steps, as NTP would. */
function steppedClock() {
  const c = { offset: 0, now: () => Date.now() + c.offset };
  return c;
}

describe("a clock behind what the gateway stored", () => {
  const clock = steppedClock();
  const { log, lines } = captureLog("info");
  let g: Running;
  let owner: TestUser;
  let finder: TestUser;
  let cache: { id: number; gid: string };
  beforeAll(async () => {
    g = await startInProcess({ INSTANCE: "gw1", FED_PRIVATE_KEY: generateKeyPair().privateKey, LOG_LEVEL: "info" }, { clock, log });
    owner = signedInUser(g.gw, "N0OWN", { verified: true });
    finder = signedInUser(g.gw, "N0FND", { verified: true });
    const r = await g.post("/api/caches", { name: "Old oak", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48.1, lon: 11.5 }, as(owner));
    expect(r.status).toBe(201);
    cache = await json(r);
  });
  afterAll(() => g.stop());
  const clockLines = () => lines.filter((l) => l.includes(" clock: "));

  test("stepped back a day: the Setup status says why, a find is refused with 503 and nothing is stored or signed", async () => {
    expect((await json(await g.get("/api/setup"))).clock).toEqual({ sane: true, message: null });
    clock.offset = -DAY;
    await g.gw.scheduler.runNow("clock-check");
    const setup = await json(await g.get("/api/setup"));
    expect(setup.clock.sane).toBe(false);
    expect(setup.clock.message).toStartWith("The clock is behind the newest record stored here by 24 h");
    expect(setup.clock.message).toMatch(PAUSED);

    const logs = count(g.gw, "logs");
    const feed = g.gw.db.query("SELECT max(seq) AS s FROM fed_feed").get() as { s: number };
    for (let i = 0; i < 3; i++) {
      const r = await g.post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "TFTC", clientId: "offline-note-1" }, as(finder));
      expect(r.status).toBe(503);
      expect(await json(r)).toEqual({ error: "clock_not_set", message: setup.clock.message });
    }
    expect(count(g.gw, "logs")).toBe(logs);
    expect(g.gw.db.query("SELECT max(seq) AS s FROM fed_feed").get()).toEqual(feed);
    // retention waits too: a wrong clock must not decide what has expired
    expect(await g.gw.scheduler.runNow("prune")).toEqual({ skipped: setup.clock.message });
    // said once, however many refusals and checks
    await g.gw.scheduler.runNow("clock-check");
    expect(clockLines()).toHaveLength(1);
    expect(clockLines()[0]).toMatch(/ warn +clock: /);
    expect(clockLines()[0]).toContain(setup.clock.message);
  });

  test("set again: the same find goes through, signed with the right time, and the log says so once", async () => {
    clock.offset = 0;
    const r = await g.post(`/api/caches/${cache.id}/logs`, { kind: "find", text: "TFTC", clientId: "offline-note-1" }, as(finder));
    expect(r.status).toBe(201);
    const find = await json(r);
    const row = g.gw.db.query("SELECT frame FROM fed_feed WHERE gid = ?").get(find.gid) as { frame: Uint8Array };
    const at = decodePayload(decodeFrame(row.frame).payload).at;
    expect(Math.abs(at * 1000 - Date.now())).toBeLessThan(60_000);
    expect((await json(await g.get("/api/setup"))).clock).toEqual({ sane: true, message: null });
    expect(clockLines()).toHaveLength(2);
    expect(clockLines()[1]).toContain("signing and transmitting resumed");
  });

  test("a clock in 1970 is behind whatever is stored", async () => {
    clock.offset = Date.UTC(1970, 0, 2) - Date.now();
    const s = await json(await g.get("/api/setup"));
    expect(s.clock.message).toStartWith("The clock is behind: it says 1970-01-02 00:00 UTC");
    expect(s.clock.message).toMatch(PAUSED);
    clock.offset = 0;
    expect((await json(await g.get("/api/setup"))).clock.sane).toBe(true);
  });
});

describe.skipIf(!existsSync(CHROMIUM))("the Setup page", () => {
  test("shows the clock's line while it is not set, and none once it is", async () => {
    const clock = steppedClock();
    clock.offset = Date.UTC(1970, 0, 2) - Date.now();
    const g = await startInProcess({ TILE_URL: "off" }, { clock });
    const browser = await launchBrowser();
    try {
      const page = await (await contextFor(browser, g.url)).newPage();
      await page.goto(`${g.url}/setup`);
      const line = page.locator("[data-clock]");
      await line.waitFor();
      expect(await line.textContent()).toMatch(
        /^The clock is behind: it says 1970-01-02 00:00 UTC.*: signing and transmitting paused until it is set \(NTP\)$/,
      );
      expect(await line.getAttribute("role")).toBe("alert");
      clock.offset = 0;
      await page.reload();
      await page.getByRole("heading", { level: 1 }).waitFor();
      expect(await line.count()).toBe(0);
    } finally {
      await browser.close();
      await g.stop();
    }
  }, 60_000);
});

describe("frames heard count with this gateway's clock, a radio box's heardAt does not", () => {
  const clock = steppedClock();
  const INGEST = "ingest-secret-0123456789";
  let tnc: FakeTnc;
  let g: Running;
  beforeAll(async () => {
    tnc = fakeTnc();
    g = await startInProcess({ KISS_PORTS: tnc.url, INGEST_SECRET: INGEST }, { clock });
    await tnc.connected();
  });
  afterAll(async () => {
    await g.stop();
    tnc.stop();
  });

  test("a box whose clock is two days ahead pauses nothing; a frame our TNC heard does, once the clock steps back a day", async () => {
    const r = await g.post(
      "/ingest",
      { heardAt: Date.now() + 2 * DAY, packets: ["N0BOX-9>APRS,qAR,N0BOX-10:>box clock ahead"] },
      { headers: { "x-ingest-secret": INGEST } },
    );
    expect(r.status).toBe(200);
    expect(count(g.gw, "packets", `via = 'ingest' AND ts > ${Date.now() + DAY}`)).toBe(1);
    expect(await g.gw.scheduler.runNow("clock-check")).toMatchObject({ sane: true });
    tnc.hear(tnc2Frame("N0RF-9>APRS,WIDE1*:>heard here"));
    while (count(g.gw, "packets", "via = 'tnc'") === 0) await Bun.sleep(20);
    clock.offset = -DAY;
    expect(await g.gw.scheduler.runNow("clock-check")).toMatchObject({ sane: false, reason: "behind_stored" });
    clock.offset = 0;
    expect(await g.gw.scheduler.runNow("clock-check")).toMatchObject({ sane: true });
  });
});

describe("weather reports are dated: none goes on the air while the clock is not set", () => {
  const clock = steppedClock();
  const INGEST = "ingest-secret-0123456789";
  const box = { headers: { "x-ingest-secret": INGEST } };
  let g: Running;
  beforeAll(async () => {
    g = await startInProcess({ INGEST_SECRET: INGEST }, { clock });
  });
  afterAll(() => g.stop());

  test("a push in 1970 is stored but not queued for transmitting; the next one after the clock is set is", async () => {
    const owner = signedInUser(g.gw, "N0WX", { verified: true });
    const key = (await json(await g.post("/api/wx/key", { lat: 42.36, lon: -71.06 }, as(owner)))).key;
    expect((await g.post("/api/wx/tx", { call: "N0WX-13", on: true }, as(owner))).status).toBe(200);
    const push = async () => (await fetch(`${g.url}/updateweatherstation?PASSWORD=${key}&dateutc=now&tempf=68&humidity=50`)).text();
    const lease = async () => (await json(await g.get("/outbox", box))).items as Array<{ kind: string; src: string }>;
    const readings = () => count(g.gw, "sensor_readings", "call = 'N0WX-13'");

    clock.offset = Date.UTC(1970, 0, 2) - Date.now();
    await g.gw.scheduler.runNow("clock-check");
    expect(await push()).toBe("success\n");
    expect(readings()).toBe(1);
    expect(await lease()).toEqual([]);

    clock.offset = 0;
    await g.gw.scheduler.runNow("clock-check");
    expect(await push()).toBe("success\n");
    expect(readings()).toBe(2);
    const [item] = await lease();
    expect(item).toMatchObject({ kind: "weather", src: "N0WX-13" });
    await g.post("/outbox/ack", { sent: [(item as unknown as { id: number }).id] }, box);
    // within WX_TX_INTERVAL_MINUTES: stored, not sent; but NTP stepping the clock back an hour does not hold the next report for that hour
    expect(await push()).toBe("success\n");
    expect(await lease()).toEqual([]);
    clock.offset = -HOUR;
    expect(await push()).toBe("success\n");
    expect(await lease()).toMatchObject([{ kind: "weather", src: "N0WX-13" }]);
  });
});

describe("the SVCB1 beacon is a signed, dated record: none goes on the air while the clock is not set", () => {
  const clock = steppedClock();
  let tnc: FakeTnc;
  let g: Running;
  beforeAll(async () => {
    tnc = fakeTnc();
    g = await startInProcess({ INSTANCE: "gw-radio", KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10", FED_PRIVATE_KEY: generateKeyPair().privateKey }, { clock });
    signedInUser(g.gw, "N0GW", { verified: true });
    await tnc.connected();
  });
  afterAll(async () => {
    await g.stop();
    tnc.stop();
  });

  test("the radio tick in 1970 sends no beacon; once the clock is set it does", async () => {
    const beacons = () => tnc.sent.filter((f) => f.dest.call === "SVCB1").length;
    clock.offset = Date.UTC(1970, 0, 2) - Date.now();
    await g.gw.scheduler.runNow("clock-check");
    expect(await g.gw.scheduler.runNow("radio")).not.toHaveProperty("beacon");
    expect(beacons()).toBe(0);
    clock.offset = 0;
    await g.gw.scheduler.runNow("clock-check");
    expect(await g.gw.scheduler.runNow("radio")).toHaveProperty("beacon");
    await tnc.waitSent(1);
    expect(beacons()).toBeGreaterThanOrEqual(1);
    // not due again within FED_BEACON_INTERVAL_MIN; due at once after NTP steps the clock back past the last one, not an hour later
    expect(await g.gw.scheduler.runNow("radio")).not.toHaveProperty("beacon");
    clock.offset = -HOUR;
    expect(await g.gw.scheduler.runNow("radio")).toHaveProperty("beacon");
  });
});

describe("a clock far from the peers' answers", () => {
  let p1: Running;
  let p2: Running;
  let s: Running;
  const clock = steppedClock();
  beforeAll(async () => {
    [p1, p2] = await Promise.all(
      ["gw-p1", "gw-p2"].map((i) => startInProcess({ INSTANCE: i, FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_LOOPBACK_PEERS: "on" })),
    );
    s = await startInProcess(
      { INSTANCE: "gw-s", FED_PRIVATE_KEY: generateKeyPair().privateKey, FED_PEERS: `${p1!.url},${p2!.url}`, FED_LOOPBACK_PEERS: "on" },
      { clock },
    );
  });
  afterAll(() => Promise.all([s, p1, p2].map((g) => g.stop().catch(() => {}))));

  test("two of two peers two hours off: paused; the clock set: resumed", async () => {
    expect((await p1.get("/health")).headers.get("date")).toBeTruthy();
    clock.offset = 2 * HOUR;
    await syncAll(s.gw);
    expect(await s.gw.scheduler.runNow("clock-check")).toEqual({ sane: false, reason: "peers_disagree", peers: { answers: 2, off: 2 } });
    const msg = (await json(await s.get("/api/setup"))).clock.message;
    expect(msg).toStartWith("The clock is ahead of the time in 2 of 2 peers' answers by about 2 h");
    expect(msg).toMatch(PAUSED);
    // NTP steps it back: what the peers said still holds (kept against a monotonic clock), and now agrees
    clock.offset = 0;
    expect(await s.gw.scheduler.runNow("clock-check")).toEqual({ sane: true, reason: null, peers: { answers: 2, off: 0 } });
  });

  test("a clock that ran ahead while signing, stepped back by NTP: the peers vouch for it, so records stored ahead do not pause it", async () => {
    clock.offset = 2 * HOUR;
    const owner = signedInUser(s.gw, "N0AHD", { verified: true });
    const r = await s.post("/api/caches", { name: "Signed ahead", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47, lon: 8 }, as(owner));
    expect(r.status).toBe(201);
    clock.offset = 0;
    expect(await s.gw.scheduler.runNow("clock-check")).toEqual({ sane: true, reason: null, peers: { answers: 2, off: 0 } });
    // the same step with no peers' answers left to vouch: behind what it stored
    await Promise.all([p1.stop(), p2.stop()]);
    const lone = await startInProcess({ INSTANCE: "gw-lone", FED_PRIVATE_KEY: generateKeyPair().privateKey }, { clock });
    try {
      clock.offset = 2 * HOUR;
      await lone.post(
        "/api/caches",
        { name: "Ahead too", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47, lon: 8 },
        as(signedInUser(lone.gw, "N0LON", { verified: true })),
      );
      clock.offset = 0;
      expect(await lone.gw.scheduler.runNow("clock-check")).toMatchObject({ sane: false, reason: "behind_stored" });
    } finally {
      await lone.stop();
    }
  });
});

describe("time jumps of an hour", () => {
  const clock = steppedClock();
  let g: Running;
  beforeAll(async () => {
    g = await startInProcess({ RATE_LIMIT_PER_MINUTE: "3" }, { clock });
  });
  afterAll(() => g.stop());

  test("a rate limit is not held for an hour after a step back, and a step forward gives no more than a fresh window", async () => {
    const hit = async () => (await g.get("/api/v1/caches")).status;
    for (let i = 0; i < 3; i++) expect(await hit()).toBe(200);
    expect(await hit()).toBe(429);
    clock.offset = -HOUR;
    expect(await hit()).toBe(200);
    clock.offset = HOUR;
    for (let i = 0; i < 3; i++) expect(await hit()).toBe(200);
    expect(await hit()).toBe(429);
  });

  test("the Workers host's cron (runDue between triggers): a step forward runs each due job once, a step back does not stop it", async () => {
    const s = new Scheduler(createLogger("error"));
    let runs = 0;
    s.add({ name: "minutely", schedule: "* * * * *", description: "", run: () => void runs++ });
    const t = Date.UTC(2026, 10, 27, 10, 0, 30);
    expect(await s.runDue(t, t + 60_000)).toEqual(["minutely"]);
    expect(await s.runDue(t + 60_000, t + HOUR)).toEqual(["minutely"]);
    expect(runs).toBe(2);
    // the next trigger comes with the clock an hour back
    expect(await s.runDue(t + HOUR, t + 2 * 60_000)).toEqual(["minutely"]);
    expect(runs).toBe(3);
  });

  test("a session survives a step forward and a step back of an hour", async () => {
    clock.offset = 0;
    const u = signedInUser(g.gw, "N0SES");
    const me = async () => (await g.get("/auth/session", as(u))).status;
    expect(await me()).toBe(200);
    clock.offset = HOUR;
    expect(await me()).toBe(200);
    clock.offset = -HOUR;
    expect(await me()).toBe(200);
    clock.offset = 0;
  });
});

const FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
const hasFaketime = existsSync("/usr/bin/faketime") && existsSync(FAKETIME_LIB);

describe.skipIf(!hasFaketime)("the real process under libfaketime", () => {
  test("the cron neither runs a backlog after a step forward nor stalls after a step back", async () => {
    // the gateway's Scheduler (croner) in its own process, whose wall clock NTP-like steps move (the monotonic clock runs on)
    const dir = tmpDir();
    const offset = join(dir, "offset");
    writeFileSync(offset, "+0");
    const script = join(dir, "cron.ts");
    writeFileSync(
      script,
      `import { Scheduler } from ${JSON.stringify(join(ROOT, "src/jobs/scheduler.ts"))};
import { createLogger } from ${JSON.stringify(join(ROOT, "src/lib/log.ts"))};
const s = new Scheduler(createLogger("error"));
s.add({ name: "tick", schedule: "* * * * * *", description: "", run: () => console.log("tick " + Date.now()) });
s.start();
setTimeout(() => process.exit(0), 25_000); // the test ends it sooner
`,
    );
    const proc = Bun.spawn([BUN, script], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        LD_PRELOAD: FAKETIME_LIB,
        FAKETIME_TIMESTAMP_FILE: offset,
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      },
      stdout: "pipe",
    });
    let out = "";
    const pump = (async () => {
      for await (const c of proc.stdout as unknown as AsyncIterable<Uint8Array>) out += new TextDecoder().decode(c);
    })();
    const ticks = () => [...out.matchAll(/tick (\d+)/g)].map((m) => Number(m[1]));
    const t0 = Date.now();
    const ahead = () => ticks().filter((x) => x > t0 + 0.9 * HOUR);
    const behind = () => ticks().filter((x) => x < t0 - 0.9 * HOUR);
    const until = async (done: () => boolean) => {
      while (!done() && proc.exitCode === null) await Bun.sleep(50);
    };
    try {
      await until(() => ticks().length >= 2);
      writeFileSync(offset, "+3600");
      await until(() => ahead().length >= 3);
      writeFileSync(offset, "-3600");
      await until(() => behind().length >= 3);
    } finally {
      proc.kill();
      await proc.exited;
      await pump;
    }
    // after the step forward: one tick a second, an hour on (not the 3,600 it missed, at once)
    expect(ahead().length).toBeGreaterThanOrEqual(3);
    expect(new Set(ahead().map((x) => Math.floor(x / 1000))).size).toBe(ahead().length);
    // after the step back: the ticks go on, an hour before where they started (not held for two hours)
    expect(behind().length).toBeGreaterThanOrEqual(3);
    // about one a second all along (three steps of a few seconds): no burst
    expect(ticks().length).toBeLessThan(25);
  }, 30_000);

  test("a gateway booted in 1970 on newer records signs nothing, says why once, refuses a find with 503; set by NTP, it signs and takes the find", async () => {
    const dataDir = tmpDir();
    const key = generateKeyPair().privateKey;
    const env = { INSTANCE: "gw-pi", FED_PRIVATE_KEY: key, FED_ENDPOINTS: "https:https://pi-1.example;10" };
    // yesterday's running: a cache and its signed record, the peer record, a signed-in finder
    const first = await startInProcess(env, { dataDir });
    const owner = signedInUser(first.gw, "N0OWN", { verified: true });
    const finder = signedInUser(first.gw, "N0FND", { verified: true });
    const c = await json(
      await first.post("/api/caches", { name: "Pi cache", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 48, lon: 11 }, as(owner)),
    );
    const peerRecord = (await json(await first.get("/.well-known/svc"))).record as string;
    await first.stop();

    // booted without a clock (libfaketime, as `faketime '1970-01-02 00:00:00'` runs it, but steppable), with new
    // endpoints: the peer record would be re-signed, but is not
    const clockFile = join(tmpDir(), "faketime");
    writeFileSync(clockFile, "@1970-01-02 00:00:00");
    const pi = await spawnGateway({
      dataDir,
      env: {
        ...env,
        FED_ENDPOINTS: "https:https://pi-2.example;10",
        LOG_LEVEL: "info",
        LD_PRELOAD: FAKETIME_LIB,
        FAKETIME_TIMESTAMP_FILE: clockFile,
        FAKETIME_NO_CACHE: "1",
        FAKETIME_DONT_FAKE_MONOTONIC: "1",
      },
    });
    const find = () =>
      fetch(pi.url + `/api/caches/${c.id}/logs`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: finder.cookie },
        // the phone's clock is right: its time is not refused as "in the future" by the gateway's wrong one
        body: JSON.stringify({ kind: "find", foundAt: Date.now() - 60_000, clientId: "pi-offline-note" }),
      });
    const record = async () => (await json(await fetch(pi.url + "/.well-known/svc"))).record as string;
    try {
      const setup = await json(await fetch(pi.url + "/api/setup"));
      expect(setup.clock.sane).toBe(false);
      expect(setup.clock.message).toStartWith("The clock is behind: it says 1970-01-02 00:00 UTC");
      expect(setup.clock.message).toMatch(PAUSED);
      expect(await record()).toBe(peerRecord);
      for (let i = 0; i < 2; i++) {
        const r = await find();
        expect(r.status).toBe(503);
        expect(await json(r)).toEqual({ error: "clock_not_set", message: setup.clock.message });
      }
      expect(pi.output().match(/warn +clock: The clock is behind/g)).toHaveLength(1);

      // NTP answers: the clock steps to now
      writeFileSync(clockFile, "+0");
      expect((await json(await fetch(pi.url + "/api/setup"))).clock).toEqual({ sane: true, message: null });
      const r = await find();
      expect(r.status).toBe(201);
      // the peer record waited, and is signed now with the new endpoints
      for (let i = 0; i < 100 && (await record()) === peerRecord; i++) await Bun.sleep(50);
      const resigned = decodePayload(decodeFrame(Buffer.from(await record(), "base64url")).payload);
      expect(resigned.body).toMatchObject({ endpoints: ["https:https://pi-2.example;10"] });
      expect(Math.abs(resigned.at * 1000 - Date.now())).toBeLessThan(60_000);
      expect(pi.output()).toContain("signing and transmitting resumed");
    } finally {
      await pi.kill();
    }
  }, 60_000);
});
