/**
 * The radio page in headless Chromium, against a gateway whose KISS port is a
 * TNC the test drives (test/helpers/kiss-tnc.ts): the port and its state,
 * stations heard on it (MHeard), the NODES table learnt from a broadcast
 * heard, the page refreshing as more is heard; a verified user's message and
 * position beacon from the transmit form, in the box log and on the air; an
 * unverified user's form refusing, and the gateway's own refusal shown; the
 * sysop adding and removing a route and reading every command.
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
import { nodesFrames } from "../../radio/index.ts";
import { waitFor } from "../helpers/wait.ts";

const SHOTS = join(ROOT, "test-artifacts");
let tnc: FakeTnc;
let g: Running;
let browser: Browser;
let sysop: TestUser;
let ham: TestUser;
let newcomer: TestUser;
let switcher: TestUser;

const frame = tnc2Frame;
const text = tnc2Text;
const json = async <T>(path: string, cookie?: string) => (await (await g.get(path, cookie ? { headers: { cookie } } : undefined)).json()) as T;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  tnc = fakeTnc();
  g = await startInProcess({
    TILE_URL: "off",
    INSTANCE: "radio-gw",
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    NODE_ALIAS: "GWNODE",
    NODE_CALL: "N0GW-7",
    ADMIN_CALLSIGNS: "N0OPS",
  });
  await tnc.connected();
  // the other side of the port: an APRS station through two digipeaters, and a neighbour node's NODES broadcast
  tnc.hear(frame("N0RF-9>APRS,WIDE1*,WIDE2-1:!4237.14N/07120.83W>heard on the air"));
  tnc.hear(
    nodesFrames(
      { call: "N0NBR", ssid: 7 },
      { alias: "NBR", entries: [{ dest: { call: "N0FAR", ssid: 7 }, alias: "FAR", neighbour: { call: "N0XYZ", ssid: 7 }, quality: 200 }] },
    )[0]!,
  );
  await waitFor(
    async () =>
      (await json<{ heard: unknown[] }>("/api/node/mheard")).heard.length === 2 && (await json<{ nodes: unknown[] }>("/api/node/nodes")).nodes.length === 2,
    "MHeard and NODES",
  );
  sysop = signedInUser(g.gw, "N0OPS", { verified: true });
  ham = signedInUser(g.gw, "N0TX-7", { verified: true });
  newcomer = signedInUser(g.gw, "N0NEW", { verified: false });
  switcher = signedInUser(g.gw, "N0SWI", { verified: true });
  browser = await launchBrowser();
}, 120_000);

afterAll(() => stopAll(browser, g, tnc));

async function open(user: TestUser | null): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await contextFor(browser, g.url, user?.cookie);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { ctx, page, errors };
}

/** A whole-page screenshot from the top (the sticky header stays where it belongs). */
async function shot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(SHOTS, name), fullPage: true });
}

const cell = (page: Page, row: string, testId: string) => page.locator(row).getByTestId(testId);

describe("web app: radio", () => {
  test("a visitor sees the port and its state, stations heard with links to their pages, the NODES table; the page refreshes as more is heard", async () => {
    const { ctx, page, errors } = await open(null);
    await page.goto(g.url + "/map");
    await page.getByRole("navigation").getByRole("link", { name: "Radio" }).click();
    await page.getByRole("heading", { name: "Radio" }).waitFor();

    const port = page.locator(`tr[data-port="${tnc.url}"]`);
    await port.waitFor();
    expect(await cell(page, `tr[data-port="${tnc.url}"]`, "port-state").textContent()).toBe("connected");
    expect(await port.textContent()).toContain("kiss-tcp");
    expect(await cell(page, `tr[data-port="${tnc.url}"]`, "frames").textContent()).toBe("2 / 0");
    const station = await page.getByTestId("station").textContent();
    expect(station).toContain("N0GW-10");
    expect(station).toContain("not on the air"); // RADIO_CALL is verified by nobody here
    expect(await page.getByTestId("not-on-air").textContent()).toContain("N0GW-10 (RADIO_CALL) is not verified");

    const rf = page.locator('tr[data-call="N0RF-9"]');
    await rf.waitFor();
    expect(await cell(page, 'tr[data-call="N0RF-9"]', "heard-frames").textContent()).toBe("1");
    expect(await rf.textContent()).toContain("WIDE1*,WIDE2-1");
    expect(await rf.getByRole("link", { name: "N0RF-9" }).getAttribute("href")).toBe("/station/N0RF-9");
    // a node that sent no APRS has no station page: named, not linked
    const nbr = page.locator('tr[data-call="N0NBR-7"]');
    expect(await nbr.textContent()).toContain("direct");
    expect(await nbr.getByRole("link").count()).toBe(0);

    const nodes = page.getByTestId("nodes");
    const far = nodes.locator('tr[data-node="N0FAR-7"]');
    expect(await far.textContent()).toContain("FAR");
    expect(await far.textContent()).toContain("N0NBR-7");
    expect(await far.getByTestId("quality").textContent()).toBe(String(Math.floor((200 * 192) / 256)));
    expect(await nodes.locator('tr[data-node="N0NBR-7"]').textContent()).toContain("N0NBR-7 (direct)");
    expect(await page.getByTestId("node").textContent()).toContain("This station is node GWNODE (N0GW-7)");
    expect(await nodes.getByRole("button", { name: /remove/i }).count()).toBe(0); // only the sysop edits routes

    expect(await page.getByTestId("tx-locked").textContent()).toContain("Sign in with a verified callsign to transmit");
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    expect(await page.getByTestId("log-locked").textContent()).toContain("Sign in");

    // more heard while the page is open: it refreshes by itself
    tnc.hear(frame("N0RF-9>APRS,WIDE1*,WIDE2-1:>on the way to the cache"));
    await cell(page, 'tr[data-call="N0RF-9"]', "heard-frames").filter({ hasText: /^2$/ }).waitFor({ timeout: 15_000 });
    await cell(page, `tr[data-port="${tnc.url}"]`, "frames")
      .filter({ hasText: /^3 \/ 0$/ })
      .waitFor({ timeout: 15_000 });
    await shot(page, "radio.png");

    // the heard station's page
    await rf.getByRole("link", { name: "N0RF-9" }).click();
    await page.getByRole("heading", { name: "N0RF-9" }).waitFor();
    await page.getByText("on RF by N0GW-10").waitFor();
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("a verified user sends a message and a position beacon from the form: both are in the box log, done, and go out on the air", async () => {
    const { ctx, page, errors } = await open(ham);
    const from = tnc.sent.length;
    await page.goto(g.url + "/radio");
    await page.getByRole("heading", { name: "Transmit" }).waitFor();
    expect(await page.getByTestId("tx-locked").count()).toBe(0);
    await page.getByLabel("To", { exact: true }).fill("W1AW-9");
    await page.getByLabel("Text", { exact: true }).fill("meet at the cache");
    expect(await page.getByTestId("tx-line").textContent()).toContain("N0TX-7>APZSVC::W1AW-9   :meet at the cache");
    await page.getByRole("button", { name: "Send" }).click();
    expect(await page.getByTestId("tx-result").textContent()).toMatch(/^Queued as command #\d+/);
    expect(await page.getByTestId("tx-radio").getAttribute("data-state")).toBe("connected");
    const [msg] = await tnc.waitSent(1, { from });
    // the form follows the line to the air: sent, once the TNC took it
    await page
      .getByTestId("tx-state")
      .filter({ hasText: /^sent / })
      .waitFor({ timeout: 20_000 });
    expect(text(msg!)).toBe("N0TX-7>APZSVC,WIDE1-1,WIDE2-1::W1AW-9   :meet at the cache");

    await page.getByLabel("Position beacon").check();
    await page.getByLabel("Latitude").fill("42.6190");
    await page.getByLabel("Longitude").fill("-71.3472");
    await page.getByLabel("Comment").fill("at the trailhead");
    await page.getByRole("button", { name: "Send" }).click();
    await page
      .getByTestId("tx-result")
      .filter({ hasText: /^Queued as command #\d+/ })
      .waitFor();
    const [pos] = await tnc.waitSent(1, { from: from + 1 });
    expect(text(pos!)).toBe("N0TX-7>APZSVC,WIDE1-1,WIDE2-1:!4237.14N/07120.83W[at the trailhead");

    // the log: the user's two commands, carried out by the local box, each into the outbox
    const log = page.getByTestId("box-log");
    await log.locator("tbody tr").nth(1).waitFor();
    await log.getByTestId("command-state").filter({ hasText: "in the outbox" }).nth(1).waitFor({ timeout: 15_000 });
    const rows = await log.locator("tbody tr").allTextContents();
    expect(rows.length).toBe(2);
    expect(rows[0]).toContain("N0TX-7>APZSVC:!4237.14N/07120.83W[at the trailhead");
    expect(rows[1]).toContain("N0TX-7>APZSVC::W1AW-9   :meet at the cache");
    for (const r of rows) expect(r).toMatch(/in the outbox.*in the APRS outbox as #\d+/);
    // the port counts what went out
    await cell(page, `tr[data-port="${tnc.url}"]`, "frames")
      .filter({ hasText: / \/ 2$/ })
      .waitFor({ timeout: 15_000 });
    await shot(page, "radio-sent.png");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("an unverified user's form refuses to send; a refusal from the gateway is shown and nothing is queued", async () => {
    const { ctx, page } = await open(newcomer);
    await page.goto(g.url + "/radio");
    const locked = page.getByTestId("tx-locked");
    await locked.waitFor();
    expect(await locked.textContent()).toContain("Your callsign N0NEW is not verified yet");
    expect(await locked.getByRole("link", { name: "Your account" }).getAttribute("href")).toBe("/account");
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    expect(await page.getByLabel("Text", { exact: true }).isDisabled()).toBe(true);
    await ctx.close();

    // verified when the page loaded, then another callsign made active elsewhere: the gateway refuses
    const other = await open(switcher);
    await other.page.goto(g.url + "/radio");
    await other.page.getByLabel("Status", { exact: true }).check();
    await other.page.getByLabel("Status text").fill("QRV on 2m");
    const r = await g.post("/auth/callsign", { call: "N0ALT" }, { headers: { cookie: switcher.cookie } });
    expect(r.status).toBe(200);
    await other.page.getByRole("button", { name: "Send" }).click();
    const refused = other.page.getByTestId("tx-refused");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("The gateway refused to transmit: a transmit command needs a verified callsign");
    expect(await refused.textContent()).toContain("403 callsign_not_verified");
    // the page looked at the account again: the form now says why it is locked
    await other.page.getByTestId("tx-locked").filter({ hasText: "Your callsign N0ALT is not verified yet" }).waitFor();
    expect(await other.page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
    await shot(other.page, "radio-refused.png");
    expect(g.gw.db.query("SELECT count(*) AS n FROM box_commands WHERE user_id IN (?, ?)").get(newcomer.id, switcher.id)).toEqual({ n: 0 });
    await other.ctx.close();
  }, 60_000);

  test("the sysop adds and removes a NODES route (bad input refused, nothing changed) and reads every command in the log", async () => {
    const { ctx, page, errors } = await open(sysop);
    await page.goto(g.url + "/radio");
    const nodes = page.getByTestId("nodes");
    await nodes.waitFor();
    const routes = async () =>
      (await json<{ routes: Array<{ call: string; neighbour: string; source: string; quality: number; alias: string }> }>("/api/node/nodes")).routes;
    const before = await routes();

    await page.getByLabel("node callsign").fill("N0MAN-7");
    await page.getByLabel("node alias").fill("man");
    await page.getByLabel("neighbour callsign").fill("not a call");
    await page.getByRole("button", { name: "Add route" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("neighbour is a callsign");
    expect(await routes()).toEqual(before);

    await page.getByLabel("neighbour callsign").fill("N0NBR-7");
    await page.getByLabel("quality", { exact: true }).fill("120");
    await page.getByRole("button", { name: "Add route" }).click();
    const man = nodes.locator('tr[data-node="N0MAN-7"]');
    await man.waitFor();
    expect(await man.textContent()).toContain("MAN");
    expect(await man.textContent()).toContain("manual");
    expect((await routes()).find((r) => r.call === "N0MAN-7")).toMatchObject({ alias: "MAN", neighbour: "N0NBR-7", quality: 120, source: "manual" });

    await man.getByRole("button", { name: "remove the route to N0MAN-7 via N0NBR-7" }).click();
    await man.waitFor({ state: "detached" });
    expect(await routes()).toEqual(before);

    // the operator's log: the other user's commands too
    const log = page.getByTestId("box-log");
    await log.waitFor();
    const rows = await log.locator("tbody tr").allTextContents();
    expect(rows.filter((r) => r.includes("N0TX-7")).length).toBe(2);
    expect(await page.getByText("Every command sent to this gateway's radio").count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("with the TNC not connected the form says so, and a sent line stays queued, never 'sent'", async () => {
    // A KISS port where nothing listens: what a gateway with Direwolf not running has.
    const dark = await startInProcess({ TILE_URL: "off", KISS_PORTS: "tcp://127.0.0.1:9", RADIO_CALL: "N0GW-10", APRSIS_TX: "false" });
    try {
      const user = signedInUser(dark.gw, "N0HAM", { verified: true });
      const ctx = await contextFor(browser, dark.url, user.cookie);
      const page = await ctx.newPage();
      await page.goto(dark.url + "/radio");
      const radio = page.getByTestId("tx-radio");
      await radio.waitFor();
      await page.waitForFunction(() => document.querySelector('[data-testid="tx-radio"]')?.getAttribute("data-state") !== "loading");
      expect(await radio.getAttribute("data-state")).toBe("not-connected");
      expect(await radio.textContent()).toContain("No TNC connected");
      await page.getByLabel("To", { exact: true }).fill("W1AW-9");
      await page.getByLabel("Text", { exact: true }).fill("anyone there?");
      await page.getByRole("button", { name: "Send" }).click();
      const state = page.getByTestId("tx-state");
      await state.filter({ hasText: "queued: no TNC is connected" }).waitFor({ timeout: 20_000 });
      expect(await page.getByText("within seconds").count()).toBe(0);
      await page.waitForTimeout(3000);
      expect(await state.textContent()).toBe("queued: no TNC is connected to send it");
      // the command is really there, and nothing of it went out
      const log = (await (await dark.get("/api/box/local/log", { headers: { cookie: user.cookie } })).json()) as {
        commands: Array<{ state: string; args: { line?: string } }>;
      };
      expect(log.commands.map((c) => c.args.line ?? "")).toEqual([expect.stringContaining("anyone there?")]);
      const items = (await (await dark.get("/api/tx/aprs", { headers: { cookie: user.cookie } })).json()) as { items: Array<{ state: string }> };
      expect(items.items.filter((i) => i.state === "sent" || i.state === "acked")).toEqual([]);
      await ctx.close();
    } finally {
      await dark.stop();
    }
  }, 60_000);

  test("a gateway without a radio port says how to add one, and its form is locked even for a verified user", async () => {
    const bare = await startInProcess({ TILE_URL: "off" });
    try {
      const user = signedInUser(bare.gw, "N0HAM", { verified: true });
      const ctx = await contextFor(browser, bare.url, user.cookie);
      const page = await ctx.newPage();
      await page.goto(bare.url + "/radio");
      expect(await page.getByTestId("no-radio").textContent()).toContain("This gateway has no radio port. Set KISS_PORTS");
      expect(await page.getByTestId("tx-locked").textContent()).toContain("This gateway has no radio port to transmit on.");
      expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true);
      expect(await page.getByText("Nobody heard yet.").count()).toBe(1);
      await ctx.close();
    } finally {
      await bare.stop();
    }
  }, 60_000);
});
