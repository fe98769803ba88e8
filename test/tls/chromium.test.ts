/**
 * The local CA in a real browser: Chromium with the gateway's CA imported
 * into its NSS database (certutil, Debian's libnss3-tools, as the /tls page
 * tells Linux users) opens the gateway's LAN address over https with no
 * certificate error, in a secure context, and the service worker takes
 * control (an offline reload shows the app); without the CA it refuses the
 * certificate.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import type { Browser } from "playwright-core";
import { addPasskeyAuthenticator, launchBrowser } from "../helpers/chromium.ts";
import { lanAddresses, spawnTls, type TlsGateway } from "../helpers/tls.ts";
import { tmpDir } from "../helpers/tmp.ts";

let g: TlsGateway;
let address: string;
const browsers: Browser[] = [];

/** Chromium with HOME at a fresh directory, whose NSS database trusts `ca` when given. */
async function browserTrusting(ca: string | null, extraArgs: string[] = []): Promise<Browser> {
  const home = tmpDir();
  const db = join(home, ".pki", "nssdb");
  mkdirSync(db, { recursive: true });
  const run = (args: string[]) => {
    const r = spawnSync("certutil", ["-d", `sql:${db}`, ...args], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`certutil ${args.join(" ")}: ${r.stderr}`);
  };
  run(["-N", "--empty-password"]);
  if (ca) run(["-A", "-t", "C,,", "-n", "svc-gateway", "-i", ca]);
  const b = await launchBrowser(extraArgs, home);
  browsers.push(b);
  return b;
}

beforeAll(async () => {
  g = await spawnTls({ TLS: "local" }, { host: "0.0.0.0" });
  // a LAN address as a phone on the network would open it (IPv4: no brackets), else localhost
  address = lanAddresses().find((a) => !a.includes(":")) ?? "localhost";
}, 60_000);

afterAll(async () => {
  for (const b of browsers) await b.close();
  await g?.kill();
});

describe("Chromium trusting the local CA", () => {
  test(`opens https at the LAN address with no certificate error, in a secure context; the service worker takes control, and an offline reload shows the app`, async () => {
    const b = await browserTrusting(join(g.dataDir, "tls", "ca.pem"));
    const page = await b.newPage();
    const url = `https://${address}:${g.httpsPort}/`;
    const r = await page.goto(url);
    expect(r?.status()).toBe(200);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    expect(await page.evaluate(() => location.protocol)).toBe("https:");
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
    // the same CA file the page links to
    expect(await page.evaluate(async () => (await fetch("/tls/ca.pem")).text())).toBe(readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8"));
    // with the network off, a reload shows the app (from the service worker), not the browser's error page
    await page.context().setOffline(true);
    try {
      await page.reload();
      await page.getByRole("navigation").getByRole("link", { name: "Map" }).waitFor({ timeout: 15_000 });
      await page.getByTestId("offline-state").waitFor();
      expect(await page.getByTestId("offline-state").textContent()).toContain("Offline.");
    } finally {
      await page.context().setOffline(false);
    }
  }, 60_000);

  test("plain http at the LAN address takes the browser to https", async () => {
    const b = browsers[0] ?? (await browserTrusting(join(g.dataDir, "tls", "ca.pem")));
    const page = await b.newPage();
    const port = new URL(g.http).port;
    await page.goto(`http://${address}:${port}/map`);
    expect(page.url()).toBe(`https://${address}:${g.httpsPort}/map`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
  }, 60_000);

  test("the Setup page offers the four TLS choices, local chosen, and links to /tls, which loads the install page", async () => {
    const b = browsers[0] ?? (await browserTrusting(join(g.dataDir, "tls", "ca.pem")));
    const page = await b.newPage();
    await page.goto(`https://${address}:${g.httpsPort}/setup`);
    for (const v of ["off", "local", "acme", "files"]) await page.locator(`input[name="tls"][value="${v}"]`).waitFor();
    expect(await page.locator('input[name="tls"][value="local"]').isChecked()).toBe(true);
    expect(await page.getByText("ACME_DOMAINS and ACME_EMAIL").count()).toBe(1);
    await page.getByRole("link", { name: "how to install it" }).click();
    await page.waitForURL(`https://${address}:${g.httpsPort}/tls`);
    await page.getByRole("heading", { name: "Trust this gateway's certificates" }).waitFor();
  }, 60_000);

  test("a passkey is made at <hostname>.local, a name the certificate covers (passkeys refuse IP addresses)", async () => {
    const name = `${hostname().toLowerCase().split(".")[0]}.local`;
    // (no mDNS responder here: the browser resolves the name to the LAN address itself)
    const b = await browserTrusting(join(g.dataDir, "tls", "ca.pem"), [`--host-resolver-rules=MAP ${name} ${address}`]);
    const context = await b.newContext();
    const page = await context.newPage();
    await addPasskeyAuthenticator(page);
    await page.goto(`https://${name}:${g.httpsPort}/account`);
    expect(await page.evaluate(() => window.isSecureContext)).toBe(true);
    await page.getByRole("button", { name: "Create an account with a passkey" }).click();
    await page.getByRole("heading", { name: "Your account" }).waitFor();
    expect(await page.getByRole("region", { name: "Passkeys" }).getByRole("row").count()).toBe(2);
  }, 60_000);

  test("without the CA, Chromium refuses the certificate", async () => {
    const b = await browserTrusting(null);
    const page = await b.newPage();
    let error = "";
    await page.goto(`https://${address}:${g.httpsPort}/`).catch((e) => (error = String(e)));
    expect(error).toContain("ERR_CERT_AUTHORITY_INVALID");
  }, 60_000);
});
