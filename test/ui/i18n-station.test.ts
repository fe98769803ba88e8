/**
 * The station's sysop screens in German and Spanish, in headless Chromium at
 * 360 px against the real server (a fake TNC on the radio port, the station
 * hub with one APRS-IS client): a German browser signed in as the sysop reads
 * the Radio page (ports, the hub's client counts in both plural forms, the
 * NODES route form), the Peers page with its empty list, the BBS forwarding
 * page (a partner added, its schedule and buttons) and the set-up form; a
 * Spanish browser reads the Peers and Radio pages.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { contextFor, launchBrowser, PHONE } from "../helpers/chromium.ts";
import { signedInUser, type TestUser } from "../helpers/accounts.ts";
import { stationWithClients, type Station } from "../helpers/station.ts";

let station: Station;
let browser: Browser;
let sysop: TestUser;

beforeAll(async () => {
  station = await stationWithClients({ BBS_HA: "N0GW.#TST.USA.NOAM", NODE_ALIAS: "GWNODE", NODE_CALL: "N0GW-7" });
  sysop = signedInUser(station.g.gw, "N0OPS", { verified: true });
  // the web app is bundled on its first request: once here, not inside the first page's load
  expect((await fetch(station.g.url + "/radio", { headers: { accept: "text/html" } })).status).toBe(200);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await station?.stop();
});

async function open(locale: string): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await contextFor(browser, station.g.url, sysop.cookie, { ...PHONE, locale });
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  return { ctx, page, errors };
}

/** The page is no wider than the phone: nothing written in the longer language pushes it sideways. */
const fits = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

describe("the station's screens in German and Spanish", () => {
  test("a German sysop reads the Radio, Peers, BBS forwarding and set-up pages in German", async () => {
    const { ctx, page, errors } = await open("de-DE");
    const url = station.g.url;

    await page.goto(url + "/radio");
    await page.getByRole("heading", { name: "Funk", exact: true }).waitFor();
    const port = page.getByTestId("ports").locator("tbody tr").first();
    await port.getByTestId("port-state").getByText("verbunden", { exact: true }).waitFor();
    expect(await page.getByTestId("ports").locator("th").allTextContents()).toContain("zuletzt gehört");
    // RADIO_CALL is verified by nobody here
    expect(await page.getByTestId("station").textContent()).toContain("nicht auf Sendung");
    expect(await page.getByTestId("not-on-air").textContent()).toContain(
      "Die Station sendet nichts aus: N0GW-10 (RADIO_CALL) ist auf dieser Instanz nicht verifiziert.",
    );
    // the hub: one APRS-IS client, no KISS client (both plural forms)
    const hub = page.getByTestId("hub");
    await hub.getByRole("heading", { name: "Stations-Hub" }).waitFor();
    expect(await hub.locator('[data-server="aprsis-server"] h3').textContent()).toContain("APRS-IS-Server auf");
    expect(await hub.locator('[data-server="aprsis-server"] h3').textContent()).toContain("1 Client ·");
    expect(await hub.locator('[data-server="kiss-server"] h3').textContent()).toContain("0 Clients ·");
    expect(await hub.locator('[data-server="aprsis-server"] tr[data-client]').textContent()).toContain("verifiziert");
    expect(await page.getByTestId("node").textContent()).toContain("Diese Station ist Knoten GWNODE (N0GW-7), sendet NODES alle 60 min; letzte Aussendung");
    expect(await page.getByText("Noch keine Knoten bekannt.").count()).toBe(1);
    expect(await page.getByLabel("Rufzeichen des Knotens").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Route hinzufügen" }).count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Befehlsprotokoll" }).count()).toBe(1);
    expect(await page.getByText("Alle Befehle an den Funk dieses Gateways (du betreibst es).").count()).toBe(1);
    expect(await fits(page)).toBe(true);

    await page.goto(url + "/peers");
    await page.getByRole("heading", { name: "Partner", exact: true }).waitFor();
    await page.getByText("Noch keine Partner-Instanzen. Trage vertrauenswürdige Instanzen in FED_PEERS ein").waitFor();
    expect(await page.getByRole("heading", { name: "44net-Instanz hinzufügen" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Nachschlagen" }).count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Föderierte Caches" }).count()).toBe(1);

    await page.goto(url + "/sysop/bbs");
    await page.getByRole("heading", { name: "BBS-Weiterleitung" }).waitFor();
    expect(await page.getByText("Diese BBS: N0GW.#TST.USA.NOAM.").count()).toBe(1);
    await page.getByLabel("Rufzeichen", { exact: true }).fill("N0BBS");
    await page.getByLabel("Host").fill("127.0.0.1");
    await page.getByLabel("Port").fill("6300");
    await page.getByRole("button", { name: "Partner hinzufügen", exact: true }).click();
    const row = page.getByTestId("partners").locator("tbody tr", { hasText: "N0BBS" });
    await row.waitFor();
    expect(await row.textContent()).toContain("fbb-b1 über tcp");
    expect(await row.textContent()).toContain("alle 60 min");
    expect(await row.getByRole("button", { name: "Jetzt weiterleiten" }).count()).toBe(1);
    expect(await row.getByRole("button", { name: "Ausschalten" }).count()).toBe(1);
    expect(await page.getByRole("heading", { name: "Regel hinzufügen" }).count()).toBe(1);
    expect(await fits(page)).toBe(true);

    await page.goto(url + "/setup");
    await page.getByRole("heading", { name: "Dieses Gateway einrichten" }).waitFor();
    expect(await page.getByText("Öffne den Einrichtungs-Link, den das Gateway beim Start ausgegeben hat").count()).toBe(1);
    expect(await page.getByLabel("Name der Instanz").count()).toBe(1);
    expect(await page.getByText("Aus: nur einfaches http.").count()).toBe(1);
    expect(await page.getByRole("button", { name: "Speichern" }).count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("a Spanish sysop reads the Peers and Radio pages in Spanish", async () => {
    const { ctx, page, errors } = await open("es-ES");
    await page.goto(station.g.url + "/peers");
    await page.getByRole("heading", { name: "Pares", exact: true }).waitFor();
    await page.getByText("Aún no hay pares.").waitFor();
    expect(await page.getByRole("heading", { name: "Añadir un par de 44net" }).count()).toBe(1);
    expect(await page.getByRole("button", { name: "Consultar" }).count()).toBe(1);

    await page.goto(station.g.url + "/radio");
    const hub = page.getByTestId("hub");
    await hub.getByRole("heading", { name: "Concentrador de la estación" }).waitFor();
    expect(await hub.locator('[data-server="aprsis-server"] h3').textContent()).toContain("1 cliente ·");
    expect(await hub.locator('[data-server="kiss-server"] h3').textContent()).toContain("0 clientes ·");
    expect(await page.getByRole("heading", { name: "Registro de órdenes" }).count()).toBe(1);
    expect(await page.getByTestId("station").textContent()).toContain("fuera del aire");
    expect(await fits(page)).toBe(true);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 60_000);
});
