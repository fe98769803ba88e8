/**
 * The account pages in headless Chromium: a passkey made and used through
 * Chromium's virtual authenticator (DevTools protocol), e-mail sign-in with
 * the link from the operator's log, callsigns and their verification status.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { addPasskeyAuthenticator, launchBrowser } from "../helpers/chromium.ts";
import { captureLog, startInProcess, type Running } from "../helpers/gateway.ts";
import { ROOT } from "../helpers/paths.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";

const SHOTS = join(ROOT, "test-artifacts");
const logs = captureLog("info");
const INGEST = "browser-test-ingest-secret";
let browser: Browser;
let g: Running;
/** localhost, not 127.0.0.1: WebAuthn needs a secure context and a domain as its RP ID. */
let base: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  g = await startInProcess({ TILE_URL: "off", INSTANCE: "web-gw", LOG_LEVEL: "info", INGEST_SECRET: INGEST }, { log: logs.log });
  base = g.url.replace("127.0.0.1", "localhost");
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await g?.stop();
});

/** A page with a platform passkey authenticator that always says yes. */
async function pageWithAuthenticator(): Promise<{ page: Page; authenticatorId: string; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  const authenticatorId = await addPasskeyAuthenticator(page);
  return { page, authenticatorId, errors };
}

/** An APRS message from `src`, heard on the air by the ingest box's radio and sent in by the box. */
async function heardOnAprs(src: string, text: string) {
  const line = `${src}>APDR16,WIDE1-1::VERIFY   :${text}\n`;
  const r = await g.post("/ingest?igate=N0IG-10", line, { headers: { "content-type": "text/plain", "x-ingest-secret": INGEST } });
  expect(r.status).toBe(200);
}

describe("account pages", () => {
  test("create an account with a passkey, add a callsign, sign out, sign back in with the passkey", async () => {
    const { page, errors } = await pageWithAuthenticator();
    await page.goto(base + "/account");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByRole("button", { name: "Create an account with a passkey" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByRole("region", { name: "Passkeys" }).getByRole("row").count()).toBe(2);

    await page.getByLabel("Add a callsign").fill("n0web-7");
    await page.getByRole("button", { name: "Add", exact: true }).click();
    const row = page.locator('tr[data-call="N0WEB-7"]');
    await row.waitFor();
    expect(await row.locator(".verification").textContent()).toBe("Not verified");
    expect(await row.textContent()).toContain("active");

    // Verify it: the page shows the message to send; the gateway hears it.
    await row.getByRole("button", { name: "Verify" }).click();
    const panel = page.getByRole("region", { name: "verify N0WEB-7" });
    const text = (await panel.locator(".verify-code").textContent())!;
    expect(text).toMatch(/^VERIFY [A-Z2-9]{6}$/);
    await page.screenshot({ path: join(SHOTS, "account-verify.png"), fullPage: true });
    await heardOnAprs("N0WEB-9", text);
    await panel.getByText("Verified: heard from N0WEB-9").waitFor();
    await row.locator(".verification .ok").waitFor();
    expect(await row.locator(".verification").textContent()).toContain("Verified");
    await page.screenshot({ path: join(SHOTS, "account.png"), fullPage: true });

    const userId = (g.gw.db.query("SELECT user_id AS id FROM callsigns WHERE call = 'N0WEB-7'").get() as { id: number }).id;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect((await page.context().cookies()).filter((c) => c.name === "svc_session")).toEqual([]);

    await page.getByRole("button", { name: "Sign in with a passkey" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("Signed in as N0WEB-7");
    const cookie = (await page.context().cookies()).find((c) => c.name === "svc_session")!;
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.sameSite).toBe("Lax");
    const session = g.gw.db.query("SELECT user_id AS id FROM sessions ORDER BY created_at DESC LIMIT 1").get() as { id: number };
    expect(session.id).toBe(userId);

    // A device key for the verified callsign.
    const kp = generateKeyPair();
    const keys = page.getByRole("region", { name: "Device keys" });
    await keys.getByLabel("Public key", { exact: true }).fill(kp.publicKey);
    await keys.getByLabel("Key label").fill("ingest box");
    await keys.getByRole("button", { name: "Register key" }).click();
    await keys.getByRole("cell", { name: kp.publicKey }).waitFor();
    expect(await (await g.get("/keys/N0WEB")).json()).toMatchObject({ keys: [{ key: kp.publicKey }] });

    // Download everything.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download my data" }).click()]);
    const exported = JSON.parse(await Bun.file((await download.path())!).text());
    expect(exported.format).toBe("svc-account-export/1");
    expect(exported.data.accounts.callsigns.map((c: { call: string }) => c.call)).toEqual(["N0WEB-7"]);
    expect(exported.data.accounts.deviceKeys[0].key).toBe(kp.publicKey);

    // Erase, with a confirmation step.
    await page.getByRole("button", { name: "Erase my account…" }).click();
    const eraseNow = page.getByRole("button", { name: "Erase everything" });
    expect(await eraseNow.isDisabled()).toBe(true);
    await page.getByLabel("Type N0WEB-7 to confirm").fill("n0web-7");
    await page.screenshot({ path: join(SHOTS, "account-erase.png"), fullPage: true });
    await eraseNow.click();
    await page.getByText("Your account was erased.").waitFor();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(g.gw.db.query("SELECT COUNT(*) AS n FROM users WHERE id = ?").get(userId)).toEqual({ n: 0 });
    expect(g.gw.db.query("SELECT COUNT(*) AS n FROM fed_feed WHERE type = 5 AND gid LIKE 'web-gw:account:%'").get()).toEqual({ n: 1 });
    expect((await (await g.get("/keys/N0WEB")).json()).keys).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  test("e-mail sign-in: the code typed in the page, then the link from the log in another browser", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(base + "/account");
    await page.getByLabel("E-mail address").fill("browser@example.org");
    await page.getByRole("button", { name: "Send me a sign-in link" }).click();
    await page.getByTestId("mail-in-log").waitFor();
    expect(await page.getByTestId("mail-in-log").textContent()).toContain("operator's log");
    const mail = logs.lines.filter((l) => l.includes("To: browser@example.org")).at(-1)!;
    const code = /code (\d{6})/.exec(mail)![1]!;
    await page.getByLabel("Code", { exact: true }).fill(code);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.locator("main").textContent()).toContain("browser@example.org");
    await context.close();

    // The link, opened in a fresh browser.
    const other = await browser.newContext();
    const p2 = await other.newPage();
    await p2.goto(base + "/account");
    await p2.getByLabel("E-mail address").fill("browser@example.org");
    await p2.getByRole("button", { name: "Send me a sign-in link" }).click();
    await p2.getByTestId("mail-in-log").waitFor();
    const mail2 = logs.lines.filter((l) => l.includes("To: browser@example.org")).at(-1)!;
    const link = /(http:\/\/\S+\/signin\/email#[A-Za-z0-9_-]{43})/.exec(mail2)![1]!;
    const fresh = await (await browser.newContext()).newPage();
    await fresh.goto(link.replace("127.0.0.1", "localhost"));
    await fresh.getByRole("heading", { name: "Your account" }).waitFor();
    expect(fresh.url()).toBe(base + "/account");
    expect(await fresh.locator("main").textContent()).toContain("browser@example.org");
    await other.close();
  });
});
