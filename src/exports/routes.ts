/**
 * Feeds and embeddables: /feeds/*.xml (RSS 2.0), /badge/:call.svg, /embed (an
 * embeddable map, allowed in other sites' frames) and /embed/qr.svg; and the
 * catalog import POST /api/import/:source.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { identify } from "../http/gates.ts";
import { RateLimiter } from "../http/ratelimit.ts";
import { contentSecurityPolicy, serveIndex } from "../http/ui.ts";
import { AppError } from "../lib/errors.ts";
import { actorOf, type Actor } from "../game/model.ts";
import { IMPORT_SOURCES, IMPORTED, importByteCap, importCatalog } from "../game/import.ts";
import { answers, answersMedia } from "../http/openapi.ts";
import { feed, RSS_TYPE } from "./rss.ts";
import { badgeSvg } from "./badge.ts";
import { fromAcceptLanguage } from "../i18n/server.ts";

/** Imports one account (or the ingest box) may start per minute. */
export const IMPORTS_PER_MINUTE = 10;
/** The per-account import limit: a 429 like every other limit, counted by account, not by address. */
function importRateLimit(gw: Core, limiter: RateLimiter, actor: Actor, headers: Record<string, string>): void {
  const r = limiter.hit(actor.userId !== null ? `import:user:${actor.userId}` : "import:ingest", IMPORTS_PER_MINUTE, gw.clock.now());
  headers["ratelimit-limit"] = String(r.limit);
  headers["ratelimit-remaining"] = String(r.remaining);
  headers["ratelimit-reset"] = String(r.resetS);
  if (!r.allowed) {
    headers["retry-after"] = String(r.resetS);
    throw new AppError(429, "rate_limited", `at most ${IMPORTS_PER_MINUTE} imports a minute per account; try again in ${r.resetS} s`);
  }
}

const SVG = "image/svg+xml; charset=utf-8";
const tags = ["Feeds and embeds"];

export function exportRoutes(gw: Core, kit: RouteKit) {
  // the gateway's import limits (the route builder runs once per gateway)
  const importLimiter = new RateLimiter();
  // The embed page may be framed by any site (that is what it is for); the rest of the app may not.
  const embedCsp = contentSecurityPolicy(gw.config).replace("frame-ancestors 'self'", "frame-ancestors *");
  return kit.app
    .get(
      "/feeds/*",
      ({ params, request }) =>
        new Response(feed(gw, kit.baseUrl(request), params["*"]), { headers: { "content-type": RSS_TYPE, "cache-control": "public, max-age=300" } }),
      {
        gate: "public",
        params: t.Object({ "*": t.String({ description: "the feed's file name, e.g. activity.xml (another answers 404)" }) }),
        detail: {
          summary: "An RSS 2.0 feed of this instance (activity, new caches, bulletins)",
          tags,
          responses: answersMedia("the feed", "application/rss+xml"),
        },
      },
    )
    .get(
      "/badge/:file",
      ({ params, request }) => {
        // in the words of the reader of the page that shows it
        const lang = fromAcceptLanguage(request.headers.get("accept-language"));
        return new Response(badgeSvg(gw, decodeURIComponent(params.file.slice(0, -".svg".length)), lang), {
          headers: { "content-type": SVG, "cache-control": "public, max-age=600", "content-language": lang, vary: "Accept-Language" },
        });
      },
      {
        gate: "public",
        params: t.Object({ file: t.String({ pattern: "^.+\\.[Ss][Vv][Gg]$", description: "the callsign and .svg, e.g. N0CALL.svg" }) }),
        detail: {
          summary: "A callsign's badge (finds, hides) as an SVG image to put on other sites",
          tags,
          responses: answersMedia("the badge", "image/svg+xml"),
        },
      },
    )
    .get("/embed", () => serveIndex(embedCsp), {
      gate: "public",
      detail: { summary: "The embeddable map page (other sites may frame it)", tags, responses: answersMedia("the page", "text/html") },
    })
    .get(
      "/embed/qr.svg",
      async ({ query, request }) => {
        const base = kit.baseUrl(request);
        let target = `${base}/map`;
        if (query.cache !== undefined) target = `${base}/cache/${encodeURIComponent(query.cache)}`;
        else if (query.path !== undefined) target = base + query.path;
        const { default: QRCode } = await import("qrcode");
        const svg = await QRCode.toString(target, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
        return new Response(svg, { headers: { "content-type": SVG, "cache-control": "public, max-age=3600" } });
      },
      {
        gate: "public",
        query: t.Object({
          cache: t.Optional(t.String({ pattern: "^[\\w.:~-]{1,100}$", description: "a cache id or gid: the code opens its page" })),
          path: t.Optional(
            t.String({ pattern: "^/(?!/)[\\w./?=&%~:-]{0,200}$", description: "a path on this instance, e.g. /cache/7 (used when cache is left out)" }),
          ),
        }),
        detail: {
          summary: "A QR code (SVG) of this instance's map, a cache's page or a path on it",
          tags,
          responses: answersMedia("the QR code", "image/svg+xml"),
        },
      },
    )
    .post(
      "/api/import/:source",
      ({ params, body, caller, set }) => {
        const actor = actorOf(caller);
        importRateLimit(gw, importLimiter, actor, set.headers as Record<string, string>);
        return importCatalog(gw, actor, params.source, body);
      },
      {
        gate: "actor",
        // the cap follows who imports (a sysop's is larger), worked out before the body is read
        bodyLimit: (gw, request) => importByteCap(actorOf(identify(gw, request, null))),
        params: t.Object({ source: t.String({ description: `the file's format: ${IMPORT_SOURCES.join(" or ")} (another answers 404)` }) }),
        body: t.Uint8Array({ description: "the catalog file itself" }),
        detail: {
          summary: "Import a catalog of caches (a GPX or LOC file): new codes are created, known ones updated",
          description: `At most ${IMPORTS_PER_MINUTE} imports a minute per account; the size cap depends on who imports.`,
          bodyType: "application/gpx+xml",
          tags: ["Caches"],
          responses: answers("what the file held and what became of it", IMPORTED),
        },
      },
    );
}
