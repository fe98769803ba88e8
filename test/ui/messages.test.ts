/**
 * The messaging screen and the map's emergency banner in headless Chromium
 * at 360x740 (a phone), against a gateway with a fake TNC: the Messages link
 * for a verified user only; a conversation written in the page goes on the
 * air and shows its state as it changes (sent, retrying, acked; failed on a
 * rej); a message heard arrives in the list live; a message written offline
 * waits and goes when the network is back; an emergency heard shows at the
 * top of the map until dismissed. Nothing is wider than the screen.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, tnc2Text, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { ROOT } from "../helpers/paths.ts";
import { waitFor } from "../helpers/wait.ts";

const SHOTS = join(ROOT, "test-artifacts");
let tnc: FakeTnc;
let g: Running;
let browser: Browser;
let ham: TestUser;
let newcomer: TestUser;
let skew = 0;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tnc = fakeTnc();
  g = await startInProcess(
    { TILE_URL: "off", KISS_PORTS: tnc.url, RADIO_CALL: "N0GW-10", RADIO_TX_PER_MINUTE: "60", APRS_GROUPS: "EVENT" },
    { clock: { now: () => Date.now() + skew } },
  );
  await tnc.connected();
  ham = signedInUser(g.gw, "N0TX-7", { verified: true });
  newcomer = signedInUser(g.gw, "N0NEW", { verified: false });
  browser = await launchBrowser();
}, 120_000);

afterAll(() => stopAll(browser, g, tnc));

async function open(user: TestUser | null, path: string): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await contextFor(browser, g.url, user?.cookie);
  const page = await ctx.newPage();
  await page.setViewportSize({ width: 360, height: 740 });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(g.url + path);
  return { ctx, page, errors };
}

const fitsWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
const stateOfText = (page: Page, text: string) => page.locator("[data-testid=thread] li", { hasText: text }).first().getAttribute("data-state");

describe("the messaging screen at 360 px", () => {
  test("the Messages link is there for a verified callsign only; the page says why otherwise", async () => {
    const { ctx, page } = await open(newcomer, "/messages");
    await page.getByText("verify your callsign").first().waitFor();
    await page.getByRole("button", { name: "Menu" }).click();
    expect(await page.locator("#nav a", { hasText: "Messages" }).count()).toBe(0);
    await ctx.close();
    const mine = await open(ham, "/");
    await mine.page.getByRole("button", { name: "Menu" }).click();
    await mine.page.locator("#nav a", { hasText: "Messages" }).waitFor();
    await mine.ctx.close();
  });

  test("a conversation: written here, on the air, sent, retrying, acked; a rej fails; a message heard arrives live", async () => {
    const { ctx, page, errors } = await open(ham, "/messages");
    await page.getByLabel("Callsign or group").fill("w1aw-9");
    await page.getByRole("button", { name: "New conversation" }).click();
    await page.getByRole("heading", { name: "W1AW-9" }).waitFor();
    const from = tnc.sent.length;
    await page.getByLabel("Message").fill("at the summit cairn");
    await page.getByRole("button", { name: "Send" }).click();
    const [out] = await tnc.waitSent(1, { from });
    expect(tnc2Text(out!)).toMatch(/^N0TX-7>APZSVC,WIDE1-1,WIDE2-1::W1AW-9 {3}:at the summit cairn\{\d+$/);
    const msgId = tnc2Text(out!).split("{")[1]!;
    await waitFor(async () => (await stateOfText(page, "at the summit cairn")) === "sent", "shown as sent", { timeoutMs: 20_000 });
    skew += 31_000; // no ack in 30 s: sent again
    await tnc.waitSent(1, { from: from + 1 });
    await waitFor(async () => (await stateOfText(page, "at the summit cairn")) === "retrying", "shown as retrying (live)", { timeoutMs: 10_000 });
    await page.getByText("retrying (2 of 5)").waitFor();
    await page.screenshot({ path: join(SHOTS, "messages-retrying-360.png") });
    tnc.hear(tnc2Frame(`W1AW-9>APRS,WIDE1*::N0TX-7   :ack${msgId}`));
    await waitFor(async () => (await stateOfText(page, "at the summit cairn")) === "acked", "shown as acked (live)", { timeoutMs: 10_000 });
    // the reply arrives live
    tnc.hear(tnc2Frame("W1AW-9>APRS,WIDE1*::N0TX-7   :see you there{33"));
    await page.locator("[data-testid=thread] li.in", { hasText: "see you there" }).waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "messages-conversation-360.png") });

    // another conversation, rejected
    await page.goto(`${g.url}/messages/K1REJ`);
    const before = tnc.sent.length;
    await page.getByLabel("Message").fill("can you relay");
    await page.getByRole("button", { name: "Send" }).click();
    const [rej] = await tnc.waitSent(1, { from: before });
    tnc.hear(tnc2Frame(`K1REJ>APRS::N0TX-7   :rej${tnc2Text(rej!).split("{")[1]}`));
    await waitFor(async () => (await stateOfText(page, "can you relay")) === "failed", "shown as failed", { timeoutMs: 20_000 });

    // the list: each conversation with its last message and state; a message heard comes in live
    await page.goto(`${g.url}/messages`);
    const list = page.locator("[data-testid=conversations]");
    await list.locator("li", { hasText: "W1AW-9" }).waitFor();
    expect(await list.locator("li", { hasText: "K1REJ" }).textContent()).toContain("failed");
    expect(await list.locator("li", { hasText: "W1AW-9" }).textContent()).toContain("see you there");
    tnc.hear(tnc2Frame("K1NEW>APRS,WIDE1*::N0TX-7   :new here, QSL?{5"));
    await list.locator("li", { hasText: "K1NEW" }).waitFor({ timeout: 10_000 });
    expect(await list.locator("li").first().textContent()).toContain("new here, QSL?");
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "messages-list-360.png") });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 90_000);

  test("a message written offline waits in the page and goes out when the network is back", async () => {
    const { ctx, page, errors } = await open(ham, "/messages/EVENT");
    await page.getByText("messages go out once").waitFor();
    await ctx.setOffline(true);
    await page.getByLabel("Message").fill("net at 1900 local");
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("waiting for the network").waitFor();
    const from = tnc.sent.length;
    await ctx.setOffline(false);
    const [out] = await tnc.waitSent(1, { from, timeoutMs: 20_000 });
    expect(tnc2Text(out!)).toBe("N0TX-7>APZSVC,WIDE1-1,WIDE2-1::EVENT    :net at 1900 local");
    await waitFor(async () => (await stateOfText(page, "net at 1900 local")) === "sent", "shown as sent", { timeoutMs: 20_000 });
    expect(await page.getByText("waiting for the network").count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});

describe("alerts while the app is open", () => {
  test("the watch list is kept from the messaging screen; a watched station heard shows on the map page", async () => {
    const { ctx, page, errors } = await open(ham, "/messages");
    await page.getByLabel("Watched callsigns").fill("k1wat, bad call!");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("is not a callsign").waitFor();
    await page.getByLabel("Watched callsigns").fill("k1wat n0emr-9");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByText("Saved: you are told").waitFor();
    expect(await page.getByLabel("Watched callsigns").inputValue()).toBe("K1WAT, N0EMR-9");
    await page.goto(`${g.url}/map`);
    await page.locator("[data-testid=map]").waitFor();
    await waitFor(async () => (await (await g.get("/api/alerts/watch", { headers: { cookie: ham.cookie } })).json()).calls.length === 2, "saved");
    // the page's channel is open once the account is known
    await waitFor(() => g.gw.live.rooms.userOnline(ham.id), "the user's channel open");
    tnc.hear(tnc2Frame("K1WAT-5>APRS,WIDE1*:>on the trail"));
    const toast = page.locator("[data-testid=alert-toasts] .toast", { hasText: "K1WAT-5 heard" });
    await toast.waitFor({ timeout: 10_000 });
    expect(await fitsWidth(page)).toBe(true);
    await toast.getByRole("button", { name: "Close" }).click();
    expect(await page.locator("[data-testid=alert-toasts]").count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});

describe("the emergency banner", () => {
  test("an emergency heard is shown at the top of the map until dismissed", async () => {
    tnc.hear(tnc2Frame("N0EMR-9>421R3T,WIDE1-1:`c_Vm6hk/"));
    await waitFor(async () => (await (await g.get("/api/alerts/emergencies")).json()).emergencies.length === 1, "the emergency stored");
    const { ctx, page, errors } = await open(null, "/map");
    const banner = page.locator("[data-testid=emergency-banner]");
    await banner.waitFor();
    const text = await banner.textContent();
    expect(text).toContain("EMERGENCY");
    expect(text).toContain("N0EMR-9");
    expect(text).toContain("42.2057, -71.1263");
    expect(text).toContain("Mic-E Emergency");
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: join(SHOTS, "map-emergency-360.png") });
    await page.getByRole("button", { name: "Dismiss the emergency of N0EMR-9" }).click();
    expect(await banner.count()).toBe(0);
    await page.reload();
    await page.locator("[data-testid=map]").waitFor();
    await page.waitForTimeout(500);
    expect(await page.locator("[data-testid=emergency-banner]").count()).toBe(0);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});
