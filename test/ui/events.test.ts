/**
 * Events in headless Chromium on a 360x740 phone (issue 29 item 5): the hide
 * form asks an event's day, times and time zone once the type is event; the
 * cache page says when it takes place, with its calendar file; the log form
 * offers Will Attend.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

let g: Running;
let browser: Browser;
let owner: TestUser;
let visitor: TestUser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0EVT", { verified: true });
  visitor = signedInUser(g.gw, "N0EVV", { verified: true });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

test("an owner hides an event from the form; its page says when, links its .ics and offers Will Attend", async () => {
  const day = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
  const ctx = await contextFor(browser, g.url, owner.cookie, PHONE);
  const page = await ctx.newPage();
  await page.goto(`${g.url}/hide`);
  await page.getByLabel("Name").fill("Hamfest meetup");
  await page.getByLabel("Latitude").fill("47.6");
  await page.getByLabel("Longitude").fill("8.6");
  expect(await page.getByTestId("event-fields").count()).toBe(0);
  await page.getByLabel("Type").selectOption("event");
  await page.getByLabel("Day").fill(day);
  await page.getByLabel("Starts").fill("19:30");
  await page.getByLabel("Ends").fill("22:00");
  await page.getByLabel("Time zone").fill("Europe/Zurich");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await page.getByRole("button", { name: "Hide it" }).click();
  await page.getByRole("heading", { name: "Hamfest meetup" }).waitFor();
  const when = page.getByTestId("event-when");
  expect(await when.innerText()).toContain(`${day}, 19:30–22:00 (Europe/Zurich)`);
  const id = new URL(page.url()).pathname.split("/").pop()!;
  const ics = await page.evaluate(async (href) => (await fetch(href!)).text(), await when.getByRole("link", { name: "Add to calendar" }).getAttribute("href"));
  expect(ics).toContain("BEGIN:VEVENT");
  expect(((await (await g.get(`/api/caches/${id}`)).json()) as any).event).toMatchObject({
    date: day,
    start: "19:30",
    end: "22:00",
    timeZone: "Europe/Zurich",
  });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await ctx.close();

  const other = await contextFor(browser, g.url, visitor.cookie, PHONE);
  const vp = await other.newPage();
  await vp.goto(`${g.url}/cache/${id}`);
  await vp.locator("#log-kind option", { hasText: "Will attend" }).waitFor({ state: "attached" });
  await vp.getByLabel("Type").selectOption("will-attend");
  await vp.getByRole("button", { name: "Post log" }).click();
  await vp.getByTestId("logs").getByText("Will attend").waitFor();
  await other.close();
});
