/**
 * The game's screens in German and Spanish, in headless Chromium at 360 px
 * against the real server: a German visitor reads a cache page (its type and
 * size, a waypoint's kind, attributes yes and no, the empty trackables
 * section), the trackables page, the leaderboard, the activity line of a find
 * and a finder's statistics with a singular; a Spanish visitor reads the same
 * cache page in Spanish. The English words stay where they were
 * (test/ui/game.test.ts, attributes.test.ts, waypoints.test.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let id = 0;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0GHI", { verified: true });
  finder = signedInUser(g.gw, "N0GFD", { verified: true });
  const r = await g.post(
    "/api/caches",
    {
      name: "Bridge multi",
      type: "multi",
      size: "small",
      difficulty: 2,
      terrain: 2,
      lat: 47.4,
      lon: 8.5,
      attributes: [
        { id: 1, inc: true },
        { id: 32, inc: false },
      ],
    },
    as(owner),
  );
  expect(r.status).toBe(201);
  id = ((await r.json()) as { id: number }).id;
  expect((await g.post(`/api/caches/${id}/waypoints`, { kind: "parking", name: "Car park", lat: 47.401, lon: 8.501 }, as(owner))).status).toBe(201);
  expect((await g.post(`/api/caches/${id}/logs`, { kind: "find", text: "TFTC" }, as(finder))).status).toBeLessThan(300);
  browser = await launchBrowser();
}, 60_000);

afterAll(() => stopAll(browser, g));

async function open(locale: string, path: string, u: TestUser | null = null): Promise<Page> {
  const ctx = await contextFor(browser, g.url, u?.cookie ?? null, { ...PHONE, locale });
  const page = await ctx.newPage();
  await page.goto(g.url + path);
  return page;
}
const fits = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
const attributes = (page: Page) => page.$$eval("[data-testid=attributes] li", (lis) => lis.map((li) => li.textContent));

describe("the game in German and Spanish", () => {
  test("German: a cache page names its type, size, waypoint kinds and attributes in German", async () => {
    const page = await open("de-DE", `/cache/${id}`, finder);
    await page.getByRole("heading", { name: "Wegpunkte" }).waitFor();
    expect(await page.getByTestId("cache-facts").textContent()).toContain("Multi · klein · D2/T2 · von");
    expect(await page.getByTestId("waypoint-parking").innerText()).toContain("Parkplatz: Car park");
    expect(await attributes(page)).toEqual(["Hundeja", "Fahrrädernein"]);
    expect(await page.getByTestId("cache-status").textContent()).toBe("Aktiv");
    await page.getByRole("heading", { name: "Trackables in diesem Cache" }).waitFor();
    await page.getByText("Zurzeit keine.").waitFor();
    await page.getByRole("link", { name: "Navigieren" }).waitFor();
    await fits(page);
  });

  test("German: the trackables page, the leaderboard, the activity and a finder's statistics", async () => {
    const tr = await open("de-DE", "/trackables", finder);
    await tr.getByRole("heading", { name: "Bei dir" }).waitFor();
    await tr.getByText("Du hast gerade keinen.").waitFor();
    await tr.getByRole("button", { name: "Anlegen und Anhänger drucken" }).waitFor();
    await fits(tr);

    const lb = await open("de-DE", "/leaderboard");
    await lb.getByRole("heading", { name: "Bestenliste" }).waitFor();
    await lb.getByTestId("finders").locator("td", { hasText: "N0GFD" }).waitFor();
    expect(await lb.getByTestId("finders").locator("th").allTextContents()).toEqual(["#", "Rufzeichen", "Funde", "Per Funk bestätigt"]);
    await fits(lb);

    const act = await open("de-DE", "/activity");
    await act.getByTestId("activity").locator("li", { hasText: "N0GFD hat Bridge multi gefunden" }).waitFor();
    await act.getByTestId("activity").locator("li", { hasText: "N0GHI hat Bridge multi versteckt (Multi)" }).waitFor();

    const profile = await open("de-DE", "/profile/N0GFD");
    await profile.getByRole("heading", { name: "Statistik" }).waitFor();
    // one find: the singular
    expect(await profile.getByTestId("stats-summary").textContent()).toStartWith("1 Fund, davon 0 per Funk belegt");
    expect(await profile.getByTestId("finds-by-type").textContent()).toBe("Multi: 1");
    await fits(profile);
  });

  test("Spanish: the same cache page in Spanish", async () => {
    const page = await open("es-ES", `/cache/${id}`, finder);
    await page.getByRole("heading", { name: "Rastreables en este caché" }).waitFor();
    expect(await page.getByTestId("cache-facts").textContent()).toContain("multi · pequeño · D2/T2 · de");
    expect(await page.getByTestId("waypoint-parking").innerText()).toContain("Aparcamiento: Car park");
    expect(await attributes(page)).toEqual(["Perrossí", "Bicicletasno"]);
    await page.getByText("Ninguno por ahora.").waitFor();
    await fits(page);
  });
});
