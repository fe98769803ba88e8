/**
 * A decoded packet and the map's groups in the reader's language (issue 33
 * item 11), in headless Chromium at 360 px against the real server: a German
 * browser decodes packets on /decode and reads "Pfad", "Empfangen über" with
 * the q construct in words, "Nachricht an"; a Spanish one reads a Mic-E
 * packet's "Formato de posición" and an object's name and state through the
 * field-name fallback; on the map a German browser's group of stations says
 * "3 Stationen: hineinzoomen". (English: test/ui/pages.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, PHONE } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  const now = Date.now();
  // three stations a few metres apart: one group on the map at any zoom but the closest
  const lines = [
    "N1GRP-1>APRS,TCPIP*:!4237.14N/07120.83W>group one",
    "N1GRP-2>APRS,TCPIP*:!4237.15N/07120.84W>group two",
    "N1GRP-3>APRS,TCPIP*:!4237.16N/07120.82W>group three",
  ];
  const r = await g.post("/ingest", { packets: lines.map((line) => ({ line, heardAt: now - 60_000 })) }, { headers: { "x-ingest-secret": INGEST } });
  expect(r.status).toBe(200);
  browser = await launchBrowser();
}, 60_000);

afterAll(() => stopAll(browser, g));

/** A phone whose browser speaks `locale`, on `path`. */
const open = (locale: string, path: string) => openPage(browser, g.url, null, path, { ...PHONE, locale });

/** Decodes a line on /decode and returns the table a reader sees, label → value. */
async function decode(page: Page, field: string, button: string, line: string): Promise<Record<string, string>> {
  await page.getByLabel(field).fill(line);
  await page.getByRole("button", { name: button }).click();
  const table = page.getByTestId("decoded");
  await table.waitFor();
  // the table of this line, not the one before: its first row is the sender
  await table.getByRole("cell", { name: line.slice(0, line.indexOf(">")), exact: true }).waitFor();
  return Object.fromEntries(
    await table.locator("tr").evaluateAll((rows) => rows.map((r) => [r.querySelector("th")!.textContent, r.querySelector("td")!.textContent])),
  ) as Record<string, string>;
}

describe("a decoded packet in the reader's language", () => {
  test("a German browser reads the fields of a weather report and a message in German", async () => {
    const { ctx, page, errors } = await open("de-DE", "/decode");
    await page.getByRole("heading", { name: "Ein APRS-Paket dekodieren" }).waitFor();
    const wx = await decode(
      page,
      "TNC2-Zeile",
      "Dekodieren",
      "N0WX-13>APRS,WIDE1-1,WIDE2-1,qAR,N0IG-10:@092345z4237.14N/07120.83W_090/005g010t077r000p000P000h50b10150L123.DireWolf",
    );
    expect(wx).toMatchObject({
      Von: "N0WX-13",
      "Ziel (tocall)": "APRS",
      Pfad: "WIDE1-1, WIDE2-1, qAR, N0IG-10",
      "Empfangen über": "aus dem Funknetz eingespeist über IGate N0IG-10 (qAR)",
      Pakettyp: "Wetter",
      "Zeitstempel (wie gesendet)": "092345z",
      "Kann Nachrichten empfangen": "ja",
      Positionsformat: "Klartext",
      Temperatur: "25,0 °C (77 °F)",
    });
    expect(wx.Position).toContain("N 42° 37.140 W 071° 20.830");
    const msg = await decode(page, "TNC2-Zeile", "Dekodieren", "N0S>APRS::N0X      :hello{12");
    expect(msg).toMatchObject({
      Pfad: "direkt (ohne Digipeater)",
      Pakettyp: "Nachricht",
      "Nachricht an": "N0X",
      Nachricht: "hello",
      Nachrichtennummer: "12",
    });
    expect(Object.keys({ ...wx, ...msg }).join(" ")).not.toMatch(/From|Path|Received|Message|Packet type/);
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("a Spanish browser reads a Mic-E packet and an object's fields, the unnamed ones too, in Spanish", async () => {
    const { ctx, page, errors } = await open("es-ES", "/decode");
    const mic = await decode(page, "Línea TNC2", "Decodificar", 'N0M-9>T2SP0W,WIDE1-1:`c51!f?>/]"4V}=');
    expect(mic).toMatchObject({
      De: "N0M-9",
      Ruta: "WIDE1-1",
      "Tipo de paquete": "posición",
      "Formato de posición": "Mic-E",
      "Estado Mic-E": "In Service",
      "Equipo o software": "Kenwood TM-D710",
      Rumbo: "35° NE",
    });
    expect(mic.Velocidad).toMatch(/^106 km\/h/);
    // an object: its name and whether it is alive have no label of their own; they still read in Spanish
    const obj = await decode(page, "Línea TNC2", "Decodificar", "N0OBJ>APRS:;LEADER   *092345z4903.50N/07201.75W>088/036");
    expect(obj).toMatchObject({ "Tipo de paquete": "objeto", Nombre: "LEADER", Activo: "sí" });
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("a German browser's map says how many stations a group holds, and to zoom in, in German", async () => {
    const { ctx, page, errors } = await open("de-DE", "/map?lat=42.619&lon=-71.347&z=9");
    const group = page.locator(".leaflet-marker-icon.map-cluster");
    await group.first().waitFor({ timeout: 20_000 });
    expect(await group.first().getAttribute("title")).toBe("3 Stationen: hineinzoomen");
    expect(errors).toEqual([]);
    await ctx.close();
  }, 30_000);
});
