/**
 * The words that came from tables, in the reader's language (issue 33 item
 * 11), in headless Chromium at 360 px against the real server: an APRS
 * symbol's name (the glyph's label on the station page and in search
 * results), a course's compass point of sixteen, and a field note's failure
 * reason on the offline page, in German; the symbol and the reason in
 * Spanish. A note kept by an older version, its reason in English words,
 * still shows them as they are.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, Page } from "playwright-core";
import { launchBrowser, openPage, PHONE } from "../helpers/chromium.ts";
import { startInProcess, stopAll, type Running } from "../helpers/gateway.ts";
import { ingestMinuteApart } from "../helpers/aprs.ts";

const INGEST = "ingest-secret-0123456789";
let g: Running;
let browser: Browser;

beforeAll(async () => {
  g = await startInProcess({ TILE_URL: "off", INGEST_SECRET: INGEST });
  // a car heading 113°: east-south-east, "OSO" in German
  const r = await ingestMinuteApart(g, INGEST, [
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.14N/07120.83W>113/036/A=001234 rolling",
    "N0MOB-9>APRS,WIDE1-1,qAR,W1AW-10:!4237.04N/07120.53W>113/040/A=001250 rolling",
  ]);
  expect(r.status).toBe(200);
  browser = await launchBrowser();
}, 60_000);

afterAll(() => stopAll(browser, g));

/** A phone whose browser speaks `locale`, on `path`. */
const open = (locale: string, path: string) => openPage(browser, g.url, null, path, { ...PHONE, locale });

/** A geocache_visits.txt (UTF-16LE with its mark) with a find on a cache this gateway does not have. */
function visitsFile(code: string): Buffer {
  const file = `\ufeff${code},${new Date(Date.now() - 3_600_000).toISOString().slice(0, 16)}Z,Found it,"TFTC"\r\n`;
  const buf = Buffer.alloc(file.length * 2);
  for (let i = 0; i < file.length; i++) buf.writeUInt16LE(file.charCodeAt(i), i * 2);
  return buf;
}

/** Imports a find on a code no cache here has: the note is refused, and the page says why. */
async function refusedNote(page: Page, code: string): Promise<string> {
  await page.locator('input[type="file"]').setInputFiles({ name: "geocache_visits.txt", mimeType: "text/plain", buffer: visitsFile(code) });
  const failed = page.locator('[data-testid="field-notes"] li[data-state="failed"]');
  await failed.waitFor({ timeout: 20_000 });
  return (await failed.getByTestId("note-reason").textContent()) ?? "";
}

describe("symbol names, compass points and field-note reasons in the reader's language", () => {
  test("German: the car is an Auto on its page and in search, heading OSO; a refused note says why in German, an old note's words stay", async () => {
    const { ctx, page, errors } = await open("de-DE", "/station/N0MOB-9");
    const h1 = page.getByRole("heading", { name: "N0MOB-9", level: 1 });
    await h1.waitFor();
    expect(await h1.locator("svg").getAttribute("aria-label")).toBe("Auto");
    const facts = page.getByTestId("station-facts");
    await facts.getByText("Kurs").waitFor();
    expect(await facts.textContent()).toContain("113° OSO");

    await page.getByRole("combobox").first().fill("N0MOB");
    const option = page.getByRole("option", { name: /N0MOB-9/ });
    await option.waitFor();
    expect(await option.locator(".station-symbol svg").getAttribute("aria-label")).toBe("Auto");

    await page.goto(g.url + "/offline");
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await refusedNote(page, "GC0NONE")).toBe("Hier gibt es keinen Cache GC0NONE.");
    // a note an older version kept, its reason in English words: shown as it is
    await page.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const req = indexedDB.open("svc-offline");
          req.onerror = () => reject(req.error);
          req.onsuccess = () => {
            const tx = req.result.transaction("notes", "readwrite");
            tx.objectStore("notes").put({
              clientId: "old-note",
              cacheKey: null,
              code: "GC0OLD",
              name: "",
              kind: "find",
              text: "",
              foundAt: Date.now() - 86_400_000,
              state: "failed",
              error: "no cache GC0OLD here",
            });
            tx.oncomplete = () => (req.result.close(), resolve());
            tx.onerror = () => reject(tx.error);
          };
        }),
    );
    await page.reload();
    await page.getByText("no cache GC0OLD here").waitFor();
    expect(await page.getByText("Hier gibt es keinen Cache GC0NONE.").count()).toBe(1);
    expect(errors).toEqual([]);
    await ctx.close();
  });

  test("Spanish: the car is a Coche on its page; a refused note says why in Spanish", async () => {
    const { ctx, page, errors } = await open("es-ES", "/station/N0MOB-9");
    const h1 = page.getByRole("heading", { name: "N0MOB-9", level: 1 });
    await h1.waitFor();
    expect(await h1.locator("svg").getAttribute("aria-label")).toBe("Coche");
    await page.goto(g.url + "/offline");
    await page.getByRole("heading", { level: 1 }).waitFor();
    expect(await refusedNote(page, "GC0NADA")).toBe("Aquí no hay ningún caché GC0NADA.");
    expect(errors).toEqual([]);
    await ctx.close();
  });
});
