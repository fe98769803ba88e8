/**
 * A real ACME server for tests: Pebble (Let's Encrypt's test server, Debian
 * package `pebble`) with pebble-challtestsrv as its DNS. challtestsrv
 * answers no name by default; `resolve(name)` points a name at this machine
 * (127.0.0.1), so Pebble validates its challenges against the gateway's
 * ports (`httpPort`/`tlsPort` of its config). Pebble's directory is on
 * HTTPS with a certificate made here (`caCertFile`: what ACME_CA_CERT names);
 * the root that signs the certificates it issues is `issuingRoot()`.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

import { tmpDir } from "./tmp.ts";
import { collectOutput } from "./gateway.ts";
import { freePorts } from "./ports.ts";

export const pebbleInstalled = () => existsSync("/usr/bin/pebble") && existsSync("/usr/bin/pebble-challtestsrv");

export interface Pebble {
  /** ACME_DIRECTORY */
  directory: string;
  /** ACME_CA_CERT: the TLS root of Pebble's own HTTPS */
  caCertFile: string;
  /** makes `name` resolve to 127.0.0.1 for Pebble */
  resolve(name: string): Promise<void>;
  /** the root of the certificates Pebble issues (a new one each time Pebble starts) */
  issuingRoot(): Promise<string>;
  /** Pebble's output so far */
  output(): string;
  /** stops Pebble (challtestsrv too) */
  stop(): Promise<void>;
}

function run(cmd: string[], env: Record<string, string> = {}): { proc: Subprocess<"ignore", "pipe", "pipe">; out: () => string } {
  const proc = Bun.spawn(cmd, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  return { proc, out: collectOutput(proc) };
}

/** A self-signed certificate for localhost and 127.0.0.1: Pebble's HTTPS. */
function pebbleTlsCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, "pebble-tls.pem");
  const key = join(dir, "pebble-tls.key");
  const r = Bun.spawnSync([
    "openssl",
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "2",
    "-subj",
    "/CN=localhost",
    "-addext",
    "subjectAltName=DNS:localhost,IP:127.0.0.1",
    "-keyout",
    key,
    "-out",
    cert,
  ]);
  if (r.exitCode !== 0) throw new Error(`openssl: ${r.stderr.toString()}`);
  return { cert, key };
}

/**
 * Starts challtestsrv and Pebble. `httpPort`/`tlsPort`: where Pebble checks
 * HTTP-01 and TLS-ALPN-01 (the gateway's PORT and HTTPS_PORT);
 * `validitySeconds`: the lifetime of the certificates it issues.
 */
export async function startPebble(opts: { httpPort: number; tlsPort: number; validitySeconds?: number }): Promise<Pebble> {
  const dir = tmpDir("svc-test-pebble-");
  const [acmePort, mgmtPort, dnsPort, dnsMgmtPort] = await freePorts(4);
  const tls = pebbleTlsCert(dir);
  const config = join(dir, "pebble.json");
  writeFileSync(
    config,
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${mgmtPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort: opts.httpPort,
        tlsPort: opts.tlsPort,
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
        ...(opts.validitySeconds ? { certificateValidityPeriod: opts.validitySeconds } : {}),
      },
    }),
  );
  const dns = run([
    "pebble-challtestsrv",
    "-defaultIPv4",
    "",
    "-defaultIPv6",
    "",
    "-dns01",
    `127.0.0.1:${dnsPort}`,
    "-management",
    `127.0.0.1:${dnsMgmtPort}`,
    "-http01",
    "",
    "-https01",
    "",
    "-tlsalpn01",
    "",
  ]);
  // no random validation sleeps, no rejected nonces: fast and the same every run
  const pebble = run(["pebble", "-config", config, "-dnsserver", `127.0.0.1:${dnsPort}`], { PEBBLE_VA_NOSLEEP: "1", PEBBLE_WFE_NONCEREJECT: "0" });
  const directory = `https://localhost:${acmePort}/dir`;
  const caPem = await Bun.file(tls.cert).text();
  const stop = async () => {
    for (const p of [pebble.proc, dns.proc]) p.kill();
    await Promise.all([pebble.proc.exited, dns.proc.exited]);
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await fetch(directory, { tls: { ca: caPem } }).then(
      (r) => r.ok,
      () => false,
    );
    const dnsUp = await fetch(`http://127.0.0.1:${dnsMgmtPort}/clear-a`, { method: "POST", body: JSON.stringify({ host: "probe.test" }) }).then(
      (r) => r.ok,
      () => false,
    );
    if (up && dnsUp) break;
    if (Date.now() > deadline || pebble.proc.exitCode !== null || dns.proc.exitCode !== null) {
      await stop();
      throw new Error(`pebble did not start:\n${pebble.out()}\n${dns.out()}`);
    }
    await Bun.sleep(100);
  }
  return {
    directory,
    caCertFile: tls.cert,
    async resolve(name) {
      const r = await fetch(`http://127.0.0.1:${dnsMgmtPort}/add-a`, { method: "POST", body: JSON.stringify({ host: name, addresses: ["127.0.0.1"] }) });
      if (!r.ok) throw new Error(`challtestsrv add-a ${name}: ${r.status}`);
    },
    issuingRoot: () => fetch(`https://localhost:${mgmtPort}/roots/0`, { tls: { ca: caPem } }).then((r) => r.text()),
    output: pebble.out,
    stop,
  };
}
