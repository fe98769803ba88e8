/**
 * The sysop's Peers page in headless Chromium: peers with trust, health and
 * reputation; setting a tier; adding a 44net peer through the confirm step;
 * federated caches with their origin and trust (also on the cache page).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { startDoh, type DohServer } from "../helpers/doh.ts";
import { generateKeyPair } from "../../src/lib/fed/keys.ts";
import { publishRecord } from "../../src/fed/feed.ts";
import { cacheToWire } from "../../src/lib/fed/bodies.ts";
import { getPeer, upsertPeer } from "../../src/fed/peers.ts";
import { pullPeer } from "../../src/fed/sync.ts";

const kA = generateKeyPair();
const kU = generateKeyPair();
const kP = generateKeyPair();
let A: Running; // a trusted peer
let U: Running; // an unvetted peer
let P: Running; // on 44net, to be added
let O: Running; // the operator's gateway
let doh: DohServer;
let browser: Browser;
let sysop: TestUser;
let visitor: TestUser;

const cache = (name: string, lat: number) =>
  cacheToWire({ name, type: "traditional", size: "small", difficulty: 2, terrain: 2, lat, lon: 9.5, status: "active" });

beforeAll(async () => {
  A = await startInProcess({ INSTANCE: "gw-a", FED_PRIVATE_KEY: kA.privateKey });
  U = await startInProcess({ INSTANCE: "gw-u", FED_PRIVATE_KEY: kU.privateKey });
  P = await startInProcess({ INSTANCE: "n0pee-gw", FED_PRIVATE_KEY: kP.privateKey });
  doh = startDoh({ "_svc.n0pee.ampr.org": { txt: [`v=svc1; id=n0pee-gw; key=${kP.publicKey}`], ad: false } });
  O = await startInProcess({
    INSTANCE: "gw-o",
    TILE_URL: "off",
    ADMIN_CALLSIGNS: "N0OPS",
    DOH_URL: doh.url,
    FED_LOOPBACK_PEERS: `on,n0pee.ampr.org=${new URL(P.url).port}`,
  });
  publishRecord(A.gw, "cache", 1, cache("Trusted peer's cache", 47.1));
  publishRecord(U.gw, "cache", 1, cache("Unvetted peer's cache", 47.2));
  upsertPeer(O.gw, { instance: "gw-a", url: A.url, trust: "trusted", keyPin: kA.publicKey });
  upsertPeer(O.gw, { instance: "gw-u", url: U.url, trust: "unvetted", keyPin: kU.publicKey, foundVia: "transitive:gw-a" });
  expect((await pullPeer(O.gw, "gw-a")).ok).toBe(true);
  expect((await pullPeer(O.gw, "gw-u")).ok).toBe(true);
  sysop = signedInUser(O.gw, "N0OPS", { verified: true });
  visitor = signedInUser(O.gw, "N0VIS", { verified: true });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await Promise.all([A.stop(), U.stop(), P.stop(), O.stop()]);
  doh.stop();
});

const as = (user: TestUser): Promise<BrowserContext> => contextFor(browser, O.url, user.cookie);

describe("web app: peers", () => {
  test("the page is the operators' alone", async () => {
    const ctx = await as(visitor);
    const page = await ctx.newPage();
    await page.goto(O.url + "/peers");
    expect(await page.getByTestId("peers-locked").textContent()).toContain("operators");
    await ctx.close();
  });

  test("peers with trust, health and reputation; federated caches with origin and trust; set a tier", async () => {
    const ctx = await as(sysop);
    const page = await ctx.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(O.url + "/map");
    await page.getByRole("navigation").getByRole("link", { name: "Peers" }).click();
    const rowA = page.locator('tr[data-peer="gw-a"]');
    await rowA.waitFor();
    expect(await rowA.getByTestId("health").textContent()).toBe("ok");
    expect(await rowA.getByTestId("reputation").textContent()).toContain("✓ 0 · ✗ 0");
    expect(await page.locator('tr[data-peer="gw-u"]').textContent()).toContain("found via transitive:gw-a");
    const fed = page.getByTestId("federated-caches");
    await fed.waitFor();
    const rows = await fed.locator("tbody tr").allTextContents();
    expect(rows.some((r) => r.includes("Trusted peer's cache") && r.includes("gw-a") && r.includes("trusted"))).toBe(true);
    expect(rows.some((r) => r.includes("Unvetted peer's cache") && r.includes("gw-u") && r.includes("unvetted"))).toBe(true);

    await page.getByLabel("trust of gw-u").selectOption("trusted");
    await page.locator('tr[data-peer="gw-u"]', { hasText: "set by operator" }).waitFor();
    expect(getPeer(O.gw, "gw-u")!.trust).toBe("trusted");

    // the cache page names the origin and its trust
    await fed.getByRole("link", { name: "Trusted peer's cache" }).click();
    await page.getByTestId("cache-origin").waitFor();
    expect(await page.getByTestId("cache-facts").textContent()).toContain("from gw-a (trusted peer)");
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("add a 44net peer: without DNSSEC the binding is shown, and pinned only on confirm", async () => {
    const ctx = await as(sysop);
    const page = await ctx.newPage();
    await page.goto(O.url + "/peers");
    await page.getByLabel("Callsign").fill("N0PEE");
    await page.getByRole("button", { name: "Look up" }).click();
    const binding = page.getByTestId("binding");
    await binding.waitFor();
    expect(await binding.textContent()).toContain("n0pee-gw");
    expect(await binding.textContent()).toContain(kP.publicKey);
    expect(getPeer(O.gw, "n0pee-gw")).toBeNull();
    await page.getByRole("button", { name: "Confirm and pin" }).click();
    expect(await page.getByTestId("add-result").textContent()).toContain("n0pee-gw added");
    const row = page.locator('tr[data-peer="n0pee-gw"]');
    await row.waitFor();
    expect(await row.textContent()).toContain("verified via coord-lot");
    expect(getPeer(O.gw, "n0pee-gw")).toMatchObject({ trust: "unvetted", keyPin: kP.publicKey });
    await ctx.close();
  });
});
