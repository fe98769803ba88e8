/** Headless Debian Chromium driven by playwright-core, with no network chatter. */
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/**
 * `extraArgs`: more command-line switches, e.g. `--host-resolver-rules=MAP gw.test 127.0.0.1` to reach a loopback gateway under a name that is not a secure context;
 * `home`: the browser's HOME (its NSS certificate database lives there).
 */
export async function launchBrowser(extraArgs: string[] = [], home?: string): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extraArgs], ...(home ? { env: { ...process.env, HOME: home } } : {}) });
}

/**
 * A browser with a profile on disk in `dir` (not incognito, as a user's
 * browser is: Chromium offers to install web apps only there).
 */
export async function launchProfile(dir: string, opts: Parameters<typeof chromium.launchPersistentContext>[1] = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 }, ...opts });
}

/** A 360x740 phone, as the phone tests open one (contextFor's `options`). */
export const PHONE = { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true };

/** A fresh browser context for `url` (1280x900 unless `options` say otherwise), signed in with a session cookie (`name=value`) when given. */
export async function contextFor(browser: Browser, url: string, cookie?: string | null, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  if (cookie) {
    const [name, value] = cookie.split("=");
    await ctx.addCookies([{ name: name!, value: value!, url }]);
  }
  return ctx;
}

/** A page at `url + path` in a fresh context (contextFor), signed in with `cookie` when given; `errors` collects the page's uncaught errors. */
export async function openPage(
  browser: Browser,
  url: string,
  cookie: string | null | undefined,
  path: string,
  options: BrowserContextOptions = {},
): Promise<{ ctx: BrowserContext; page: Page; errors: string[] }> {
  const ctx = await contextFor(browser, url, cookie, options);
  const page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url + path);
  return { ctx, page, errors };
}

/**
 * In `ctx` (a fresh profile, at a width where the map offers the button):
 * opens the map at `view` once the service worker controls the page and
 * `icons` caches are drawn, saves that area for offline, goes offline and
 * opens `path` at a phone's size, where the page says it is offline.
 */
export async function openSavedOffline(ctx: BrowserContext, url: string, view: string, icons: number, path: string): Promise<Page> {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(url + view);
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 });
  await page
    .locator(".cache-icon")
    .nth(icons - 1)
    .waitFor();
  await page.getByRole("button", { name: "Save area for offline" }).click();
  await page.getByTestId("save-estimate").waitFor();
  await page.getByRole("dialog").getByRole("button", { name: "Save" }).click();
  await page.getByTestId("save-done").waitFor();
  await ctx.setOffline(true);
  await page.setViewportSize(PHONE.viewport);
  await page.goto(url + path);
  await page.getByTestId("offline-state").waitFor();
  return page;
}

/** Gives `page` a platform passkey authenticator (Chromium's virtual one) that always says yes; its id. */
export async function addPasskeyAuthenticator(page: Page): Promise<string> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return authenticatorId;
}

/** How many pixels of the layer `name` (its canvases or images) are within 6 of `rgb`. */
export function layerPixels(page: Page, name: string, rgb: [number, number, number]): Promise<number> {
  return page.evaluate(
    ([name, rgb]) => {
      let n = 0;
      const scratch = document.createElement("canvas");
      for (const el of document.querySelectorAll(`.archive-${name} canvas, .archive-${name} img`)) {
        let data: Uint8ClampedArray;
        if (el instanceof HTMLCanvasElement) {
          if (!el.width) continue;
          data = el.getContext("2d")!.getImageData(0, 0, el.width, el.height).data;
        } else {
          const img = el as HTMLImageElement;
          if (!img.complete || !img.naturalWidth) continue;
          scratch.width = img.naturalWidth;
          scratch.height = img.naturalHeight;
          const c = scratch.getContext("2d")!;
          c.drawImage(img, 0, 0);
          data = c.getImageData(0, 0, scratch.width, scratch.height).data;
        }
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3]! > 200 && Math.abs(data[i]! - rgb[0]!) < 6 && Math.abs(data[i + 1]! - rgb[1]!) < 6 && Math.abs(data[i + 2]! - rgb[2]!) < 6) n++;
        }
      }
      return n;
    },
    [name, rgb] as const,
  );
}

export async function waitForLayerPixels(page: Page, name: string, rgb: [number, number, number], min: number): Promise<number> {
  const until = Date.now() + 45_000;
  let n = 0;
  while (Date.now() < until) {
    n = await layerPixels(page, name, rgb);
    if (n >= min) return n;
    await page.waitForTimeout(300);
  }
  return n;
}

/**
 * A context that has been granted geolocation at a position (navigator.geolocation
 * answers there), with a viewport and, when given, a session cookie.
 */
export async function geoContext(
  browser: Browser,
  url: string,
  at: { latitude: number; longitude: number },
  opts: { viewport?: { width: number; height: number }; cookie?: string | null } = {},
): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: opts.viewport ?? { width: 1280, height: 900 }, geolocation: at, permissions: [] });
  await ctx.grantPermissions(["geolocation"], { origin: new URL(url).origin });
  await ctx.setGeolocation(at);
  if (opts.cookie) {
    const [name, value] = opts.cookie.split("=");
    await ctx.addCookies([{ name: name!, value: value!, url }]);
  }
  return ctx;
}

/**
 * Waits until `page` has had no request in flight for `quietMs` (at most
 * `maxMs`): what `waitForLoadState("networkidle")` does, without its fixed
 * half-second of silence, so a test visiting many pages does not pay it each time.
 * Long-lived requests (event streams) are not counted.
 */
export function quietTracker(page: Page): (quietMs?: number, maxMs?: number) => Promise<void> {
  const inflight = new Set<unknown>();
  let last = Date.now();
  page.on("request", (r) => {
    if (r.resourceType() === "eventsource" || r.headers().accept === "text/event-stream") return;
    inflight.add(r);
    last = Date.now();
  });
  const done = (r: unknown) => {
    if (inflight.delete(r)) last = Date.now();
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return async (quietMs = 120, maxMs = 5_000) => {
    const until = Date.now() + maxMs;
    while (Date.now() < until && (inflight.size > 0 || Date.now() - last < quietMs)) await page.waitForTimeout(25);
  };
}
