/**
 * The web app on plain http at a LAN-like address (not a secure context: no
 * service worker, Cache Storage, installing or passkeys), in headless
 * Chromium against a real gateway reached as http://gw.test:<port>: no "Save
 * area for offline", one line saying why with a link to /tls; a find logged
 * with the network off is kept in IndexedDB, shown as waiting, and stored once
 * when the network returns (by the `online` event, and on the next page load);
 * the passkey buttons say why they cannot work; and on http://127.0.0.1 (a
 * secure context, but WebAuthn refuses IP addresses) the passkey card offers
 * the same page on localhost.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { ROOT } from "../helpers/paths.ts";
import { waitFor } from "../helpers/wait.ts";

const SHOTS = join(ROOT, "test-artifacts");
const DAY = 86_400_000;
let g: Running;
let browser: Browser;
let finder: TestUser;
/** the gateway as a phone on the LAN opens it: a name that is not loopback, over http */
let insecure: string;
let ctx: BrowserContext;
const cacheIds: number[] = [];
const errors: string[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  g = await startInProcess({ TILE_URL: "off" });
  const owner = signedInUser(g.gw, "N0HID", { verified: true });
  finder = signedInUser(g.gw, "N0FND", { verified: true });
  for (const [i, name] of ["Fountain cache", "Bridge cache"].entries()) {
    const r = await g.post(
      "/api/caches",
      { type: "traditional", size: "small", difficulty: 2, terrain: 1.5, placedAt: Date.now() - 10 * DAY, name, lat: 48.1372 + i / 100, lon: 11.5755 },
      { headers: { cookie: owner.cookie } },
    );
    expect(r.status).toBe(201);
    cacheIds.push(((await r.json()) as { id: number }).id);
  }
  const port = new URL(g.url).port;
  insecure = `http://gw.test:${port}`;
  browser = await launchBrowser(["--host-resolver-rules=MAP gw.test 127.0.0.1"]);
  ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const [name, value] = finder.cookie.split("=");
  await ctx.addCookies([{ name: name!, value: value!, url: insecure }]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await g?.stop();
});

async function open(path: string, context = ctx): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(insecure + path);
  return page;
}

const findsOn = (id: number) =>
  g.gw.db.query("SELECT text, client_id AS clientId FROM logs WHERE cache_id = ? AND kind = 'find'").all(id) as Array<{
    text: string;
    clientId: string | null;
  }>;

/** Posts a find on cache `id`'s page with the network off; the page says it is kept and waiting. */
async function findOffline(page: Page, id: number, text: string): Promise<void> {
  await page.getByRole("heading", { name: /cache/ }).first().waitFor();
  await ctx.setOffline(true);
  await page.getByLabel("Type").selectOption("find");
  await page.getByLabel("Log").fill(text);
  await page.getByRole("button", { name: "Post log" }).click();
  expect(await page.getByTestId("log-kept").textContent()).toContain("kept in this browser as a field note");
  expect(await page.getByTestId("pending-notes").textContent()).toContain("1 field note waiting to be sent");
  expect(await page.getByTestId("offline-state").textContent()).toContain("sent when the network returns");
  // not the raw "Failed to fetch"
  expect(await page.getByText("Failed to fetch").count()).toBe(0);
  expect(findsOn(id)).toEqual([]);
}

describe("on plain http at a LAN address", () => {
  test("the page is not a secure context: no Save area offer, one line why with a link to /tls; the Offline page says so too", async () => {
    const page = await open("/map");
    expect(await page.evaluate(() => window.isSecureContext)).toBe(false);
    const notice = page.getByTestId("insecure-notice");
    await notice.waitFor();
    expect(await notice.textContent()).toBe("Offline maps and installing the app need HTTPS: see how to set it up.");
    expect(await notice.getByRole("link").getAttribute("href")).toBe("/tls");
    expect(await page.locator(".map-save-area").count()).toBe(0);
    expect(await page.getByText("Save area for offline").count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, "insecure-map.png") });

    await page.getByRole("navigation").getByRole("link", { name: "Offline" }).click();
    await page.getByRole("heading", { name: "Saved for offline" }).waitFor();
    expect(await page.getByTestId("insecure-notice").getByRole("link").getAttribute("href")).toBe("/tls");
    expect(await page.getByText('choose "Save area for offline"').count()).toBe(0);
    // the link loads the server's page (not the app's "Not found"): a marker set on this page is gone
    await page.evaluate(() => Object.assign(window, { stillTheApp: true }));
    await page.getByTestId("insecure-notice").getByRole("link").click();
    await page.waitForURL(insecure + "/tls");
    await page.waitForFunction(() => !("stillTheApp" in window));
    await page.close();
    expect(errors).toEqual([]);
  });

  test("a find logged with the network off is kept, shown as waiting, and stored once when the network returns", async () => {
    const id = cacheIds[0]!;
    const page = await open(`/cache/${id}`);
    try {
      await findOffline(page, id, "Found it with no signal");
    } finally {
      await ctx.setOffline(false);
    }
    // the `online` event: the note goes out, and the strip goes away
    await page.getByTestId("pending-notes").waitFor({ state: "detached", timeout: 20_000 });
    const finds = findsOn(id);
    expect(finds.map((f) => f.text)).toEqual(["Found it with no signal"]);
    expect(finds[0]!.clientId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // the logbook shows it once, and the Offline page lists the note as sent
    await page.reload();
    await page.getByTestId("logs").getByText("Found it with no signal").waitFor();
    expect(await page.getByTestId("logs").getByText("Found it with no signal").count()).toBe(1);
    await page.goto(insecure + "/offline");
    await page.locator('[data-testid="field-notes"] li[data-state="sent"]').waitFor();
    expect(await page.locator('[data-testid="field-notes"] li[data-state="pending"]').count()).toBe(0);
    await page.close();
    expect(errors).toEqual([]);
  });

  test("a find kept offline in a page closed before the network returned is sent, once, on the next page load", async () => {
    const id = cacheIds[1]!;
    const page = await open(`/cache/${id}`);
    try {
      await findOffline(page, id, "Logged in the tunnel");
      await page.close();
    } finally {
      await ctx.setOffline(false);
    }
    expect(findsOn(id)).toEqual([]);
    const next = await open("/about");
    // the page reads its kept notes and sends them (the strip may not even show first: wait for the find itself)
    await waitFor(() => findsOn(id).length > 0, "the kept find, sent on the next load", { timeoutMs: 20_000 });
    await next.waitForFunction(() => !document.querySelector('[data-testid="pending-notes"]'), null, { timeout: 20_000 });
    expect(findsOn(id).map((f) => f.text)).toEqual(["Logged in the tunnel"]);
    // another load sends nothing again
    await next.reload();
    await next.getByRole("navigation").waitFor();
    await next.waitForTimeout(1000);
    expect(findsOn(id)).toHaveLength(1);
    await next.close();
  });

  test("the passkey buttons say passkeys need HTTPS or localhost, signed out and signed in", async () => {
    const out = await browser.newContext();
    const page = await open("/account", out);
    const why = page.getByTestId("passkey-unavailable");
    await why.waitFor();
    expect(await why.textContent()).toContain("Passkeys need HTTPS or localhost");
    expect(await why.getByRole("link").getAttribute("href")).toBe("/tls");
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).isDisabled()).toBe(true);
    expect(await page.getByRole("button", { name: "Create an account with a passkey" }).isDisabled()).toBe(true);
    // e-mail sign-in is still offered
    expect(await page.getByRole("button", { name: "Send me a sign-in link" }).isDisabled()).toBe(false);
    await page.screenshot({ path: join(SHOTS, "insecure-signin.png") });
    await out.close();

    const mine = await open("/account");
    const add = mine.getByRole("button", { name: "Add a passkey on this device" });
    await add.waitFor();
    expect(await add.isDisabled()).toBe(true);
    expect(await mine.getByTestId("passkey-unavailable").textContent()).toContain("Passkeys need HTTPS or localhost");
    await mine.close();
    expect(errors).toEqual([]);
  });
});

describe("on http://127.0.0.1", () => {
  test("a secure context where WebAuthn refuses the IP address: the passkey card offers the same page on localhost, where passkeys are offered", async () => {
    const c = await browser.newContext();
    const page = await c.newPage();
    await page.goto(g.url + "/account");
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    const why = page.getByTestId("passkey-unavailable");
    await why.waitFor();
    expect(await why.textContent()).toContain("Passkeys need a name, not an IP address");
    const port = new URL(g.url).port;
    const link = why.getByRole("link");
    expect(await link.getAttribute("href")).toBe(`http://localhost:${port}/account`);
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).isDisabled()).toBe(true);
    await link.click();
    await page.waitForURL(`http://localhost:${port}/account`);
    await page.getByRole("button", { name: "Sign in with a passkey" }).waitFor();
    expect(await page.getByRole("button", { name: "Sign in with a passkey" }).isDisabled()).toBe(false);
    expect(await page.getByTestId("passkey-unavailable").count()).toBe(0);
    // a secure context: the map offers Save area, with no HTTPS notice
    await page.goto(g.url + "/map");
    await page.locator(".map-save-area").waitFor();
    expect(await page.getByTestId("insecure-notice").count()).toBe(0);
    await c.close();
  });
});
