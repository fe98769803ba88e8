/**
 * The web app from the keyboard, and for a newcomer, in headless Chromium
 * against a real gateway (issue 33 items 3 and 4): the skip link is the first
 * stop; the map's markers are one tab stop however many there are; the
 * arrow keys move between markers and Enter opens a station; Escape closes
 * the phone menu; a newcomer's home page says what this is with sign-in,
 * "find caches" and (before set-up) the checklist, until dismissed; Setup
 * explains its three callsigns; the sysop's account page says it runs the
 * instance.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { ddm, ingestCrowd } from "../helpers/crowd.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { setMeta } from "../../src/core/store/db.ts";

let g: Running;
let browser: Browser;
let sysop: TestUser;
const ROW = ["N0ROWA", "N0ROWB", "N0ROWC", "N0ROWD", "N0ROWE"];

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", ADMIN_CALLSIGNS: "N0OPS" });
  ingestCrowd(g.gw, 400, { lat: 48, lon: 11, dLat: 1.5, dLon: 2.5 });
  // a quiet row of five stations, west to east, far from the crowd
  ingestLines(
    g.gw,
    ROW.map((call, i) => ({ line: `${call}>APRS,TCPIP*:!${ddm(60, 2, "N", "S")}/${ddm(20 + i * 0.02, 3, "E", "W")}-row ${i}`, heardAt: Date.now() })),
    { source: "aprsis" },
  );
  sysop = signedInUser(g.gw, "N0OPS", { verified: true });
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

async function openMap(page: Page, query: string) {
  await page.goto(`${g.url}/map?${query}`);
  await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
  await page.waitForLoadState("networkidle");
  await page.locator("[data-testid=map][data-drawing='0']").waitFor({ state: "attached" });
}

/** What has the focus: its text or name, and whether it is a map marker. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    const r = el?.getBoundingClientRect();
    return {
      text: (el?.textContent ?? "").trim(),
      name: el?.getAttribute("aria-label") ?? "",
      marker: !!el?.matches(".map-point, .map-cluster"),
      x: r ? r.left + r.width / 2 : 0,
    };
  });

describe("the keyboard", () => {
  test("Tab reaches the skip link first, then the map's markers as one stop, and 'Hide a cache' within a handful", async () => {
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await openMap(page, "lat=48&lon=11&z=8");
    const markers = await page.locator(".leaflet-marker-pane .map-point, .leaflet-marker-pane .map-cluster").count();
    expect(markers).toBeGreaterThan(100);
    await page.keyboard.press("Tab");
    expect((await focused(page)).text).toBe("Skip to content");
    let stops = 1;
    let markerStops = 0;
    for (; stops < 400; stops++) {
      await page.keyboard.press("Tab");
      const f = await focused(page);
      if (f.marker) markerStops++;
      if (f.text === "Hide a cache") break;
    }
    console.log(`tab stops before "Hide a cache" with ${markers} markers drawn: ${stops}`);
    expect(markerStops).toBe(1);
    expect(stops).toBeLessThan(40);
    // the skip link goes past the header to the page
    await page.keyboard.press("Shift+Tab");
    await page.goto(`${g.url}/about`);
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main");
    await ctx.close();
  }, 120_000);

  test("the map's page as the server draws it, before the app's script, starts with the skip link too", async () => {
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await page.route("**/assets/*.js", (r) => r.abort());
    await page.goto(`${g.url}/map?lat=48&lon=11&z=8`);
    await page.locator("svg.ssr-points").waitFor();
    await page.keyboard.press("Tab");
    expect((await focused(page)).text).toBe("Skip to content");
    await ctx.close();
  }, 60_000);

  test("the arrow keys move between markers, and Enter opens the focused station", async () => {
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await openMap(page, "lat=60&lon=20.04&z=12");
    expect(await page.locator(".leaflet-marker-pane .map-point").count()).toBe(5);
    // focus the layer's one stop: the marker nearest the centre (the middle of the row)
    for (let i = 0; i < 40 && !(await focused(page)).marker; i++) await page.keyboard.press("Tab");
    const start = await focused(page);
    expect(start.name).toBe("N0ROWC");
    await page.keyboard.press("ArrowRight");
    const right = await focused(page);
    expect(right.name).toBe("N0ROWD");
    expect(right.x).toBeGreaterThan(start.x);
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    expect((await focused(page)).name).toBe("N0ROWB");
    // nothing further east than the last: the focus stays
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("ArrowRight");
    expect((await focused(page)).name).toBe("N0ROWE");
    // still one tab stop
    expect(await page.locator('.leaflet-marker-pane [tabindex="0"]').count()).toBe(1);
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/station\/N0ROWE$/);
    await page
      .getByRole("heading", { name: /N0ROWE/ })
      .first()
      .waitFor();
    await ctx.close();
  }, 120_000);

  test("Escape closes the phone menu and gives the focus back to its button", async () => {
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${g.url}/about`);
    const toggle = page.getByRole("button", { name: "Menu" });
    await toggle.click();
    expect(await page.locator("#nav a").first().isVisible()).toBe(true);
    await page.locator("#nav a").first().focus();
    await page.keyboard.press("Escape");
    expect(await page.locator("#nav a").first().isVisible()).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    expect(await page.evaluate(() => document.activeElement?.classList.contains("menu-toggle"))).toBe(true);
    await ctx.close();
  }, 60_000);
});

describe("newcomers", () => {
  test("before set-up, the home page welcomes a newcomer with sign-in, find caches and the checklist, and not once dismissed", async () => {
    expect(((await (await g.get("/api/setup")).json()) as { needed: boolean }).needed).toBe(true);
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${g.url}/`);
    const welcome = page.getByTestId("welcome");
    await welcome.waitFor();
    expect(await welcome.textContent()).toContain("APRS");
    expect(await welcome.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/account");
    expect(await welcome.getByRole("button", { name: "Find caches" }).isVisible()).toBe(true);
    expect(await welcome.getByRole("link", { name: "Getting started" }).getAttribute("href")).toBe("/setup");
    // a banner's room on a phone, not the map
    const box = (await welcome.boundingBox())!;
    console.log(`welcome panel at 360 px: ${Math.round(box.width)} x ${Math.round(box.height)} px`);
    // a banner's room, over the map's foot: clear of "Hide a cache", and the map keeps its full size
    expect(box.height).toBeLessThanOrEqual(90);
    expect(box.y + box.height).toBeLessThanOrEqual((await page.getByRole("link", { name: "Hide a cache" }).boundingBox())!.y);
    expect((await page.getByTestId("map").boundingBox())!.height).toBeGreaterThan(600);
    // "Find caches" takes the keyboard to the map's markers
    await page.locator("[data-testid=map][data-drawing='0']").waitFor({ state: "attached" });
    await welcome.getByRole("button", { name: "Find caches" }).click();
    expect((await focused(page)).marker).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await welcome.getByRole("button", { name: "Dismiss the welcome" }).click();
    expect(await welcome.count()).toBe(0);
    await page.reload();
    await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
    await page.waitForLoadState("networkidle");
    expect(await page.getByTestId("welcome").count()).toBe(0);
    await ctx.close();
  }, 60_000);

  test("Setup explains each of its three callsigns in a line", async () => {
    const ctx = await contextFor(browser, g.url);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/setup`);
    const help = async (label: string) => {
      const field = page.getByLabel(label, { exact: true });
      const id = (await field.getAttribute("aria-describedby"))!;
      return (await page.locator(`#${id}`).textContent()) ?? "";
    };
    await page.getByLabel("Operator callsign").waitFor();
    expect(await help("Operator callsign")).toContain("the person who runs this gateway");
    expect(await help("APRS service callsign")).toContain("APRS-IS");
    expect(await help("Radio callsign (RADIO_CALL; empty = receive only)")).toContain("transmits under on RF");
    await ctx.close();
  }, 60_000);

  test("after set-up, a signed-in player is not welcomed; the sysop is, with the checklist; a visitor without it", async () => {
    setMeta(g.gw.db, "setup_done", String(Date.now()));
    expect(((await (await g.get("/api/setup")).json()) as { needed: boolean }).needed).toBe(false);
    const home = async (cookie: string | null) => {
      const ctx = await contextFor(browser, g.url, cookie);
      const page = await ctx.newPage();
      await page.goto(`${g.url}/`);
      await page.getByTestId("map-count").waitFor({ timeout: 30_000 });
      await page.waitForLoadState("networkidle");
      const seen = { welcome: await page.getByTestId("welcome").count(), checklist: await page.getByTestId("welcome-checklist").count() };
      await ctx.close();
      return seen;
    };
    expect(await home(signedInUser(g.gw, "N0PLY", { verified: true }).cookie)).toEqual({ welcome: 0, checklist: 0 });
    expect(await home(sysop.cookie)).toEqual({ welcome: 1, checklist: 1 });
    expect(await home(null)).toEqual({ welcome: 1, checklist: 0 });
  }, 60_000);

  test("the sysop's account page says this account runs the instance; a player's does not", async () => {
    const player = signedInUser(g.gw, "N0PLZ", { verified: true });
    let ctx = await contextFor(browser, g.url, sysop.cookie);
    let page = await ctx.newPage();
    await page.goto(`${g.url}/account`);
    await page.getByTestId("runs-instance").waitFor();
    expect(await page.getByTestId("runs-instance").textContent()).toContain("This account runs this instance");
    await ctx.close();
    ctx = await contextFor(browser, g.url, player.cookie);
    page = await ctx.newPage();
    await page.goto(`${g.url}/account`);
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await page.waitForLoadState("networkidle");
    expect(await page.getByTestId("runs-instance").count()).toBe(0);
    await ctx.close();
  }, 60_000);
});
