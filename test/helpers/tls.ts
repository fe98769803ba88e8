/** Gateways with TLS on, and what a TLS client sees of them. */
import { connect, type PeerCertificate } from "node:tls";
import { connect as netConnect } from "node:net";
import { networkInterfaces } from "node:os";
import { spawnGateway, type Spawned } from "./gateway.ts";
import { tmpDir } from "./tmp.ts";

export interface TlsGateway extends Spawned {
  /** https://127.0.0.1:PORT (the "Open ... in your browser" address, as loopback) */
  https: string;
  /** http://127.0.0.1:PORT: the plain-http listener */
  http: string;
  httpsPort: number;
}

/** Spawns a gateway with TLS settings; both ports free ones. */
export async function spawnTls(
  env: Record<string, string>,
  opts: { dataDir?: string; runtime?: "bun" | "node" /** listen address; default 127.0.0.1 */; host?: string } = {},
): Promise<TlsGateway> {
  const dataDir = opts.dataDir ?? tmpDir();
  const args = ["serve", "--data", dataDir, "--port", "0", "--host", opts.host ?? "127.0.0.1"];
  const g = await spawnGateway({ env: { HTTPS_PORT: "0", ...env }, dataDir, runtime: opts.runtime, args });
  const plain = /plain http \(.*?\): (http:\/\/\S+?)\/\s/.exec(g.output());
  if (!plain) throw new Error(`no plain-http line:\n${g.output()}`);
  const httpsPort = Number(new URL(g.url).port);
  return { ...g, https: `https://127.0.0.1:${httpsPort}`, http: plain[1]!.replace("localhost", "127.0.0.1"), httpsPort };
}

/** The certificate a TLS client is handed on `port` (server name `servername`), without checking it. */
export function peerCertificate(port: number, servername = "localhost"): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port, servername, rejectUnauthorized: false }, () => {
      resolve(s.getPeerCertificate(true));
      s.end();
    });
    s.once("error", reject);
  });
}

/** The names and addresses in a certificate's subjectAltName. */
export const altNames = (c: PeerCertificate) =>
  (c.subjectaltname ?? "")
    .split(", ")
    .map((n) => n.replace(/^(DNS|IP Address):/, "").toLowerCase())
    // IPv6 in its short form (node:tls writes every group)
    .map((n) => (n.includes(":") ? new URL(`http://[${n}]/`).hostname.slice(1, -1) : n));

/** This machine's non-loopback addresses, as the certificate must cover them (link-local IPv6 aside). */
export function lanAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces()))
    for (const a of list ?? []) if (!a.internal && !/^fe80:/i.test(a.address)) out.push(a.address.toLowerCase());
  return out;
}

/** What a client speaking plain http to the HTTPS port reads before the connection closes. */
export function plainHttpAnswer(httpsPort: number, request: string): Promise<string> {
  return new Promise<string>((resolve) => {
    let got = "";
    const s = netConnect(httpsPort, "127.0.0.1", () => s.write(request));
    s.on("data", (b) => (got += b.toString("latin1")));
    s.on("close", () => resolve(got));
    s.on("error", () => resolve(got));
  });
}

/** Polls `check` until it is true or `ms` pass. */
export async function until(check: () => Promise<boolean> | boolean, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await Bun.sleep(200);
  }
  return false;
}
