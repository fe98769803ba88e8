/**
 * Health, privacy, running source, client config and the site index.
 */
import { Elysia } from "elysia";
import type { Gateway } from "../gateway.ts";
import { buildInfo } from "../version.ts";
import { privacyStatement } from "./privacy.ts";
import { sitemapEntries, sitemapXml } from "./sitemap.ts";
import { AppError, badRequest } from "../errors.ts";
import { completeSetup, setupState, type SetupValues } from "./setup.ts";
import { gatesPlugin } from "../http/gates.ts";
import { baseUrl } from "../http/public-url.ts";
import { whoami } from "./whoami.ts";
import { clientConfig } from "./client-config.ts";

export function sourceInfo(gw: Gateway) {
  const b = buildInfo();
  const repository = gw.config.sourceRepository ?? b.repository;
  return {
    repository,
    commit: b.commit,
    tag: b.tag,
    licence: b.licence,
    version: b.version,
    tree: b.commit ? `${repository}/tree/${b.commit}` : repository,
  };
}

export function systemRoutes(gw: Gateway) {
  return new Elysia({ name: "system" })
    .use(gatesPlugin(gw))
    .get(
      "/api/admin/whoami",
      ({ caller, set }) => {
        set.headers["cache-control"] = "no-store";
        return whoami(gw, caller);
      },
      { gate: "public" },
    )
    .get(
      "/health",
      ({ query, set }) => {
        if ("live" in query) return { status: "live" };
        try {
          gw.db.query("SELECT 1").get();
        } catch (e) {
          throw new AppError(503, "not_ready", `the database does not answer: ${(e as Error).message}`);
        }
        set.headers["cache-control"] = "no-store";
        return { status: "ok", version: buildInfo().version, uptimeS: Math.round((Date.now() - gw.startedAt) / 1000) };
      },
      { gate: "public" },
    )
    .get("/privacy", () => privacyStatement(gw.config), { gate: "public" })
    .get("/.well-known/source", () => sourceInfo(gw), { gate: "public" })
    .get("/source", ({ redirect }) => redirect(sourceInfo(gw).tree, 302), { gate: "public" })
    .get("/api/config", () => clientConfig(gw), { gate: "public" })
    .get("/api/setup", () => setupState(gw), { gate: "public" })
    .post(
      "/api/setup",
      ({ body }) => {
        if (!body || typeof body !== "object" || Array.isArray(body) || body instanceof Uint8Array)
          throw badRequest("bad_body", "expected a JSON object with token, instance, operator, aprsCall, tileUrl");
        const { token, ...values } = body as Record<string, unknown>;
        return completeSetup(gw, token, values as SetupValues);
      },
      { gate: "public", rateLimit: "auth" },
    )
    .get(
      "/robots.txt",
      ({ request, set }) => {
        set.headers["content-type"] = "text/plain; charset=utf-8";
        return [
          "User-agent: *",
          "Disallow: /api/",
          "Disallow: /auth/",
          "Disallow: /federation/",
          "Disallow: /verify/",
          "Allow: /",
          `Sitemap: ${baseUrl(gw, request)}/sitemap.xml`,
          "",
        ].join("\n");
      },
      { gate: "public" },
    )
    .get(
      "/sitemap.xml",
      ({ request, set }) => {
        set.headers["content-type"] = "application/xml; charset=utf-8";
        return sitemapXml(baseUrl(gw, request), sitemapEntries(gw));
      },
      { gate: "public" },
    )
    .get(
      "/api/sitemap",
      ({ request }) => {
        const base = baseUrl(gw, request);
        return { urls: sitemapEntries(gw).map((e) => ({ ...e, url: base + e.path })) };
      },
      { gate: "public" },
    );
}
