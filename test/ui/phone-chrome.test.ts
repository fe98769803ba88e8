/**
 * The phone (360x740) in Chromium against a real gateway: on the map the
 * "tiles are offline" banner can be dismissed and nothing laid over the map
 * covers it, and the chrome (header, banners, controls over the map) covers
 * at most 15 % of the screen; on the Radio page (a fake TNC port, a hub
 * client connected) and the BBS forwarding page the tables become cards, so
 * every button and cell is on the screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import type { Running } from "../helpers/gateway.ts";
import { stationWithClients, type Station } from "../helpers/station.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { ROOT } from "../helpers/paths.ts";
import { createPartner, createRule } from "../../src/bbs/partners.ts";

const SHOTS = join(ROOT, "test-artifacts", "phone");
const W = 360;
const H = 740;
let station: Station;
let g: Running;
let browser: Browser;
let sysop: TestUser;
let user: TestUser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  station = await stationWithClients({ BBS_HA: "N0GW.#TST.USA.NOAM" });
  g = station.g;
  createPartner(g.gw, { call: "N0FWD", transport: "tcp", host: "bbs.n0fwd-with-a-long-name.example.org", port: 6300, timeBands: ["22:00-06:00"] });
  createRule(g.gw, { partner: "N0FWD", field: "at", pattern: "NOAM", types: "PB", priority: 10 });
  sysop = signedInUser(g.gw, "N0OPS", { verified: true });
  user = signedInUser(g.gw, "N0USR-7", { verified: true });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await station?.stop();
});

async function phone(cookie?: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: W, height: H }, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
  if (cookie) {
    const [name, value] = cookie.split("=");
    await ctx.addCookies([{ name: name!, value: value!, url: g.url }]);
  }
  return ctx;
}

/**
 * The chrome over the map: the header, the map's controls and notices and
 * every visible fixed, absolute or sticky element outside the map's own panes
 * (tiles, markers) and the clear layout boxes, as boxes
 * clipped to the viewport; the fraction of the viewport their union covers,
 * counted on a 2 px grid.
 */
function chrome(page: Page): Promise<{ fraction: number; boxes: string[] }> {
  return page.evaluate(
    ([w, h]) => {
      const rects: DOMRect[] = [];
      const names: string[] = [];
      const take = (e: Element) => {
        const r = e.getBoundingClientRect();
        const s = getComputedStyle(e);
        if (r.width < 1 || r.height < 1 || s.visibility === "hidden" || s.display === "none" || Number(s.opacity) === 0) return;
        if (r.right <= 0 || r.bottom <= 0 || r.left >= w || r.top >= h) return;
        rects.push(r);
        names.push(
          `${e.tagName.toLowerCase()}.${[...e.classList].join(".")} ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}`,
        );
      };
      const header = document.querySelector("body > header, #app > header, header");
      if (header) take(header);
      for (const e of document.querySelectorAll(".map-top > *, .leaflet-control")) take(e);
      for (const e of document.querySelectorAll("body *")) {
        if (e.closest(".leaflet-pane") || e.closest("header")) continue;
        const pos = getComputedStyle(e).position;
        if (pos !== "fixed" && pos !== "absolute" && pos !== "sticky") continue;
        // the map, and the clear boxes that only lay out their children (taps pass through them)
        if (e.matches(".map, .map-top, .leaflet-control-container, .leaflet-top, .leaflet-bottom")) continue;
        take(e);
      }
      let covered = 0;
      let all = 0;
      for (let y = 1; y < h; y += 2)
        for (let x = 1; x < w; x += 2) {
          all++;
          if (rects.some((r) => x >= r.left && x < r.right && y >= r.top && y < r.bottom)) covered++;
        }
      return { fraction: covered / all, boxes: names };
    },
    [W, H] as const,
  );
}

/** Buttons and cells of `selector` whose right edge is past the screen. */
function offScreen(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(
    ([sel, w]) => {
      const out: string[] = [];
      for (const e of document.querySelectorAll(`${sel} td, ${sel} th, ${sel} button`)) {
        const r = e.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > w + 0.5 || r.left < -0.5)
          out.push(`${e.tagName} "${(e.textContent ?? "").trim().slice(0, 30)}" ${Math.round(r.left)}..${Math.round(r.right)}`);
      }
      return out;
    },
    [selector, W] as const,
  );
}

describe("the phone's map", () => {
  test("the offline-tiles banner is dismissed for the session, nothing covers it, and chrome is at most 15 % of the screen", async () => {
    const ctx = await phone(sysop.cookie);
    const page = await ctx.newPage();
    await page.goto(g.url + "/map");
    const banner = page.getByTestId("tiles-banner");
    await banner.waitFor();
    await page.getByRole("button", { name: "Map tools" }).waitFor();
    await page.screenshot({ path: join(SHOTS, "phone-map-chrome.png") });
    // nothing laid over the map sits on the banner
    const over = await page.evaluate(() => {
      const b = document.querySelector('[data-testid="tiles-banner"]')!.getBoundingClientRect();
      const hits: string[] = [];
      for (let y = b.top + 2; y < b.bottom - 1; y += 4)
        for (let x = b.left + 2; x < b.right - 1; x += 4) {
          const e = document.elementFromPoint(x, y);
          // the map's own panes are under the banner; anything else on top covers it
          if (e && !e.closest('[data-testid="tiles-banner"]') && !e.matches(".map") && !e.closest(".leaflet-pane"))
            hits.push(`${e.tagName}.${e.className} at ${Math.round(x)},${Math.round(y)}`);
        }
      return hits.slice(0, 5);
    });
    const withWelcome = await chrome(page);
    console.log(`chrome with the banner and the operator's welcome: ${(withWelcome.fraction * 100).toFixed(1)} % (${withWelcome.boxes.join("; ")})`);
    expect(over).toEqual([]);
    expect(await page.getByTestId("welcome").isVisible()).toBe(true);
    // the welcome is the newcomer's, once: without it the chrome is at most 15 %
    await page.getByRole("button", { name: "Dismiss the welcome" }).click();
    await page.getByTestId("welcome").waitFor({ state: "detached" });
    const before = await chrome(page);
    console.log(`chrome with the banner: ${(before.fraction * 100).toFixed(1)} % (${before.boxes.join("; ")})`);
    expect(before.fraction).toBeLessThanOrEqual(0.15);
    await banner.getByRole("button", { name: "Dismiss this notice" }).click();
    await banner.waitFor({ state: "detached" });
    const after = await chrome(page);
    console.log(`chrome without it: ${(after.fraction * 100).toFixed(1)} %`);
    expect(after.fraction).toBeLessThan(before.fraction);
    // the tools open on a tap, and then sit clear of the notices
    await page.getByRole("button", { name: "Map tools" }).click();
    expect(await page.getByRole("button", { name: "Save view" }).isVisible()).toBe(true);
    // remembered for the session: another visit to the map does not show it
    await page.reload();
    await page.getByRole("button", { name: "Map tools" }).waitFor();
    expect(await page.getByTestId("tiles-banner").count()).toBe(0);
    await ctx.close();
    // a new session shows it again
    const fresh = await phone(user.cookie);
    const p2 = await fresh.newPage();
    await p2.goto(g.url + "/map");
    await p2.getByTestId("tiles-banner").waitFor();
    await fresh.close();
  }, 30_000);
});

describe("tables on the phone are cards", () => {
  test("the Radio page's ports and hub clients and the forwarding page's partners and rules sit inside 360 px", async () => {
    const ctx = await phone(sysop.cookie);
    const page = await ctx.newPage();
    await page.goto(g.url + "/radio");
    await page.locator('[data-testid="ports"] tr[data-port]').first().waitFor();
    const client = page.getByTestId("hub").locator('[data-server="aprsis-server"] tr[data-client]');
    await client.waitFor();
    expect(await client.getByRole("button", { name: "disconnect" }).isVisible()).toBe(true);
    // captions name each cell
    expect(await page.locator('[data-testid="ports"] td[data-label="state"]').first().isVisible()).toBe(true);
    expect(await offScreen(page, '[data-testid="ports"]')).toEqual([]);
    expect(await offScreen(page, '[data-testid="hub-clients"]')).toEqual([]);
    await page.goto(g.url + "/sysop/bbs");
    await page.locator('[data-testid="partners"] tbody tr').first().waitFor();
    await page.locator('[data-testid="rules"] tbody tr').first().waitFor();
    expect(await offScreen(page, '[data-testid="partners"]')).toEqual([]);
    expect(await offScreen(page, '[data-testid="rules"]')).toEqual([]);
    expect(await page.getByRole("button", { name: "Forward now" }).isVisible()).toBe(true);
    await ctx.close();
    // positive control: a wide desktop-style table would be caught
    const c2 = await phone();
    const p2 = await c2.newPage();
    await p2.setContent(`<table id="t" style="width:600px"><tr><td>a</td><td><button>far</button></td></tr></table>`);
    expect((await offScreen(p2, "#t")).length).toBeGreaterThan(0);
    await c2.close();
  }, 30_000);
});
