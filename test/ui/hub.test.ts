/**
 * The station hub on the radio page in headless Chromium: a gateway with a
 * KISS server and an APRS-IS server, one client of each connected over TCP
 * the way APRSdroid or aprx would. A visitor sees both servers and their
 * clients (login, filter, packets in and out) without addresses; the sysop
 * sees addresses and disconnects the APRS-IS client, whose connection closes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import type { Running } from "../helpers/gateway.ts";
import { stationWithClients, type Station } from "../helpers/station.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { lineClient, type LineClient } from "../helpers/line-client.ts";
import { ROOT } from "../helpers/paths.ts";

const SHOTS = join(ROOT, "test-artifacts");
let station: Station;
let tnc: FakeTnc;
let g: Running;
let browser: Browser;
let is: LineClient;
let kiss: LineClient;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  station = await stationWithClients();
  ({ g, tnc, is } = station);
  // a KISS client (it reads frames as bytes; the line client is enough to hold the connection)
  kiss = await lineClient(g.gw.hub!.kiss!.port);
  tnc.hear(tnc2Frame("N0RF-9>APRS:!4237.14N/07120.83W>heard on the air"));
  await is.waitFor(/^N0RF-9>APRS,qAo,N0GW-10:/);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  kiss?.close();
  await browser?.close();
  await station?.stop();
});

describe("web app: station hub", () => {
  test("a visitor sees the servers and their clients without addresses; the sysop sees addresses and disconnects a client", async () => {
    const visitor = await contextFor(browser, g.url);
    const page = await visitor.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(g.url + "/radio");
    const card = page.getByTestId("hub");
    await card.waitFor();
    const isRow = card.locator('[data-server="aprsis-server"] tr[data-client]');
    await isRow.waitFor();
    const rowText = await isRow.textContent();
    expect(rowText).toContain("N0PHN-9");
    expect(rowText).toContain("verified");
    expect(rowText).toContain("r/42.6/-71.3/50");
    expect(rowText).toContain("APRSdroid 1.6");
    expect(rowText).not.toContain("127.0.0.1");
    expect(await isRow.getByTestId("client-counts").textContent()).toBe("0 / 1");
    expect(await card.locator('[data-server="kiss-server"] tr[data-client]').count()).toBe(1);
    expect(await card.getByRole("button", { name: "disconnect" }).count()).toBe(0);
    await visitor.close();

    const sysop = signedInUser(g.gw, "N0OPS", { verified: true });
    const ctx = await contextFor(browser, g.url, sysop.cookie);
    const sp = await ctx.newPage();
    sp.on("pageerror", (e) => errors.push(String(e)));
    await sp.goto(g.url + "/radio");
    const row = sp.getByTestId("hub").locator('[data-server="aprsis-server"] tr[data-client]');
    await row.waitFor();
    expect(await row.textContent()).toMatch(/127\.0\.0\.1:\d+/);
    await sp.screenshot({ path: join(SHOTS, "radio-hub.png"), fullPage: true });
    await row.getByRole("button", { name: "disconnect" }).click();
    await is.closed;
    await row.waitFor({ state: "detached" });
    // the KISS client is still there
    expect(await sp.getByTestId("hub").locator('[data-server="kiss-server"] tr[data-client]').count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});
