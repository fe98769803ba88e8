import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startInProcess, type Running } from "../helpers/gateway.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess({ PACKETS_TTL_HOURS: "6", TILE_URL: "off", MAX_BODY_BYTES: "4096" });
});
afterAll(() => g.stop());

async function expectErrorShape(res: Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  const body = (await res.json()) as { error: string; message: string };
  expect(typeof body.error).toBe("string");
  expect(typeof body.message).toBe("string");
  expect(body.message.length).toBeGreaterThan(0);
  if (code) expect(body.error).toBe(code);
  return body;
}

describe("HTTP shell", () => {
  test("OPTIONS on any path answers 204 with CORS preflight headers", async () => {
    for (const path of ["/health", "/no/such/path", "/api/setup", "/federation/sync/cache"]) {
      const res = await g.get(path, { method: "OPTIONS", headers: { "access-control-request-headers": "content-type, x-api-key" } });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-methods")).toContain("POST");
      expect(res.headers.get("access-control-allow-headers")).toBe("content-type, x-api-key");
      expect(await res.text()).toBe("");
    }
  });

  test("every kind of response is CORS-wrapped", async () => {
    const responses = [
      await g.get("/health"),
      await g.get("/robots.txt"),
      await g.get("/no/such/thing"),
      await g.post("/api/setup", "{not json"),
      await g.get("/map", { headers: { accept: "text/html" } }),
      await g.get("/source", { redirect: "manual" }),
    ];
    for (const r of responses) expect(r.headers.get("access-control-allow-origin")).toBe("*");
    expect(responses.map((r) => r.status)).toEqual([200, 200, 404, 400, 200, 302]);
  });

  test("an unknown path is a 404 in the error shape", async () => {
    await expectErrorShape(await g.get("/api/nothing-here"), 404, "not_found");
  });

  test("bad JSON is a 400, never a 500", async () => {
    await expectErrorShape(await g.post("/api/setup", "{not json"), 400, "bad_json");
    await expectErrorShape(await g.post("/api/setup", ""), 400, "bad_json");
    await expectErrorShape(await g.post("/api/setup", new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])), 400, "bad_json");
    await expectErrorShape(await g.post("/api/setup", "[1,2,3]"), 400, "bad_body");
  });

  test("an oversized body is a 413, whether declared or streamed", async () => {
    await expectErrorShape(await g.post("/api/setup", JSON.stringify({ token: "x".repeat(5000) })), 413, "body_too_large");
    const chunks = Array.from({ length: 10 }, () => new TextEncoder().encode(" ".repeat(1000)));
    const stream = new ReadableStream({
      pull(c) {
        const next = chunks.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    const res = await fetch(g.url + "/api/setup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    await expectErrorShape(res, 413, "body_too_large");
  });

  test("/health checks the database; /health?live does not", async () => {
    const ok = await g.get("/health");
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { status: string }).status).toBe("ok");
    const live = await g.get("/health?live");
    expect(await live.json()).toEqual({ status: "live" });
  });

  test("/privacy is derived from the live retention settings and names no tracker", async () => {
    const p = (await (await g.get("/privacy")).json()) as {
      retention: Array<{ what: string; kept: string; setting?: string }>;
      trackers: string;
      analytics: string;
      thirdPartyRequests: unknown[];
      visitor: Array<{ what: string }>;
    };
    expect(p.retention.find((r) => r.setting === "PACKETS_TTL_HOURS")?.kept).toBe("6 hours");
    expect(p.retention.find((r) => r.what.startsWith("station positions"))?.kept).toBe("7 days");
    expect(p.trackers).toBe("none");
    expect(p.analytics).toBe("none");
    expect(p.thirdPartyRequests).toEqual([]);
    expect(p.visitor.map((v) => v.what).join(" ")).toContain("session cookie");
  });

  test("/.well-known/source names the exact commit; /source redirects to its tree", async () => {
    const head = Bun.spawnSync(["git", "rev-parse", "HEAD"]).stdout.toString().trim();
    const s = (await (await g.get("/.well-known/source")).json()) as { repository: string; commit: string; licence: string; tag: unknown };
    expect(s.commit).toBe(head);
    expect(s.licence).toBe("AGPL-3.0-or-later");
    expect(s.repository).toMatch(/^https:\/\//);
    expect("tag" in s).toBe(true);
    const r = await g.get("/source", { redirect: "manual" });
    expect(r.status).toBe(302);
    expect(r.headers.get("location")).toBe(`${s.repository}/tree/${head}`);
  });

  test("robots.txt and the sitemap", async () => {
    const robots = await (await g.get("/robots.txt")).text();
    expect(robots).toContain("Disallow: /api/");
    expect(robots).toContain(`Sitemap: ${g.url}/sitemap.xml`);
    const xml = await g.get("/sitemap.xml");
    expect(xml.headers.get("content-type")).toContain("xml");
    const text = await xml.text();
    const lint = Bun.spawnSync(["xmllint", "--noout", "-"], { stdin: new TextEncoder().encode(text) });
    expect(lint.exitCode).toBe(0);
    expect(text).toContain(`<loc>${g.url}/map</loc>`);
    const json = (await (await g.get("/api/sitemap")).json()) as { urls: Array<{ url: string }> };
    expect(json.urls.map((u) => u.url)).toContain(`${g.url}/about`);
  });

  test("browser navigation gets the web app with a strict CSP; API paths never do", async () => {
    const page = await g.get("/map", { headers: { accept: "text/html,application/xhtml+xml" } });
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    const html = await page.text();
    const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await g.get(script!);
    expect(js.status).toBe(200);
    expect(js.headers.get("cache-control")).toContain("immutable");
    expect(js.headers.get("content-type")).toContain("javascript");
    await expectErrorShape(await g.get("/api/nope", { headers: { accept: "text/html" } }), 404);
    await expectErrorShape(await g.get("/assets/nope.js", { headers: { accept: "text/html" } }), 404);
    await expectErrorShape(await g.get("/map", { headers: { accept: "application/json" } }), 404);
  });

  test("/health answers 503 when the database does not", async () => {
    const other = await startInProcess();
    other.gw.db.close();
    await expectErrorShape(await other.get("/health"), 503, "not_ready");
    expect((await other.get("/health?live")).status).toBe(200);
    await other.gw.server?.stop(true);
  });
});
