/** The public pages of this instance, for /sitemap.xml and /api/sitemap. */
import type { Core } from "../core/core.ts";
import { sitemapCaches } from "../game/stats.ts";
import type { SitemapEntry } from "./shapes.ts";

const STATIC_PAGES = ["/", "/map", "/about", "/activity", "/leaderboard", "/support"];

export function sitemapEntries(gw: Core): SitemapEntry[] {
  return [...STATIC_PAGES.map((path) => ({ path })), ...sitemapCaches(gw)];
}

const xmlEscape = (s: string) => s.replace(/[<>&'"]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", "'": "&apos;", '"': "&quot;" })[c]!);

export function sitemapXml(base: string, entries: SitemapEntry[]): string {
  const urls = entries.map((e) => `  <url><loc>${xmlEscape(base + e.path)}</loc>${e.lastmod ? `<lastmod>${e.lastmod}</lastmod>` : ""}</url>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`;
}
