/**
 * TLS=acme against a real ACME server: Pebble, with pebble-challtestsrv as
 * its DNS (a test name resolves to this machine) and its httpPort/tlsPort
 * pointed at a spawned gateway's PORT and HTTPS_PORT. What a client sees:
 * the certificate served on the HTTPS port chains to Pebble's root for the
 * name; what an operator sees: the files in the data directory, the log line
 * and GET /api/ports.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { connect } from "node:tls";
import { request } from "node:https";

import { runCli, spawnGateway, type Spawned } from "../helpers/gateway.ts";
import { pebbleInstalled, startPebble, type Pebble } from "../helpers/pebble.ts";
import { peerCertificate, until } from "../helpers/tls.ts";
import { tmpDir } from "../helpers/tmp.ts";
import { freePorts } from "../helpers/ports.ts";

const live = pebbleInstalled();

interface TlsPort {
  mode: string;
  state: string;
  notAfter: number | null;
  names: string[];
  lastError: string | null;
  serial: string | null;
  challenge: string;
  nextAttemptAt: number | null;
  failures: number;
}

async function tlsPort(httpPort: number): Promise<TlsPort> {
  const body = (await (await fetch(`http://127.0.0.1:${httpPort}/api/ports`)).json()) as { ports: Array<{ name: string } & TlsPort> };
  return body.ports.find((p) => p.name === "tls")!;
}

/** A gateway with TLS=acme against `pebble`, on fixed ports (Pebble's config names them). */
function spawnAcme(pebble: Pebble, ports: [number, number], env: Record<string, string>, opts: { dataDir?: string; runtime?: "bun" | "node" } = {}) {
  return spawnGateway({
    port: ports[0],
    dataDir: opts.dataDir,
    runtime: opts.runtime,
    env: {
      TLS: "acme",
      HTTPS_PORT: String(ports[1]),
      ACME_DIRECTORY: pebble.directory,
      ACME_CA_CERT: pebble.caCertFile,
      ACME_EMAIL: "n0call@example.org",
      LOG_LEVEL: "info",
      ...env,
    },
  });
}

const SYSOP_SECRET = "sysop-ingest-secret-0123456789";

/** Whether a client that trusts only `root` accepts the HTTPS port's certificate for `name`. */
function trustedFor(port: number, name: string, root: string): Promise<{ authorized: boolean; error: string | null; serial: string }> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, servername: name, ca: [root], rejectUnauthorized: false }, () => {
      resolve({ authorized: s.authorized, error: s.authorizationError ? String(s.authorizationError) : null, serial: s.getPeerCertificate().serialNumber });
      s.end();
    });
    s.once("error", reject);
  });
}

/** An HTTPS GET for `name` on the gateway's port, trusting only `root`: the status and headers. */
function httpsGet(port: number, name: string, root: string, path: string): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const r = request({ host: "127.0.0.1", port, servername: name, ca: [root], path, headers: { host: name } }, (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, headers: res.headers });
    });
    r.once("error", reject);
    r.end();
  });
}

describe.skipIf(!live)("TLS=acme with HTTP-01 (Bun), a restart without the ACME server", () => {
  const dataDir = tmpDir();
  let ports: [number, number];
  let pebble: Pebble;
  let g: Spawned;
  let root: string;
  let serial: string;

  beforeAll(async () => {
    ports = (await freePorts(2)) as [number, number];
    pebble = await startPebble({ httpPort: ports[0], tlsPort: ports[1] });
    await pebble.resolve("gw.test");
    await pebble.resolve("www.gw.test");
    root = await pebble.issuingRoot();
    g = await spawnAcme(pebble, ports, { ACME_DOMAINS: "gw.test,www.gw.test" }, { dataDir });
  });
  afterAll(async () => {
    await g?.kill();
    await pebble?.stop();
  });

  test("the gateway gets a certificate for every ACME_DOMAINS name by HTTP-01 and serves it, chained to the ACME server's root", async () => {
    expect(await until(async () => (await tlsPort(ports[0])).notAfter !== null, 30_000)).toBe(true);
    const state = await tlsPort(ports[0]);
    expect(state).toMatchObject({ mode: "acme", state: "up", names: ["gw.test", "www.gw.test"], lastError: null, challenge: "http-01", failures: 0 });
    expect(g.output()).toContain("ACME: got a certificate for gw.test, www.gw.test");
    // Bun binds the HTTPS port again for the new certificate
    expect(await until(async () => (await trustedFor(ports[1], "gw.test", root)).authorized)).toBe(true);
    for (const name of ["gw.test", "www.gw.test"]) {
      const seen = await trustedFor(ports[1], name, root);
      expect(seen).toMatchObject({ authorized: true, error: null });
      serial = seen.serial;
    }
    expect(state.serial).toBe(serial);
    expect(state.notAfter).toBe(new Date((await peerCertificate(ports[1], "gw.test")).valid_to).getTime());
  });

  test("the account key, the certificate and its key are in the data directory, readable by the gateway's user only", () => {
    for (const f of ["acme-account.key", "acme.pem", "acme.key"]) expect(statSync(join(dataDir, "tls", f)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, "tls", "acme.pem"), "utf8")).toContain("BEGIN CERTIFICATE");
    expect(readFileSync(join(dataDir, "tls", "acme.key"), "utf8")).toContain("PRIVATE KEY");
  });

  test("HTTPS answers carry HSTS with TLS=acme; plain http still answers the challenge path (404 for an unknown token) and machine clients", async () => {
    const r = await httpsGet(ports[1], "gw.test", root, "/health");
    expect(r.status).toBe(200);
    expect(r.headers["strict-transport-security"]).toBe("max-age=31536000");
    const challenge = await fetch(`http://127.0.0.1:${ports[0]}/.well-known/acme-challenge/no-such-token`, { redirect: "manual" });
    expect(challenge.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${ports[0]}/health`, { redirect: "manual" })).status).toBe(200);
  });

  test("after a restart with the ACME server gone, the stored certificate is served at once, with no new order", async () => {
    await g.kill();
    await pebble.stop();
    g = await spawnAcme(pebble, ports, { ACME_DOMAINS: "gw.test,www.gw.test" }, { dataDir });
    const seen = await trustedFor(ports[1], "gw.test", root);
    expect(seen).toMatchObject({ authorized: true, serial });
    await Bun.sleep(1000);
    const state = await tlsPort(ports[0]);
    expect(state).toMatchObject({ serial, lastError: null, failures: 0 });
    expect(state.nextAttemptAt! - Date.now()).toBeGreaterThan(365 * 86_400_000);
    expect(g.output()).not.toContain("ACME: got");
    expect(g.output()).not.toContain("ACME: no certificate");
  });

  test("a stored certificate from another ACME server (staging, then production) is replaced at start by one from the new ACME_DIRECTORY", async () => {
    await g.kill();
    const other = await startPebble({ httpPort: ports[0], tlsPort: ports[1] });
    try {
      await other.resolve("gw.test");
      await other.resolve("www.gw.test");
      const otherRoot = await other.issuingRoot();
      g = await spawnAcme(other, ports, { ACME_DOMAINS: "gw.test,www.gw.test" }, { dataDir });
      expect(await until(async () => (await trustedFor(ports[1], "gw.test", otherRoot).catch(() => ({ authorized: false }))).authorized, 30_000)).toBe(true);
      expect(g.output()).toContain(`ACME: the stored certificate came from ${pebble.directory}: ordering one from ${other.directory}`);
      expect(readFileSync(join(dataDir, "tls", "acme.from"), "utf8").trim()).toBe(other.directory);
      expect((await tlsPort(ports[0])).serial).not.toBe(serial);
    } finally {
      await g.kill();
      await other.stop();
    }
  });
});

describe.skipIf(!live)("renewal", () => {
  let ports: [number, number];
  let pebble: Pebble;
  let g: Spawned;

  beforeAll(async () => {
    ports = (await freePorts(2)) as [number, number];
    // certificates that live 15 s: renewed 10 s after they start
    pebble = await startPebble({ httpPort: ports[0], tlsPort: ports[1], validitySeconds: 15 });
    await pebble.resolve("renew.test");
    g = await spawnAcme(pebble, ports, { ACME_DOMAINS: "renew.test" });
  });
  afterAll(async () => {
    await g?.kill();
    await pebble?.stop();
  });

  test("a certificate is renewed at two thirds of its lifetime and the new one is served", async () => {
    const root = await pebble.issuingRoot();
    expect(await until(async () => (await tlsPort(ports[0])).serial !== null, 30_000)).toBe(true);
    const first = await tlsPort(ports[0]);
    expect(await until(async () => (await trustedFor(ports[1], "renew.test", root)).serial === first.serial)).toBe(true);
    expect(await until(() => g.output().includes("ACME: renewed the certificate for renew.test"), 30_000)).toBe(true);
    const second = await tlsPort(ports[0]);
    expect(second.serial).not.toBe(first.serial);
    expect(second.notAfter!).toBeGreaterThan(first.notAfter!);
    expect(await until(async () => (await trustedFor(ports[1], "renew.test", root).catch(() => ({ serial: "" }))).serial !== first.serial)).toBe(true);
    expect(await trustedFor(ports[1], "renew.test", root)).toMatchObject({ authorized: true });
  }, 60_000);

  test("a renewal that fails keeps the current certificate, says so in the log and in /api/ports, and is retried", async () => {
    const root = await pebble.issuingRoot();
    const { serial } = await tlsPort(ports[0]);
    await pebble.stop();
    expect(await until(() => g.output().includes("ACME: no certificate for renew.test: "), 30_000)).toBe(true);
    const line = g
      .output()
      .split("\n")
      .find((l) => l.includes("ACME: no certificate for renew.test: "))!;
    expect(line).toContain("trying again in 1 min (still serving the current certificate)");
    const state = await tlsPort(ports[0]);
    expect(state).toMatchObject({ serial, failures: 1 });
    expect(state.lastError).toStartWith("no certificate for renew.test: ");
    expect(state.nextAttemptAt! - Date.now()).toBeGreaterThan(30_000);
    expect(await trustedFor(ports[1], "renew.test", root)).toMatchObject({ authorized: true, serial });
  }, 60_000);
});

describe.skipIf(!live)("a failing order", () => {
  let ports: [number, number];
  let pebble: Pebble;
  let g: Spawned;

  beforeAll(async () => {
    ports = (await freePorts(2)) as [number, number];
    pebble = await startPebble({ httpPort: ports[0], tlsPort: ports[1] });
    await pebble.resolve("ok.test");
    // nowhere.test resolves to nothing (yet)
    g = await spawnAcme(pebble, ports, { ACME_DOMAINS: "ok.test,nowhere.test", INGEST_SECRET: SYSOP_SECRET, ADMIN_CALLSIGNS: "N0OPS" });
  });
  afterAll(async () => {
    await g?.kill();
    await pebble?.stop();
  });

  test("a name that does not resolve to the gateway: a log line naming it and the reason, the error in /api/ports, a retry due a minute later, and the sysop's retry now succeeds once it does", async () => {
    expect(await until(() => g.output().includes("ACME: no certificate for nowhere.test"), 30_000)).toBe(true);
    const line = g
      .output()
      .split("\n")
      .find((l) => l.includes("ACME: no certificate for nowhere.test"))!;
    expect(line).toContain("error");
    expect(line).toMatch(/could not resolve|DNS problem|NXDOMAIN/i);
    expect(line).toContain("trying again in 1 min");
    const state = await tlsPort(ports[0]);
    expect(state.lastError).toStartWith("no certificate for nowhere.test: ");
    expect(state).toMatchObject({ state: "down", notAfter: null, failures: 1 });
    expect(state.nextAttemptAt! - Date.now()).toBeGreaterThan(30_000);
    expect(state.nextAttemptAt! - Date.now()).toBeLessThanOrEqual(60_000);
    // the sysop's "try again now" needs the sysop
    const retry = (headers: Record<string, string>) => fetch(`http://127.0.0.1:${ports[0]}/api/tls/retry`, { method: "POST", headers });
    expect((await retry({})).status).toBe(401);
    // the name now reaches us: the sysop does not wait the minute, and the retry gets the certificate
    await pebble.resolve("nowhere.test");
    const asked = await retry({ "x-ingest-secret": SYSOP_SECRET });
    expect(asked.status).toBe(202);
    expect(await until(() => g.output().includes("ACME: got a certificate for ok.test, nowhere.test"), 30_000)).toBe(true);
    expect(await tlsPort(ports[0])).toMatchObject({ state: "up", lastError: null, failures: 0 });
    expect(await trustedFor(ports[1], "nowhere.test", await pebble.issuingRoot())).toMatchObject({ authorized: true });
    // with nothing failed, there is nothing to retry
    const again = await retry({ "x-ingest-secret": SYSOP_SECRET });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: string }).error).toBe("nothing_to_retry");
  }, 60_000);
});

describe.skipIf(!live)("TLS-ALPN-01", () => {
  test.each(["bun", "node"] as const)(
    "on the %s host the HTTPS port answers TLS-ALPN-01: the certificate is issued and served, and other clients are unaffected",
    async (runtime) => {
      const ports = (await freePorts(2)) as [number, number];
      const pebble = await startPebble({ httpPort: ports[0], tlsPort: ports[1] });
      let g: Spawned | null = null;
      try {
        await pebble.resolve("alpn.test");
        g = await spawnAcme(pebble, ports, { ACME_DOMAINS: "alpn.test", ACME_CHALLENGE: "tls-alpn-01" }, { runtime });
        expect(await until(async () => (await tlsPort(ports[0])).notAfter !== null, 30_000)).toBe(true);
        expect(await tlsPort(ports[0])).toMatchObject({ challenge: "tls-alpn-01", lastError: null });
        const root = await pebble.issuingRoot();
        expect(await trustedFor(ports[1], "alpn.test", root)).toMatchObject({ authorized: true });
        expect((await httpsGet(ports[1], "alpn.test", root, "/health")).status).toBe(200);
        // a client offering acme-tls/1 among others with no challenge pending: the ordinary certificate and protocol
        const asked = await new Promise<{ authorized: boolean; alpn: string | false | null }>((resolve, reject) => {
          const s = connect(
            { host: "127.0.0.1", port: ports[1], servername: "alpn.test", ca: [root], ALPNProtocols: ["acme-tls/1", "http/1.1"], rejectUnauthorized: false },
            () => {
              resolve({ authorized: s.authorized, alpn: s.alpnProtocol });
              s.end();
            },
          );
          s.once("error", reject);
        });
        // never acme-tls/1: node:https picks http/1.1, Bun.serve picks no ALPN protocol at all
        expect(asked).toEqual({ authorized: true, alpn: runtime === "node" ? "http/1.1" : false });
      } finally {
        await g?.kill();
        await pebble.stop();
      }
    },
    90_000,
  );
});

describe("settings", () => {
  test("TLS=acme needs ACME_DOMAINS; a wildcard or a bare name is refused by name", async () => {
    const none = await runCli(["check", "--data", tmpDir()], { env: { TLS: "acme" } });
    expect(none.code).not.toBe(0);
    expect(none.stdout + none.stderr).toContain("ACME_DOMAINS");
    const wild = await runCli(["check", "--data", tmpDir()], { env: { TLS: "acme", ACME_DOMAINS: "*.gw.example.org" } });
    expect(wild.code).not.toBe(0);
    expect(wild.stdout + wild.stderr).toContain("a wildcard needs the DNS-01 challenge");
    const bare = await runCli(["check", "--data", tmpDir()], { env: { TLS: "acme", ACME_DOMAINS: "gateway" } });
    expect(bare.stdout + bare.stderr).toContain('"gateway" is not a public DNS name');
    const good = await runCli(["check", "--data", tmpDir()], { env: { TLS: "acme", ACME_DOMAINS: "gw.example.org, www.gw.example.org" } });
    expect(good.stdout + good.stderr).not.toContain("ACME_DOMAINS");
  });
});
