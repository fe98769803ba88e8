import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnGateway, type Spawned } from "../helpers/gateway.ts";
import { hooksOf, openApiPath, pathParams, type RouteLike } from "../../src/http/openapi.ts";
import { launchBrowser } from "../helpers/chromium.ts";

let g: Spawned;
beforeAll(async () => {
  g = await spawnGateway({});
});
afterAll(async () => {
  await g.kill();
});

/** The names a handler takes from its context (`({ query, body }) => ...`). */
function contextFields(handler: unknown): Set<string> {
  const src = String(handler);
  const m = /^\s*(?:async\s*)?(?:function\s*\w*\s*)?\(\s*\{([^}]*)\}/.exec(src);
  const names = new Set((m?.[1] ?? "").split(",").map((s) => s.split(":")[0]!.trim()));
  for (const f of ["query", "body", "params"]) if (new RegExp(`\\b(?:ctx|c|context)\\.${f}\\b`).test(src)) names.add(f);
  return names;
}

describe("the HTTP API describes itself", () => {
  test("every route has a summary, declares a schema for the params, query and body its handler reads, and declares its answer", async () => {
    const doc = (await (await fetch(g.url + "/api/openapi.json")).json()) as { paths: Record<string, Record<string, { summary?: string }>> };
    const routes = doc.paths;
    // The served document and the server's own routes: read the routes from a second, in-process copy of the app.
    const { startInProcess } = await import("../helpers/gateway.ts");
    const r = await startInProcess({});
    try {
      const missing: string[] = [];
      for (const route of r.gw.app.routes as Array<RouteLike & { handler: unknown }>) {
        if (route.method === "HEAD") continue;
        const name = `${route.method} ${route.path}`;
        const hooks = hooksOf(route);
        if (!hooks.detail?.summary?.trim()) missing.push(`${name}: detail.summary`);
        const declared = Object.keys((hooks.params as { properties?: object } | undefined)?.properties ?? {}).sort();
        const inPath = pathParams(route.path).sort();
        if (inPath.join() !== declared.join()) missing.push(`${name}: params ${inPath.join(",")} (declared: ${declared.join(",") || "none"})`);
        const reads = contextFields(route.handler);
        if (reads.has("query") && !hooks.query) missing.push(`${name}: query`);
        if (reads.has("body") && !hooks.body) missing.push(`${name}: body`);
        if (!hooks.detail?.hide) {
          if (!Object.keys(hooks.detail?.responses ?? {}).some((k) => /^[123]/.test(k)))
            missing.push(`${name}: its answer (answers(), answersMedia() or answersEmpty())`);
          const method = route.method === "WS" ? "get" : route.method.toLowerCase();
          if (!routes[openApiPath(route.path)]?.[method]) missing.push(`${name}: absent from /api/openapi.json`);
        }
      }
      expect(missing).toEqual([]);
    } finally {
      await r.stop();
    }
  });

  test("GET /api/openapi.json is OpenAPI 3.1 with the gate, parameters and body of each route", async () => {
    const res = await fetch(g.url + "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const doc = (await res.json()) as {
      openapi: string;
      servers: Array<{ url: string }>;
      paths: Record<string, Record<string, Record<string, unknown>>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.servers[0]!.url).toBe(g.url);
    const self = doc.paths["/api/openapi.json"]!.get!;
    expect(self["x-gate"]).toBe("public");
    expect(self.summary).toBe("The OpenAPI 3.1 document of every route");
    // Every reference resolves inside the document.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter((r) => r.split("/").reduce<unknown>((at, k) => (at as Record<string, unknown> | undefined)?.[k], doc) === undefined);
    expect(dangling).toEqual([]);
    // Every operation names who may call it, and a gated one the credentials it takes.
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        expect({ at: `${method} ${path}`, gate: typeof op["x-gate"] }).toEqual({ at: `${method} ${path}`, gate: "string" });
        for (const req of (op.security as Array<Record<string, unknown>> | undefined) ?? []) {
          for (const scheme of Object.keys(req)) expect(doc.components.securitySchemes[scheme]).toBeDefined();
        }
      }
    }
  });

  test("GET /api/docs is a page a person reads, listing each route with its summary", async () => {
    const res = await fetch(g.url + "/api/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("<code>/api/openapi.json</code>");
    expect(html).toContain("The OpenAPI 3.1 document of every route");
    // Nothing is fetched from elsewhere: no script, no off-site link.
    expect(html).not.toContain("<script");
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  test("GET /api/docs has a Content-Security-Policy that lets its own style work and nothing else: no script runs, nothing loads", async () => {
    const res = await fetch(g.url + "/api/docs");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      expect((await page.goto(g.url + "/api/docs"))?.status()).toBe(200);
      // its style applies (body max-width 60rem)
      expect(await page.evaluate(() => getComputedStyle(document.body).maxWidth)).toBe("960px");
      expect(refused).toEqual([]);
      // what a hostile description could put on the page neither runs nor loads
      const ran = await page.evaluate(async () => {
        const s = document.createElement("script");
        s.textContent = "window.ran = true";
        document.body.append(s);
        const img = document.createElement("img");
        const loaded = new Promise<boolean>((resolve) => {
          img.onload = () => resolve(true);
          img.onerror = () => resolve(false);
        });
        img.src = "/favicon.ico";
        document.body.append(img);
        return { script: (window as { ran?: boolean }).ran === true, img: await loaded };
      });
      expect(ran).toEqual({ script: false, img: false });
      expect(refused.length).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
