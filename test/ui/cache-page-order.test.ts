/**
 * The cache page on a 360x740 phone (issue 29 item 9), in headless Chromium:
 * the summary (coordinates, D/T, size, placed and last-found dates, the
 * status line, attributes) comes first, then the logs, newest first with
 * their counts per type, then the description and the gallery; the first log
 * starts within the first two screens; finders' callsigns link to their
 * profiles; and a sticky "Log" button stays in view wherever the page is
 * scrolled and opens the log form.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { hideCache } from "../helpers/caches.ts";

const PLACED = Date.UTC(2024, 4, 17, 12);
let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let other: TestUser;
let id = 0;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  other = signedInUser(g.gw, "N0DNF", { verified: true });
  ({ id } = await hideCache(g, owner, {
    name: "Long story",
    difficulty: 2.5,
    terrain: 1.5,
    lat: 47.4,
    lon: 8.5,
    placedAt: PLACED,
    hint: "under the bench",
    description: Array.from({ length: 40 }, (_, i) => `Paragraph ${i + 1} of the story of this cache, which is long.`).join("\n\n"),
    attributes: [
      { id: 1, inc: true },
      { id: 32, inc: false },
    ],
  }));
  for (const [u, kind, text] of [
    [other, "dnf", "Searched for half an hour."],
    [finder, "find", "Found it after the rain."],
    [finder, "note", "Back to drop a trackable."],
  ] as const) {
    const l = await g.post(`/api/caches/${id}/logs`, { kind, text }, as(u));
    expect(l.status).toBe(201);
    await Bun.sleep(5);
  }
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const top = (page: Page, sel: string) => page.$eval(sel, (e) => e.getBoundingClientRect().top + window.scrollY);
const inView = (page: Page, sel: string) =>
  page.$eval(sel, (e) => {
    const r = e.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
  });

describe("the cache page on a phone", () => {
  test("summary, then logs newest first with counts, then description and gallery; the first log within two screens", async () => {
    const ctx = await contextFor(browser, g.url, finder.cookie, { ...PHONE, timezoneId: "UTC" });
    const page = await ctx.newPage();
    await page.goto(`${g.url}/cache/${id}`);
    await page.getByRole("heading", { name: "Long story" }).waitFor();
    await page.locator("[data-testid=logs] li").nth(2).waitFor();
    await page.locator(".cache-page h2", { hasText: "Gallery" }).waitFor();
    const y = {
      summary: await top(page, "[data-testid=cache-summary]"),
      attributes: await top(page, "[data-testid=attributes]"),
      logs: await top(page, "[data-testid=logs-section]"),
      firstLog: await top(page, "[data-testid=logs] li"),
      description: await top(page, ".description"),
      gallery: await page.locator(".cache-page h2", { hasText: "Gallery" }).evaluate((e) => e.getBoundingClientRect().top + window.scrollY),
      logForm: await top(page, "#log-form"),
    };
    expect(y.summary).toBeLessThan(y.attributes);
    expect(y.attributes).toBeLessThan(y.logs);
    expect(y.logs).toBeLessThan(y.firstLog);
    expect(y.firstLog).toBeLessThan(y.description);
    expect(y.description).toBeLessThan(y.gallery);
    // where the first log starts, in screens of 740 px
    console.log(`cache page at 360x740: first log at ${Math.round(y.firstLog)} px (${(y.firstLog / 740).toFixed(2)} screens)`);
    expect(y.firstLog).toBeLessThan(2 * 740);
    // a waypoints section, when the page has one, is below the description
    const wp = page.locator("[data-testid=waypoints]");
    if (await wp.count()) expect(await wp.first().evaluate((e) => e.getBoundingClientRect().top + window.scrollY)).toBeGreaterThan(y.description);

    // the summary's facts
    expect(await page.getByTestId("placed").textContent()).toBe(day(PLACED));
    expect(await page.getByTestId("last-found").textContent()).toBe(day(Date.now()));
    expect(await page.getByTestId("summary-coords").textContent()).toBe("N 47° 24.000 E 008° 30.000");
    expect(await page.getByTestId("cache-status").textContent()).toBe("Active");
    expect(await page.getByTestId("cache-summary").textContent()).toContain("2.5 / 1.5 · small");
    // the logs: counts per type, newest first, callsigns linking to profiles
    expect(await page.getByTestId("log-counts").textContent()).toBe("1 Found it · 1 Didn't find it · 1 Note");
    const logs = await page.$$eval("[data-testid=logs] li", (lis) => lis.map((li) => li.textContent ?? ""));
    expect(logs.map((t) => /(Found it|Didn't find it|Note)/.exec(t)?.[1])).toEqual(["Note", "Found it", "Didn't find it"]);
    expect(await page.locator("[data-testid=logs] li a", { hasText: "N0DNF" }).getAttribute("href")).toBe("/profile/N0DNF");
    await page.locator("[data-testid=logs] li a", { hasText: "N0FND" }).first().click();
    await page.waitForURL(/\/profile\/N0FND$/);
    await ctx.close();
  });

  test("the sticky Log button is in view at the top, the middle and the bottom of the page, and opens the log form", async () => {
    const ctx = await contextFor(browser, g.url, finder.cookie, PHONE);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/cache/${id}`);
    await page.locator("[data-testid=logs] li").first().waitFor();
    // the button comes once the page knows who is signed in (the account is asked beside the cache and its logs)
    const button = "[data-testid=log-bar] button";
    await page.locator(button).waitFor();
    expect(await inView(page, button)).toBe(true);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeGreaterThan(3 * 740);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight / 2));
    expect(await inView(page, button)).toBe(true);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await page.waitForFunction(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2);
    expect(await inView(page, button)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: "test-artifacts/cache-page-bottom-phone.png" });
    // from the top again: the button takes the player to the form, ready to write
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.click(button);
    await page.waitForFunction(() => document.activeElement?.id === "log-text");
    expect(await inView(page, "#log-text")).toBe(true);
    await page.fill("#log-text", "Quick note from the phone.");
    await page.getByRole("button", { name: "Post log" }).click();
    await page.waitForFunction(() => document.querySelector("[data-testid=log-counts]")?.textContent?.includes("2 Note"));
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: "test-artifacts/cache-page-top-phone.png" });
    await ctx.close();
  });

  test("a signed-in player whose account answer comes late never sees 'sign in to log' first", async () => {
    const ctx = await contextFor(browser, g.url, finder.cookie, PHONE);
    const page = await ctx.newPage();
    // the account's answer held back on the wire, as on a slow link where the cache and its logs come first
    await page.route("**/auth/account", async (route) => {
      await Bun.sleep(400);
      await route.continue();
    });
    await page.addInitScript(() => {
      const seen = ((window as unknown as { signInSeen: string[] }).signInSeen = [] as string[]);
      new MutationObserver(() => {
        for (const a of document.querySelectorAll(".cache-page a[href='/account']")) seen.push(a.textContent ?? "");
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${g.url}/cache/${id}`);
    await page.locator("[data-testid=log-bar] button").waitFor();
    await page.locator("#log-text").waitFor();
    expect(await page.evaluate(() => (window as unknown as { signInSeen: string[] }).signInSeen)).toEqual([]);
    await ctx.close();
  });

  test("signed out, the summary and logs lead the page and the Log button asks to sign in", async () => {
    const ctx = await contextFor(browser, g.url, null, PHONE);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/cache/${id}`);
    await page.locator("[data-testid=logs] li").first().waitFor();
    expect(await top(page, "[data-testid=cache-summary]")).toBeLessThan(await top(page, "[data-testid=logs-section]"));
    expect(await top(page, "[data-testid=logs-section]")).toBeLessThan(await top(page, ".description"));
    const link = page.locator("[data-testid=log-bar] a");
    expect(await link.getAttribute("href")).toBe("/account");
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    expect(await inView(page, "[data-testid=log-bar] a")).toBe(true);
    await ctx.close();
  });
});
