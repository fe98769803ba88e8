/**
 * TLS=files: the operator's own certificate and key (made here by openssl,
 * as an operator's would be), served on the HTTPS port, read again when the
 * files are replaced (no restart), and refused at start-up, naming the file,
 * when unreadable or not a pair.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { copyFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { runCli } from "../helpers/gateway.ts";
import { peerCertificate, spawnTls, until, type TlsGateway } from "../helpers/tls.ts";
import { tmpDir } from "../helpers/tmp.ts";

const dir = tmpDir();

/** A self-signed pair for `cn` (localhost and 127.0.0.1 in its names), by openssl. */
function makePair(name: string, cn: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`);
  const key = join(dir, `${name}.key`);
  const args = "req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2".split(" ");
  const names = ["-subj", `/CN=${cn}`, "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"];
  const r = spawnSync("openssl", [...args, ...names, "-keyout", key, "-out", cert], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(r.stderr);
  return { cert, key };
}

let g: TlsGateway | null = null;
afterAll(async () => {
  await g?.kill();
});

describe("TLS=files", () => {
  test("serves the pair, and a replaced pair without a restart", async () => {
    const first = makePair("first", "first.test");
    const second = makePair("second", "second.test");
    const cert = join(dir, "served.pem");
    const key = join(dir, "served.key");
    copyFileSync(first.cert, cert);
    copyFileSync(first.key, key);
    g = await spawnTls({ TLS: "files", TLS_CERT: cert, TLS_KEY: key });
    expect((await peerCertificate(g.httpsPort)).subject.CN).toBe("first.test");
    const ca = await Bun.file(first.cert).text();
    expect((await fetch(`${g.https}/health`, { tls: { ca } })).status).toBe(200);
    // the key first, then the certificate, each replaced whole (as certbot and editors do)
    copyFileSync(second.key, `${key}.new`);
    renameSync(`${key}.new`, key);
    copyFileSync(second.cert, `${cert}.new`);
    renameSync(`${cert}.new`, cert);
    expect(await until(async () => (await peerCertificate(g!.httpsPort)).subject.CN === "second.test")).toBe(true);
    const ports = (await (await fetch(`${g.http}/api/ports`)).json()) as { ports: Array<Record<string, unknown>> };
    const tls = ports.ports.find((p) => p.name === "tls")!;
    expect(tls).toMatchObject({ mode: "files", state: "up", lastError: null });
    expect(tls.notAfter).toBe(new Date(new X509Certificate(await Bun.file(second.cert).text()).validTo).getTime());
  });

  test("a certificate with another certificate's key stops start-up, naming the key file", async () => {
    const a = makePair("a", "a.test");
    const b = makePair("b", "b.test");
    const r = await runCli(["serve", "--data", tmpDir(), "--port", "0", "--host", "127.0.0.1"], {
      env: { TLS: "files", TLS_CERT: a.cert, TLS_KEY: b.key, HTTPS_PORT: "0", KISS_PORTS: "off" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`TLS_KEY ${b.key} is not the key of the certificate in TLS_CERT ${a.cert}`);
    expect(r.stdout).not.toContain("is running");
  });

  test("an unreadable certificate file, or one that is not PEM, stops start-up, naming it", async () => {
    const a = makePair("c", "c.test");
    const missing = join(dir, "no-such.pem");
    const r = await runCli(["serve", "--data", tmpDir(), "--port", "0", "--host", "127.0.0.1"], {
      env: { TLS: "files", TLS_CERT: missing, TLS_KEY: a.key, HTTPS_PORT: "0", KISS_PORTS: "off" },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`TLS_CERT ${missing} cannot be read: ENOENT`);
    const junk = join(dir, "junk.pem");
    writeFileSync(junk, "not a certificate\n");
    const j = await runCli(["serve", "--data", tmpDir(), "--port", "0", "--host", "127.0.0.1"], {
      env: { TLS: "files", TLS_CERT: junk, TLS_KEY: a.key, HTTPS_PORT: "0", KISS_PORTS: "off" },
    });
    expect(j.code).toBe(1);
    expect(j.stderr).toContain(`TLS_CERT ${junk} is not a PEM certificate`);
  });

  test("TLS=files without TLS_CERT and TLS_KEY is a settings error", async () => {
    const r = await runCli(["check", "--data", tmpDir()], { env: { TLS: "files" } });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toContain("TLS_CERT");
    expect(r.stdout + r.stderr).toContain("must be set when TLS=files");
  });
});
