/**
 * Trackables in headless Chromium on a 360x740 phone, as an owner and a
 * finder use them: the owner makes one and gets its printable tag (ref,
 * tracking code, a QR code that opens its page with the code filled in), drops
 * it into a cache from its page; the cache page lists it; a finder arrives by
 * the QR code's address, retrieves it with the code filled in (the address
 * bar keeps no code), and the page shows the journey on a map and the moves;
 * a wrong code is refused in words; "My trackables" lists what each holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts", "trackables");

let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let other: TestUser;
let cacheA = 0;
let cacheB = 0;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND-7", { verified: true });
  other = signedInUser(g.gw, "N0OTH", { verified: true });
  const hide = async (name: string, lat: number, lon: number) => {
    const r = await g.post(
      "/api/caches",
      { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon },
      { headers: { cookie: other.cookie } },
    );
    expect(r.status).toBe(201);
    return ((await r.json()) as { id: number }).id;
  };
  cacheA = await hide("Mill pond box", 47.5, 8.5);
  cacheB = await hide("Ridge box", 47.52, 8.53);
  browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

async function phone(user: TestUser | null): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await contextFor(browser, g.url, user?.cookie, PHONE);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { ctx, page, errors };
}

const fits = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= 360);

describe("trackables in the web app", () => {
  let ref = "";
  let code = "";
  let qrTarget = "";

  test("the owner makes a trackable and gets its tag: ref, tracking code and a QR code of its page with the code", async () => {
    const { ctx, page, errors } = await phone(owner);
    await page.goto(`${g.url}/trackables`);
    await page.getByLabel("Name").fill("Rubber duck");
    await page.getByLabel("Goal").fill("See every 2 m repeater");
    await page.getByRole("button", { name: "Make it and print its tag" }).click();
    await page.getByTestId("tag").waitFor();
    ref = (await page.getByTestId("tag-ref").textContent())!;
    code = (await page.getByTestId("tag-code").textContent())!;
    expect(ref).toMatch(/^SVT[0-9A-Z]{6}$/);
    expect(code).toMatch(/^[2-9A-Z]{8}$/);
    expect(new URL(page.url()).pathname).toBe(`/trackable/${ref}/tag`);
    // the QR code is drawn by the gateway and says the trackable's address with its code
    const qr = page.locator("[data-testid=tag] img");
    await page.waitForFunction(() => ((document.querySelector("[data-testid=tag] img") as HTMLImageElement | null)?.naturalWidth ?? 0) > 0);
    const src = new URL((await qr.getAttribute("src"))!, g.url);
    qrTarget = src.searchParams.get("path")!;
    expect(qrTarget).toBe(`/trackable/${ref}?code=${code}`);
    const svg = await (await fetch(src)).text();
    expect(svg).toContain("<svg");
    // the code is not in anything the API gives back
    expect(JSON.stringify(await (await g.get(`/api/trackables/${ref}`)).json())).not.toContain(code);
    expect(await fits(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "tag-360.png"), fullPage: true });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("the owner drops it into a cache from its page; the cache page lists it", async () => {
    const { ctx, page, errors } = await phone(owner);
    await page.goto(`${g.url}/trackable/${ref}`);
    await page.getByTestId("trackable-facts").getByText("held by").waitFor();
    await page.getByLabel("What happened").selectOption("drop");
    await page.getByLabel("Cache (its id or code)").fill(String(cacheA));
    await page.getByRole("button", { name: "Log it" }).click();
    await page.locator("[data-testid=moves] li[data-kind=drop]").waitFor();
    await page.getByTestId("trackable-facts").getByText("Mill pond box").waitFor();
    await page.goto(`${g.url}/cache/${cacheA}`);
    await page.getByTestId("cache-trackables").getByText("Rubber duck").waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("a finder scans the tag: the code is filled in and kept out of the address bar; a retrieve puts it in their hands, then a drop elsewhere draws the journey", async () => {
    const { ctx, page, errors } = await phone(finder);
    await page.goto(g.url + qrTarget);
    await page.getByLabel("Tracking code (on the tag)").waitFor();
    expect(await page.getByLabel("Tracking code (on the tag)").inputValue()).toBe(code);
    expect(page.url()).not.toContain(code);
    expect(await page.getByLabel("What happened").inputValue()).toBe("retrieve");
    await page.getByRole("button", { name: "Log it" }).click();
    await page.getByTestId("trackable-facts").getByText("held by N0FND-7").waitFor();
    await page.getByLabel("What happened").selectOption("drop");
    await page.getByLabel("Cache (its id or code)").fill(String(cacheB));
    await page.getByRole("button", { name: "Log it" }).click();
    await page.locator("[data-testid=moves] li[data-kind=drop]").nth(1).waitFor();
    // two caches about 3 km apart: the distance and a track on the map
    const distance = (await page.getByTestId("trackable-distance").textContent())!;
    expect(distance).toMatch(/^[34]\.\d km$/);
    await page.getByTestId("page-map").locator("path.leaflet-interactive").first().waitFor();
    expect(await page.locator("[data-testid=moves] li").count()).toBe(3);
    expect(await fits(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "trackable-360.png"), fullPage: true });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("a wrong code is refused in words and logs nothing; My trackables lists what each one owns and holds", async () => {
    const { ctx, page } = await phone(other);
    await page.goto(`${g.url}/trackable/${ref}`);
    await page.getByLabel("Tracking code (on the tag)").fill("WRONG234");
    await page.getByRole("button", { name: "Log it" }).click();
    await page.getByRole("alert").waitFor();
    expect(await page.getByRole("alert").textContent()).toMatch(/code/i);
    expect(await page.locator("[data-testid=moves] li").count()).toBe(3);
    await ctx.close();

    const mine = await phone(owner);
    await mine.page.goto(`${g.url}/trackables`);
    await mine.page.getByTestId("trackable-list").getByText("Rubber duck").waitFor();
    // the two lists load on their own: wait for the held one to answer before counting it
    await mine.page.getByText("None in your hands.").waitFor();
    expect(await mine.page.getByText("None in your hands.").count()).toBe(1);
    await mine.ctx.close();
    // the server answers the app's trackable pages as pages that exist, and an unknown one as 404
    const navigate = async (path: string) => (await g.get(path, { headers: { accept: "text/html" } })).status;
    expect(await navigate(`/trackable/${ref}`)).toBe(200);
    expect(await navigate(`/trackable/${ref.toLowerCase()}/tag`)).toBe(200);
    expect(await navigate("/trackable/SVTNOPE00")).toBe(404);
    expect(await navigate("/trackables")).toBe(200);
  }, 30_000);
});
