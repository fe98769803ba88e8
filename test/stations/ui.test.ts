/** The station layer, station page and decode tool in headless Chromium. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { ingestLines } from "../../src/stations/ingest.ts";
import { signedInUser } from "../helpers/accounts.ts";

let g: Running;
let browser: Browser;
beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off" });
  const now = Date.now();
  ingestLines(
    g.gw,
    [
      { line: "N0MAP-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036 on the road", heardAt: now - 60_000 },
      { line: "N0MAP-9>APRS,WIDE1-1,qAR,W1AW-10:!4238.14N/07119.83W>088/036 on the road", heardAt: now - 1000 },
      { line: "N0TEL>APRS::N0TEL    :PARM.Battery,Temp", heardAt: now - 9000 },
      { line: "N0TEL>APRS:!4100.00N/07300.00W_ weather site", heardAt: now - 9000 },
      { line: "N0TEL>APRS:T#001,120,080", heardAt: now - 8000 },
      { line: "N0TEL>APRS:T#002,125,090", heardAt: now - 7000 },
      { line: "N0TEL>APRS:_10090556c220s004g005t068h50b10132", heardAt: now - 6000 },
      { line: "N0TEL>APRS:_10090556c220s004g005t070h52b10130", heardAt: now - 5000 },
    ],
    { source: "aprsis" },
  );
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
    // zoomed in far enough that the two stations are apart (at world zoom they are one group)
    await page.goto(g.url + "/map?lat=42&lon=-72&z=7");
    const marker = page.locator(".aprs-icon", { hasText: "N0MAP-9" });
    await marker.waitFor({ timeout: 20_000 });
    expect(await marker.locator(".aprs-sym").getAttribute("data-symbol")).toBe("/>");
    expect(await marker.locator(".aprs-sym svg").getAttribute("aria-label")).toBe("Car");
    await marker.dispatchEvent("click");
    await page.locator(".leaflet-popup-content", { hasText: "on the road" }).waitFor();
    expect(await page.locator("path.leaflet-interactive[stroke='#c05621']").count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  test("the station page: last position, path heard, weather and telemetry on separate charts, raw packets", async () => {
    const page = await browser.newPage();
    await page.goto(g.url + "/station/N0TEL");
    await page.getByRole("heading", { name: "N0TEL" }).waitFor();
    await page.locator("[data-testid=packets] tbody tr").first().waitFor();
    expect(await page.locator("[data-testid=packets] tbody tr").count()).toBe(6);
    expect(await page.locator("[data-testid=heard] li").count()).toBe(6);
    // weather quantities and each telemetry channel have their own chart: pressure no longer flattens temperature
    await page.locator(".chart canvas").nth(5).waitFor();
    expect(await page.locator(".chart h3").allTextContents()).toEqual([
      "Temperature (°C)",
      "Pressure (hPa)",
      "Humidity (%)",
      "Wind (km/h)",
      "Wind direction (°)",
      "Battery",
      "Temp",
    ]);
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
    expect(text).toContain("Message number42");
    expect(text).not.toContain("msgId");
    await page.locator("textarea").fill("N0CALL>APRS:!9903.50N/07201.75W-");
    await page.getByRole("button", { name: "Decode" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("bad_position");
    await page.close();
  });

  test("the account page: add a weather station, get its key and upload settings, push with them, turn on transmit and a living cache", async () => {
    const u = signedInUser(g.gw, "N0UI", { verified: true });
    const context = await browser.newContext();
    await context.addCookies([{ name: "svc_session", value: u.cookie.split("=")[1]!, url: g.url }]);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(g.url + "/account");
    const section = page.locator("section[aria-labelledby=stations]");
    await section.waitFor();
    expect(await section.getByLabel("Station callsign").inputValue()).toBe("N0UI-13");
    await section.getByLabel("Station label").fill("roof");
    await section.getByLabel("Latitude").fill("42.5");
    await section.getByLabel("Longitude").fill("-71.25");
    await section.getByRole("button", { name: "Add station" }).click();
    const row = section.locator("tr[data-call='N0UI-13']");
    await row.waitFor();
    await row.getByRole("button", { name: "Get a key" }).click();
    const shown = section.getByTestId("wx-key");
    await shown.waitFor();
    const key = (await shown.locator("code.key").first().textContent())!;
    expect(key).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const wu = (await shown.locator("code.key").nth(1).textContent())!;
    expect(wu).toBe(`${g.url}/updateweatherstation?ID=N0UI-13&PASSWORD=${key}`);
    // The settings as shown work, the way a WU client uses them.
    expect(await (await fetch(`${wu}&tempf=59&humidity=70&dateutc=now`)).text()).toBe("success\n");
    expect(await (await g.get("/api/stations/N0UI-13")).json()).toMatchObject({ lat: 42.5, lon: -71.25, wx: { tempC: 15, humidityPct: 70 } });
    // Each box shows ticked once the server has taken it.
    await section.getByLabel("Transmit N0UI-13's weather as APRS").click();
    await section.locator('[aria-label="Transmit N0UI-13\'s weather as APRS"]:checked:enabled').waitFor();
    await section.getByLabel("N0UI-13 is a living cache").click();
    await section.locator("[aria-label='N0UI-13 is a living cache']:checked:enabled").waitFor();
    await page.reload();
    await section.locator("tr[data-call='N0UI-13']").waitFor();
    expect(await section.getByLabel("Transmit N0UI-13's weather as APRS").isChecked()).toBe(true);
    expect(await section.getByLabel("N0UI-13 is a living cache").isChecked()).toBe(true);
    expect(await section.getByTestId("wx-key").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
