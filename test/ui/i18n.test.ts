/**
 * Languages and units in headless Chromium at 360 px, against the real
 * server: a browser in German sees German navigation and a German date; the
 * picker in the menu switches to Spanish, which a reload keeps; nautical
 * units show the station's track in NM and its speed in knots. (The English
 * fallback for a key a file lacks: test/ui/i18n-format.test.ts, on the real files.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, PHONE } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { ingestMinuteApart } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  const now = Date.now();
  const lines = [
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036/A=001234 rolling",
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.54N/07119.83W>090/040/A=001250 rolling",
  ];
  const r = await ingestMinuteApart(g, INGEST, lines, now);
  expect(r.status).toBe(200);
  browser = await launchBrowser();
}, 60_000);

afterAll(() => stopAll(browser, g));

/** A phone whose browser speaks `locale`, on `path`. */
const open = (locale: string, path: string, cookie: string | null = null) => openPage(browser, g.url, cookie, path, { ...PHONE, locale });

const facts = (page: Page) => page.getByTestId("station-facts");

describe("languages and units", () => {
  test("a browser in German sees German navigation and a German date", async () => {
    const { ctx, page, errors } = await open("de-DE", "/station/N0MOB-9");
    await facts(page).getByText("Geschwindigkeit").waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("de");
    await page.getByRole("button", { name: "Menü" }).click();
    const nav = page.getByRole("navigation");
    await nav.getByRole("link", { name: "Karte" }).waitFor();
    expect(await nav.getByRole("link", { name: "Konto" }).count()).toBe(1);
    // last heard: German words, and the full date as German writes it (27.11.2026, 16:03:12)
    const heard = facts(page).locator("time");
    expect(await heard.textContent()).toMatch(/^vor \d+ min$/);
    expect(await heard.getAttribute("title")).toMatch(/^\d{1,2}\.\d{1,2}\.\d{4}, \d{2}:\d{2}:\d{2}$/);
    // units until one is chosen: metric with imperial beside, in German numbers
    expect(await facts(page).textContent()).toContain("74 km/h (46 mph)");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("the menu's picker switches to Spanish, and a reload keeps it", async () => {
    const { ctx, page, errors } = await open("en-US", "/about");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
    await page.getByTestId("language-select").selectOption("es");
    // the page draws again in Spanish, the menu still open
    await page.getByRole("navigation").getByRole("link", { name: "Mapa" }).waitFor();
    expect(await page.getByRole("button", { name: "Menú" }).getAttribute("aria-expanded")).toBe("true");
    await page.getByRole("heading", { name: "Acerca de este gateway" }).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("es");
    await page.reload();
    await page.getByRole("button", { name: "Menú" }).click();
    await page.getByRole("navigation").getByRole("link", { name: "Cuenta" }).waitFor();
    expect(await page.getByTestId("language-select").inputValue()).toBe("es");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("nautical units: the station's track in NM and its speed in knots", async () => {
    const { ctx, page, errors } = await open("en-GB", "/station/N0MOB-9");
    await facts(page).getByText("Speed").waitFor();
    expect(await page.getByTestId("track-length").textContent()).toBe("1.6 km over 2 positions");
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByTestId("units-select").selectOption("nautical");
    await page.getByTestId("track-length").getByText("NM").waitFor();
    expect(await page.getByTestId("track-length").textContent()).toBe("0.84 NM over 2 positions");
    expect(await facts(page).textContent()).toContain("Speed40 kn");
    expect(await facts(page).textContent()).not.toContain("km/h");
    await page.reload();
    await page.getByTestId("track-length").getByText("0.84 NM").waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("signed in, the account page's choice is saved with the account and follows it to another device", async () => {
    const u = signedInUser(g.gw, "N0LNG", { verified: true });
    const first = await open("en-US", "/account", u.cookie);
    await first.page.getByRole("heading", { name: "Language and units" }).waitFor();
    await first.page.getByTestId("language-select").selectOption("de");
    await first.page.getByRole("heading", { name: "Sprache und Einheiten" }).waitFor();
    await first.page.getByTestId("units-select").selectOption("nautical");
    const saved = async () => ((await (await g.get("/api/prefs", { headers: { cookie: u.cookie } })).json()) as { prefs: Record<string, unknown> }).prefs;
    for (let i = 0; i < 50 && (await saved()).units !== "nautical"; i++) await Bun.sleep(100);
    expect(await saved()).toMatchObject({ lang: "de", units: "nautical" });
    expect(first.errors).toEqual([]);
    await first.ctx.close();
    // another browser, in English, with nothing chosen in it: the account's choice
    const other = await open("en-US", "/station/N0MOB-9", u.cookie);
    await facts(other.page).getByText("Geschwindigkeit").waitFor();
    expect(await facts(other.page).textContent()).toContain("40 kn");
    expect(other.errors).toEqual([]);
    await other.ctx.close();
  });
});
