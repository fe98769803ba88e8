/**
 * The web app: ui/index.html bundled by Bun. A compiled executable carries the
 * bundle as embedded files (build.ts); from a checkout it is built in memory on
 * first use. Every UI response goes through the HTTP shell, so it gets the
 * same CORS and privacy headers, plus a Content-Security-Policy that keeps the
 * page from talking to anything but this instance and the configured tile server.
 */
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { Gateway } from "../gateway.ts";
import { CORS_HEADERS } from "./cors.ts";
import { errorResponse } from "./errors.ts";
import { gatesPlugin } from "./gates.ts";
import { addPwa, MANIFEST_PATH, SW_PATH } from "./pwa.ts";

export interface UiAsset {
  body: Blob;
  type: string;
}

export interface UiBundle {
  index: string;
  /** keyed by file name under /assets/ */
  assets: Map<string, UiAsset>;
}

export const ASSET_PREFIX = "/assets/";

let bundle: Promise<UiBundle> | null = null;

/** The bundle, from the executable's embedded files or built from ui/ once. */
export function uiBundle(): Promise<UiBundle> {
  bundle ??= loadBundle().catch((e) => {
    bundle = null;
    throw e;
  });
  return bundle;
}

async function loadBundle(): Promise<UiBundle> {
  const embedded = Bun.embeddedFiles.filter((f) => (f as Blob & { name: string }).name.startsWith("ui/"));
  if (embedded.length > 0) {
    const assets = new Map<string, UiAsset>();
    let index = "";
    for (const f of embedded) {
      const name = (f as Blob & { name: string }).name.slice(3);
      if (name === "index.html") index = await f.text();
      else assets.set(name, { body: f, type: f.type });
    }
    return { index, assets };
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
  return addPwa(outputs, { assetPrefix: ASSET_PREFIX, notUi: NOT_UI });
}

async function fromOutputs(outputs: Array<{ name: string; blob: Blob }>): Promise<UiBundle> {
  const assets = new Map<string, UiAsset>();
  let index = "";
  for (const o of outputs) {
    if (o.name === "index.html") index = await o.blob.text();
    else assets.set(o.name, { body: o.blob, type: o.blob.type });
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
    "script-src 'self'",
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

/** The page itself, for `/` and for browser navigation that matched no route. */
export async function serveIndex(csp: string): Promise<Response> {
  const { index } = await uiBundle();
  return new Response(index, {
    headers: {
      ...CORS_HEADERS,
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
      "content-security-policy": csp,
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
    },
  });
}

export function uiRoutes(gw: Gateway, csp: string) {
  return new Elysia({ name: "ui" })
    .use(gatesPlugin(gw))
    .get(
      `${ASSET_PREFIX}*`,
      async ({ params }) => {
        const asset = (await uiBundle()).assets.get(params["*"]);
        if (!asset) return errorResponse(404, { error: "not_found", message: "no such asset" }, CORS_HEADERS);
        return new Response(asset.body, {
          headers: { "content-type": asset.type, "cache-control": "public, max-age=31536000, immutable" },
        });
      },
      { gate: "public" },
    )
    .get("/", () => serveIndex(csp), { gate: "public" })
    // The service worker lives at the root so that its scope is the whole app; never cached by
    // HTTP, so a new version is seen on the next visit.
    .get(SW_PATH, () => topLevelFile("sw.js", "text/javascript; charset=utf-8"), { gate: "public" })
    .get(MANIFEST_PATH, () => topLevelFile("manifest.webmanifest", "application/manifest+json"), { gate: "public" });
}

async function topLevelFile(name: string, type: string): Promise<Response> {
  const asset = (await uiBundle()).assets.get(name);
  if (!asset) return errorResponse(404, { error: "not_found", message: `no ${name} in this build` }, CORS_HEADERS);
  return new Response(asset.body, { headers: { ...CORS_HEADERS, "content-type": type, "cache-control": "no-cache", "x-content-type-options": "nosniff" } });
}
