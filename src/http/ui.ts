/**
 * The web app: ui/index.html bundled by Bun. A compiled executable carries the
 * bundle as embedded files (build.ts); from a checkout it is built in memory on
 * first use. Scripts and styles are also stored brotli- and gzip-compressed
 * (name.br, name.gz next to each) and sent in the coding the browser accepts.
 * Every UI response goes through the HTTP shell, so it gets the
 * same CORS and privacy headers, plus a Content-Security-Policy that keeps the
 * page from talking to anything but this instance and the configured tile server.
 */
import { join } from "node:path";
import { Elysia, t } from "elysia";
import type { Config } from "../core/config.ts";
import { AppError } from "../lib/errors.ts";
import type { Gateway } from "./gateway.ts";
import { CORS_HEADERS } from "./cors.ts";
import { errorResponse } from "./errors.ts";
import { gatesPlugin } from "./gates.ts";
import { answersMedia } from "./openapi.ts";
import { addPwa, MANIFEST_PATH, SW_PATH } from "./pwa.ts";
import { compress, compressible, pickCoding } from "./compress.ts";
import { COUNT_SCRIPT, COUNT_SCRIPT_HASH, mapViewHtml, viewOf } from "./map-view.ts";
import { firstViewHtml, recordFirstView } from "./first-view.ts";
import { fromAcceptLanguage } from "../i18n/server.ts";
import { cookieValue, SESSION_COOKIE } from "../accounts/sessions.ts";
import { clientConfig } from "../system/client-config.ts";
import { listArchives } from "../tiles/archives.ts";

export interface UiAsset {
  body: Blob;
  type: string;
  /** the same bytes compressed at build (scripts, styles, SVG) */
  br?: Blob;
  gzip?: Blob;
}

/** Suffixes of the precompressed copies that buildUi writes next to each asset. */
const CODED = { br: ".br", gzip: ".gz" } as const;

export interface UiBundle {
  index: string;
  /** keyed by file name under /assets/ */
  assets: Map<string, UiAsset>;
}

const ASSET_PREFIX = "/assets/";

let bundle: Promise<UiBundle> | null = null;
let prebuilt: (() => Promise<Array<{ name: string; blob: Blob }>>) | null = null;

/** A host without Bun's bundler (Node) hands over the web app built beforehand (scripts/node.ts writes it beside its bundle). */
export function usePrebuiltUi(load: () => Promise<Array<{ name: string; blob: Blob }>>): void {
  prebuilt = load;
  bundle = null;
}

/** The bundle, from the executable's embedded files or built from ui/ once. */
export function uiBundle(): Promise<UiBundle> {
  bundle ??= loadBundle().catch((e) => {
    bundle = null;
    throw e;
  });
  return bundle;
}

async function loadBundle(): Promise<UiBundle> {
  if (prebuilt) return fromOutputs(await prebuilt());
  // Bun builds the web app, or carries it in the executable; another host without it built beforehand serves the API only.
  if (typeof Bun === "undefined")
    throw new AppError(503, "unavailable", "this gateway runs without the web app built (on Node, start it with npm run start:node): it serves its API only");
  const embedded = Bun.embeddedFiles.filter((f) => (f as Blob & { name: string }).name.startsWith("ui/"));
  if (embedded.length > 0) {
    return fromOutputs(embedded.map((f) => ({ name: (f as Blob & { name: string }).name.slice(3), blob: f })));
  }
  return fromOutputs(await buildUi());
}

/** Bundles ui/index.html with its scripts, styles and images. Used here and by build.ts. */
export async function buildUi(): Promise<Array<{ name: string; blob: Blob }>> {
  const result = await Bun.build({
    entrypoints: [join(import.meta.dir, "../../ui/index.html")],
    minify: true,
    publicPath: ASSET_PREFIX,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new Error("UI build failed:\n" + result.logs.map(String).join("\n"));
  const outputs = result.outputs.map((o) => ({
    name: o.path.replace(/^\.\//, "").replace(/^index-[a-z0-9]+\.html$/, "index.html"),
    blob: o as Blob,
  }));
  // Icons, manifest and the service worker that keeps all of this for offline use.
  const out = await addPwa(outputs, { assetPrefix: ASSET_PREFIX, notUi: NOT_UI });
  // Scripts and styles are compressed once here, at the best settings, not per request. (After the
  // service worker's precache list is made: the .br/.gz copies are never precached themselves.)
  for (const f of [...out]) {
    if (f.name === "index.html" || !compressible(f.blob.type)) continue;
    const bytes = new Uint8Array(await f.blob.arrayBuffer());
    for (const coding of ["br", "gzip"] as const) {
      out.push({ name: f.name + CODED[coding], blob: new Blob([compress(bytes, coding, "best")], { type: "application/octet-stream" }) });
    }
  }
  return out;
}

async function fromOutputs(outputs: Array<{ name: string; blob: Blob }>): Promise<UiBundle> {
  const assets = new Map<string, UiAsset>();
  let index = "";
  const coded = new Map<string, Blob>();
  for (const o of outputs) {
    if (o.name === "index.html") index = await o.blob.text();
    else if (o.name.endsWith(CODED.br) || o.name.endsWith(CODED.gzip)) coded.set(o.name, o.blob);
    else assets.set(o.name, { body: o.blob, type: o.blob.type });
  }
  for (const [name, a] of assets) {
    a.br = coded.get(name + CODED.br);
    a.gzip = coded.get(name + CODED.gzip);
  }
  return { index, assets };
}

/** The page's Content-Security-Policy: this origin, plus the tile server's images. */
export function contentSecurityPolicy(config: Config): string {
  let tiles = "";
  if (config.tileUrl) {
    const u = new URL(config.tileUrl.replaceAll("{s}", "a").replace(/\{[^}]*\}/g, "0"));
    tiles = " " + (config.tileUrl.includes("{s}") ? `${u.protocol}//*.${u.host.split(".").slice(1).join(".")}` : u.origin);
  }
  return [
    "default-src 'self'",
    `img-src 'self' data: blob:${tiles}`,
    "style-src 'self' 'unsafe-inline'",
    // the one inline script: the count of the server-drawn first map view (map-view.ts)
    `script-src 'self' ${COUNT_SCRIPT_HASH}`,
    "connect-src 'self'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join("; ");
}

/** Path prefixes that never fall back to the web app. */
const NOT_UI = ["/api/", "/auth/", "/federation/", "/.well-known/", "/assets/", "/feeds/", "/keys/", "/verify/", "/badge/", "/ws", "/tiles/"];

/** Whether a request that matched no route should get the web app instead of a 404. */
export function wantsUi(request: Request, path: string): boolean {
  if (request.method !== "GET" && request.method !== "HEAD") return false;
  if (NOT_UI.some((p) => path.startsWith(p))) return false;
  if (/\.[a-z0-9]{2,5}$/i.test(path)) return false;
  return (request.headers.get("accept") ?? "").includes("text/html");
}

/**
 * Rules of the app's stylesheet that lay out the page's frame and the map
 * (selectors starting with one of these), and of a record page's first view
 * (first-view.ts): inlined into the page so the server's drawing shows before
 * the stylesheet arrives.
 */
const CRITICAL =
  /^(?::root|\*|html|body|#app|\.topbar|\.brand(?:-mark|-name)?|\.map-page|\.map-top|\.map-count|\.map|\.banner|\.skip-link|\.page(?:-head)?|\.facts|\.muted)(?![\w-])/;
/** The server's drawing sits centred in the map box, as Leaflet centres the view (ui/map/server-view.ts). */
const SSR_CSS =
  ".ssr-map{position:relative;overflow:hidden}.ssr-map>svg,.map>svg.ssr-base,.map>svg.ssr-points{position:absolute;left:50%;top:50%;margin:-640px 0 0 -1024px;pointer-events:none}.ssr-points g>svg{overflow:visible}";

/** Top-level rules (and @media blocks) of a minified stylesheet whose selectors all match `keep`. */
function criticalCss(css: string, keep: RegExp): string {
  const out: string[] = [];
  let i = 0;
  const block = (from: number): number => {
    // the index after the matching close brace of the block opened just before `from`
    let depth = 1;
    let j = from;
    while (j < css.length && depth > 0) {
      if (css[j] === "{") depth++;
      else if (css[j] === "}") depth--;
      j++;
    }
    return j;
  };
  while (i < css.length) {
    const open = css.indexOf("{", i);
    if (open < 0) break;
    const head = css.slice(i, open).trim();
    const end = block(open + 1);
    const body = css.slice(open + 1, end - 1);
    if (head.startsWith("@media")) {
      const inner = criticalCss(body, keep);
      if (inner) out.push(`${head}{${inner}}`);
    } else if (!head.startsWith("@") && head.split(",").every((sel) => keep.test(sel.trim()))) {
      out.push(`${head}{${body}}`);
      // the server's frame is laid out as the app's
      if (head.startsWith("#app")) out.push(`${head.replaceAll("#app", "#ssr-view")}{${body}}`);
    }
    i = end;
  }
  return out.join("");
}

let mapShell: Promise<{ head: string; tail: string }> | null = null;

/** The page's head with `<html lang>` in the language it is drawn in. */
const headIn = (head: string, lang: string) => head.replace(/<html lang="?en"?>/, `<html lang="${lang}">`);

/**
 * The map's page around the drawing: the stylesheet's frame and map rules
 * inline in the head, and the stylesheet itself moved to the end of the body,
 * where it no longer holds back the first paint (the app's script still waits
 * for it).
 */
function mapPageShell(): Promise<{ head: string; tail: string }> {
  mapShell ??= (async () => {
    const { index, assets } = await uiBundle();
    const link = index.match(/<link rel="stylesheet"[^>]*>/)?.[0];
    const href = link?.match(/href="\/assets\/([^"]+)"/)?.[1];
    const css = href ? await assets.get(href)?.body.text() : undefined;
    let page = index;
    if (link && css !== undefined) page = page.replace(link, `<style>${criticalCss(css, CRITICAL)}${SSR_CSS}</style>`).replace("</body>", `${link}</body>`);
    const at = page.indexOf('<div id="app">');
    return { head: page.slice(0, at), tail: page.slice(at) };
  })().catch((e) => {
    mapShell = null;
    throw e;
  });
  return mapShell;
}

/** JSON for a data element in the page: `<` escaped, so no text in it can end the element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replaceAll("<", "\\u003c");

const PAGE_HEADERS = (csp: string) => ({
  ...CORS_HEADERS,
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "content-security-policy": csp,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
});

/**
 * The page itself, for `/` and for browser navigation that matched no route.
 * Given the gateway and the request, the map's addresses (`/`, `/map`) carry
 * the server's drawing of their view (map-view.ts). Sent compressed when the
 * browser accepts it, with `status` (404 for an address that names nothing: page-status.ts).
 */
export async function serveIndex(csp: string, page?: { gw: Gateway; request: Request; status?: number }): Promise<Response> {
  let html = (await uiBundle()).index;
  // Only a navigation gets the drawing: the service worker's copy of "/" (fetched as data, not navigated to) must stay the
  // plain page it answers every later navigation with, whatever the address.
  const mode = page?.request.headers.get("sec-fetch-mode");
  const navigation = !!page && (mode == null || mode === "navigate");
  const view = page && navigation ? viewOf(new URL(page.request.url)) : null;
  const instance = page?.gw.config.instance && page.gw.config.instance !== "local" ? page.gw.config.instance : "svc-gateway";
  /** set when the page is drawn in the visitor's language */
  let lang: string | null = null;
  if (page && view) {
    try {
      const shell = await mapPageShell();
      // in the visitor's language, as a record's page below
      const words = fromAcceptLanguage(page.request.headers.get("accept-language"));
      // The answers the map asks for first, with no view in them: in the page, not one round trip after the script each.
      // (Data, not script: a JSON script element runs nothing, so the CSP need not allow it; `<` escaped so it cannot end the element.)
      const first = inlineJson({ "/api/config": clientConfig(page.gw), "/api/tiles": await listArchives(page.gw.config.dataDir) });
      html =
        headIn(shell.head, words) +
        (await mapViewHtml(page.gw, view, instance, words)) +
        `<script>${COUNT_SCRIPT}</script><script type="application/json" id="first-answers">${first}</script>` +
        shell.tail;
      lang = words;
    } catch (e) {
      // the drawing is a head start, not the page: without it the app draws the map as it always did
      page.gw.log.warn("http", "map page drawn without its first view", { error: (e as Error).message });
    }
  } else if (page && navigation && page.status !== 404 && !cookieValue(page.request.headers.get("cookie"), SESSION_COOKIE)) {
    // A record's page (cache, station, bulletin, profile) for a signed-out visitor: its first view and first answers
    // in the page (first-view.ts). A signed-in visitor's page asks with their session, as before.
    // in the visitor's language (the app then draws in the one chosen in the browser, usually the same)
    const words = fromAcceptLanguage(page.request.headers.get("accept-language"));
    const first = recordFirstView(page.gw, new URL(page.request.url).pathname, words);
    if (first) {
      const shell = await mapPageShell();
      const answers = inlineJson({ "/api/config": clientConfig(page.gw), ...first.answers });
      html =
        headIn(shell.head, words) +
        firstViewHtml(first, instance, words) +
        `<script type="application/json" id="first-answers">${answers}</script>` +
        shell.tail;
      lang = words;
    }
  }
  const headers: Record<string, string> = { ...PAGE_HEADERS(csp), vary: lang ? "Accept-Encoding, Accept-Language" : "Accept-Encoding" };
  const coding = page ? pickCoding(page.request.headers.get("accept-encoding")) : null;
  const status = page?.status ?? 200;
  if (!coding) return new Response(html, { status, headers });
  return new Response(compress(new TextEncoder().encode(html), coding), { status, headers: { ...headers, "content-encoding": coding } });
}

export function uiRoutes(gw: Gateway, csp: string) {
  return (
    new Elysia({ name: "ui" })
      .use(gatesPlugin(gw))
      .get(
        `${ASSET_PREFIX}*`,
        async ({ params, request }) => {
          const asset = (await uiBundle()).assets.get(params["*"]);
          if (!asset) return errorResponse(404, { error: "not_found", message: "no such asset" }, CORS_HEADERS);
          const headers: Record<string, string> = { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable" };
          if (!asset.br && !asset.gzip) return new Response(asset.body, { headers });
          headers.vary = "Accept-Encoding";
          const coding = pickCoding(request.headers.get("accept-encoding"));
          const body = coding ? asset[coding] : undefined;
          if (!body) return new Response(asset.body, { headers });
          return new Response(body, { headers: { ...headers, "content-encoding": coding! } });
        },
        {
          gate: "public",
          params: t.Object({ "*": t.String({ description: "the file's name in the build, e.g. main-1a2b3c.js" }) }),
          detail: {
            summary: "A file of the web app (script, style, icon), cached for a year by its hashed name",
            tags: ["Web app"],
            responses: answersMedia("the file, in its own type (script, style, image, font...)", "*/*"),
          },
        },
      )
      .get("/", ({ request }) => serveIndex(csp, { gw, request }), {
        gate: "public",
        // the map's view, drawn into the page; anything else in the address is the app's own (or a link's tracking) and passes
        query: t.Object(
          {
            lat: t.Optional(t.String({ description: "the map view's centre latitude" })),
            lon: t.Optional(t.String({ description: "the map view's centre longitude" })),
            z: t.Optional(t.String({ description: "the map view's zoom" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "The web app, with the map's first view drawn into the page", tags: ["Web app"], responses: answersMedia("the page", "text/html") },
      })
      // The service worker lives at the root so that its scope is the whole app; never cached by
      // HTTP, so a new version is seen on the next visit.
      .get(SW_PATH, () => topLevelFile("sw.js", "text/javascript; charset=utf-8"), {
        gate: "public",
        detail: {
          summary: "The web app's service worker (offline shell, saved areas)",
          tags: ["Web app"],
          responses: answersMedia("the script", "text/javascript"),
        },
      })
      .get(MANIFEST_PATH, () => topLevelFile("manifest.webmanifest", "application/manifest+json"), {
        gate: "public",
        detail: {
          summary: "The web app manifest (installable app)",
          tags: ["Web app"],
          responses: answersMedia("the manifest", "application/manifest+json"),
        },
      })
  );
}

async function topLevelFile(name: string, type: string): Promise<Response> {
  const asset = (await uiBundle()).assets.get(name);
  if (!asset) return errorResponse(404, { error: "not_found", message: `no ${name} in this build` }, CORS_HEADERS);
  return new Response(asset.body, { headers: { ...CORS_HEADERS, "content-type": type, "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
}
