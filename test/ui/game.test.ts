/**
 * The game in headless Chromium: hiding a cache with the map picker, logging
 * a find on its page (hint decoder, Tier A badge from an RF sighting), and
 * seeing it on the map as found; clusters at world zoom; leaderboard,
 * activity and profile pages; the embeddable map.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  owner = signedInUser(g.gw, "N0HID", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const as = (user: TestUser): Promise<BrowserContext> => contextFor(browser, g.url, user.cookie);

describe("web app: the game", () => {
  let cacheId = 0;

  test("hide a cache: pick the spot on the map, fill the form, land on its page", async () => {
    const ctx = await as(owner);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(g.url + "/map");
    await page.getByRole("link", { name: "Hide a cache" }).click();
    await page.getByLabel("Name").waitFor();
    // click the picker map: the coordinates fill in and a marker appears
    const picker = page.getByTestId("picker");
    await picker.waitFor();
    await picker.click({ position: { x: 300, y: 150 } });
    await page.waitForFunction(() => (document.getElementById("c-lat") as HTMLInputElement).value !== "");
    expect(await page.locator(".leaflet-marker-icon").count()).toBe(1);
    // then type exact coordinates; the marker follows
    await page.getByLabel("Latitude").fill("48.1372");
    await page.getByLabel("Longitude").fill("11.5755");
    await page.getByLabel("Name").fill("Browser cache");
    await page.getByLabel("Type").selectOption("multi");
    await page.getByLabel("Difficulty").selectOption("2.5");
    await page.getByLabel("Description").fill("Behind the fountain.");
    await page.getByLabel("Hint (shown encoded)").fill("Under the bench");
    await page.getByRole("button", { name: "Hide it" }).click();
    await page.getByRole("heading", { name: "Browser cache" }).waitFor();
    cacheId = Number(new URL(page.url()).pathname.split("/").pop());
    expect(cacheId).toBeGreaterThan(0);
    expect(await page.getByTestId("cache-facts").textContent()).toContain("multi · small · D2.5/T1.5 · by N0HID");
    const api = (await (await g.get(`/api/caches/${cacheId}`)).json()) as Record<string, unknown>;
    expect(api).toMatchObject({ name: "Browser cache", lat: 48.1372, lon: 11.5755, ownerCall: "N0HID", description: "Behind the fountain." });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("log a find: the hint decodes, the log appears RF-verified, and the map shows the cache as found", async () => {
    // the finder's handheld was heard on RF by an IGate next to the cache
    await g.post("/ingest", { packets: ["N0FND-7>APRS,WIDE1-1,qAR,DB0IG-10:!4808.23N/01134.53E["] }, { headers: { "x-ingest-secret": INGEST } });
    const ctx = await as(finder);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/cache/${cacheId}`);
    await page.getByRole("heading", { name: "Browser cache" }).waitFor();
    expect(await page.getByTestId("hint").textContent()).toBe("Haqre gur orapu");
    await page.getByRole("button", { name: "Decode" }).click();
    expect(await page.getByTestId("hint").textContent()).toBe("Under the bench");
    await page.getByLabel("Type").selectOption("find");
    await page.getByLabel("Log").fill("Found it after lunch, TFTC");
    await page.getByRole("button", { name: "Post log" }).click();
    const log = page.getByTestId("logs").locator("li", { hasText: "Found it after lunch" });
    await log.waitFor();
    expect(await log.textContent()).toContain("RF-verified via DB0IG-10");
    // finders rate and favorite
    await page.getByLabel("your rating").selectOption("5");
    await page.getByText("rating 5 (1)").waitFor();
    await page.getByRole("button", { name: "☆ Favorite" }).click();
    await page.getByRole("button", { name: "★ Favorite" }).waitFor();

    await page.goto(`${g.url}/map?lat=48.1372&lon=11.5755&z=15`);
    const marker = page.locator(".cache-icon", { hasText: "Browser cache" });
    await marker.waitFor({ timeout: 20_000 });
    expect(await marker.locator(".cache-found").count()).toBe(1);
    await marker.dispatchEvent("click");
    await page.locator(".leaflet-popup-content", { hasText: "1 find · you found it" }).waitFor();
    await ctx.close();
  });

  test("many caches: world zoom shows clusters; a click zooms into one", async () => {
    g.gw.db.transaction(() => {
      for (let i = 0; i < 700; i++) {
        g.gw.db
          .query(
            "INSERT INTO caches (owner_call, name, type, size, difficulty, terrain, lat, lon, status, placed_at, created_at, updated_at) VALUES ('N0BULK', ?, 'traditional', 'small', 1, 1, ?, ?, 'active', 0, 0, 0)",
          )
          .run(`Bulk ${i}`, -30 + (i % 30) * 0.5, 20 + Math.floor(i / 30) * 0.5);
      }
    })();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(g.url + "/map?lat=0&lon=0&z=2");
    const cluster = page.locator(".cache-cluster").first();
    await cluster.waitFor({ timeout: 20_000 });
    const before = await page.evaluate(() => document.querySelectorAll(".cache-cluster").length);
    expect(before).toBeGreaterThan(0);
    const total = await page.evaluate(() => [...document.querySelectorAll(".cache-cluster")].reduce((s, e) => s + Number(e.textContent), 0));
    expect(total).toBeGreaterThanOrEqual(700);
    const n = Number(await cluster.textContent());
    await cluster.dispatchEvent("click");
    await page.waitForFunction(
      (k) => document.querySelectorAll(".cache-icon").length > 0 || [...document.querySelectorAll(".cache-cluster")].every((e) => Number(e.textContent) < k),
      n,
    );
    await page.close();
  });

  test("leaderboard, activity, profile and the embeddable map", async () => {
    const page = await browser.newPage();
    await page.goto(g.url + "/leaderboard");
    await page.getByTestId("finders").locator("td", { hasText: "N0FND" }).waitFor();
    expect(await page.getByTestId("finders").locator("tbody tr").first().textContent()).toBe("1N0FND11");
    await page.goto(g.url + "/activity");
    await page.getByTestId("activity").locator("li", { hasText: "N0FND found Browser cache" }).waitFor();
    await page.goto(g.url + "/profile/N0FND");
    await page.getByTestId("game-stats").waitFor();
    expect(await page.getByTestId("game-stats").textContent()).toContain("Finds1RF-verified1");
    const embed = await g.get("/embed", { headers: { accept: "text/html" } });
    expect(embed.headers.get("content-security-policy")).toContain("frame-ancestors *");
    expect((await g.get("/map", { headers: { accept: "text/html" } })).headers.get("content-security-policy")).toContain("frame-ancestors 'self'");
    await page.goto(`${g.url}/embed?bbox=11.5,48.1,11.6,48.2`);
    await page.locator(".cache-icon", { hasText: "Browser cache" }).waitFor({ timeout: 20_000 });
    expect(await page.locator(".topbar").count()).toBe(0);
    await page.close();
  });
});
