/**
 * First run in headless Chromium: the operator saves the set-up form, and the
 * page lists the next steps (restart, sign in, verify the callsign, connect a
 * TNC, add peers), each checked live against the API; after a restart with a
 * TNC, signed in as the verified operator with a peer, every step is ticked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { ROOT } from "../helpers/paths.ts";
import { setupToken } from "../../src/system/setup.ts";
import { upsertPeer } from "../../src/fed/peers.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";

const SHOTS = join(ROOT, "test-artifacts");
let browser: Browser;
let tnc: FakeTnc;
let g: Running | null = null;
const dataDir = tmpDir();

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tnc = fakeTnc();
  browser = await launchBrowser();
}, 120_000);
afterAll(() => stopAll(browser, g, tnc));

const step = (page: Page, id: string) => page.locator(`li[data-step="${id}"]`);
const okOf = (page: Page, id: string) => step(page, id).getAttribute("data-ok");
async function settle(page: Page, id: string, ok: string) {
  await page.waitForFunction(([id, ok]) => document.querySelector(`li[data-step="${id}"]`)?.getAttribute("data-ok") === ok, [id, ok] as const, {
    timeout: 20_000,
  });
}

describe("first run", () => {
  test("after saving set-up the page lists the next steps, each checked live, and ticks them as they are done", async () => {
    g = await startInProcess({ TILE_URL: "off", KISS_PORTS: "off", ADMIN_CALLSIGNS: "N0OPS" }, { dataDir });
    const token = setupToken(g.gw)!;
    let ctx = await contextFor(browser, g.url);
    let page = await ctx.newPage();
    await page.goto(`${g.url}/setup#${token}`);
    await page.getByLabel("Instance name").fill("n0ops-gw");
    await page.getByLabel("Operator callsign").fill("N0OPS");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByTestId("getting-started").waitFor();
    await settle(page, "restart", "false");
    expect(await step(page, "restart").textContent()).toContain("still runs on the old ones");
    expect(await okOf(page, "signin")).toBe("false");
    expect(await okOf(page, "verify")).toBe("false");
    await settle(page, "tnc", "false");
    expect(await step(page, "tnc").textContent()).toContain("No radio port");
    expect(await step(page, "peers").textContent()).toContain("Only the operator can see the peers");
    await page.setViewportSize({ width: 1366, height: 800 });
    await page.screenshot({ path: join(SHOTS, "getting-started-before.png"), fullPage: true });
    await ctx.close();

    // The operator restarts with a TNC, signs in with the verified callsign, and a peer is added.
    await g.stop();
    g = await startInProcess({ TILE_URL: "off", KISS_PORTS: tnc.url, RADIO_CALL: "N0OPS-10", ADMIN_CALLSIGNS: "N0OPS" }, { dataDir });
    expect(g.gw.config.instance).toBe("n0ops-gw"); // the saved settings did apply
    const ops = signedInUser(g.gw, "N0OPS", { verified: true });
    ctx = await contextFor(browser, g.url, ops.cookie);
    page = await ctx.newPage();
    await page.goto(`${g.url}/setup`);
    await page.getByTestId("getting-started").waitFor();
    for (const id of ["restart", "signin", "verify", "tnc"]) await settle(page, id, "true");
    expect(await step(page, "verify").textContent()).toContain("you operate this gateway");
    await settle(page, "peers", "false");
    expect(await step(page, "peers").textContent()).toContain("No peers yet");
    upsertPeer(g.gw, { instance: "gw-b", url: "https://gw-b.example.org", trust: "trusted", keyPin: generateKeyPair().publicKey });
    // the page polls: the step ticks by itself
    await settle(page, "peers", "true");
    await page.screenshot({ path: join(SHOTS, "getting-started-done.png"), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: join(SHOTS, "getting-started-phone.png"), fullPage: true });
    await ctx.close();
  }, 120_000);
});
