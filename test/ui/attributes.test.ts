/**
 * Cache attributes in headless Chromium on a 360x740 phone: the hide form's
 * chips set yes and no, the cache page lists them, the owner's edit changes
 * them, the map's filter panel keeps only the caches with the attribute
 * asked (list and markers), and a cache saved for offline use shows its
 * attributes with the network off.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, geoContext, launchBrowser, launchProfile, openSavedOffline, PHONE } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";

const HERE = { latitude: 47.5, longitude: 8.5 };
let g: Running;
let browser: Browser;
let owner: TestUser;
let plainId = 0;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0ATT", { verified: true });
  const r = await g.post(
    "/api/caches",
    { name: "Plain box", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.501, lon: 8.5 },
    { headers: { cookie: owner.cookie } },
  );
  plainId = ((await r.json()) as { id: number }).id;
  browser = await launchBrowser();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const shown = (page: Page) =>
  page.$$eval("[data-testid=attributes] li", (lis) => lis.map((li) => `${li.getAttribute("data-attr")}:${li.getAttribute("data-inc")}:${li.textContent}`));
const apiAttrs = async (id: string | number) => ((await (await g.get(`/api/caches/${id}`)).json()) as { attributes: unknown }).attributes;
const fits = async (page: Page) => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

describe("attributes in the web app", () => {
  let dogId = "";
  test("the hide form's chips set yes and no; the cache page lists them; the owner's edit changes them", async () => {
    const ctx = await contextFor(browser, g.url, owner.cookie, PHONE);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/hide`);
    await page.getByLabel("Name").fill("Dog walk");
    await page.getByLabel("Latitude").fill("47.502");
    await page.getByLabel("Longitude").fill("8.5");
    await page.click("[data-testid=attr-editor] summary");
    const chip = (id: number) => page.locator(`[data-testid=attr-editor] button[data-attr="${id}"]`);
    await chip(1).click();
    await chip(32).click();
    await chip(32).click();
    expect(await chip(1).getAttribute("data-state")).toBe("yes");
    expect(await chip(32).getAttribute("data-state")).toBe("no");
    expect(await chip(8).getAttribute("data-state")).toBe("unset");
    await fits(page);
    await chip(1).scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-artifacts/attributes-hide-phone.png" });
    await page.getByRole("button", { name: "Hide it" }).click();
    await page.getByRole("heading", { name: "Dog walk" }).waitFor();
    dogId = new URL(page.url()).pathname.split("/").pop()!;
    expect(await shown(page)).toEqual(["1:1:Dogsyes", "32:0:Bicyclesno"]);
    expect(await apiAttrs(dogId)).toEqual([
      { id: 1, inc: true },
      { id: 32, inc: false },
    ]);
    await fits(page);

    // the owner's edit: bicycles cleared (a third press), scenic view added
    await page.getByRole("button", { name: "Edit", exact: true }).click();
    const edit = (id: number) => page.locator(`.edit-form [data-testid=attr-editor] button[data-attr="${id}"]`);
    expect(await edit(32).getAttribute("data-state")).toBe("no");
    await edit(32).click();
    await edit(8).click();
    await fits(page);
    await page.locator(".edit-form").getByRole("button", { name: "Save" }).click();
    // the page reloads the cache once saved: scenic view appears
    await page.locator('[data-testid=attributes] li[data-attr="8"]').waitFor();
    expect(await shown(page)).toEqual(["1:1:Dogsyes", "8:1:Scenic viewyes"]);
    expect(await apiAttrs(dogId)).toEqual([
      { id: 1, inc: true },
      { id: 8, inc: true },
    ]);
    await page.locator("[data-testid=attributes]").scrollIntoViewIfNeeded();
    await page.screenshot({ path: "test-artifacts/attributes-cache-phone.png" });
    // a cache without attributes shows no list
    await page.goto(`${g.url}/cache/${plainId}`);
    await page.getByRole("heading", { name: "Plain box" }).waitFor();
    expect(await page.locator("[data-testid=attributes]").count()).toBe(0);
    await ctx.close();
  });

  test("the map's filter keeps the caches with the attribute asked, in the near list and on the map", async () => {
    const ctx = await geoContext(browser, g.url, HERE, PHONE);
    const page = await ctx.newPage();
    await page.goto(`${g.url}/?lat=10&lon=10&z=3`);
    await page.click("button.near-locate");
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=near-list] li").length === 2);
    await page.waitForFunction(() => document.querySelectorAll(".cache-icon .cache-name").length === 2);
    await page.click("[data-testid=cache-filters] summary");
    await page.click("[data-testid=attr-filter] summary");
    await page.click('[data-testid=attr-filter] button[data-attr="1"]');
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=near-list] li").length === 1);
    expect(await page.$$eval("[data-testid=near-list] li", (lis) => lis.map((li) => li.getAttribute("data-name")))).toEqual(["Dog walk"]);
    await page.waitForFunction(() => document.querySelectorAll(".cache-icon .cache-name").length === 1);
    expect(await page.textContent(".cache-icon .cache-name")).toBe("Dog walk");
    expect(await page.textContent("[data-testid=attr-filter] summary")).toBe("Attributes (1)");
    await fits(page);
    // pressed again: every cache is back
    await page.click('[data-testid=attr-filter] button[data-attr="1"]');
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=near-list] li").length === 2);
    await ctx.close();
  });

  test("a cache saved for offline use shows its attributes with the network off", async () => {
    // saved at a desktop width (where the map shows the button), read on the phone
    const ctx = await launchProfile(tmpDir(), { viewport: { width: 900, height: 600 } });
    try {
      const page = await openSavedOffline(ctx, g.url, "/map?lat=47.5015&lon=8.5&z=16", 2, `/cache/${dogId}`);
      await page.getByRole("heading", { name: "Dog walk" }).waitFor();
      expect(await shown(page)).toEqual(["1:1:Dogsyes", "8:1:Scenic viewyes"]);
    } finally {
      await ctx.close();
    }
  });
});
