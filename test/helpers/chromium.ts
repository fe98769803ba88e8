/** Headless Debian Chromium driven by playwright-core, with no network chatter. */
import { chromium, type Browser, type BrowserContext } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/** A fresh browser context for `url`, signed in with a session cookie (`name=value`) when given. */
export async function contextFor(browser: Browser, url: string, cookie?: string | null): Promise<BrowserContext> {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  if (cookie) {
    const [name, value] = cookie.split("=");
    await ctx.addCookies([{ name: name!, value: value!, url }]);
  }
  return ctx;
}
