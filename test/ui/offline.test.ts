/**
 * The web app without a network, in headless Chromium against a real gateway:
 * installable (manifest, icons, a service worker in control, Chromium's own
 * installability check), reloading with the network off, an area saved for
 * offline browsed with the network off (with the compass), a find logged
 * offline and sent once when the network returns, field notes exported to and
 * imported from geocache_visits.txt, a new version offered with a prompt, and
 * every new screen at 360 px.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchProfile } from "../helpers/chromium.ts";
import { spawnGateway, startInProcess, type Running, type Spawned } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { BUN, ROOT } from "../helpers/paths.ts";
import { tmpDir } from "../helpers/tmp.ts";

const SHOTS = join(ROOT, "test-artifacts");
const DAY = 86_400_000;
let g: Running;
/** the same gateway after an upgrade (the last test) */
let upgraded: Spawned | null = null;
let owner: TestUser;
let finder: TestUser;
let ctx: BrowserContext;
let page: Page;
const cacheIds: number[] = [];
const codes: string[] = [];
const errors: string[] = [];

/** Near the cache at 48.1372, 11.5755: 48.1400, 11.5700 is about 510 m to the south-east of it. */
const HERE = { latitude: 48.14, longitude: 11.57 };
const INGEST = "ingest-secret-0123456789";

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  owner = signedInUser(g.gw, "N0HID", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  const spots = [
    { name: "Fountain cache", lat: 48.1372, lon: 11.5755, description: "Behind the fountain.", hint: "Under the bench" },
    { name: "Bridge cache", lat: 48.1351, lon: 11.5821, description: "On the old bridge.", hint: "Magnetic" },
  ];
  for (const s of spots) {
    const r = await g.post(
      "/api/caches",
      { type: "traditional", size: "small", difficulty: 2, terrain: 1.5, placedAt: Date.now() - 10 * DAY, ...s },
      { headers: { cookie: owner.cookie } },
    );
    expect(r.status).toBe(201);
    const c = (await r.json()) as { id: number; code: string };
    cacheIds.push(c.id);
    codes.push(c.code);
  }
  expect((await g.post(`/api/caches/${cacheIds[0]}/logs`, { kind: "note", text: "Container replaced." }, { headers: { cookie: owner.cookie } })).status).toBe(
    201,
  );
  // a weather station beside the caches, and one far away
  const heard = await g.post(
    "/ingest",
    {
      packets: [
        "N0OFF-13>APRS,WIDE1-1,qAR,N0IG-10:@092345z4808.20N/01134.60E_090/005g010t050r000p000P000h60b10150Isar weather",
        "N0FAR-9>APRS,WIDE1-1,qAR,N0IG-10:!4000.00N/00500.00E>far away",
      ],
    },
    { headers: { "x-ingest-secret": INGEST } },
  );
  expect(heard.status).toBeLessThan(300);
  ctx = await launchProfile(tmpDir(), { permissions: ["geolocation"], geolocation: HERE });
  const [name, value] = finder.cookie.split("=");
  await ctx.addCookies([{ name: name!, value: value!, url: g.url }]);
  page = ctx.pages()[0] ?? (await ctx.newPage());
  page.on("pageerror", (e) => errors.push(String(e)));
}, 120_000);

afterAll(async () => {
  await ctx?.close();
  if (upgraded) await upgraded.kill();
  else await g?.stop();
});

const logsOn = (id: number) =>
  g.gw.db.query("SELECT kind, text, found_at AS foundAt, client_id AS clientId FROM logs WHERE cache_id = ? AND kind = 'find'").all(id) as Array<{
    kind: string;
    text: string | null;
    foundAt: number;
    clientId: string | null;
  }>;

async function fitsIn360(p: Page, shot: string): Promise<void> {
  await p.setViewportSize({ width: 360, height: 740 });
  await p.waitForTimeout(200);
  await p.screenshot({ path: join(SHOTS, shot) });
  expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await p.setViewportSize({ width: 1280, height: 900 });
}

describe("web app offline", () => {
  test("installable: manifest with icons, a service worker in control, and Chromium finds no installability error", async () => {
    await page.goto(g.url + "/map");
    await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
    // one visit installs the service worker, which takes control of the page
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    const manifestHref = await page.locator('link[rel="manifest"]').getAttribute("href");
    expect(manifestHref).toBe("/manifest.webmanifest");
    const m = (await (await g.get(manifestHref!)).json()) as {
      name: string;
      short_name: string;
      start_url: string;
      display: string;
      icons: Array<{ src: string; sizes: string; type: string; purpose: string }>;
    };
    expect(m).toMatchObject({ name: "svc-gateway", short_name: "svc-gateway", start_url: "/map", display: "standalone" });
    expect(m.icons.map((i) => `${i.sizes} ${i.purpose}`).sort()).toEqual(["192x192 any", "512x512 any", "512x512 maskable"]);
    for (const i of m.icons) {
      // each icon is a real PNG of its stated size, as the browser decodes it
      const size = await page.evaluate(async (src) => {
        const r = await fetch(src);
        const b = await createImageBitmap(await r.blob());
        return `${r.headers.get("content-type")} ${b.width}x${b.height}`;
      }, i.src);
      expect(size).toBe(`image/png ${i.sizes}`);
    }
    const cdp = await ctx.newCDPSession(page);
    const inst = (await cdp.send("Page.getInstallabilityErrors")) as { installabilityErrors: Array<{ errorId: string }> };
    expect(inst.installabilityErrors).toEqual([]);
    const app = (await cdp.send("Page.getAppManifest")) as { url: string; errors: unknown[] };
    expect(app.url).toBe(g.url + "/manifest.webmanifest");
    expect(app.errors).toEqual([]);
    await cdp.detach();
    // the push handlers that /sw.js served before are still in it
    expect(await (await g.get("/sw.js")).text()).toContain("showNotification");
  });

  test("with the network off, a reload shows the app and says it is offline, not the browser's error page", async () => {
    await ctx.setOffline(true);
    try {
      await page.reload();
      await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor({ timeout: 15_000 });
      const state = page.getByTestId("offline-state");
      await state.waitFor();
      expect(await state.textContent()).toContain("Offline.");
      await page.locator(".leaflet-container").waitFor();
      await page.screenshot({ path: join(SHOTS, "offline-reload.png") });
      // in-app navigation works too
      await page.getByRole("navigation").getByRole("link", { name: "About" }).click();
      await page.getByRole("heading", { name: "Privacy" }).waitFor();
    } finally {
      await ctx.setOffline(false);
    }
    // positive control: online, the offline strip is gone
    await page.goto(g.url + "/map");
    await page.locator(".leaflet-container").waitFor();
    expect(await page.getByTestId("offline-state").count()).toBe(0);
  });

  test("save an area: estimate, progress, then its caches and stations show on the map and open with the network off; the compass points the way; the live chip says offline and errors are in words", async () => {
    await page.goto(g.url + "/map?lat=48.1365&lon=11.578&z=15");
    await page.locator(".cache-icon").first().waitFor();
    await page.getByRole("button", { name: "Save area for offline" }).click();
    const estimate = page.getByTestId("save-estimate");
    await estimate.waitFor();
    // with the built-in world basemap, kept whole (the only map archive here)
    expect(await estimate.textContent()).toMatch(
      /^2 caches with descriptions, hints and recent logs, 1 station last seen here with its page, the whole world map: about 1\.\d MB\.$/,
    );
    await fitsIn360(page, "save-area-360.png");
    await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
    await page.getByTestId("save-done").waitFor();
    expect(await page.getByTestId("save-done").textContent()).toContain("Saved 2 caches, 1 station");
    // the progress bar ran to its end: one step per cache and station, and one for the world basemap (no tile template with tiles off)
    const bar = page.getByTestId("save-progress");
    expect([await bar.getAttribute("value"), await bar.getAttribute("max")]).toEqual(["4", "4"]);

    await ctx.setOffline(true);
    try {
      await page.goto(g.url + "/map?lat=48.1365&lon=11.578&z=15");
      await page.getByTestId("offline-state").waitFor();
      await page.locator(".cache-icon").nth(1).waitFor({ timeout: 15_000 });
      expect(await page.locator(".cache-icon").count()).toBe(2);
      await page.screenshot({ path: join(SHOTS, "offline-saved-area.png") });
      await page.locator(".leaflet-marker-icon[title='Fountain cache']").click();
      await page.locator(".leaflet-popup").getByRole("link", { name: "open" }).click();
      await page.getByRole("heading", { name: "Fountain cache" }).waitFor();
      expect(await page.locator(".description").textContent()).toBe("Behind the fountain.");
      expect(await page.getByTestId("hint").textContent()).toBe("Haqre gur orapu");
      expect(await page.getByTestId("logs").textContent()).toContain("Container replaced.");
      // the compass, from the position the browser grants
      await page.getByRole("button", { name: "Show direction and distance" }).click();
      await page.getByTestId("compass-distance").waitFor();
      expect(await page.getByTestId("compass-distance").textContent()).toMatch(/^(5[0-2]\d) m$/);
      expect(await page.getByTestId("compass-bearing").textContent()).toMatch(/^SE \(1[2-4]\d°\)$/);
      await fitsIn360(page, "offline-cache-360.png");
      // a cache outside every saved area says so, instead of "Failed to fetch"
      await page.goto(g.url + "/cache/999999");
      await page.getByRole("heading", { name: "Cache not found" }).waitFor();
      expect(await page.locator(".error").textContent()).toContain("not in an area saved for offline use");
      // the station last seen in the area: on the map, and its page with its weather
      await page.goto(g.url + "/map?lat=48.1365&lon=11.578&z=15");
      await page.locator(".aprs-call", { hasText: "N0OFF-13" }).waitFor({ timeout: 15_000 });
      await page.getByTestId("live-state").getByText("○ Offline").waitFor();
      await page.goto(g.url + "/station/N0OFF-13");
      await page.getByTestId("current-weather").waitFor();
      expect(await page.getByTestId("current-weather").textContent()).toContain("Temperature 10.0 °C");
      await page.locator("[data-testid=packets] tbody tr").first().waitFor();
      // a station not in any saved area, and a page with nothing saved: said in words
      await page.goto(g.url + "/station/N0FAR-9");
      await page.getByText("not in an area saved for offline use").waitFor();
      await page.goto(g.url + "/leaderboard");
      const alert = page.getByRole("alert").filter({ hasText: "Could not load the leaderboard" });
      await alert.waitFor();
      expect(await alert.textContent()).toMatch(
        /^Could not load the leaderboard: (this device is offline|no answer from the gateway \(no network here, or the gateway is restarting\))/,
      );
    } finally {
      await ctx.setOffline(false);
    }
  });

  test("a find logged with no network is kept as a field note, shown as waiting, and stored once with its time when the network returns", async () => {
    const id = cacheIds[0]!;
    await page.goto(`${g.url}/cache/${id}`);
    await page.getByRole("heading", { name: "Fountain cache" }).waitFor();
    await ctx.setOffline(true);
    let wroteAt = 0;
    try {
      await page.getByLabel("Type").selectOption("find");
      await page.getByLabel("Log").fill('Found it in the rain, "wet" log');
      wroteAt = Date.now();
      await page.getByRole("button", { name: "Post log" }).click();
      const pending = page.getByTestId("pending-notes");
      await pending.waitFor();
      expect(await pending.textContent()).toContain("1 field note waiting to be sent");
      // the cache's logbook lists it, from the field notes (the logs reload after posting)
      await page.getByTestId("logs").getByText('Found it in the rain, "wet" log').waitFor();
      await page.waitForTimeout(1500);
      // nothing reached the server while offline
      expect(logsOn(id)).toEqual([]);
      await page.goto(g.url + "/offline");
      await page.getByTestId("field-notes").waitFor();
      expect(await page.locator('[data-testid="field-notes"] li[data-state="pending"]').count()).toBe(1);
      await fitsIn360(page, "offline-notes-360.png");
    } finally {
      await ctx.setOffline(false);
    }
    // the network returns: the note goes out, once, with the time it was written
    await page.waitForFunction(() => !document.querySelector('[data-testid="pending-notes"]'), null, { timeout: 20_000 });
    await page.locator('[data-testid="field-notes"] li[data-state="sent"]').waitFor();
    const stored = logsOn(id);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.text).toBe('Found it in the rain, "wet" log');
    expect(stored[0]!.clientId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(stored[0]!.foundAt - wroteAt)).toBeLessThan(5_000);
    // going online again and sending again changes nothing
    await page.evaluate(() => dispatchEvent(new Event("online")));
    await page.waitForTimeout(1000);
    expect(logsOn(id)).toHaveLength(1);
    expect(errors).toEqual([]);
  });

  test("field notes export as geocache_visits.txt (UTF-16LE with BOM) and import from it; an imported find is sent with its own time", async () => {
    await page.goto(g.url + "/offline");
    await page.getByTestId("field-notes").waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export geocache_visits.txt" }).click()]);
    expect(download.suggestedFilename()).toBe("geocache_visits.txt");
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(0, 2)]).toEqual([0xff, 0xfe]);
    const text = new TextDecoder("utf-16le").decode(bytes.subarray(2));
    expect(text).toMatch(new RegExp(`^${codes[0]},\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\dZ,Found it,"Found it in the rain, ""wet"" log"\\r\\n$`));

    // a GPS unit's file: a find on the second cache two days ago, a line of junk, and the same find again
    const at = new Date(Date.now() - 2 * DAY);
    at.setUTCSeconds(0, 0);
    const line = `${codes[1]},${at.toISOString().slice(0, 16)}Z,Found it,"From the Garmin, ""TFTC"""\r\n`;
    const file = "\ufeff" + line + "garbage line\r\n" + line;
    const buf = Buffer.alloc(file.length * 2);
    for (let i = 0; i < file.length; i++) buf.writeUInt16LE(file.charCodeAt(i), i * 2);
    await page.locator('input[type="file"]').setInputFiles({ name: "geocache_visits.txt", mimeType: "text/plain", buffer: buf });
    await page.getByText(/^Imported 1 visit, 1 already here, 1 line skipped\.$/).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="field-notes"] li[data-state="sent"]').length === 2, null, { timeout: 20_000 });
    const stored = logsOn(cacheIds[1]!);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ text: 'From the Garmin, "TFTC"', foundAt: at.getTime() });
    // importing the same file again adds nothing, here or on the server
    await page.locator('input[type="file"]').setInputFiles({ name: "geocache_visits.txt", mimeType: "text/plain", buffer: buf });
    await page.getByText(/^Imported 0 visits, 2 already here, 1 line skipped\.$/).waitFor();
    expect(logsOn(cacheIds[1]!)).toHaveLength(1);
    await page.screenshot({ path: join(SHOTS, "offline-page.png"), fullPage: true });
  });

  test("a new version is picked up on the next visit with a prompt, and taken on reload", async () => {
    await page.goto(g.url + "/map");
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const oldScript = await page.evaluate(async () => await (await fetch("/sw.js")).text());
    expect(await page.getByTestId("update-ready").count()).toBe(0);
    // The gateway is upgraded in place: the same data and port, a web app with one style changed.
    const next = tmpDir();
    for (const d of ["src", "ui", "radio", "schema.sql", "package.json", "tsconfig.json", "bunfig.toml"])
      cpSync(join(ROOT, d), join(next, d), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(next, "node_modules"));
    // the world basemap this checkout built (at the first /api/tiles above), kept as an upgrade keeps it:
    // without it the new version's install waits on its /api/tiles while a child process builds the
    // basemap again (4.5 s on a quiet machine, and many times that with the suite on the same two cores)
    if (existsSync(join(ROOT, ".cache"))) cpSync(join(ROOT, ".cache"), join(next, ".cache"), { recursive: true });
    appendFileSync(join(next, "ui/styles.css"), "\n.offline-bar { font-weight: 500; }\n");
    const port = Number(new URL(g.url).port);
    await g.stop();
    upgraded = await spawnGateway({
      cmd: [BUN, "--no-env-file", join(next, "src/main.ts")],
      cwd: next,
      dataDir: g.dataDir,
      port,
      env: { TILE_URL: "off" },
      timeoutMs: 60_000,
    });
    expect(upgraded.url).toBe(g.url);

    await page.goto(g.url + "/map");
    const prompt = page.getByTestId("update-ready");
    // the new version installs first: every file of the web app fetched from the upgraded gateway (about
    // 20 s on a quiet machine, 55-65 s while the suite's other files and a soak share its two cores)
    await prompt.waitFor({ timeout: 120_000 });
    expect(await prompt.textContent()).toBe("A new version is ready: Reload");
    // until then the page is still the version this browser kept
    expect(await page.evaluate(() => getComputedStyle(document.querySelector(".offline-bar")!).fontWeight)).toBe("400");
    await fitsIn360(page, "update-ready-360.png");
    await Promise.all([page.waitForEvent("load", { timeout: 60_000 }), prompt.getByRole("button", { name: "Reload" }).click()]);
    await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    expect(await page.evaluate(async () => await (await fetch("/sw.js")).text())).not.toBe(oldScript);
    // the new version's files are what the page uses now, and the prompt is gone
    await page
      .getByTestId("offline-bar")
      .waitFor({ state: "detached" })
      .catch(() => {});
    expect(await page.getByTestId("update-ready").count()).toBe(0);
    const cssHasNewRule = await page.evaluate(() => [...document.styleSheets].some((s) => [...s.cssRules].some((r) => r.cssText.includes("font-weight: 500"))));
    expect(cssHasNewRule).toBe(true);
  }, 240_000);
});
