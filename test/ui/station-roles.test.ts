/**
 * The station's roles on the Radio page in headless Chromium, against a real
 * gateway with a fake TNC (test/helpers/kiss-tnc.ts), a KISS server, the iGate
 * (its upstream a second gateway's APRS-IS server), a fill-in digipeater and
 * its own beacons: while RADIO_CALL is not verified the page says the station
 * sends nothing on the air, the digipeater counts what it did not repeat for
 * that reason, the beacons wait and say why, the iGate still gates up, and the
 * KISS server shows the frames it refused (txOff); once the call is verified
 * the warning is gone, the digipeater's repeat is listed and the beacons'
 * counters show what went out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, tnc2Frame, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { ROOT } from "../helpers/paths.ts";
import { waitFor } from "../helpers/wait.ts";
import { encodeFrame, encodeKiss, parseTnc2 } from "../../radio/index.ts";

let tnc: FakeTnc;
let g: Running;
let upstream: Running;
let browser: Browser;
const SHOTS = join(ROOT, "test-artifacts");

const ports = async () => ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, any>> }).ports;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  upstream = await startInProcess({ APRSIS_LISTEN: "127.0.0.1:0" });
  tnc = fakeTnc();
  g = await startInProcess({
    TILE_URL: "off",
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    STATION_BEACON: "42.3601,-71.0589,R&,test iGate",
    KISS_SERVER: "127.0.0.1:0",
    APRSIS_SERVER: `127.0.0.1:${upstream.gw.hub!.aprsIs!.port}`,
    APRSIS_CALL: "N0GW-10",
    IGATE: "on",
    DIGIPEAT: "fill-in",
    RADIO_TX_PER_MINUTE: "10",
    FED_BEACON_INTERVAL_MIN: "0",
    RADIO_SYNC_INTERVAL_MIN: "0",
  });
  await tnc.connected();
  await waitFor(async () => (await ports()).find((p) => p.name === "aprs-is")?.igate?.uplink, "the iGate's verified login upstream");
  // heard while RADIO_CALL is not verified: gated up, not repeated; a NOGATE frame is neither
  tnc.hear(tnc2Frame("N0RF-1>APRS,WIDE1-1:>fill me in"));
  tnc.hear(tnc2Frame("N0NG-1>APRS,NOGATE:>not for the internet"));
  await waitFor(async () => (await ports()).find((p) => p.name === "digipeater")?.heard === 2, "the digipeater looking at both frames");
  // a KISS client sends a frame while KISS_SERVER_TX is off: refused, counted as txOff
  const f = parseTnc2("N0APP-1>APRS:>from a local program");
  if (!f.ok) throw f.error;
  const sock = await Bun.connect({ hostname: "127.0.0.1", port: g.gw.hub!.kiss!.port, socket: { data() {} } });
  sock.write(encodeKiss(encodeFrame(f.value), 0));
  await waitFor(async () => (await ports()).find((p) => p.name === "kiss-server")?.txOff === 1, "the KISS server's txOff count");
  sock.end();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await g?.stop();
  await upstream?.stop();
  tnc?.stop();
});

async function radioPage(): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const ctx = await contextFor(browser, g.url);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(g.url + "/radio");
  await page.getByTestId("roles").waitFor();
  return { page, errors, close: () => ctx.close() };
}

describe("web app: the station's roles on the Radio page", () => {
  test("RADIO_CALL not verified: the page says nothing goes on the air, the beacons wait, the KISS server's refusals are counted", async () => {
    const { page, errors, close } = await radioPage();
    const notice = page.getByTestId("not-on-air");
    await notice.waitFor();
    expect(await notice.textContent()).toContain("The station sends nothing on the air: N0GW-10 (RADIO_CALL) is not verified on this instance.");
    expect(await notice.textContent()).toContain("The digipeater repeats nothing");
    expect(await page.getByTestId("station").textContent()).toContain("not on the air");
    const beacons = page.locator('tr[data-role="beacons"]');
    expect(await beacons.getByTestId("beacons-state").textContent()).toBe("waiting");
    expect(await beacons.textContent()).toContain("N0GW-10 is not verified");
    expect(await beacons.getByTestId("beacons-counters").textContent()).toContain("position and status every 30 min, telemetry every 10 min · 0 sent");
    const hub = page.locator('[data-server="kiss-server"] h3');
    expect(await hub.textContent()).toContain("1 refused (1 with KISS_SERVER_TX off, 0 from a call not verified here)");

    // the iGate gates up whether or not RADIO_CALL is verified (that is not transmitting)
    const igate = page.locator('tr[data-role="igate"]');
    expect(await igate.getByTestId("igate-rx").textContent()).toBe("on");
    expect(await igate.getByTestId("igate-counters").textContent()).toBe("2 heard · 1 gated");
    expect(await igate.getByTestId("igate-dropped").textContent()).toBe("TCPIP, TCPXX, NOGATE or RFONLY in the path: 1");
    expect(await page.locator('tr[data-role="igate-tx"]').getByTestId("igate-tx").textContent()).toBe("off");
    const digi = page.locator('tr[data-role="digipeater"]');
    expect(await digi.getByTestId("digi-mode").textContent()).toBe("fill-in");
    expect(await digi.textContent()).toContain("RADIO_CALL not verified: repeats nothing");
    expect(await digi.getByTestId("digi-counters").textContent()).toBe("2 heard · 0 repeated");
    expect(await digi.locator('[data-reason="unverified"]').textContent()).toBe("RADIO_CALL not verified: 1");
    expect(await digi.locator('[data-reason="not-for-us"]').textContent()).toBe("not addressed through us: 1");
    const gated = page.getByTestId("gated").locator("tbody tr");
    expect(await gated.count()).toBe(1);
    expect(await gated.first().textContent()).toContain("RF to APRS-IS");
    expect(await gated.first().textContent()).toContain("N0RF-1>APRS,WIDE1-1,qAR,N0GW-10:>fill me in");
    expect(await page.getByTestId("recent").textContent()).toContain("Nothing repeated yet.");
    await page.screenshot({ path: join(SHOTS, "radio-roles-unverified.png"), fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });

  test("verified: no warning, the beacons on with what they sent and a link to the station's page", async () => {
    signedInUser(g.gw, "N0GW", { verified: true });
    const tick = (await g.gw.scheduler.runNow("radio")) as { station?: Record<string, unknown> };
    expect(Object.keys(tick.station ?? {})).toEqual(["position", "status", "telemetry", "definitions"]);
    const { page, errors, close } = await radioPage();
    const beacons = page.locator('tr[data-role="beacons"]');
    await waitFor(async () => (await beacons.getByTestId("beacons-state").textContent()) === "on", "the beacons on");
    expect(await beacons.getByTestId("beacons-counters").textContent()).toContain("· 7 sent · last position just now");
    expect(await beacons.getByRole("link", { name: "station page" }).getAttribute("href")).toBe("/station/N0GW-10");
    expect(await page.getByTestId("not-on-air").count()).toBe(0);
    expect(await page.getByTestId("station").textContent()).toContain("on the air");
    expect(await page.locator('tr[data-role="digipeater"]').textContent()).not.toContain("repeats nothing");

    // now the digipeater repeats, and the page lists the frame as heard and as sent
    tnc.hear(tnc2Frame("N0RF-2>APRS,WIDE1-1:>fill me in too"));
    const row = page.getByTestId("repeated").locator("tbody tr").first();
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain("N0RF-2>APRS,WIDE1-1:>fill me in too");
    expect(await row.textContent()).toContain("N0RF-2>APRS,N0GW-10*:>fill me in too");
    await waitFor(
      async () => (await page.locator('tr[data-role="digipeater"]').getByTestId("digi-counters").textContent()) === "3 heard · 1 repeated",
      "the digipeater's counters refreshed",
    );
    await page.screenshot({ path: join(SHOTS, "radio-roles-verified.png"), fullPage: true });

    // the station's own page: its beacon, its status and its telemetry, named and with units
    await page.getByRole("link", { name: "station page" }).click();
    await page.getByRole("heading", { name: "N0GW-10" }).waitFor();
    const now = page.getByTestId("telemetry-now");
    await now.waitFor();
    expect(await now.textContent()).toContain("RxPkts");
    expect(await now.textContent()).toContain("pkt/10m");
    expect(await page.getByTestId("telemetry-bits").textContent()).toContain("IGate: on");
    expect(await page.getByTestId("telemetry-bits").textContent()).toContain("Digi: on");
    expect(await page.locator("main").textContent()).toContain("svc-gateway station");
    expect(await page.locator("main").textContent()).toContain("test iGate");
    await page.screenshot({ path: join(SHOTS, "radio-roles-station-page.png"), fullPage: true });
    expect(errors).toEqual([]);
    await close();
  });
});
