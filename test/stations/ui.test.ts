/** The station layer, station page and decode tool in headless Chromium. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";

let g: Running;
let browser: Browser;
beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  const now = Date.now();
  ingestLines(g.gw, [
    { line: "N0MAP-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036 on the road", heardAt: now - 60_000 },
    { line: "N0MAP-9>APRS,WIDE1-1,qAR,W1AW-10:!4238.14N/07119.83W>088/036 on the road", heardAt: now - 1000 },
    { line: "N0TEL>APRS::N0TEL    :PARM.Battery,Temp", heardAt: now - 9000 },
    { line: "N0TEL>APRS:!4100.00N/07300.00W_ weather site", heardAt: now - 9000 },
    { line: "N0TEL>APRS:T#001,120,080", heardAt: now - 8000 },
    { line: "N0TEL>APRS:T#002,125,090", heardAt: now - 7000 },
    { line: "N0TEL>APRS:_10090556c220s004g005t068h50b10132", heardAt: now - 6000 },
    { line: "N0TEL>APRS:_10090556c220s004g005t070h52b10130", heardAt: now - 5000 },
  ], { source: "aprsis" });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

describe("web app: stations", () => {
  test("the map shows heard stations with their symbols; a click draws the track", async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(g.url + "/map");
    const marker = page.locator(".aprs-icon", { hasText: "N0MAP-9" });
    await marker.waitFor({ timeout: 20_000 });
    expect(await marker.locator(".aprs-sym").getAttribute("title")).toBe("/>");
    await marker.dispatchEvent("click");
    await page.locator(".leaflet-popup-content", { hasText: "on the road" }).waitFor();
    expect(await page.locator("path.leaflet-interactive[stroke='#c05621']").count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("the station page: last position, path heard, telemetry and weather charts, raw packets", async () => {
    const page = await browser.newPage();
    await page.goto(g.url + "/station/N0TEL");
    await page.getByRole("heading", { name: "N0TEL" }).waitFor();
    await page.locator("[data-testid=packets] tr").first().waitFor();
    expect(await page.locator("[data-testid=packets] tr").count()).toBe(6);
    await page.locator(".chart canvas").nth(1).waitFor();
    expect(await page.locator(".u-title").allTextContents()).toEqual(["Telemetry", "Weather"]);
    expect(await page.locator(".chart").first().textContent()).toContain("Battery");
    expect(await page.locator("dl.facts").textContent()).toContain("41.00000, -73.00000");
    await page.close();
  });

  test("the decode tool shows the fields, or the decoder's error", async () => {
    const page = await browser.newPage();
    await page.goto(g.url + "/");
    await page.getByRole("link", { name: "Decode" }).click();
    await page.locator("textarea").fill("N0CALL>APRS::W1AW-9   :hello there{42");
    await page.getByRole("button", { name: "Decode" }).click();
    await page.locator("[data-testid=decoded]").waitFor();
    const text = await page.locator("[data-testid=decoded]").textContent();
    expect(text).toContain("hello there");
    expect(text).toContain("msgId42");
    await page.locator("textarea").fill("N0CALL>APRS:!9903.50N/07201.75W-");
    await page.getByRole("button", { name: "Decode" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("bad_position");
    await page.close();
  });
});
