/**
 * The station's roles on the Radio page in headless Chromium, against a real
 * gateway with a fake TNC (test/helpers/kiss-tnc.ts) and a KISS server: while
 * RADIO_CALL is not verified the page says the station sends nothing on the
 * air, its own beacons wait and say why, and the KISS server shows the frames
 * it refused (txOff); once the call is verified the warning is gone and the
 * beacons' counters show what went out.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { contextFor, launchBrowser } from "../helpers/chromium.ts";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { signedInUser } from "../helpers/accounts.ts";
import { fakeTnc, type FakeTnc } from "../helpers/kiss-tnc.ts";
import { waitFor } from "../helpers/wait.ts";
import { hubOf } from "../../src/hub/index.ts";
import { encodeFrame, encodeKiss, parseTnc2 } from "../../radio/index.ts";

let tnc: FakeTnc;
let g: Running;
let browser: Browser;

const ports = async () => ((await (await g.get("/api/ports")).json()) as { ports: Array<Record<string, any>> }).ports;

beforeAll(async () => {
  tnc = fakeTnc();
  g = await startInProcess({
    TILE_URL: "off",
    KISS_PORTS: tnc.url,
    RADIO_CALL: "N0GW-10",
    STATION_BEACON: "42.3601,-71.0589,R&,test iGate",
    KISS_SERVER: "127.0.0.1:0",
    FED_BEACON_INTERVAL_MIN: "0",
    RADIO_SYNC_INTERVAL_MIN: "0",
  });
  await tnc.connected();
  // a KISS client sends a frame while KISS_SERVER_TX is off: refused, counted as txOff
  const f = parseTnc2("N0APP-1>APRS:>from a local program");
  if (!f.ok) throw f.error;
  const sock = await Bun.connect({ hostname: "127.0.0.1", port: hubOf(g.gw)!.kiss!.port, socket: { data() {} } });
  sock.write(encodeKiss(encodeFrame(f.value), 0));
  await waitFor(async () => (await ports()).find((p) => p.name === "kiss-server")?.txOff === 1, "the KISS server's txOff count");
  sock.end();
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await g?.stop();
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
    expect(errors).toEqual([]);
    await close();
  });

  test("verified: no warning, the beacons on with what they sent and a link to the station's page", async () => {
    signedInUser(g.gw, "N0GW", { verified: true });
    const tick = (await g.gw.scheduler.runNow("radio")) as { station?: Record<string, unknown> };
    expect(Object.keys(tick.station ?? {})).toEqual(["position", "status", "telemetry"]);
    const { page, errors, close } = await radioPage();
    const beacons = page.locator('tr[data-role="beacons"]');
    await waitFor(async () => (await beacons.getByTestId("beacons-state").textContent()) === "on", "the beacons on");
    expect(await beacons.getByTestId("beacons-counters").textContent()).toContain("· 3 sent · last position just now");
    expect(await beacons.getByRole("link", { name: "station page" }).getAttribute("href")).toBe("/station/N0GW-10");
    expect(await page.getByTestId("not-on-air").count()).toBe(0);
    expect(await page.getByTestId("station").textContent()).toContain("on the air");
    expect(errors).toEqual([]);
    await close();
  });
});
