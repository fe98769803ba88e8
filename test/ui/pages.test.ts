/**
 * The station page (aprs.fi-like), the cache page (geocaching.com-like) and
 * the header search in headless Chromium, against real APRS lines ingested
 * through /ingest; each page also at 360x740 without horizontal scroll.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ingestMinuteApart } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
const SHOTS = process.env.UI_SHOTS ?? tmpDir();
let g: Running;
let browser: Browser;
let owner: TestUser;
let finder: TestUser;
let cacheId = 0;
let bulletinId = 0;
let viewCacheId = 0;
const now = Date.now();

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  owner = signedInUser(g.gw, "N0OWN", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  // A weather station with telemetry definitions, as heard from APRS-IS.
  const lines = [
    "N0WXT>APRS,TCPIP*,qAC,T2TEST::N0WXT    :PARM.Battery,Solar,Case temp,A4,A5,Door,Heater",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST::N0WXT    :UNIT.V,W,degC,,,open,on",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST::N0WXT    :EQNS.0,0.1,0,0,2,0,0,0.5,-20,0,1,0,0,1,0",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST::N0WXT    :BITS.11111111,Weather box",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST:T#001,120,010,080,000,000,00000000",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST:T#002,125,030,090,000,000,10000000",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST:@261200z4903.50N/07201.75W_220/004g005t068r000p000P000h50b10132weather station",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST:@261210z4903.50N/07201.75W_225/008g012t077r001p002P003h45b10135weather station",
    "N0WXT>APRS,TCPIP*,qAC,T2TEST:;WXOBJ    *261215z4904.00N/07202.00W_object of N0WXT",
    "N0OTH>APRS,TCPIP*,qAC,T2TEST::N0WXT    :QSL? 73{7",
  ];
  // 30 status reports: more than one page of raw packets.
  for (let k = 0; k < 30; k++) lines.push(`N0WXT>APRS,TCPIP*,qAC,T2TEST:>status ${k}`);
  // a mobile station: a track with speed, course and altitude
  lines.push(
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>088/036/A=001234 rolling",
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.54N/07119.83W>090/040/A=001250 rolling",
  );
  expect((await ingestMinuteApart(g, INGEST, lines, now)).status).toBe(200);
  const c = (await (
    await g.post(
      "/api/caches",
      { name: "Mill Pond Cache", type: "traditional", size: "small", difficulty: 2, terrain: 1.5, lat: 42.50205, lon: -71.09093, hint: "under the log" },
      { headers: { cookie: owner.cookie } },
    )
  ).json()) as { id: number };
  cacheId = c.id;
  viewCacheId = (
    (await (
      await g.post(
        "/api/caches",
        { name: "Map View Cache", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: 47.5, lon: 8.5 },
        { headers: { cookie: owner.cookie } },
      )
    ).json()) as { id: number }
  ).id;
  const b = await g.post(
    "/api/bbs/messages",
    { type: "B", to: "ALL@WW", subject: "Hamfest parking notes", body: "Park behind the hall." },
    { headers: { cookie: owner.cookie } },
  );
  expect(b.status).toBe(201);
  bulletinId = ((await b.json()) as { id: number }).id;
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g.stop();
});

const open = (user: TestUser | null, path: string, viewport = { width: 1280, height: 900 }) =>
  openPage(browser, g.url, user?.cookie, path, { viewport, acceptDownloads: true });

/** The page fits a 360 px phone: no horizontal scroll. A screenshot is kept for a person to look at. */
async function fitsPhone(page: Page, name: string) {
  await page.setViewportSize({ width: 360, height: 740 });
  await page.waitForTimeout(300);
  const w = await page.evaluate(() => document.documentElement.scrollWidth);
  await page.screenshot({ path: join(SHOTS, `${name}-360.png`), fullPage: true });
  expect({ name, scrollWidth: w, fits: w <= 360 }).toEqual({ name, scrollWidth: w, fits: true });
}

function xmllint(file: string): { code: number; err: string } {
  const p = Bun.spawnSync(["xmllint", "--noout", file], { stdout: "pipe", stderr: "pipe" });
  return { code: p.exitCode ?? -1, err: p.stderr.toString() };
}

describe("station page", () => {
  test("weather and telemetry: current readings with units, one named, unit-labelled chart per quantity, bits, objects, messages, paged raw packets", async () => {
    const { ctx, page, errors } = await open(null, "/station/N0WXT");
    await page.getByRole("heading", { name: "N0WXT", level: 1 }).waitFor();
    // current weather: metric with imperial beside it (no preference)
    const current = page.getByTestId("current-weather");
    await current.waitFor();
    const wx = await current.textContent();
    expect(wx).toContain("Temperature 25.0 °C (77 °F)");
    expect(wx).toContain("Humidity 45 %");
    expect(wx).toContain("Pressure 1013.5 hPa (29.93 inHg)");
    expect(wx).toContain("from SW (225°)");
    // one chart per quantity, titled with its unit; telemetry named by PARM, united by UNIT
    await page.locator(".chart canvas").nth(9).waitFor({ timeout: 30_000 });
    const titles = await page.locator(".chart h3").allTextContents();
    expect(titles).toEqual([
      "Temperature (°C)",
      "Pressure (hPa)",
      "Humidity (%)",
      "Wind (km/h)",
      "Wind direction (°)",
      "Rain (mm)",
      "Battery (V)",
      "Solar (W)",
      "Case temp (degC)",
      "A4",
      "A5",
    ]);
    // the wind's direction is drawn on a compass axis (points, no line across north); every time axis names the browser's zone
    expect(await page.locator(".chart[data-circular] h3").allTextContents()).toEqual(["Wind direction (°)"]);
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(new Set(await page.locator(".chart").evaluateAll((els) => els.map((e) => e.getAttribute("data-zone")?.split(",")[0])))).toEqual(new Set([zone]));
    // EQNS applied: 125 * 0.1 = 12.5 V, 30 * 2 = 60 W, 0.5 * 90 - 20 = 25 degC
    const tel = await page.getByTestId("telemetry-now").textContent();
    expect(tel).toContain("Battery 12.5 V");
    expect(tel).toContain("Solar 60 W");
    expect(tel).toContain("Case temp 25 degC");
    expect(await page.getByRole("heading", { name: "Telemetry: Weather box" }).count()).toBe(1);
    // BITS: bit 1 set (sense 1) is on, bit 2 clear is off; labelled by PARM
    const bits = await page.getByTestId("telemetry-bits").locator("li").allTextContents();
    expect(bits.slice(0, 2)).toEqual(["Door: on", "Heater: off"]);
    expect(await page.getByTestId("objects").getByRole("link", { name: "WXOBJ" }).count()).toBe(1);
    expect(await page.getByTestId("messages").textContent()).toContain("QSL? 73");
    // raw packets: 25 a page, newest first, then older ones on request
    const rows = page.locator("[data-testid=packets] tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(25);
    expect(await rows.first().locator("code").textContent()).toBe("N0WXT>APRS,TCPIP*,qAC,T2TEST:>status 29");
    await page.getByRole("button", { name: "Older packets" }).click();
    await page.waitForFunction(() => document.querySelectorAll("[data-testid=packets] tbody tr").length > 25);
    // N0WXT sent 9 definitions/telemetry/weather/object lines and 30 statuses: 39 in all
    expect(await rows.count()).toBe(39);
    expect(await rows.last().locator("code").textContent()).toContain("PARM.Battery");
    expect(await page.getByRole("button", { name: "Older packets" }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "station-1280.png"), fullPage: true });
    await fitsPhone(page, "station");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 120_000);

  test("the decode page says each field in the station page's words and units, never the decoder's names", async () => {
    const { ctx, page, errors } = await open(null, "/decode");
    const decode = async (line: string) => {
      await page.getByLabel("TNC2 line").fill(line);
      await page.getByRole("button", { name: "Decode" }).click();
      await page.getByTestId("decoded").waitFor();
      return Object.fromEntries(
        await page
          .locator("[data-testid=decoded] tr")
          .evaluateAll((rows) => rows.map((r) => [r.querySelector("th")!.textContent, r.querySelector("td")!.textContent])),
      ) as Record<string, string>;
    };
    const wx = await decode("N0WX-13>APRS,WIDE1-1,WIDE2-1,qAR,N0IG-10:@092345z4237.14N/07120.83W_090/005g010t077r000p000P000h50b10150L123.DireWolf");
    expect(wx).toMatchObject({
      From: "N0WX-13",
      "Received via": "gated from RF by an IGate N0IG-10 (qAR)",
      Temperature: "25.0 °C (77 °F)",
      Wind: "8 km/h (5 mph) from E (90°)",
      Pressure: "1015.0 hPa (29.97 inHg)",
      Position: expect.stringContaining("N 42° 37.140 W 071° 20.830"),
    });
    expect(Object.keys(wx).join(" ")).not.toMatch(/Kmh|qConstruct|windDir|tempC|\bwx\b/);
    const mic = await decode('N0M-9>T2SP0W,WIDE1-1:`c51!f?>/]"4V}=');
    expect(mic).toMatchObject({ "Position format": "Mic-E", "Mic-E status": "In Service", "Radio or software": "Kenwood TM-D710", Course: "35° NE" });
    expect(mic.Speed).toMatch(/^106 km\/h/);
    const msg = await decode("N0S>APRS::N0X      :hello{12");
    expect(msg).toMatchObject({ "Message to": "N0X", Message: "hello", "Message number": "12" });
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("a moving station: map with its track, speed, course and altitude; units by the user's preference", async () => {
    const { ctx, page, errors } = await open(null, "/station/N0MOB-9");
    const facts = page.getByTestId("station-facts");
    await facts.waitFor();
    const text = await facts.textContent();
    expect(text).toContain("Speed74 km/h (46 mph)");
    expect(text).toContain("Course90° E");
    expect(text).toContain("Altitude381 m (1250 ft)");
    expect(text).toContain("N 42° 37.540 W 071° 19.830");
    // the track: a line through both positions, and the station's marker
    await page.locator("[data-testid=page-map] path.leaflet-interactive[stroke='#c05621'][fill=none]").waitFor();
    await ctx.close();
    // a user who chose imperial units sees them alone
    const u = signedInUser(g.gw, "N0IMP", { verified: true });
    expect(
      (
        await fetch(g.url + "/api/prefs", {
          method: "PUT",
          headers: { cookie: u.cookie, "content-type": "application/json" },
          body: JSON.stringify({ units: "imperial" }),
        })
      ).status,
    ).toBe(200);
    const imp = await open(u, "/station/N0MOB-9");
    await imp.page.getByTestId("station-facts").waitFor();
    await imp.page.waitForFunction(() => document.querySelector("[data-testid=station-facts]")!.textContent!.includes("Speed46 mph"));
    expect(await imp.page.getByTestId("station-facts").textContent()).not.toContain("km/h");
    expect(errors).toEqual([]);
    await imp.ctx.close();
  }, 60_000);

  test("a station or cache that is not here: an empty state, not an error", async () => {
    const { ctx, page } = await open(null, "/station/N0NONE");
    await page.getByText("N0NONE has not been heard here").waitFor();
    expect(await page.locator(".state-error").count()).toBe(0);
    await page.goto(g.url + "/cache/999999");
    await page.getByText("No cache 999999 here").waitFor();
    expect(await page.locator(".state-error").count()).toBe(0);
    await ctx.close();
  });
});

describe("cache page", () => {
  test("the finder: map, both coordinate formats, a geo: link, a valid GPX download, and Found it", async () => {
    const { ctx, page, errors } = await open(finder, `/cache/${cacheId}`);
    await page.getByRole("heading", { name: "Mill Pond Cache" }).waitFor();
    expect(await page.getByTestId("coords-ddm").textContent()).toBe("N 42° 30.123 W 071° 05.456");
    expect(await page.getByTestId("coords-decimal").textContent()).toBe("42.502050, -71.090930");
    expect(await page.getByTestId("navigate").getAttribute("href")).toBe("geo:42.502050,-71.090930?q=42.502050,-71.090930(Mill%20Pond%20Cache)");
    await page.locator("[data-testid=page-map] path.leaflet-interactive").waitFor();
    // the log form offers Found it to a (verified) finder, and the maintenance reports (once the kinds it may log came); no owner tools
    await page.getByLabel("Type").locator("option", { hasText: "Needs maintenance" }).waitFor({ state: "attached" });
    expect(await page.getByLabel("Type").locator("option").allTextContents()).toEqual([
      "Found it",
      "Didn't find it",
      "Note",
      "Needs maintenance",
      "Needs archive",
    ]);
    expect(await page.getByTestId("owner-actions").count()).toBe(0);
    // the GPX download is a valid GPX file of this cache
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("gpx").click()]);
    const file = join(tmpDir(), "cache.gpx");
    await download.saveAs(file);
    expect(xmllint(file)).toEqual({ code: 0, err: "" });
    const gpx = await Bun.file(file).text();
    expect(gpx).toContain("<gpx");
    expect(gpx).toContain("Mill Pond Cache");
    expect(download.suggestedFilename()).toMatch(/^SV[0-9A-Z]+\.gpx$/);
    await fitsPhone(page, "cache-finder");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("the owner: edit, disable and enable, archive only after confirming; no Found it", async () => {
    const { ctx, page, errors } = await open(owner, `/cache/${cacheId}`);
    const tools = page.getByTestId("owner-actions");
    await tools.waitFor();
    // the owner logs no find; the owner's own kinds follow the status (GET /api/caches/:id/log-kinds, awaited)
    await page.getByLabel("Type").locator("option", { hasText: "Owner maintenance" }).waitFor({ state: "attached" });
    expect(await page.getByLabel("Type").locator("option").allTextContents()).toEqual([
      "Note",
      "Needs maintenance",
      "Needs archive",
      "Owner maintenance",
      "Temporarily disable",
      "Archive",
    ]);
    expect(await page.getByText("Found it").count()).toBe(0);
    const status = async () => (await (await g.get(`/api/caches/${cacheId}`)).json()) as { status: string; name: string; lat: number; lon: number };
    // edit
    await tools.getByRole("button", { name: "Edit" }).click();
    await tools.getByLabel("Name").fill("Mill Pond Cache II");
    await tools.getByLabel("Latitude").fill("42.51");
    await tools.getByRole("button", { name: "Save" }).click();
    await page.getByRole("heading", { name: "Mill Pond Cache II" }).waitFor();
    expect(await status()).toMatchObject({ name: "Mill Pond Cache II", lat: 42.51, lon: -71.09093 });
    expect(await page.getByTestId("coords-ddm").textContent()).toBe("N 42° 30.600 W 071° 05.456");
    // disable, then enable
    await tools.getByRole("button", { name: "Disable" }).click();
    await tools.getByRole("button", { name: "Enable" }).waitFor();
    expect((await status()).status).toBe("disabled");
    await tools.getByRole("button", { name: "Enable" }).click();
    await tools.getByRole("button", { name: "Disable" }).waitFor();
    expect((await status()).status).toBe("active");
    // archive asks first: cancelling changes nothing
    await tools.getByRole("button", { name: "Archive" }).click();
    const ask = page.getByRole("alertdialog", { name: "Archive this cache?" });
    await ask.waitFor();
    await fitsPhone(page, "cache-owner-confirm");
    await page.setViewportSize({ width: 1280, height: 900 });
    await ask.getByRole("button", { name: "Cancel" }).click();
    expect(await ask.count()).toBe(0);
    expect((await status()).status).toBe("active");
    await tools.getByRole("button", { name: "Archive" }).click();
    await ask.getByRole("button", { name: "Yes, archive it" }).click();
    await page.getByText("You archived this cache").waitFor();
    expect((await status()).status).toBe("archived");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("the map's GPX of this view downloads the caches in view as valid GPX", async () => {
    const far = (await (
      await g.post(
        "/api/caches",
        { name: "Far Away Cache", type: "traditional", size: "small", difficulty: 1, terrain: 1, lat: -33.9, lon: 151.2 },
        { headers: { cookie: owner.cookie } },
      )
    ).json()) as { id: number };
    expect(far.id).toBeGreaterThan(0);
    const { ctx, page, errors } = await open(null, "/map?lat=47.5&lon=8.5&z=10");
    const link = page.getByRole("link", { name: "GPX of this view" });
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    const file = join(tmpDir(), "view.gpx");
    await download.saveAs(file);
    expect(xmllint(file)).toEqual({ code: 0, err: "" });
    const gpx = await Bun.file(file).text();
    expect(gpx).toContain("Map View Cache");
    expect(gpx).not.toContain("Far Away Cache");
    await fitsPhone(page, "map");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});

describe("header search", () => {
  test("finds a station, a cache and a bulletin with the keyboard alone", async () => {
    const { ctx, page, errors } = await open(null, "/about");
    await page.getByRole("heading").first().waitFor();
    const box = page.getByRole("combobox", { name: /Search/ });
    const pick = async (text: string, option: string) => {
      await page.keyboard.press("/");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("combobox");
      await page.keyboard.type(text);
      const opt = page.getByRole("listbox").getByRole("option", { name: option });
      await opt.waitFor({ timeout: 10_000 }).catch(async (e) => {
        await page.screenshot({ path: join(SHOTS, "search-fail.png") });
        console.log(await page.locator(".search").innerHTML());
        throw e;
      });
      // arrow down to the wanted option: it becomes the active descendant
      for (let k = 0; k < 12; k++) {
        await page.keyboard.press("ArrowDown");
        if ((await opt.getAttribute("aria-selected")) === "true") break;
      }
      expect(await box.getAttribute("aria-activedescendant")).toBe(await opt.getAttribute("id"));
      await page.keyboard.press("Enter");
    };
    await pick("N0WXT", "N0WXT");
    await page.waitForURL(`${g.url}/station/N0WXT`);
    await page.getByRole("heading", { name: "N0WXT", level: 1 }).waitFor();
    await pick("map view", "Map View Cache");
    await page.waitForURL(`${g.url}/cache/${viewCacheId}`);
    await page.getByRole("heading", { name: "Map View Cache" }).waitFor();
    await pick("hamfest", "Hamfest parking notes");
    await page.waitForURL(`${g.url}/bbs/msg/${bulletinId}`);
    await page.getByText("Park behind the hall.").waitFor();
    // Escape closes the list, a second Escape clears the box
    await page.keyboard.press("/");
    await page.keyboard.type("zzzz-nothing");
    await page
      .getByText("Nothing found for “zzzz-nothing”")
      .waitFor({ timeout: 10_000 })
      .catch(async (e) => {
        await page.screenshot({ path: join(SHOTS, "search-fail.png") });
        console.log(await page.evaluate(() => document.activeElement?.outerHTML), await page.locator(".search").innerHTML());
        throw e;
      });
    expect(await box.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Escape");
    expect(await box.getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("Escape");
    expect(await box.inputValue()).toBe("");
    // the open list fits a phone
    await page.setViewportSize({ width: 360, height: 740 });
    await page.keyboard.type("N0");
    await page.getByRole("listbox").getByRole("option").first().waitFor();
    await fitsPhone(page, "search-open");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);
});
