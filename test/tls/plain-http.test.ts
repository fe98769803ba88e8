/**
 * The plain-http listener's rules with TLS on, in-process: HTTP_REDIRECT_ALL
 * sends machine clients to https too, while /tls, /tls/ca.pem and the ACME
 * HTTP-01 answers still answer over http; the ACME code's registry is what
 * /.well-known/acme-challenge/ serves. And the Setup page's TLS choice.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startInProcess, type Running } from "../helpers/gateway.ts";
import { setupToken } from "../../src/system/setup.ts";

let g: Running;
beforeAll(async () => {
  g = await startInProcess({ TLS: "local", HTTPS_PORT: "0", HTTP_REDIRECT_ALL: "true" });
});
afterAll(async () => {
  await g?.stop();
});

describe("HTTP_REDIRECT_ALL=true", () => {
  test("machine clients are redirected too, with the method kept (308)", async () => {
    const port = g.gw.tls.httpsPort!;
    for (const [method, path] of [
      ["GET", "/api/ports"],
      ["POST", "/ingest"],
      ["GET", "/health"],
    ] as const) {
      const r = await fetch(`${g.url}${path}`, { method, redirect: "manual", body: method === "POST" ? "N0CALL>APRS:>x" : undefined });
      expect(r.status).toBe(308);
      expect(r.headers.get("location")).toBe(`https://127.0.0.1:${port}${path}`);
    }
  });

  test("/tls and /tls/ca.pem still answer over http", async () => {
    expect((await fetch(`${g.url}/tls`, { redirect: "manual" })).status).toBe(200);
    const pem = await fetch(`${g.url}/tls/ca.pem`, { redirect: "manual" });
    expect(await pem.text()).toBe(readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8"));
  });

  test("ACME HTTP-01: a token the ACME code registered is answered over http; an unknown one is 404, never a redirect", async () => {
    g.gw.tls.challenges.set("tok_123-abc", "tok_123-abc.thumbprint");
    const r = await fetch(`${g.url}/.well-known/acme-challenge/tok_123-abc`, { redirect: "manual" });
    expect(r.status).toBe(200);
    expect(await r.text()).toBe("tok_123-abc.thumbprint");
    g.gw.tls.challenges.delete("tok_123-abc");
    expect((await fetch(`${g.url}/.well-known/acme-challenge/tok_123-abc`, { redirect: "manual" })).status).toBe(404);
  });

  test("no HSTS without TLS=acme: a local CA may go away", async () => {
    const ca = readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8");
    const r = await fetch(`https://127.0.0.1:${g.gw.tls.httpsPort}/health`, { tls: { ca } });
    expect(r.status).toBe(200);
    expect(r.headers.get("strict-transport-security")).toBeNull();
  });
});

describe("the Setup page's TLS choice", () => {
  test("GET /api/setup shows the mode and the certificate's state; POST takes off, local, acme or files and refuses anything else", async () => {
    // (everything goes to https here: HTTP_REDIRECT_ALL)
    const ca = readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8");
    const https = `https://127.0.0.1:${g.gw.tls.httpsPort}`;
    const s = (await (await fetch(`${https}/api/setup`, { tls: { ca } })).json()) as {
      values: { tls: string };
      tls: { mode: string; notAfter: number; lastError: null };
    };
    expect(s.values.tls).toBe("local");
    expect(s.tls).toMatchObject({ mode: "local", lastError: null });
    expect(s.tls.notAfter).toBeGreaterThan(Date.now());
    const token = setupToken(g.gw)!;
    const post = (body: unknown) =>
      fetch(`${https}/api/setup`, { method: "POST", tls: { ca }, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const bad = await post({ token, tls: "sometimes" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain("TLS");
    const ok = await post({ token, tls: "files" });
    expect(ok.status).toBe(200);
    expect(readFileSync(join(g.dataDir, "svc-gateway.env"), "utf8")).toContain("TLS=files");
  });
});

describe("Secure cookies", () => {
  test("a cookie set over the HTTPS listener is Secure even when PUBLIC_URL names plain http; a sign-out over plain http goes to https first", async () => {
    const h = await startInProcess({ TLS: "local", HTTPS_PORT: "0", PUBLIC_URL: "http://gw.example.net:8080" });
    try {
      const ca = readFileSync(join(h.dataDir, "tls", "ca.pem"), "utf8");
      const https = `https://127.0.0.1:${h.gw.tls.httpsPort}`;
      const secure = await fetch(`${https}/auth/logout`, { method: "POST", tls: { ca }, headers: { origin: https } });
      expect(secure.headers.get("set-cookie")).toContain("; Secure");
      // (a sign-out over plain http is a browser page: it goes to https; the API's own answers stay on http)
      const plain = await fetch(`${h.url}/auth/logout`, { method: "POST", redirect: "manual", headers: { origin: h.url } });
      expect(plain.status).toBe(308);
    } finally {
      await h.stop();
    }
  });
});
