/** Headless Debian Chromium driven by playwright-core, with no network chatter. */
import { chromium, type Browser, type BrowserContext } from "playwright-core";

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

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS });
}

/**
 * A browser with a profile on disk in `dir` (not incognito, as a user's
 * browser is: Chromium offers to install web apps only there).
 */
export async function launchProfile(dir: string, opts: Parameters<typeof chromium.launchPersistentContext>[1] = {}): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 }, ...opts });
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
