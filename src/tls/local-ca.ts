/**
 * TLS=local: the gateway is its own certificate authority, as Caddy's
 * `tls internal`. The CA's key and certificate are made on first start in
 * the data directory (tls/ca.key, tls/ca.pem, both 0600; the key is never
 * served) and kept across restarts, so a device that trusts it once keeps
 * trusting it. The server certificate lives in memory only: it covers every
 * name and address the gateway answers on (names.ts), lasts 30 days, and is
 * issued again at two thirds of that or as soon as an address changes
 * (checked at start and every few minutes).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { answeredNames, sameNames } from "./names.ts";
import { CA_CERT_FILE, CA_KEY_FILE } from "./index.ts";
import type { CertSource, SourceContext } from "./source.ts";
import { fingerprint, issueServer, makeCa, type PemPair } from "./x509.ts";

/** The longest a server certificate lives (Apple's limit for a trusted certificate is 398 days; ours is short). */
const SERVER_DAYS = 30;
/** How often the addresses are looked at again. */
const CHECK_MS = 5 * 60_000;

/** Reads the CA of the data directory's tls/ folder, or makes one there. */
async function loadOrMakeCa(dir: string, log: SourceContext["log"]): Promise<PemPair> {
  const certFile = join(dir, CA_CERT_FILE);
  const keyFile = join(dir, CA_KEY_FILE);
  if (existsSync(certFile) && existsSync(keyFile)) {
    for (const f of [certFile, keyFile]) chmodSync(f, 0o600);
    return { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") };
  }
  const ca = await makeCa(`svc-gateway on ${hostname()}`);
  writeFileSync(keyFile, ca.key, { mode: 0o600 });
  writeFileSync(certFile, ca.cert, { mode: 0o600 });
  log.info("tls", `made a local certificate authority in ${dir} (SHA-256 ${fingerprint(ca.cert)}); devices trust it from /tls`);
  return ca;
}

/** The local CA's source; `check` looks at the addresses and the clock now (the timer runs it every CHECK_MS). */
export interface LocalCaSource extends CertSource {
  check(): Promise<void>;
}

/**
 * `opts` for tests and labs: the clock, and the names the gateway answers on
 * (default: names.ts, from this machine's interfaces).
 */
export async function localCaSource(ctx: SourceContext, opts: { now?: () => number; names?: () => string[] } = {}): Promise<LocalCaSource> {
  const now = opts.now ?? Date.now;
  const answered = opts.names ?? (() => answeredNames(ctx.config.publicUrl));
  const ca = await loadOrMakeCa(ctx.dir, ctx.log);
  const caFingerprint = fingerprint(ca.cert);
  let names = answered();
  let pair = await issueServer(ca, names, SERVER_DAYS, now());
  let notAfter = new Date(new X509Certificate(pair.cert).validTo).getTime();
  let issuedAt = now();
  let lastError: string | null = null;
  let busy = false;
  const check = async () => {
    if (busy) return;
    busy = true;
    try {
      const fresh = answered();
      const renew = issuedAt + ((notAfter - issuedAt) * 2) / 3 <= now();
      if (sameNames(fresh, names) && !renew) return;
      pair = await issueServer(ca, fresh, SERVER_DAYS, now());
      ctx.log.info("tls", renew ? "renewed the server certificate" : "the addresses changed: issued a server certificate for them", { names: fresh });
      names = fresh;
      notAfter = new Date(new X509Certificate(pair.cert).validTo).getTime();
      issuedAt = now();
      lastError = null;
      ctx.swap(pair);
    } catch (e) {
      lastError = `could not issue a server certificate: ${(e as Error).message}`;
      ctx.log.error("tls", lastError);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(() => void check(), CHECK_MS);
  timer.unref?.();
  return {
    check,
    current: () => pair,
    state: () => ({ notAfter, names, lastError, caFingerprint, issuedAt }),
    stop: () => clearInterval(timer),
  };
}
