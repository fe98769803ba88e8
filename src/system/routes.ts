/**
 * Health, privacy, running source, client config and the site index.
 */
import { t } from "elysia";
import type { RouteKit } from "../http/route-kit.ts";
import type { Core } from "../core/core.ts";
import { buildInfo } from "../lib/version.ts";
import { privacyStatement } from "./privacy.ts";
import { sitemapEntries, sitemapXml } from "./sitemap.ts";
import { AppError, notFound } from "../lib/errors.ts";
import { closed } from "../lib/schema.ts";
import { completeSetup, SETUP_SETTINGS, setupState } from "./setup.ts";
import { whoami } from "./whoami.ts";
import { clientConfig } from "./client-config.ts";
import { runtimeFigures } from "./runtime.ts";
import { JOB_LIST, JOB_RUN, type Scheduler } from "../jobs/scheduler.ts";
import type { TlsService } from "../tls/index.ts";
import { answers, answersEmpty, answersMedia } from "../http/openapi.ts";
import { CLIENT_CONFIG, HEALTH, PRIVACY_STATEMENT, RUNTIME_FIGURES, SETUP_DONE, SETUP_STATE, SITEMAP, SOURCE_INFO, WHOAMI, type SourceInfo } from "./shapes.ts";

function sourceInfo(gw: Core): SourceInfo {
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

/**
 * The set-up page's form: the token and the settings it may write (SETUP_SETTINGS), each checked again as its env setting.
 * Closed: a field set-up does not take (ADMIN_CALLSIGNS, a wrongly cased name) is refused by name, not dropped.
 */
const setupBody = closed({
  token: t.String({ description: "the one-time token from the link the gateway printed on first start" }),
  instance: t.Optional(t.String({ description: `${SETUP_SETTINGS.instance}: the instance name` })),
  operator: t.Optional(t.String({ description: `${SETUP_SETTINGS.operator}: the operator's callsign` })),
  aprsCall: t.Optional(t.String({ description: `${SETUP_SETTINGS.aprsCall}: the callsign for APRS-IS` })),
  tileUrl: t.Optional(t.String({ description: `${SETUP_SETTINGS.tileUrl}: an online tile server, or off` })),
  radioCall: t.Optional(t.String({ description: `${SETUP_SETTINGS.radioCall}: the callsign on the air` })),
  kissPorts: t.Optional(t.String({ description: `${SETUP_SETTINGS.kissPorts}: the TNCs, or off` })),
  tls: t.Optional(t.String({ description: `${SETUP_SETTINGS.tls}: HTTPS: off, local, acme or files` })),
});

export function systemRoutes(gw: Core, kit: RouteKit, scheduler: Scheduler, tls: TlsService) {
  return kit.app
    .get(
      "/api/admin/whoami",
      ({ caller, set }) => {
        set.headers["cache-control"] = "no-store";
        return whoami(gw, caller);
      },
      {
        gate: "public",
        detail: {
          summary: "Who the server takes the caller to be, and which gates they pass, for debugging sign-in",
          tags: ["Accounts"],
          responses: answers("whether the caller may operate this instance, and why not", WHOAMI),
        },
      },
    )
    .get(
      "/api/admin/runtime",
      async ({ query, set }) => {
        set.headers["cache-control"] = "no-store";
        return runtimeFigures(gw.config.dataDir, gw.startedAt, query.gc !== undefined);
      },
      {
        gate: "sysop",
        query: t.Object({ gc: t.Optional(t.String({ description: "present (any value): run a full garbage collection first" })) }),
        detail: {
          summary: "The running process: RSS, JS heap, open file descriptors, WAL size and the event loop's delay since the previous read",
          description:
            "Answers { pid, uptimeS, rssMb, heapUsedMb, heapTotalMb, openFds, walBytes, eventLoop: { p50Ms, p99Ms, maxMs, overS }, collected }. " +
            "The loop monitor starts at the first read (eventLoop null then); a figure the runtime cannot give is null. " +
            "?gc runs a full garbage collection first (collected: true), so successive reads compare what stays live.",
          tags: ["System"],
          responses: answers("the process's figures", RUNTIME_FIGURES),
        },
      },
    )
    .get("/api/admin/jobs", () => ({ jobs: scheduler.list() }), {
      gate: "sysop",
      detail: {
        summary: "The scheduled jobs: schedule, last run, last result or error, next run",
        tags: ["System"],
        responses: answers("every scheduled job", JOB_LIST),
      },
    })
    .post(
      "/api/admin/jobs/:name/run",
      async ({ params }) => {
        if (!scheduler.list().some((j) => j.name === params.name)) throw notFound(`job ${params.name}`);
        try {
          return { job: params.name, result: (await scheduler.runNow(params.name)) ?? null, error: null };
        } catch (e) {
          return { job: params.name, result: null, error: String((e as Error)?.message ?? e) };
        }
      },
      {
        gate: "sysop",
        params: t.Object({ name: t.String({ description: "a job name from GET /api/admin/jobs, e.g. prune" }) }),
        detail: {
          summary: "Runs a scheduled job now (prune, backup, ...), as its schedule would, and answers its result",
          description:
            "Answers { job, result, error } (a failed run: its error, as GET /api/admin/jobs records it). " +
            "404 not_found for an unknown job; a job already running is not started twice ({ result: { skipped } }).",
          tags: ["System"],
          responses: answers("the run's result, or its error", JOB_RUN),
        },
      },
    )
    .get(
      "/health",
      ({ query, set }) => {
        // (Elysia without compiled handlers lists every declared key, undefined when absent)
        if (query.live !== undefined) return { status: "live" };
        try {
          gw.db.query("SELECT 1").get();
        } catch (e) {
          throw new AppError(503, "not_ready", `the database does not answer: ${(e as Error).message}`);
        }
        set.headers["cache-control"] = "no-store";
        return { status: "ok", version: buildInfo().version, uptimeS: Math.round((Date.now() - gw.startedAt) / 1000) };
      },
      {
        gate: "public",
        query: t.Object({ live: t.Optional(t.String({ description: "present (any value): liveness only, without asking the database" })) }),
        detail: {
          summary: "Health check for the operator's monitoring: ready (the database answers) or, with ?live, alive",
          description: "Answers { status: ok, version, uptimeS }; 503 not_ready when the database does not answer. ?live answers { status: live }.",
          tags: ["System"],
          responses: answers("ready, or with ?live alive", HEALTH),
        },
      },
    )
    .get("/privacy", () => privacyStatement(gw.config), {
      gate: "public",
      detail: {
        summary: "The privacy statement: what this instance keeps about whom, and for how long",
        tags: ["System"],
        responses: answers("the privacy statement, from the live retention settings", PRIVACY_STATEMENT),
      },
    })
    .get("/.well-known/source", () => sourceInfo(gw), {
      gate: "public",
      detail: {
        summary: "Where the running source is (repository, commit, tag, licence), as the AGPL asks",
        tags: ["System"],
        responses: answers("where the running source is", SOURCE_INFO),
      },
    })
    .get("/source", ({ redirect }) => redirect(sourceInfo(gw).tree, 302), {
      gate: "public",
      detail: {
        summary: "Redirects (302) to the running commit's source tree",
        tags: ["System"],
        responses: answersEmpty("to the running commit's source tree (Location)", 302),
      },
    })
    .get("/api/config", () => clientConfig(gw), {
      gate: "public",
      detail: {
        summary: "The web app's client configuration: instance name, version, tile server, spots on or off",
        tags: ["System"],
        responses: answers("the client configuration", CLIENT_CONFIG),
      },
    })
    .get("/api/setup", () => setupState(gw, tls.state()), {
      gate: "public",
      detail: {
        summary: "Whether first-run set-up is still needed, and the current values, for the set-up page",
        description:
          "Answers { needed, restartNeeded, clock: { sane, message }, values: { instance, operator, aprsCall, tileUrl, radioCall, kissPorts, tls }, " +
          "tls: { mode, httpsPort, notAfter, names, lastError } }; " +
          "clock.message says why signing and transmitting are paused while the clock is not set.",
        tags: ["System"],
        responses: answers("the set-up page's state", SETUP_STATE),
      },
    })
    .post("/api/setup", ({ body: { token, ...values } }) => completeSetup(gw, token, values), {
      gate: "public",
      rateLimit: "auth",
      body: setupBody,
      detail: {
        summary: "First-run set-up: the operator writes the instance's settings with the token the gateway printed",
        description:
          "Writes the given settings to the env file in the data directory (they apply at the next start) and ends set-up. " +
          "Each value is checked as its environment setting; a bad one refuses the whole (400 invalid_setting), and a field set-up does not take is refused by name (400 invalid, with field). " +
          "403 bad_token for a wrong token; 409 setup_done once set up.",
        tags: ["System"],
        responses: answers("the settings written, and where", SETUP_DONE),
      },
    })
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
          `Sitemap: ${kit.baseUrl(request)}/sitemap.xml`,
          "",
        ].join("\n");
      },
      {
        gate: "public",
        detail: {
          summary: "robots.txt: the API is not for crawlers; points to the sitemap",
          tags: ["System"],
          responses: answersMedia("robots.txt", "text/plain"),
        },
      },
    )
    .get(
      "/sitemap.xml",
      ({ request, set }) => {
        set.headers["content-type"] = "application/xml; charset=utf-8";
        return sitemapXml(kit.baseUrl(request), sitemapEntries(gw));
      },
      {
        gate: "public",
        detail: {
          summary: "The public pages (caches, stations, profiles) as an XML sitemap, for search engines",
          tags: ["System"],
          responses: answersMedia("the sitemap (sitemaps.org 0.9)", "application/xml"),
        },
      },
    )
    .get(
      "/api/sitemap",
      ({ request }) => {
        const base = kit.baseUrl(request);
        return { urls: sitemapEntries(gw).map((e) => ({ ...e, url: base + e.path })) };
      },
      {
        gate: "public",
        detail: {
          summary: "The sitemap's pages as JSON: { urls: [{ path, url, ... }] }",
          tags: ["System"],
          responses: answers("the sitemap's pages", SITEMAP),
        },
      },
    );
}
