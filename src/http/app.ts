/**
 * The HTTP shell: one Elysia app with CORS on every response, OPTIONS -> 204,
 * bodies read with a cap after the route's gate (gates.ts), one error shape, the web app as the fallback for
 * browser navigation, JSON answers compressed by Accept-Encoding (and, in tests, checked against their declared schemas), and every domain's routes mounted from routes.ts.
 *
 * What a start needs is mounted before the port listens: the web app's
 * shell and the system routes (/health among them). The other domains'
 * routes, the API documentation and the checks built from them (about 15 ms
 * of work, a quarter of a start) are mounted when first needed: at the
 * first request the routes mounted so far do not hold, the first read of the
 * app's routes or its handler (`routes`, `handle`, `fetch`: hosts, the
 * simulator, tests), or once start-up is over (hosts/gateway.ts), whichever
 * comes first. A request that comes before they are mounted waits for them.
 */
import { type AnyElysia, Elysia } from "elysia";
import type { Gateway } from "./gateway.ts";
import type { App, LaterRoutes } from "./host.ts";
import { applyBaseHeaders, CORS_HEADERS, preflight } from "./cors.ts";
import { errorResponse, toErrorResponse } from "./errors.ts";
import { contentSecurityPolicy, serveIndex, uiRoutes, wantsUi } from "./ui.ts";
import { pageStatus } from "./page-status.ts";
import { addDomainRoutes, addStartupRoutes } from "./routes.ts";
import { gatesPlugin, type GatesPlugin } from "./gates.ts";
import { compressJson } from "./compress.ts";
import { apiDocsRoutes } from "./api-docs.ts";
import type { RouteLike } from "./openapi.ts";
import { learnRouteBodies } from "./body.ts";
import { httpsRedirect } from "./https-redirect.ts";
import { type AnswerCheck, answerChecker, answersChecked } from "./answer-check.ts";

export function createApp(gw: Gateway): App {
  const csp = contentSecurityPolicy(gw.config);
  // the test suite holds every JSON answer to its route's declared schema (answer-check.ts), those of the routes mounted so far
  let mounted: RouteLike[] = [];
  const checkAnswer: AnswerCheck | null = answersChecked() ? answerChecker(() => mounted) : null;
  // Elysia compiles each route's handler and validators with `new Function` unless told not to
  const app: AnyElysia = new Elysia({ name: "svc-gateway", normalize: false, aot: !gw.host.missing.has("codegen"), adapter: gw.host.adapter })
    .onRequest(async ({ request }) => {
      // a write waits while a checkpoint keeps the WAL bounded (store/checkpoint.ts)
      const held = request.method === "GET" || request.method === "HEAD" || request.method === "OPTIONS" ? undefined : gw.writeGate.wait();
      if (held) await held;
    })
    .onRequest(({ request, set }) => {
      if (request.method === "OPTIONS") return preflight(request);
      applyBaseHeaders(set.headers);
    })
    // with TLS on: browser pages over plain http go to https, HTTPS answers may carry HSTS (https-redirect.ts)
    .onRequest(httpsRedirect(gw))
    .onError(async ({ code, error, request, path }) => {
      if (code === "NOT_FOUND" && wantsUi(request, path)) return serveIndex(csp, { gw, request, status: pageStatus(gw, path) });
      const { status, body } = toErrorResponse(code, error, gw.log, path, gw.config.dataDir);
      return errorResponse(status, body, CORS_HEADERS);
    })
    // JSON answers over ~1 KB leave compressed when the client accepts it (compress.ts).
    .mapResponse({ as: "global" }, ({ request, responseValue, set, route }) => {
      const status = typeof set.status === "number" ? set.status : 200;
      const wrong = checkAnswer?.(request.method, route, status, responseValue);
      if (wrong) {
        gw.log.error("http", wrong.message);
        return errorResponse(500, wrong, CORS_HEADERS);
      }
      return compressJson(request, responseValue, set.headers as Record<string, string>, status);
    })
    .use(uiRoutes(gw, csp))
    .use(gatesPlugin(gw));
  addStartupRoutes(gw, app as unknown as GatesPlugin);
  // (Elysia's list, which grows as routes are mounted)
  mounted = app.routes;
  // which routes take raw bytes, and which only JSON or a form; their declared caps and content types (body.ts)
  learnRouteBodies(() => app.routes);
  return mountRestWhenNeeded(app, () => {
    // every route file adds its routes to this app (typed as the gates plugin: the macros and `caller` they use)
    addDomainRoutes(gw, app as unknown as GatesPlugin);
    app.use(apiDocsRoutes(gw, () => app.routes));
  });
}

/**
 * `app` with `mount` run at the first read of its routes, handle or fetch
 * (Elysia's own from then on), or at mountRest().
 */
function mountRestWhenNeeded(app: AnyElysia, mount: () => void): App {
  const own = app as unknown as Record<string, unknown>;
  const handle = app.handle;
  let waiting = true;
  const listeners: Array<() => void> = [];
  const mountRest = () => {
    if (!waiting) return;
    waiting = false;
    // Elysia's own members again, then the routes; a general handler composed before them is composed again
    delete own.routes;
    delete own.fetch;
    own.handle = handle;
    mount();
    delete own.fetch;
    for (const fn of listeners.splice(0)) fn();
  };
  Object.defineProperty(app, "routes", { configurable: true, get: () => (mountRest(), app.routes) });
  Object.defineProperty(app, "fetch", { configurable: true, get: () => (mountRest(), app.fetch) });
  own.handle = (request: Request) => (mountRest(), handle(request));
  const later: LaterRoutes = { mountRest, onRestMounted: (fn) => void (waiting && listeners.push(fn)) };
  return Object.assign(app, later);
}

export type { App };
