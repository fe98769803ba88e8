/**
 * Maintenance in the web app at 360 px (issue 29 item 6): the owner disables
 * and enables their cache from the log form, which offers only the kinds
 * each user may log; a finder's needs-maintenance shows as a flag on the
 * page and a visitor reports the cache; with REVIEW=on, a reviewer publishes
 * a waiting cache from the review page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";

let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let sysop: TestUser;
const as = (u: TestUser) => ({ headers: { cookie: u.cookie } });
const json = (r: Response) => r.json() as Promise<any>;

async function hide(name: string, publish: boolean): Promise<number> {
  const r = await g.post("/api/caches", { name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 47.4, lon: 8.5 }, as(owner));
  const id = (await json(r)).id as number;
  if (publish) expect((await g.post(`/api/review/${id}/publish`, {}, as(sysop))).status).toBe(200);
  return id;
}

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", REVIEW: "on", ADMIN_CALLSIGNS: "N0SYS" });
  owner = signedInUser(g.gw, "N0MNO", { verified: true });
  finder = signedInUser(g.gw, "N0MNF", { verified: true });
  sysop = signedInUser(g.gw, "N0SYS", { verified: true });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

async function open(u: TestUser, path: string): Promise<Page> {
  const ctx = await contextFor(browser, g.url, u.cookie, PHONE);
  const page = await ctx.newPage();
  await page.goto(`${g.url}${path}`);
  return page;
}
const options = (page: Page) => page.locator("#log-kind option").allInnerTexts();

describe("maintenance on the cache page", () => {
  test("the owner disables and enables the cache from the log form", async () => {
    const id = await hide("Weir", true);
    const page = await open(owner, `/cache/${id}`);
    await page.locator("#log-kind option", { hasText: "Temporarily disable" }).waitFor({ state: "attached" });
    expect(await options(page)).toEqual(["Note", "Needs maintenance", "Needs archive", "Owner maintenance", "Temporarily disable", "Archive"]);
    await page.getByLabel("Type").selectOption("temp-disable");
    await page.getByLabel("Log", { exact: true }).fill("Flooded until spring");
    await page.getByRole("button", { name: "Post log" }).click();
    // the form asks again what may be logged: a disabled cache is enabled, not disabled
    await page.locator("#log-kind option", { hasText: "Enable" }).waitFor({ state: "attached" });
    expect((await json(await g.get(`/api/caches/${id}`))).status).toBe("disabled");
    expect(await options(page)).not.toContain("Temporarily disable");
    await page.getByTestId("logs").getByText("Flooded until spring").waitFor();
    await page.getByLabel("Type").selectOption("enable");
    await page.getByRole("button", { name: "Post log" }).click();
    await page.locator("#log-kind option", { hasText: "Temporarily disable" }).waitFor({ state: "attached" });
    expect((await json(await g.get(`/api/caches/${id}`))).status).toBe("active");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.context().close();
  });

  test("a finder's needs-maintenance flags the page; the finder's form has no owner's kinds; a report is sent", async () => {
    const id = await hide("Old oak", true);
    expect((await g.post(`/api/caches/${id}/logs`, { kind: "needs-maintenance", text: "log full" }, as(finder))).status).toBe(201);
    const page = await open(finder, `/cache/${id}`);
    await page.getByTestId("needs-maintenance").waitFor();
    await page.locator("#log-kind option", { hasText: "Needs archive" }).waitFor({ state: "attached" });
    expect(await options(page)).toEqual(["Found it", "Didn't find it", "Note", "Needs maintenance", "Needs archive"]);
    await page.getByRole("button", { name: "Report this cache" }).click();
    await page.getByLabel("What is wrong with this cache?").fill("On a private garden now");
    await page.getByRole("button", { name: "Send report" }).click();
    await page.getByText("Reported: the owner and the reviewers will see it.").waitFor();
    expect((await json(await g.get(`/api/caches/${id}/reports`, as(owner)))).reports).toEqual([
      expect.objectContaining({ call: "N0MNF", reason: "On a private garden now" }),
    ]);
    await page.context().close();
  });
});

describe("the review page", () => {
  test("a reviewer publishes a waiting cache", async () => {
    const id = await hide("Fresh one", false);
    const page = await open(sysop, "/review");
    const item = page.getByTestId("review-item").filter({ hasText: "Fresh one" });
    await item.waitFor();
    await item.getByRole("button", { name: "Publish" }).click();
    await item.waitFor({ state: "detached" });
    expect((await json(await g.get(`/api/caches/${id}`))).status).toBe("active");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.context().close();
    // anyone else is told it is for reviewers
    const other = await open(finder, "/review");
    await other
      .getByText(/reviewer/)
      .first()
      .waitFor();
    await other.context().close();
  });
});
