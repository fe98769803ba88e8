/**
 * The gateway on Node (node:https beside node:http) with TLS=local: HTTPS
 * with the CA it made, the CA on plain http, browsers sent to https; and
 * with TLS=files a replaced pair served in place (setSecureContext).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { altNames, peerCertificate, plainHttpAnswer, spawnTls, until, type TlsGateway } from "../helpers/tls.ts";
import { tmpDir } from "../helpers/tmp.ts";

const running: TlsGateway[] = [];
afterAll(async () => {
  for (const g of running) await g.kill();
});

describe("TLS on the Node host", () => {
  test("TLS=local: HTTPS trusted through its CA, the CA over http, browser pages redirected", async () => {
    const g = await spawnTls({ TLS: "local" }, { runtime: "node" });
    running.push(g);
    const ca = readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8");
    const r = await fetch(`${g.https}/health`, { tls: { ca } });
    expect(r.status).toBe(200);
    expect(altNames(await peerCertificate(g.httpsPort))).toContain("127.0.0.1");
    expect(await (await fetch(`${g.http}/tls/ca.pem`)).text()).toBe(ca);
    const page = await fetch(`${g.http}/`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(308);
    expect(page.headers.get("location")).toBe(`https://127.0.0.1:${g.httpsPort}/`);
    expect((await fetch(`${g.http}/api/ports`, { redirect: "manual" })).status).toBe(200);
    // a cookie set over https is Secure (the request's scheme reaches the app)
    expect((await fetch(`${g.https}/auth/logout`, { method: "POST", tls: { ca }, headers: { origin: g.https } })).headers.get("set-cookie")).toContain(
      "; Secure",
    );
  }, 120_000);

  test("plain http to the HTTPS port gets a readable 400 naming the https address, and HTTPS still serves after it", async () => {
    const g = running[0]!;
    const answer = await plainHttpAnswer(g.httpsPort, "GET /map?x=1 HTTP/1.1\r\nHost: gw.local:8443\r\n\r\n");
    expect(answer).toStartWith("HTTP/1.1 400 Bad Request\r\n");
    expect(answer).toContain(`This port speaks HTTPS, not plain http. Open https://gw.local:${g.httpsPort}/map?x=1`);
    const ca = readFileSync(join(g.dataDir, "tls", "ca.pem"), "utf8");
    expect((await fetch(`${g.https}/health`, { tls: { ca } })).status).toBe(200);
  });

  test("TLS=files: a replaced pair is served in place", async () => {
    const dir = tmpDir();
    const make = (name: string) => {
      const args = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -addext subjectAltName=DNS:localhost".split(" ");
      const r = spawnSync("openssl", [...args, "-subj", `/CN=${name}`, "-keyout", join(dir, `${name}.key`), "-out", join(dir, `${name}.pem`)]);
      if (r.status !== 0) throw new Error(String(r.stderr));
    };
    make("one.test");
    make("two.test");
    copyFileSync(join(dir, "one.test.pem"), join(dir, "cert.pem"));
    copyFileSync(join(dir, "one.test.key"), join(dir, "key.pem"));
    const g = await spawnTls({ TLS: "files", TLS_CERT: join(dir, "cert.pem"), TLS_KEY: join(dir, "key.pem") }, { runtime: "node" });
    running.push(g);
    expect((await peerCertificate(g.httpsPort)).subject.CN).toBe("one.test");
    copyFileSync(join(dir, "two.test.key"), join(dir, "key.new"));
    renameSync(join(dir, "key.new"), join(dir, "key.pem"));
    copyFileSync(join(dir, "two.test.pem"), join(dir, "cert.new"));
    renameSync(join(dir, "cert.new"), join(dir, "cert.pem"));
    expect(await until(async () => (await peerCertificate(g.httpsPort)).subject.CN === "two.test")).toBe(true);
  }, 120_000);
});
