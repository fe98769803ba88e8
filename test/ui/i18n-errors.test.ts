/**
 * The server's refusals in the reader's language, in headless Chromium at
 * 360 px against the real server: the web app shows the words of the stable
 * `error` code (ui/i18n `errors`) rather than the server's English `message`.
 * A German browser types a wrong tracking code and reads the refusal in
 * German, as does a Spanish one; a trackable that is not there is "not found"
 * in German in the page's could-not-load line; a code the app has no words
 * for shows the server's own message; an English browser still reads the
 * server's message, which names the case at hand.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, PHONE } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";

let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let ref = "";

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  const made = await g.post("/api/trackables", { name: "Gummiente" }, { headers: { cookie: owner.cookie } });
  expect(made.status).toBe(201);
  ref = ((await made.json()) as { ref: string }).ref;
  browser = await launchBrowser();
}, 120_000);

afterAll(() => stopAll(browser, g));

/** A phone whose browser speaks `locale`, on `path`. */
const open = (locale: string, path: string, user: TestUser | null) => openPage(browser, g.url, user?.cookie ?? null, path, { ...PHONE, locale });

/** Grabs the trackable with a wrong code from its page's form; the refusal's words. */
async function wrongCode(page: Page): Promise<string> {
  const form = page.locator("form[aria-labelledby=log-move]");
  await form.locator("input").first().fill("WRONG234");
  await form.locator("button[type=submit]").click();
  const alert = form.getByRole("alert");
  await alert.waitFor();
  return (await alert.textContent()) ?? "";
}

describe("the server's refusals in the reader's language", () => {
  test("a German browser types a wrong tracking code and reads the refusal in German", async () => {
    const { ctx, page, errors } = await open("de-DE", `/trackable/${ref}`, finder);
    expect(await wrongCode(page)).toBe("Das ist nicht der Tracking-Code dieses Trackables.");
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= 360)).toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("a Spanish browser reads it in Spanish, an English one the server's own message", async () => {
    const es = await open("es-ES", `/trackable/${ref}`, finder);
    expect(await wrongCode(es.page)).toBe("Ese no es el código de seguimiento de este rastreable.");
    await es.ctx.close();
    const en = await open("en-US", `/trackable/${ref}`, finder);
    expect(await wrongCode(en.page)).toBe("that is not this trackable's tracking code");
    await en.ctx.close();
  }, 30_000);

  test("a trackable that is not there is not found, in German", async () => {
    const { ctx, page } = await open("de-DE", "/trackable/TB0NOPE", null);
    const failed = page.getByRole("alert");
    await failed.waitFor();
    expect(await failed.textContent()).toContain("Nicht gefunden: Vielleicht wurde es entfernt, oder die Adresse stimmt nicht.");
    expect(await failed.textContent()).not.toContain("not found");
    await ctx.close();
  }, 30_000);

  test("a code the app has no words for shows the server's message", async () => {
    // the packet decoder's reasons (an APRS decoder's codes) are the server's alone
    const { ctx, page } = await open("de-DE", "/decode", null);
    await page.locator("textarea[name=line]").fill("no header here");
    await page.locator("form button[type=submit]").click();
    const alert = page.getByRole("alert");
    await alert.waitFor();
    const answer = await g.post("/api/decode", "no header here", { headers: { "content-type": "text/plain" } });
    const body = (await answer.json()) as { error: string; message: string };
    expect(await alert.textContent()).toBe(`${body.error}: ${body.message}`);
    await ctx.close();
  }, 30_000);
});
