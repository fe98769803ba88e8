/**
 * Feeds and embeddables: /feeds/*.xml (RSS 2.0), /badge/:call.svg, /embed (an
 * embeddable map, allowed in other sites' frames) and /embed/qr.svg; and the
 * catalog import POST /api/import/:source.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { gatesPlugin, identify } from "../http/gates.ts";
import { RateLimiter } from "../http/ratelimit.ts";
import { allowLargerBody } from "../http/body.ts";
import { contentSecurityPolicy, serveIndex } from "../http/ui.ts";
import { AppError, badRequest } from "../errors.ts";
import { baseUrl } from "../http/public-url.ts";
import { actorOf, type Actor } from "../game/model.ts";
import { importByteCap, importCatalog } from "../game/import.ts";
import { feed, RSS_TYPE } from "./rss.ts";
import { badgeSvg } from "./badge.ts";

// The cap depends on who imports: it is known (and a larger body refused) before the body is read.
allowLargerBody("POST", /^\/api\/import\/[^/]+$/, (gw, request) => importByteCap(actorOf(identify(gw, request, null))));

/** Imports one account (or the ingest box) may start per minute. */
export const IMPORTS_PER_MINUTE = 10;
const importLimiters = new WeakMap<Gateway, RateLimiter>();

/** The per-account import limit: a 429 like every other limit, counted by account, not by address. */
function importRateLimit(gw: Gateway, actor: Actor, headers: Record<string, string>): void {
  let limiter = importLimiters.get(gw);
  if (!limiter) importLimiters.set(gw, (limiter = new RateLimiter()));
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

export function exportRoutes(gw: Gateway) {
  // The embed page may be framed by any site (that is what it is for); the rest of the app may not.
  const embedCsp = contentSecurityPolicy(gw.config).replace("frame-ancestors 'self'", "frame-ancestors *");
  return new Elysia({ name: "exports" })
    .use(gatesPlugin(gw))
    .get(
      "/feeds/*",
      ({ params, request }) =>
        new Response(feed(gw, baseUrl(gw, request), params["*"]), { headers: { "content-type": RSS_TYPE, "cache-control": "public, max-age=300" } }),
      { gate: "public" },
    )
    .get(
      "/badge/:file",
      ({ params }) => {
        const m = /^(.+)\.svg$/i.exec(params.file);
        if (!m) throw badRequest("invalid", "a badge is /badge/N0CALL.svg");
        return new Response(badgeSvg(gw, decodeURIComponent(m[1]!)), { headers: { "content-type": SVG, "cache-control": "public, max-age=600" } });
      },
      { gate: "public" },
    )
    .get("/embed", () => serveIndex(embedCsp), { gate: "public" })
    .get(
      "/embed/qr.svg",
      async ({ query, request }) => {
        const base = baseUrl(gw, request);
        let target = `${base}/map`;
        if (query.cache !== undefined) {
          if (!/^[\w.:~-]{1,100}$/.test(query.cache)) throw badRequest("invalid", "cache is a cache id or gid");
          target = `${base}/cache/${encodeURIComponent(query.cache)}`;
        } else if (query.path !== undefined) {
          if (!/^\/[\w./?=&%~:-]{0,200}$/.test(query.path) || query.path.startsWith("//"))
            throw badRequest("invalid", "path is a path on this instance, e.g. /cache/7");
          target = base + query.path;
        }
        const { default: QRCode } = await import("qrcode");
        const svg = await QRCode.toString(target, { type: "svg", margin: 2, errorCorrectionLevel: "M" });
        return new Response(svg, { headers: { "content-type": SVG, "cache-control": "public, max-age=3600" } });
      },
      { gate: "public" },
    )
    .post(
      "/api/import/:source",
      ({ params, body, caller, set }) => {
        const actor = actorOf(caller);
        importRateLimit(gw, actor, set.headers as Record<string, string>);
        return importCatalog(gw, actor, params.source, body);
      },
      { gate: "actor" },
    );
}
