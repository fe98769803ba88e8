/**
 * TLS=local, against a spawned gateway: the gateway makes its own CA in the
 * data directory, serves HTTPS with a certificate for every name it answers
 * on, serves the CA and its install page over both http and https, sends
 * browsers from plain http to https while machine clients keep plain http,
 * and keeps its CA across a restart.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { altNames, lanAddresses, peerCertificate, plainHttpAnswer, spawnTls, type TlsGateway } from "../helpers/tls.ts";
import { tmpDir } from "../helpers/tmp.ts";

const dataDir = tmpDir();
let g: TlsGateway;
let ca: string;

beforeAll(async () => {
  g = await spawnTls({ TLS: "local", INGEST_SECRET: "ingest-secret-0123456789" }, { dataDir });
  ca = readFileSync(join(dataDir, "tls", "ca.pem"), "utf8");
});
afterAll(async () => {
  await g?.kill();
});

describe("the local CA", () => {
  test("its certificate and key are made in the data directory, readable by the gateway's user only", () => {
    for (const f of ["ca.pem", "ca.key"]) expect(statSync(join(dataDir, "tls", f)).mode & 0o777).toBe(0o600);
    const c = new X509Certificate(ca);
    expect(c.ca).toBe(true);
    expect(readFileSync(join(dataDir, "tls", "ca.key"), "utf8")).toContain("PRIVATE KEY");
  });

  test("GET /tls/ca.pem serves the certificate, never the key, on plain http and on https", async () => {
    const plain = await fetch(`${g.http}/tls/ca.pem`, { redirect: "manual" });
    expect(plain.status).toBe(200);
    expect(plain.headers.get("content-type")).toBe("application/x-x509-ca-cert");
    const body = await plain.text();
    expect(body).toBe(ca);
    expect(body).not.toContain("PRIVATE KEY");
    const secure = await fetch(`${g.https}/tls/ca.pem`, { tls: { ca } });
    expect(await secure.text()).toBe(ca);
    expect((await fetch(`${g.http}/tls/ca.key`, { redirect: "manual" })).status).not.toBe(200);
  });

  test("the /tls page, on plain http, shows the CA's fingerprint, a QR code and the steps for each system", async () => {
    const r = await fetch(`${g.http}/tls`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain(new X509Certificate(ca).fingerprint256);
    expect(html).toContain("<svg");
    expect(html).toContain(`${g.http}/tls/ca.pem`);
    for (const system of ["Android", "iPhone and iPad", "Windows", "macOS", "Linux: Chromium", "Firefox"]) expect(html).toContain(system);
  });
});

describe("the HTTPS listener", () => {
  test("its certificate covers localhost, 127.0.0.1, the host name and every LAN address, for 30 days at most", async () => {
    const cert = await peerCertificate(g.httpsPort);
    const names = altNames(cert);
    expect(names).toContain("localhost");
    expect(names).toContain("127.0.0.1");
    for (const a of lanAddresses()) expect(names).toContain(a);
    const days = (new Date(cert.valid_to).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeLessThanOrEqual(30);
    expect(days).toBeGreaterThan(29);
    // signed by the CA in the data directory
    expect(new X509Certificate(cert.raw).checkIssued(new X509Certificate(ca))).toBe(true);
    expect(new X509Certificate(cert.raw).verify(new X509Certificate(ca).publicKey)).toBe(true);
  });

  test("a client that trusts the CA fetches over https; one that does not is refused", async () => {
    const r = await fetch(`${g.https}/health`, { tls: { ca } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { status: string }).status).toBe("ok");
    let refused: unknown = null;
    await fetch(`${g.https}/health`).catch((e) => (refused = e));
    expect(refused).not.toBeNull();
  });

  test("cookies set over https are Secure, as passkeys and sessions need", async () => {
    // a sign-out answers with a clearing session cookie
    const r = await fetch(`${g.https}/auth/logout`, { method: "POST", tls: { ca }, headers: { origin: g.https } });
    expect(r.status).toBe(200);
    expect(r.headers.get("set-cookie")).toContain("; Secure");
  });
});

describe("plain http beside it", () => {
  test("a browser page redirects (308) to the same host on the HTTPS port", async () => {
    const r = await fetch(`${g.http}/?x=1`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(r.status).toBe(308);
    expect(r.headers.get("location")).toBe(`https://127.0.0.1:${g.httpsPort}/?x=1`);
    const map = await fetch(`${g.http}/map`, { headers: { accept: "text/html", host: "gw.local:8080" }, redirect: "manual" });
    expect(map.headers.get("location")).toBe(`https://gw.local:${g.httpsPort}/map`);
  });

  test("machine clients keep plain http: the API, /ingest and /health answer without a redirect", async () => {
    const ports = await fetch(`${g.http}/api/ports`, { redirect: "manual" });
    expect(ports.status).toBe(200);
    const tls = ((await ports.json()) as { ports: Array<Record<string, unknown>> }).ports.find((p) => p.name === "tls")!;
    expect(tls).toMatchObject({ kind: "tls", state: "up", mode: "local", httpsPort: g.httpsPort, lastError: null });
    expect(tls.notAfter as number).toBeGreaterThan(Date.now());
    const ingest = await fetch(`${g.http}/ingest`, {
      method: "POST",
      headers: { "content-type": "text/plain", "x-ingest-secret": "ingest-secret-0123456789" },
      body: "N0CALL>APRS:>tls test\n",
      redirect: "manual",
    });
    expect(ingest.status).not.toBe(308);
    expect(ingest.status).toBeLessThan(300);
    expect((await fetch(`${g.http}/health`, { redirect: "manual" })).status).toBe(200);
  });

  test("links in answers name the address and scheme the client used: plain http for a LAN client of the API, https on the HTTPS port", async () => {
    const plainPort = new URL(g.http).port;
    const overHttp = (await (await fetch(`${g.http}/api/v1`, { headers: { host: `localhost:${plainPort}` } })).json()) as { openapi: string };
    expect(overHttp.openapi).toBe(`http://localhost:${plainPort}/api/v1/openapi.json`);
    const overHttps = (await (await fetch(`${g.https}/api/v1`, { tls: { ca } })).json()) as { openapi: string };
    expect(overHttps.openapi).toBe(`https://127.0.0.1:${g.httpsPort}/api/v1/openapi.json`);
  });

  test("plain http to the HTTPS port gets a readable 400 naming the https address, and HTTPS still serves after it", async () => {
    const answer = await plainHttpAnswer(g.httpsPort, "GET /map?x=1 HTTP/1.1\r\nHost: gw.local:8443\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 400 Bad Request\r\n");
    expect(answer).toContain(`This port speaks HTTPS, not plain http. Open https://gw.local:${g.httpsPort}/map?x=1`);
    expect((await fetch(`${g.https}/health`, { tls: { ca } })).status).toBe(200);
  });
});

describe("through the HTTPS port", () => {
  test("a large answer arrives whole over https, on a kept-alive connection and on one the server closes", async () => {
    const html = await (await fetch(`${g.https}/`, { tls: { ca } })).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    for (const headers of [{ "accept-encoding": "identity" }, { "accept-encoding": "identity", connection: "close" }] as Record<string, string>[]) {
      const r = await fetch(`${g.https}${script}`, { tls: { ca }, headers });
      const body = new Uint8Array(await r.arrayBuffer());
      expect(body.length).toBeGreaterThan(100_000);
      expect(body.length).toBe(Number(r.headers.get("content-length")));
    }
  });
});

describe("a restart", () => {
  test("reuses the CA: the same fingerprint, so devices keep trusting it", async () => {
    const before = new X509Certificate(ca).fingerprint256;
    await g.kill();
    g = await spawnTls({ TLS: "local" }, { dataDir });
    const after = new X509Certificate(await (await fetch(`${g.http}/tls/ca.pem`)).text()).fingerprint256;
    expect(after).toBe(before);
    expect((await fetch(`${g.https}/health`, { tls: { ca } })).status).toBe(200);
  });
});

describe("behind the HTTPS port", () => {
  test("each client keeps its own address: one that spends its API budget over https does not spend another's", async () => {
    const lan = lanAddresses().find((a) => !a.includes(":"));
    if (!lan) return; // no IPv4 LAN address on this machine: nothing to tell apart
    const wide = await spawnTls({ TLS: "local", RATE_LIMIT_PER_MINUTE: "3" }, { host: "0.0.0.0" });
    try {
      const wca = readFileSync(join(wide.dataDir, "tls", "ca.pem"), "utf8");
      const from = async (host: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          const r = await fetch(`https://${host}:${wide.httpsPort}/api/v1/stations`, { tls: { ca: wca } });
          await r.arrayBuffer();
          out.push(r.status);
        }
        return out;
      };
      expect(await from("127.0.0.1", 5)).toEqual([200, 200, 200, 429, 429]);
      expect(await from(lan, 2)).toEqual([200, 200]);
    } finally {
      await wide.kill();
    }
  });
});
