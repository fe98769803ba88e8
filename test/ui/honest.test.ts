/**
 * The web app tells the truth and asks before it destroys, in headless
 * Chromium: operator pages only in an operator's menu; times relative with
 * the full date on hover; BBS Kill confirms and is not offered signed out;
 * e-mail sign-in says "we sent a link" only when SMTP sent it; the home map
 * reopens where the visitor last looked; the Live panel folds on a phone and
 * the open menu is above the zoom buttons; Hide takes degrees-and-minutes
 * coordinates and draws its own pin; lists say loading, empty and error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts");
let g: Running;
let smtp: SmtpSink;
let browser: Browser;
let user: TestUser;
let sysop: TestUser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  smtp = await startSmtpSink();
  g = await startInProcess({ TILE_URL: "off", ADMIN_CALLSIGNS: "N0OPS", BBS_HA: "N0GW.#TST.USA.NOAM", SMTP_URL: smtp.url, MAIL_FROM: "gw@example.org" });
  user = signedInUser(g.gw, "N0USR", { verified: true });
  sysop = signedInUser(g.gw, "N0OPS", { verified: true });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await g?.stop();
  await smtp?.stop();
});

const open = (who: TestUser | null, path: string, viewport = { width: 1280, height: 900 }) => openPage(browser, g.url, who?.cookie, path, { viewport });

const menu = async (page: Page) => {
  await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor();
  await page.waitForLoadState("networkidle");
  return page.getByRole("navigation").getByRole("link").allTextContents();
};

describe("web app: honest and careful", () => {
  test("Peers and Forwarding are in the operator's menu only", async () => {
    for (const who of [null, user]) {
      const { ctx, page } = await open(who, "/about");
      const links = await menu(page);
      expect(links).toContain("BBS");
      expect(links).not.toContain("Peers");
      expect(links).not.toContain("Forwarding");
      await ctx.close();
    }
    const { ctx, page } = await open(sysop, "/about");
    await page.getByRole("navigation").getByRole("link", { name: "Peers" }).waitFor();
    expect(await menu(page)).toEqual(expect.arrayContaining(["Peers", "Forwarding", "BBS"]));
    await ctx.close();
  });

  test("lists say loading, empty and error; times are relative with the full date on hover", async () => {
    // empty: a fresh instance has no finds and no activity
    let { ctx, page } = await open(null, "/leaderboard");
    await page.locator('[data-state="empty"]', { hasText: "No finds logged yet." }).waitFor();
    await ctx.close();
    // error: the activity cannot be fetched
    ({ ctx, page } = await open(null, "/about"));
    await page.route("**/api/activity", (r) =>
      r.fulfill({ status: 503, contentType: "application/json", body: '{"error":"not_ready","message":"the database does not answer"}' }),
    );
    await page.getByRole("navigation").getByRole("link", { name: "Activity" }).click();
    expect(await page.locator('[data-state="error"]').textContent()).toBe("Could not load the activity: the database does not answer");
    await ctx.close();
    // content, with a relative time; no empty or error message beside it
    const c = await g.post(
      "/api/caches",
      { name: "Mill pond", type: "traditional", size: "small", difficulty: 2, terrain: 2, lat: 42.6, lon: -71.3 },
      { headers: { cookie: user.cookie } },
    );
    expect(c.status).toBe(201);
    ({ ctx, page } = await open(null, "/activity"));
    const item = page.getByTestId("activity").locator("li", { hasText: "Mill pond" });
    await item.waitFor();
    const time = item.locator("time");
    expect(await time.textContent()).toMatch(/^(just now|\d+ s ago)$/);
    const title = (await time.getAttribute("title"))!;
    expect(title).toMatch(/\d{4}/); // the full date
    expect(new Date((await time.getAttribute("datetime"))!).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await page.locator("[data-state]").count()).toBe(0);
    await ctx.close();
  });

  test("BBS Kill: not offered signed out; asks first, and Cancel keeps the message", async () => {
    const r = await g.post("/api/bbs/messages", { type: "P", to: "N0OPS", subject: "Delete me maybe", body: "Hello" }, { headers: { cookie: user.cookie } });
    expect(r.status).toBe(201);
    const b = await g.post("/api/bbs/messages", { type: "B", to: "ALL@WW", subject: "Open bulletin", body: "For all" }, { headers: { cookie: user.cookie } });
    const bid = ((await b.json()) as { id: number }).id;
    const id = ((await r.json()) as { id: number }).id;
    // a signed-out visitor reads the bulletin, can reply (sign-in follows), is not offered Kill
    let { ctx, page } = await open(null, `/bbs/msg/${bid}`);
    await page.getByRole("heading", { name: "Open bulletin" }).waitFor();
    await page.waitForLoadState("networkidle");
    // a private reply to its author and, separately, one to its whole distribution
    expect(await page.getByRole("link", { name: /^Reply to (?!all)/ }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Reply to all at ALL@WW" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Kill" }).count()).toBe(0);
    await ctx.close();

    ({ ctx, page } = await open(sysop, `/bbs/msg/${id}`));
    const kill = page.getByRole("button", { name: "Kill" });
    await kill.waitFor();
    const asked: string[] = [];
    page.once("dialog", (d) => {
      asked.push(d.message());
      void d.dismiss();
    });
    await kill.click();
    expect(asked[0]).toContain('Kill "Delete me maybe"');
    await page.waitForTimeout(500);
    expect((await g.get(`/api/bbs/messages/${id}`, { headers: { cookie: sysop.cookie } })).status).toBe(200);
    page.once("dialog", (d) => void d.accept());
    await kill.click();
    await page.waitForURL(g.url + "/bbs");
    expect((await g.get(`/api/bbs/messages/${id}`, { headers: { cookie: sysop.cookie } })).status).toBe(404);
    await ctx.close();
  });

  test("e-mail sign-in with a mail server says the link was sent, and it was", async () => {
    const { ctx, page } = await open(null, "/account");
    await page.getByLabel("E-mail address").fill("mailer@example.org");
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByText("We sent a link and a code to").waitFor();
    expect(await page.getByTestId("mail-in-log").count()).toBe(0);
    const mail = await smtp.next("mailer@example.org");
    const code = /\b(\d{6})\b/.exec(mail.subject)![1]!;
    await page.getByLabel("Code from the e-mail").fill(code);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    await ctx.close();
  });

  test("the home map reopens where this browser last looked; a fresh browser gets the world", async () => {
    const { ctx, page } = await open(null, "/");
    const scale = page.locator(".leaflet-control-scale-line");
    await scale.waitFor();
    const world = await scale.textContent();
    for (let i = 0; i < 4; i++) {
      await page.locator(".leaflet-control-zoom-in").click();
      await page.waitForTimeout(400);
    }
    const near = await scale.textContent();
    expect(near).not.toBe(world);
    await page.waitForFunction(() => localStorage.getItem("svc.map.lastView")?.includes('"z":6'));
    await page.reload();
    await scale.waitFor();
    await page.waitForTimeout(300);
    expect(await scale.textContent()).toBe(near);
    await ctx.close();
    const fresh = await open(null, "/");
    await fresh.page.locator(".leaflet-control-scale-line").waitFor();
    expect(await fresh.page.locator(".leaflet-control-scale-line").textContent()).toBe(world);
    await fresh.ctx.close();
  });

  test("on a phone the Live panel starts folded and opens; the open menu is above the map's controls", async () => {
    const { ctx, page } = await open(null, "/map", { width: 390, height: 844 });
    const panel = page.getByTestId("live-feed");
    await panel.waitFor();
    expect(await panel.getAttribute("class")).toContain("folded");
    const foldedHeight = (await panel.boundingBox())!.height;
    await page.getByRole("button", { name: "Show live activity" }).click();
    expect(await panel.getAttribute("class")).not.toContain("folded");
    await page.getByRole("button", { name: "Hide live activity" }).waitFor();
    expect(foldedHeight).toBeLessThan(40);
    await page.getByRole("button", { name: "Menu" }).click();
    // the phone has no zoom buttons (pinch zooms): the map's tools button sits under the menu
    const zoom = (await page.locator(".map-tools-toggle").boundingBox())!;
    const top = await page.evaluate(
      ([x, y]) => {
        const e = document.elementFromPoint(x!, y!);
        return e ? (e.closest("nav") ? "menu" : e.closest(".map-tools-toggle") ? "tools" : e.tagName) : null;
      },
      [zoom.x + zoom.width / 2, zoom.y + zoom.height / 2],
    );
    expect(top).toBe("menu");
    await page.screenshot({ path: join(SHOTS, "phone-menu-over-map.png") });
    // control: with the menu closed the zoom button is what is there
    await page.getByRole("button", { name: "Menu" }).click();
    expect(
      await page.evaluate(([x, y]) => !!document.elementFromPoint(x!, y!)?.closest(".map-tools-toggle"), [zoom.x + zoom.width / 2, zoom.y + zoom.height / 2]),
    ).toBe(true);
    await ctx.close();
  });

  test("Hide takes N 42° 30.123 W 071° 05.456, shows its own pin (no broken image) and saves those coordinates", async () => {
    const { ctx, page, errors } = await open(user, "/hide");
    await page.getByLabel("Name").waitFor();
    const failed: string[] = [];
    page.on("requestfailed", (r) => failed.push(r.url()));
    page.on("response", (r) => r.status() >= 400 && failed.push(r.url()));
    await page.getByLabel("Latitude").fill("N 42° 30.123 W 071° 05.456");
    expect(await page.getByLabel("Latitude").inputValue()).toBe("42.502050");
    expect(await page.getByLabel("Longitude").inputValue()).toBe("-71.090933");
    const pin = page.getByTestId("picker").locator(".leaflet-marker-icon");
    await pin.waitFor();
    expect(await pin.count()).toBe(1);
    expect(await pin.evaluate((e) => e.tagName)).toBe("DIV");
    expect(await pin.locator("svg").count()).toBe(1);
    expect(await page.getByTestId("picker").locator("img.leaflet-marker-icon, img.leaflet-marker-shadow").count()).toBe(0);
    // a half typed on its own, in degrees and minutes, is taken too
    await page.getByLabel("Longitude").fill("W 071° 05.500");
    await page.getByLabel("Name").fill("Typed coordinates");
    await page.getByRole("button", { name: "Hide it" }).click();
    await page.waitForURL(/\/cache\/\d+$/);
    const id = page.url().split("/").pop();
    const cache = (await (await g.get(`/api/caches/${id}`)).json()) as { lat: number; lon: number };
    expect(cache.lat).toBeCloseTo(42.50205, 5);
    expect(cache.lon).toBeCloseTo(-71.091667, 5);
    expect(failed.filter((u) => /marker|\.png/.test(u))).toEqual([]);
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
